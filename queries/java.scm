(class_declaration name: (identifier) @name body: (_) @body) @definition.class
(record_declaration name: (identifier) @name body: (_) @body) @definition.class
(interface_declaration name: (identifier) @name body: (_) @body) @definition.interface
(annotation_type_declaration name: (identifier) @name body: (_) @body) @definition.interface
(enum_declaration name: (identifier) @name body: (_) @body) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(field_declaration (modifiers "static" "final") declarator: (variable_declarator name: (identifier) @name)) @definition.constant
(interface_body (constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.constant)

(method_invocation object: (_) name: (identifier) @name) @reference.member
(method_invocation name: (identifier) @name) @reference.call
(object_creation_expression type: (type_identifier) @name) @reference.call
(object_creation_expression type: (generic_type (type_identifier) @name)) @reference.call
(superclass (type_identifier) @name) @reference.inherit
(superclass (generic_type (type_identifier) @name)) @reference.inherit
(super_interfaces (type_list (type_identifier) @name)) @reference.inherit
(super_interfaces (type_list (generic_type (type_identifier) @name))) @reference.inherit
(type_identifier) @name @reference.type
(import_declaration (scoped_identifier name: (identifier) @name)) @reference.import
(marker_annotation name: (identifier) @name) @reference.call
(annotation name: (identifier) @name) @reference.call
