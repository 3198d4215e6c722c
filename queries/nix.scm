; Bindings of functions, and of attribute sets (whose bindings nest under them). The signature
; runs to the body of the binding's first function: `name = a: b:` shows `name = a:`.
(binding attrpath: (attrpath attr: (_) @name .) expression: (function_expression body: (_) @body)) @definition.function
(binding attrpath: (attrpath attr: (_) @name .) expression: (attrset_expression (binding_set) @body)) @definition.module
(binding attrpath: (attrpath attr: (_) @name .) expression: (rec_attrset_expression (binding_set) @body)) @definition.module

((apply_expression function: (variable_expression name: (identifier) @name)) @reference.call
  (#not-match? @name "^(import|builtins)$"))
(apply_expression function: (select_expression attrpath: (attrpath attr: (_) @name .))) @reference.member
((apply_expression function: (variable_expression name: (identifier) @f) argument: (path_expression) @name) @reference.import
  (#any-of? @f "import" "callPackage"))
((variable_expression name: (identifier) @name) @reference.call
  (#not-match? @name "^(import|builtins)$"))
(select_expression attrpath: (attrpath attr: (_) @name .)) @reference.member
(inherited_attrs attr: (identifier) @name) @reference.import
