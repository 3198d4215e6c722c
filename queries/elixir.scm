((call target: (identifier) @k (arguments (alias) @name) (do_block)? @body) @definition.module
  (#any-of? @k "defmodule" "defprotocol"))
((call target: (identifier) @k (arguments (alias) @name) (do_block)? @body) @definition.impl
  (#eq? @k "defimpl"))
((call target: (identifier) @k (arguments [(call target: (identifier) @name) (identifier) @name (binary_operator left: (call target: (identifier) @name))]) (do_block)? @body) @definition.function
  (#any-of? @k "def" "defp" "defdelegate" "defguard" "defguardp"))
((call target: (identifier) @k (arguments [(call target: (identifier) @name) (identifier) @name]) (do_block)? @body) @definition.macro
  (#any-of? @k "defmacro" "defmacrop"))
((unary_operator operand: (call target: (identifier) @name)) @definition.constant
  (#not-match? @name "^(moduledoc|doc|spec|type|typep|opaque|typedoc|impl|callback|behaviour|derive|enforce_keys|dialyzer|compile|deprecated|since)$"))

((call target: (identifier) @k (arguments (alias) @name)) @reference.import
  (#any-of? @k "alias" "import" "require" "use"))
((call target: (identifier) @name) @reference.call
  (#not-match? @name "^(def|defp|defmodule|defmacro|defmacrop|defprotocol|defimpl|defstruct|defdelegate|defguard|defguardp|defexception|alias|import|require|use|quote|unquote)$"))
(call target: (dot right: (identifier) @name)) @reference.member
(alias) @name @reference.type
