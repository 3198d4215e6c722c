(class_declaration name: (name) @name body: (_) @body) @definition.class
(interface_declaration name: (name) @name body: (_) @body) @definition.interface
(trait_declaration name: (name) @name body: (_) @body) @definition.trait
(enum_declaration name: (name) @name body: (_) @body) @definition.enum
(function_definition name: (name) @name body: (_) @body) @definition.function
(method_declaration name: (name) @name) @definition.method
(const_declaration (const_element (name) @name)) @definition.constant
(namespace_definition name: (namespace_name) @name) @definition.module

(function_call_expression function: (name) @name) @reference.call
(function_call_expression function: (qualified_name (name) @name .)) @reference.call
(member_call_expression name: (name) @name) @reference.member
(scoped_call_expression name: (name) @name) @reference.call
(scoped_call_expression scope: (name) @name) @reference.type
(object_creation_expression (name) @name) @reference.call
(object_creation_expression (qualified_name (name) @name .)) @reference.call
(base_clause (name) @name) @reference.inherit
(base_clause (qualified_name (name) @name .)) @reference.inherit
(class_interface_clause (name) @name) @reference.inherit
(class_interface_clause (qualified_name (name) @name .)) @reference.inherit
(use_declaration (name) @name) @reference.inherit
(named_type (name) @name) @reference.type
(named_type (qualified_name (name) @name .)) @reference.type
(namespace_use_clause (qualified_name (name) @name .)) @reference.import
(namespace_use_clause (name) @name) @reference.import
