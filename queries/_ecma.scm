; Shared by JavaScript, TypeScript and TSX.
(class_declaration name: (_) @name body: (_) @body) @definition.class
(class name: (_) @name body: (_) @body) @definition.class
(function_declaration name: (identifier) @name body: (_) @body) @definition.function
(generator_function_declaration name: (identifier) @name body: (_) @body) @definition.function
(method_definition name: (_) @name body: (_) @body) @definition.method
(variable_declarator name: (identifier) @name value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.function
(program (lexical_declaration (variable_declarator name: (identifier) @name value: (_)) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name value: (_)) @definition.constant))
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (member_expression property: (property_identifier) @name)) @reference.member
(new_expression constructor: (identifier) @name) @reference.call
(new_expression constructor: (member_expression property: (property_identifier) @name)) @reference.call
(import_specifier name: (identifier) @name) @reference.import
(expression_statement (assignment_expression
  left: (member_expression object: (_) @scope property: (property_identifier) @name)
  right: [(function_expression body: (_) @body) (arrow_function body: (_) @body)])) @definition.function
