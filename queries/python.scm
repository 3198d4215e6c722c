; Python definitions
(class_definition name: (identifier) @name body: (_) @body) @definition.class
(function_definition name: (identifier) @name body: (_) @body) @definition.function
(module (assignment left: (identifier) @name) @definition.constant
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))
(module (assignment left: (identifier) @name) @definition.type
  (#match? @name "^_*[A-Z][a-z0-9][A-Za-z0-9_]*$"))
(type_alias_statement left: (type (identifier) @name)) @definition.type

; References
(call function: (identifier) @name) @reference.call
(call function: (attribute attribute: (identifier) @name)) @reference.member
(decorator (identifier) @name) @reference.call
(decorator (attribute attribute: (identifier) @name)) @reference.call
(class_definition superclasses: (argument_list (identifier) @name) @reference.inherit)
(class_definition superclasses: (argument_list (attribute attribute: (identifier) @name)) @reference.inherit)
(import_from_statement name: (dotted_name (identifier) @name .) @reference.import)
(import_from_statement name: (aliased_import name: (dotted_name (identifier) @name .)) @reference.import)
(import_statement name: (dotted_name (identifier) @name .) @reference.import)
(type (identifier) @name) @reference.type
(type (generic_type (identifier) @name)) @reference.type
(type (attribute attribute: (identifier) @name)) @reference.type
