(function name: (identifier) @name) @definition.function
(constant name: (identifier) @name) @definition.constant
(type_definition (type_name name: (type_identifier) @name) (data_constructors) @body) @definition.type
(type_alias (type_name name: (type_identifier) @name)) @definition.type
(external_type (type_name name: (type_identifier) @name)) @definition.type

(import module: (module) @name) @reference.import
(unqualified_import name: (_) @name) @reference.import
(function_call function: (identifier) @name) @reference.call
(function_call function: (field_access field: (label) @name)) @reference.call
(binary_expression operator: "|>" right: (identifier) @name) @reference.call
(binary_expression operator: "|>" right: (field_access field: (label) @name)) @reference.call
(type name: (type_identifier) @name) @reference.type
(record name: (constructor_name) @name) @reference.type
