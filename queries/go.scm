(function_declaration name: (identifier) @name body: (_) @body) @definition.function
(method_declaration receiver: (parameter_list (parameter_declaration type: [(type_identifier) @scope (pointer_type (type_identifier) @scope) (generic_type type: (type_identifier) @scope) (pointer_type (generic_type type: (type_identifier) @scope))])) name: (field_identifier) @name body: (_) @body) @definition.method
(method_declaration name: (field_identifier) @name body: (_) @body) @definition.method
(type_spec name: (type_identifier) @name type: (struct_type) @body) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type) @body) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type
(method_elem name: (field_identifier) @name) @definition.method
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.constant))

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (selector_expression field: (field_identifier) @name)) @reference.member
(composite_literal type: (type_identifier) @name) @reference.call
(type_identifier) @name @reference.type
(qualified_type name: (type_identifier) @name) @reference.type
(import_spec path: (interpreted_string_literal (interpreted_string_literal_content) @name)) @reference.import
