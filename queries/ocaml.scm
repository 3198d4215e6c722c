; inherits: _ocaml
; Top-level lets: an interface has none (its grammar rejects these patterns).
(compilation_unit (value_definition (let_binding pattern: (value_name) @name (parameter) body: (_) @body)) @definition.function)
(compilation_unit (value_definition (let_binding pattern: (value_name) @name body: [(function_expression) (fun_expression)] @body)) @definition.function)
(compilation_unit (value_definition (let_binding pattern: (value_name) @name)) @definition.constant)
