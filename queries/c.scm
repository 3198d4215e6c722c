(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition declarator: (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))) @definition.function
(declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type
(preproc_def name: (identifier) @name) @definition.constant
; File-level `static const` values: constants the file keeps to itself (one in a function is the function's).
(translation_unit (declaration (storage_class_specifier) @s (type_qualifier) @q declarator: (init_declarator declarator: [
  (identifier) @name
  (array_declarator declarator: (identifier) @name)
  (pointer_declarator declarator: (identifier) @name)
  (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))]) (#eq? @s "static") (#eq? @q "const")) @definition.constant)
(preproc_function_def name: (identifier) @name) @definition.macro

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.member
(type_identifier) @name @reference.type
(preproc_include path: (string_literal (string_content) @name)) @reference.import
(preproc_include path: (system_lib_string) @name) @reference.import
