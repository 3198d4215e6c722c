; A docstring stands right before what it documents, as a string of its own.
((string_literal) @doc . (function_definition (signature (call_expression . [(identifier) @name (field_expression (identifier) @name .)])) (block)? @body) @definition.function)
(function_definition (signature (call_expression . [(identifier) @name (field_expression (identifier) @name .)])) (block)? @body) @definition.function
(function_definition (signature (typed_expression (call_expression . [(identifier) @name (field_expression (identifier) @name .)]))) (block)? @body) @definition.function
(function_definition (signature (where_expression . [(call_expression . (identifier) @name) (typed_expression (call_expression . (identifier) @name))])) (block)? @body) @definition.function
((string_literal) @doc . (assignment . (call_expression . (identifier) @name)) @definition.function)
(assignment . (call_expression . (identifier) @name)) @definition.function
(assignment . (typed_expression . (call_expression . (identifier) @name))) @definition.function
(macro_definition (signature (call_expression . (identifier) @name)) (block)? @body) @definition.macro
((string_literal) @doc . (struct_definition (type_head [(identifier) @name (binary_expression . (identifier) @name) (parametrized_type_expression . (identifier) @name)]) (block)? @body) @definition.struct)
(struct_definition (type_head [(identifier) @name (binary_expression . (identifier) @name) (parametrized_type_expression . (identifier) @name)]) (block)? @body) @definition.struct
(abstract_definition (type_head [(identifier) @name (binary_expression . (identifier) @name) (parametrized_type_expression . (identifier) @name)])) @definition.interface
(module_definition name: (identifier) @name (block)? @body) @definition.module
(const_statement (assignment . (identifier) @name)) @definition.constant

(call_expression . (identifier) @name) @reference.call
(call_expression . (field_expression (identifier) @name .)) @reference.member
(broadcast_call_expression . (identifier) @name) @reference.call
(macrocall_expression (macro_identifier (identifier) @name)) @reference.macro
(type_head (binary_expression (identifier) . (operator) . (identifier) @name)) @reference.inherit
(typed_expression (identifier) . (identifier) @name) @reference.type
(parametrized_type_expression . (identifier) @name) @reference.type
(using_statement (identifier) @name) @reference.import
(import_statement (identifier) @name) @reference.import
(selected_import . (identifier) @name) @reference.import
