(module_declaration name: (upper_case_qid) @name) @definition.module
(value_declaration functionDeclarationLeft: (function_declaration_left . (lower_case_identifier) @name)) @definition.function
(type_alias_declaration name: (upper_case_identifier) @name) @definition.type
(type_declaration name: (upper_case_identifier) @name) @definition.enum
(port_annotation name: (lower_case_identifier) @name) @definition.function

(import_clause moduleName: (upper_case_qid) @name) @reference.import
(function_call_expr target: (value_expr name: (value_qid (lower_case_identifier) @name .))) @reference.call
(function_call_expr target: (value_expr name: (upper_case_qid (upper_case_identifier) @name .))) @reference.call
(value_expr name: (value_qid (lower_case_identifier) @name .)) @reference.call
(type_ref (upper_case_qid (upper_case_identifier) @name .)) @reference.type
(import_clause exposing: (exposing_list (exposed_value (lower_case_identifier) @name) @reference.call))
(import_clause exposing: (exposing_list (exposed_type (upper_case_identifier) @name) @reference.type))
