(function_declaration name: (identifier) @name) @definition.function
(function_declaration name: (dot_index_expression table: (_) @scope field: (identifier) @name)) @definition.function
(function_declaration name: (method_index_expression table: (_) @scope method: (identifier) @name)) @definition.method
(variable_declaration (assignment_statement (variable_list name: (identifier) @name) (expression_list value: (function_definition body: (_) @body)))) @definition.function
(chunk (assignment_statement (variable_list name: (identifier) @name) (expression_list value: (function_definition body: (_) @body))) @definition.function)
((chunk (assignment_statement (variable_list name: (identifier) @name)) @definition.constant) (#match? @name "^[A-Z][A-Z0-9_]*$"))

(function_call name: (identifier) @name) @reference.call
(function_call name: (dot_index_expression field: (identifier) @name)) @reference.member
(function_call name: (method_index_expression method: (identifier) @name)) @reference.member
((function_call name: (identifier) @f arguments: (arguments (string content: (string_content) @name))) @reference.import
  (#eq? @f "require"))
