(function_definition name: (word) @name) @definition.function
((program (variable_assignment name: (variable_name) @name) @definition.constant) (#match? @name "^[A-Z][A-Z0-9_]*$"))
((program (declaration_command (variable_assignment name: (variable_name) @name)) @definition.constant) (#match? @name "^[A-Z][A-Z0-9_]*$"))

((command name: (command_name (word) @c) argument: (word) @name) @reference.import (#any-of? @c "source" "."))
(command name: (command_name (word) @name)) @reference.call
