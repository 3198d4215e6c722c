; HCL and Terraform. A block's last label is its name, as a traversal spells it after the
; type (`aws_s3_bucket.logs`, `var.region`, `module.network`); a resource's or data source's
; type label is its scope, so its ID reads `aws_s3_bucket.logs`, and two resources both named
; `this` stay apart.
((block (identifier) @keyword . (string_lit (template_literal) @scope) . (string_lit (template_literal) @name)
  . (block_start) @body) @definition.struct
  (#any-of? @keyword "resource" "data"))
((block (identifier) @keyword . (string_lit (template_literal) @name) . (block_start) @body) @definition.constant
  (#any-of? @keyword "variable" "output"))
((block (identifier) @keyword . (string_lit (template_literal) @name) . (block_start) @body) @definition.module
  (#eq? @keyword "module"))
((block (identifier) @keyword (body (attribute (identifier) @name) @definition.constant))
  (#eq? @keyword "locals"))
(config_file (body (attribute (identifier) @name) @definition.constant))

; References: the name after `var.`, `local.`, `module.` or a resource type, and after
; `data.<type>.`; `count.`, `each.`, `self.`, `path.` and `terraform.` name no definition.
((expression (variable_expr (identifier) @root) . (get_attr (identifier) @name)) @reference.variable
  (#not-match? @root "^(data|count|each|self|path|terraform)$"))
((expression (variable_expr (identifier) @root) . (get_attr) . (get_attr (identifier) @name)) @reference.variable
  (#eq? @root "data"))
(function_call (identifier) @name) @reference.call
