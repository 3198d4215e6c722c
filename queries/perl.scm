; Perl: packages and subs. `package Name;` is a statement that encloses nothing, so the subs
; after it are named on their own; `package Name { ... }` encloses its subs.
(package_statement name: (package) @name (block)? @body) @definition.module
(subroutine_declaration_statement name: (bareword) @name body: (_) @body) @definition.function

; References: calls, method calls and the modules `use` and `require` load.
(function_call_expression function: (function) @name) @reference.call
(ambiguous_function_call_expression function: (function) @name) @reference.call
(method_call_expression method: (method) @name) @reference.member
(use_statement module: (package) @name) @reference.import
(require_expression (bareword) @name) @reference.import
