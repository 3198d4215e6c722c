; inherits: _ocaml
; A class in an interface has a type, not a body: its signature ends where `object` begins.
(class_definition (class_binding (class_name) @name class_type: (class_body_type) @body)) @definition.class
(class_definition (class_binding (class_name) @name class_type: (class_function_type codomain: (class_body_type) @body))) @definition.class
(class_definition (class_binding (class_name) @name)) @definition.class
(method_specification (method_name) @name) @definition.method
