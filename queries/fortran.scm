(module (module_statement (name) @name) . (_) @body (end_module_statement _ @definition.module .)) @definition.module
(submodule (submodule_statement (name) @name) . (_) @body (end_submodule_statement _ @definition.module .)) @definition.module
(program (program_statement (name) @name) . (_) @body (end_program_statement _ @definition.module .)) @definition.module
(function (function_statement name: (name) @name) . (_) @body (end_function_statement _ @definition.function .)) @definition.function
(subroutine (subroutine_statement name: (name) @name) . (_) @body (end_subroutine_statement _ @definition.function .)) @definition.function
(module_procedure (module_procedure_statement name: (name) @name) . (_) @body (end_module_procedure_statement _ @definition.function .)) @definition.function
(derived_type_definition (derived_type_statement (type_name) @name) . (_) @body (end_type_statement _ @definition.struct .)) @definition.struct
(interface (interface_statement (name) @name) . (_) @body (end_interface_statement _ @definition.interface .)) @definition.interface
(variable_declaration (type_qualifier "parameter") declarator: (init_declarator left: (identifier) @name)) @definition.constant

(subroutine_call subroutine: (identifier) @name) @reference.call
(call_expression . (identifier) @name) @reference.call
(call_expression . (derived_type_member_expression (type_member) @name .)) @reference.member
(subroutine_call subroutine: (derived_type_member_expression (type_member) @name .)) @reference.member
(derived_type name: (type_name) @name) @reference.type
(derived_type_statement (base_type_specifier (identifier) @name)) @reference.inherit
(procedure_statement (method_name) @name) @reference.call
(procedure_statement (binding (method_name) @name)) @reference.call
(use_statement (module_name) @name) @reference.import
(included_items (identifier) @name) @reference.import
