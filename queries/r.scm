; name <- function(...) { }, also with = and <<-, and the right-assigning ->.
(binary_operator lhs: (identifier) @name operator: ["<-" "=" "<<-"] rhs: (function_definition body: (_) @body)) @definition.function
(binary_operator lhs: (string) @name operator: ["<-" "="] rhs: (function_definition body: (_) @body)) @definition.function
((binary_operator lhs: (identifier) @name rhs: (call function: (identifier) @f)) @definition.class
  (#match? @f "^(setRefClass|setClass|R6Class)$"))
((program (binary_operator lhs: (identifier) @name operator: ["<-" "="] rhs: [(float) (integer) (string) (true) (false)]) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_.]*$"))

((call function: (identifier) @f arguments: (arguments (argument value: (identifier) @name))) @reference.import
  (#match? @f "^(library|require|requireNamespace)$"))
((call function: (identifier) @f arguments: (arguments (argument value: (string (string_content) @name)))) @reference.import
  (#match? @f "^(library|require|source)$"))
(call function: (identifier) @name) @reference.call
(call function: (namespace_operator rhs: (identifier) @name)) @reference.call
(call function: (extract_operator rhs: (identifier) @name)) @reference.member
(argument value: (identifier) @name) @reference.call
