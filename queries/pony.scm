(class_definition (identifier) @name (members) @body) @definition.class
(actor_definition (identifier) @name (members) @body) @definition.class
(primitive_definition (identifier) @name (members)? @body) @definition.class
(struct_definition (identifier) @name (members)? @body) @definition.struct
(interface_definition (identifier) @name (members)? @body) @definition.interface
(trait_definition (identifier) @name (members)? @body) @definition.trait
(type_alias (identifier) @name) @definition.type
(method (identifier) @name (block)? @body) @definition.function
(constructor (identifier) @name (block)? @body) @definition.function
(behavior (identifier) @name (block)? @body) @definition.function

(_ [(base_type name: (identifier) @name) (intersection_type (base_type name: (identifier) @name))] (members)) @reference.inherit
(call_expression callee: (identifier) @name) @reference.call
(call_expression callee: (member_expression (identifier) @name .)) @reference.member
(base_type name: (identifier) @name) @reference.type
(use_statement (string (string_content) @name)) @reference.import
