(class_declaration (identifier) @name (aggregate_body) @body) @definition.class
(struct_declaration (identifier) @name (aggregate_body) @body) @definition.struct
(union_declaration (identifier) @name (aggregate_body) @body) @definition.struct
(interface_declaration (identifier) @name (aggregate_body) @body) @definition.interface
(enum_declaration (identifier) @name) @definition.enum
(template_declaration (identifier) @name) @definition.type
(mixin_declaration (identifier) @name) @definition.type
(function_declaration (identifier) @name (function_body) @body) @definition.function
(constructor (this) @name (function_body) @body) @definition.function
(alias_declaration (alias_initializer (identifier) @name)) @definition.type
(manifest_constant (manifest_declarator (identifier) @name)) @definition.constant

(call_expression . (identifier) @name) @reference.call
(call_expression (type (identifier) "." (identifier) @name .)) @reference.member
(call_expression (property_expression (identifier) @name .)) @reference.member
(type . (identifier) @name .) @reference.type
(template_instance . (identifier) @name) @reference.type
(base_class (identifier) @name) @reference.inherit
(base_class (type (identifier) @name .)) @reference.inherit
(import_declaration (imported (module_fqn (identifier) @name .))) @reference.import
(import_bind (identifier) @name) @reference.import
