; Shared by OCaml implementations (.ml) and interfaces (.mli).
(module_type_definition (module_type_name) @name body: (_)? @body) @definition.interface
(module_definition (module_binding (module_name) @name body: (_)? @body)) @definition.module
(type_definition (type_binding name: (type_constructor) @name)) @definition.type
(exception_definition (constructor_declaration (constructor_name) @name)) @definition.type
(class_definition (class_binding (class_name) @name body: (_) @body)) @definition.class
(method_definition (method_name) @name body: (_) @body) @definition.method
(value_specification (value_name) @name) @definition.function
(structure (value_definition (let_binding pattern: (value_name) @name (parameter) body: (_) @body)) @definition.function)
(structure (value_definition (let_binding pattern: (value_name) @name body: [(function_expression) (fun_expression)] @body)) @definition.function)
(structure (value_definition (let_binding pattern: (value_name) @name)) @definition.constant)

(application_expression function: (value_path (value_name) @name)) @reference.call
(type_constructor_path (type_constructor) @name) @reference.type
(module_type_path (module_type_name) @name) @reference.type
(open_module module: (module_path (module_name) @name)) @reference.import
(value_path (module_path (module_name) @name)) @reference.import
