; inherits: _ecma
(abstract_class_declaration name: (_) @name body: (_) @body) @definition.class
(interface_declaration name: (_) @name body: (_) @body) @definition.interface
(enum_declaration name: (_) @name body: (_) @body) @definition.enum
(type_alias_declaration name: (_) @name) @definition.type
(internal_module name: (_) @name body: (_) @body) @definition.module
(module name: (_) @name body: (_) @body) @definition.module
(abstract_method_signature name: (_) @name) @definition.method
(method_signature name: (_) @name) @definition.method
(function_signature name: (_) @name) @definition.function

(type_identifier) @name @reference.type
(class_heritage (extends_clause value: (identifier) @name)) @reference.inherit
(class_heritage (extends_clause value: (member_expression property: (property_identifier) @name))) @reference.inherit
(class_heritage (implements_clause (type_identifier) @name)) @reference.inherit
