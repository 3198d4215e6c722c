; SQL. A definition is its whole `statement` (a `--` comment above stands beside that); a
; schema-qualified name (`billing.orders`) is named by its last part, as most uses spell it.
; A function names its RETURNS type with an object_reference too: its name is the one after
; FUNCTION.
(statement (create_table (object_reference name: (identifier) @name) (column_definitions)? @body)) @definition.struct
(statement (create_view (object_reference name: (identifier) @name) (create_query) @body)) @definition.struct
(statement (create_materialized_view (object_reference name: (identifier) @name) (create_query) @body)) @definition.struct
(statement (create_function (keyword_function) . (object_reference name: (identifier) @name) (function_body)? @body)) @definition.function
(statement (create_type (object_reference name: (identifier) @name))) @definition.type

; References: tables in FROM, JOIN, UPDATE, INSERT INTO, DELETE FROM, REFERENCES, CREATE
; INDEX ... ON and ALTER TABLE, a function's RETURNS type, and calls.
(relation (object_reference name: (identifier) @name)) @reference.type
(insert (object_reference name: (identifier) @name)) @reference.type
(from (object_reference name: (identifier) @name)) @reference.type
(column_definition (object_reference name: (identifier) @name)) @reference.type
(create_index (object_reference name: (identifier) @name)) @reference.type
(alter_table (object_reference name: (identifier) @name)) @reference.type
(create_function custom_type: (object_reference name: (identifier) @name)) @reference.type
(invocation (object_reference name: (identifier) @name)) @reference.call
