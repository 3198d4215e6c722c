; inherits: c
(class_interface . (identifier) @name) @definition.interface
(protocol_declaration . (identifier) @name) @definition.interface
(class_implementation . (identifier) @name) @definition.class
(implementation_definition (method_definition . (method_type) . (identifier) @name (compound_statement) @body)) @definition.function
(method_declaration . (method_type) . (identifier) @name) @definition.function
(declaration (type_qualifier "const") declarator: (init_declarator declarator: (identifier) @name)) @definition.constant

(message_expression receiver: (_) . method: (identifier) @name) @reference.member
(class_interface superclass: (identifier) @name) @reference.inherit
(parameterized_arguments (type_name (type_identifier) @name)) @reference.inherit
((message_expression receiver: (identifier) @name) @reference.type (#not-match? @name "^(self|super)$"))
