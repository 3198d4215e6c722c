(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name (block)? @body) @definition.function
(function_signature name: (identifier) @name) @definition.function

(function_call name: (identifier) @name) @reference.call
(field_expression field: (function_call name: (identifier) @name)) @reference.member
(command (command_name) @name) @reference.call
(superclasses (property_name (identifier) @name .)) @reference.inherit
