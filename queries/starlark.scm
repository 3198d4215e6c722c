; Starlark (Bazel's .bzl files, BUILD and WORKSPACE): functions, constants, rules and
; providers a .bzl file declares, and the targets a BUILD file declares (a top-level call
; with `name = "..."`, shown by the lines down to its name).
(function_definition name: (identifier) @name body: (_) @body) @definition.function
((module (expression_statement (assignment left: (identifier) @name right: (call function: (identifier) @maker))) @definition.function)
  (#any-of? @maker "rule" "macro" "repository_rule" "aspect" "module_extension" "tag_class"))
((module (expression_statement (assignment left: (identifier) @name right: (call function: (identifier) @maker))) @definition.struct)
  (#eq? @maker "provider"))
((module (expression_statement (assignment left: (identifier) @name)) @definition.constant)
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))
((module (expression_statement (call arguments: (argument_list (keyword_argument name: (identifier) @key
  value: (string (string_content) @name))))) @definition.module)
  (#eq? @key "name"))

; References: calls (a BUILD file's rules and macros), and the symbols `load` brings in.
((call function: (identifier) @loader arguments: (argument_list (string) (string (string_content) @name))) @reference.import
  (#eq? @loader "load"))
(call function: (identifier) @name) @reference.call
(call function: (attribute attribute: (identifier) @name)) @reference.member
