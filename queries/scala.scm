(class_definition name: (identifier) @name) @definition.class
(object_definition name: (identifier) @name) @definition.class
(trait_definition name: (identifier) @name) @definition.trait
(enum_definition name: (identifier) @name) @definition.enum
(function_definition name: (identifier) @name) @definition.function
(function_declaration name: (identifier) @name) @definition.function
(type_definition name: (type_identifier) @name) @definition.type
((val_definition pattern: (identifier) @name) @definition.constant (#match? @name "^[A-Z]"))

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (identifier) @name)) @reference.member
(instance_expression (type_identifier) @name) @reference.call
(extends_clause (type_identifier) @name) @reference.inherit
(extends_clause (generic_type type: (type_identifier) @name)) @reference.inherit
(type_identifier) @name @reference.type
(import_declaration path: (identifier) @name .) @reference.import
