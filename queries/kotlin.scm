(class_declaration "interface" (type_identifier) @name (class_body)? @body) @definition.interface
(class_declaration "enum" (type_identifier) @name (enum_class_body)? @body) @definition.enum
(class_declaration (type_identifier) @name (class_body)? @body) @definition.class
(object_declaration (type_identifier) @name (class_body)? @body) @definition.class
(companion_object "companion" @name (class_body)? @body) @definition.class
(function_declaration (simple_identifier) @name (function_body)? @body) @definition.function
(type_alias (type_identifier) @name) @definition.type
(source_file (property_declaration (modifiers (property_modifier) @m) (variable_declaration (simple_identifier) @name)) @definition.constant
  (#eq? @m "const"))

(call_expression (simple_identifier) @name) @reference.call
(call_expression (navigation_expression (navigation_suffix (simple_identifier) @name))) @reference.member
(delegation_specifier (constructor_invocation (user_type (type_identifier) @name))) @reference.inherit
(delegation_specifier (user_type (type_identifier) @name)) @reference.inherit
(user_type (type_identifier) @name) @reference.type
(import_header (identifier (simple_identifier) @name .)) @reference.import
