; PowerShell: functions, classes (with their properties' types) and methods. A function's
; signature runs to its body's first statement, so a `param(...)` block is shown with it.
(function_statement (function_name) @name (script_block (script_block_body) @body)) @definition.function
(function_statement (function_name) @name (script_block) @body) @definition.function
(function_statement (function_name) @name) @definition.function
(class_statement . (simple_name) @name "{" @body) @definition.class
(class_method_definition (simple_name) @name (script_block) @body) @definition.method
(class_method_definition (simple_name) @name) @definition.method
(enum_statement . (simple_name) @name "{" @body) @definition.enum

; References: commands (calls of functions), members called, types named, base classes.
(command command_name: (command_name) @name) @reference.call
(invokation_expression (member_name (simple_name) @name)) @reference.member
(type_name (type_identifier) @name) @reference.type
(class_statement (simple_name) . ":" . (simple_name) @name) @reference.inherit
