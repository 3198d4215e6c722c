(proc_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]) @definition.function
(func_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]) @definition.function
(method_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]) @definition.function
(iterator_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]) @definition.function
(converter_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]) @definition.function
(template_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]) @definition.macro
(macro_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]) @definition.macro
(type_declaration (type_symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]) (object_declaration)) @definition.class
(type_declaration (type_symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]) (enum_declaration)) @definition.enum
(type_declaration (type_symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)])) @definition.type
(const_section (variable_declaration (symbol_declaration_list (symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)])))) @definition.constant

(call function: (identifier) @name) @reference.call
(call function: (dot_expression right: (identifier) @name)) @reference.member
(type_expression (identifier) @name) @reference.type
(type_expression (bracket_expression left: (identifier) @name)) @reference.type
(import_statement (expression_list (identifier) @name)) @reference.import
(import_statement (expression_list (infix_expression right: (identifier) @name))) @reference.import
