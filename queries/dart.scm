(class_definition name: (identifier) @name body: (_) @body) @definition.class
(mixin_declaration (identifier) @name (class_body) @body) @definition.trait
(extension_declaration name: (identifier) @name body: (_) @body) @definition.impl
(enum_declaration name: (identifier) @name body: (_) @body) @definition.enum
(type_alias (type_identifier) @name) @definition.type
(program (function_signature name: (identifier) @name) @definition.function . (function_body) @definition.function @body)
(program (getter_signature name: (identifier) @name) @definition.function . (function_body) @definition.function @body)
(_ (method_signature [(function_signature name: (identifier) @name) (getter_signature name: (identifier) @name)
                      (setter_signature name: (identifier) @name) (constructor_signature name: (identifier) @name)])
   @definition.function . (function_body) @definition.function @body)
(declaration (constructor_signature name: (identifier) @name)) @definition.function
(declaration (function_signature name: (identifier) @name)) @definition.function
(lambda_expression parameters: (function_signature name: (identifier) @name)) @definition.function
(program (const_builtin) @definition.constant . (_) . (static_final_declaration_list (static_final_declaration (identifier) @name)) . ";" @definition.constant)
(program (const_builtin) @definition.constant . (static_final_declaration_list (static_final_declaration (identifier) @name)) . ";" @definition.constant)
(declaration (const_builtin) (static_final_declaration_list (static_final_declaration (identifier) @name) @definition.constant))

(expression_statement (identifier) @name . (selector (argument_part))) @reference.call
((identifier) @name . (selector (argument_part))) @reference.call
((selector (unconditional_assignable_selector (identifier) @name)) . (selector (argument_part))) @reference.member
(superclass (type_identifier) @name) @reference.inherit
(mixins (type_identifier) @name) @reference.inherit
(interfaces (type_identifier) @name) @reference.inherit
(type_identifier) @name @reference.type
(import_specification (combinator (identifier) @name)) @reference.import
(annotation name: (identifier) @name) @reference.call
