; Groovy and Gradle. The grammar reads every statement as a `command` of `unit`s and
; `block`s, with no class or method nodes: a class is a command that starts with `class`
; (or `interface`, `enum`, `trait`) and its name; a method (or a Gradle task) is a command
; of modifiers or a return type followed by a block that opens with `name(...)`. A command
; takes the blank lines after it: a definition ends with its block.
((command . (unit (identifier) @keyword) . (unit (identifier) @name) (block) @body @end) @definition.class
  (#any-of? @keyword "class" "trait"))
((command . (unit (identifier) @keyword) . (unit (identifier) @name) (block) @body @end) @definition.interface
  (#eq? @keyword "interface"))
((command . (unit (identifier) @keyword) . (unit (identifier) @name) (block) @body @end) @definition.enum
  (#eq? @keyword "enum"))
; `class Name {` makes `Name {` a block: the name opens it.
((command . (unit (identifier) @keyword) . (block . (unit (identifier) @name) . (_) @body) @end) @definition.class
  (#any-of? @keyword "class" "trait"))
((command . (unit (identifier) @keyword) . (block . (unit (identifier) @name) . (_) @body) @end) @definition.interface
  (#eq? @keyword "interface"))
((command . (unit (identifier) @keyword) . (block . (unit (identifier) @name) . (_) @body) @end) @definition.enum
  (#eq? @keyword "enum"))
((command (unit) . (block . (unit . (func (identifier) @name (arg_block)) .) . (_)? @body) @end) @definition.function
  (#not-match? @name "^(if|for|while|switch|catch|synchronized)$"))

; References: calls, imported classes, superclasses and annotations.
(func (identifier) @name) @reference.call
((command . (unit (identifier) @keyword) . (unit (identifier) @name .)) @reference.import
  (#eq? @keyword "import"))
((command (unit (identifier) @keyword) . (unit (identifier) @name)) @reference.inherit
  (#eq? @keyword "extends"))
(decorate (identifier) @name) @reference.type
