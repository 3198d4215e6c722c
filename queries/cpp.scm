; inherits: c
(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(namespace_definition name: (_) @name body: (_) @body) @definition.module
(alias_declaration name: (type_identifier) @name) @definition.type
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @definition.function
(function_definition declarator: (function_declarator declarator: (field_identifier) @name)) @definition.function
(function_definition declarator: (function_declarator declarator: (qualified_identifier scope: (_) @scope name: (identifier) @name))) @definition.method
(function_definition declarator: (reference_declarator (function_declarator declarator: (identifier) @name))) @definition.function
(declaration (type_qualifier) @q declarator: (init_declarator declarator: (identifier) @name) (#match? @q "const")) @definition.constant

(call_expression function: (qualified_identifier name: (identifier) @name)) @reference.call
(call_expression function: (template_function name: (identifier) @name)) @reference.call
(base_class_clause (type_identifier) @name) @reference.inherit
(base_class_clause (qualified_identifier name: (type_identifier) @name)) @reference.inherit
(new_expression type: (type_identifier) @name) @reference.call
