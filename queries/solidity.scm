(contract_declaration name: (identifier) @name body: (_) @body) @definition.class
(interface_declaration name: (identifier) @name body: (_) @body) @definition.interface
(library_declaration name: (identifier) @name body: (_) @body) @definition.module
(struct_declaration name: (identifier) @name body: (_) @body) @definition.struct
(enum_declaration name: (identifier) @name) @definition.enum
(function_definition name: (identifier) @name) @definition.function
(modifier_definition name: (identifier) @name) @definition.function
(event_definition name: (identifier) @name) @definition.type
(error_declaration name: (identifier) @name) @definition.type
(user_defined_type_definition name: (identifier) @name) @definition.type
(state_variable_declaration "constant" name: (identifier) @name) @definition.constant
(constant_variable_declaration name: (identifier) @name) @definition.constant

(call_expression function: (expression (identifier) @name)) @reference.call
(call_expression function: (expression (member_expression property: (identifier) @name))) @reference.member
(modifier_invocation (identifier) @name) @reference.call
(emit_statement name: (expression (identifier) @name)) @reference.call
(revert_statement error: (expression (identifier) @name)) @reference.call
(inheritance_specifier ancestor: (user_defined_type (identifier) @name .)) @reference.inherit
(user_defined_type (identifier) @name .) @reference.type
(import_directive import_name: (identifier) @name) @reference.import
