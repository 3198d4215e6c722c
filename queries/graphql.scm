; GraphQL. A type's definition is its outermost `definition` node, the one a `#` comment
; above stands beside; its description ("..." or """...""") is its doc.
(definition (type_system_definition (type_definition (object_type_definition
  (description (string_value) @doc)? . (name) @name (fields_definition)? @body)))) @definition.class
(definition (type_system_definition (type_definition (interface_type_definition
  (description (string_value) @doc)? . (name) @name (fields_definition)? @body)))) @definition.interface
(definition (type_system_definition (type_definition (enum_type_definition
  (description (string_value) @doc)? . (name) @name (enum_values_definition)? @body)))) @definition.enum
(definition (type_system_definition (type_definition (input_object_type_definition
  (description (string_value) @doc)? . (name) @name (input_fields_definition)? @body)))) @definition.struct
(definition (type_system_definition (type_definition (union_type_definition
  (description (string_value) @doc)? . (name) @name)))) @definition.type
(definition (type_system_definition (type_definition (scalar_type_definition
  (description (string_value) @doc)? . (name) @name)))) @definition.type
(field_definition (description (string_value) @doc)? . (name) @name) @definition.method
(enum_value_definition (description (string_value) @doc)? . (enum_value (name) @name)) @definition.constant
; Operations and fragments: a fragment is spread where a call would stand.
(definition (executable_definition (operation_definition (name) @name (selection_set) @body))) @definition.function
(definition (executable_definition (fragment_definition (fragment_name (name) @name) (selection_set) @body))) @definition.function

; References: every named type (fields, arguments, `implements`, unions, `on`), and spreads.
(named_type (name) @name) @reference.type
(fragment_spread (fragment_name (name) @name)) @reference.call
