(class name: (_) @name) @definition.class
(module name: (_) @name) @definition.module
(singleton_class value: (_) @name) @definition.class
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.method
(assignment left: (constant) @name) @definition.constant

((call method: (identifier) @m arguments: (argument_list (string (string_content) @name))) @reference.import
  (#any-of? @m "require" "require_relative" "load"))
((call method: (identifier) @m arguments: (argument_list (constant) @name)) @reference.inherit
  (#any-of? @m "include" "extend" "prepend"))
(call receiver: (_) method: (identifier) @name) @reference.member
(call method: (identifier) @name) @reference.call
(superclass (constant) @name) @reference.inherit
(superclass (scope_resolution name: (constant) @name)) @reference.inherit
(constant) @name @reference.type
