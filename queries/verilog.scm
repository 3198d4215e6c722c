(module_declaration (module_header (simple_identifier) @name) . [(module_ansi_header) (module_nonansi_header)] . (_) @body) @definition.module
(module_declaration (module_header (simple_identifier) @name)) @definition.module
(interface_declaration [(interface_ansi_header (interface_identifier) @name) (interface_nonansi_header (interface_identifier) @name)]) @definition.interface
(program_declaration [(program_ansi_header (program_identifier) @name) (program_nonansi_header (program_identifier) @name)]) @definition.module
(package_declaration (package_identifier) @name) @definition.module
(class_declaration (class_identifier) @name) @definition.class
(_ (package_or_generate_item_declaration (function_declaration (function_body_declaration (function_identifier) @name
  [(function_statement_or_null) (tf_item_declaration) (block_item_declaration)] @body)))) @definition.function
(_ (package_or_generate_item_declaration (task_declaration (task_body_declaration (task_identifier) @name
  [(statement_or_null) (tf_item_declaration) (block_item_declaration)] @body)))) @definition.function
(_ (package_or_generate_item_declaration (function_declaration (function_body_declaration (function_identifier) @name)))) @definition.function
(_ (package_or_generate_item_declaration (task_declaration (task_body_declaration (task_identifier) @name)))) @definition.function
(class_method (function_declaration (function_body_declaration (function_identifier) @name))) @definition.function
(class_method (task_declaration (task_body_declaration (task_identifier) @name))) @definition.function
(type_declaration (simple_identifier) @name .) @definition.type
(local_parameter_declaration (list_of_param_assignments (param_assignment (parameter_identifier) @name))) @definition.constant
(parameter_declaration (list_of_param_assignments (param_assignment (parameter_identifier) @name))) @definition.constant
(text_macro_definition (text_macro_name (text_macro_identifier) @name) . (macro_text)? @definition.macro) @definition.macro

(module_instantiation . (simple_identifier) @name) @reference.call
(tf_call . (simple_identifier) @name) @reference.call
(package_import_item (package_identifier) @name) @reference.import
(include_compiler_directive (double_quoted_string) @name) @reference.import
(data_type . (simple_identifier) @name) @reference.type
(net_declaration . (simple_identifier) @name) @reference.type
(interface_port_header (interface_identifier) @name) @reference.type
(class_declaration "extends" (class_type (class_identifier) @name)) @reference.inherit
(class_type (class_identifier) @name) @reference.type
