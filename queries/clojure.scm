; A definition is a list whose head names the defining form; its docstring, where it has
; one, stands between the name and the parameter vector, and the body starts after that vector.
((list_lit . (sym_lit name: (sym_name) @k) . (sym_lit name: (sym_name) @name) . (str_lit) @doc . (vec_lit) . (_) @body) @definition.function
  (#any-of? @k "defn" "defn-" "defmulti"))
((list_lit . (sym_lit name: (sym_name) @k) . (sym_lit name: (sym_name) @name) . (vec_lit) . (_) @body) @definition.function
  (#any-of? @k "defn" "defn-" "defmulti"))
((list_lit . (sym_lit name: (sym_name) @k) . (sym_lit name: (sym_name) @name) . (str_lit) @doc) @definition.function
  (#any-of? @k "defn" "defn-" "defmulti"))
((list_lit . (sym_lit name: (sym_name) @k) . (sym_lit name: (sym_name) @name)) @definition.function
  (#any-of? @k "defn" "defn-" "defmulti"))
((list_lit . (sym_lit name: (sym_name) @k) . (sym_lit name: (sym_name) @name) . (str_lit) @doc . (vec_lit) . (_) @body) @definition.macro
  (#eq? @k "defmacro"))
((list_lit . (sym_lit name: (sym_name) @k) . (sym_lit name: (sym_name) @name) . (vec_lit) . (_) @body) @definition.macro
  (#eq? @k "defmacro"))
((list_lit . (sym_lit name: (sym_name) @k) . (sym_lit name: (sym_name) @name)) @definition.macro
  (#eq? @k "defmacro"))
((list_lit . (sym_lit name: (sym_name) @k) . (sym_lit name: (sym_name) @name) . (str_lit) @doc) @definition.constant
  (#any-of? @k "def" "defonce"))
((list_lit . (sym_lit name: (sym_name) @k) . (sym_lit name: (sym_name) @name)) @definition.constant
  (#any-of? @k "def" "defonce"))
((list_lit . (sym_lit name: (sym_name) @k) . (sym_lit name: (sym_name) @name) . (vec_lit) @body) @definition.struct
  (#any-of? @k "defrecord" "deftype"))
((list_lit . (sym_lit name: (sym_name) @k) . (sym_lit name: (sym_name) @name) . (str_lit) @doc) @definition.interface
  (#any-of? @k "defprotocol" "definterface"))
((list_lit . (sym_lit name: (sym_name) @k) . (sym_lit name: (sym_name) @name)) @definition.interface
  (#any-of? @k "defprotocol" "definterface"))
; A protocol's methods: (defprotocol P (method [this] "doc"))
((list_lit . (sym_lit name: (sym_name) @k) (list_lit . (sym_lit name: (sym_name) @name) . (vec_lit) . (str_lit) @doc) @definition.function)
  (#any-of? @k "defprotocol" "definterface"))
((list_lit . (sym_lit name: (sym_name) @k) (list_lit . (sym_lit name: (sym_name) @name) . (vec_lit)) @definition.function)
  (#any-of? @k "defprotocol" "definterface"))
; Local functions: (letfn [(name [args] body)] ...)
((list_lit . (sym_lit name: (sym_name) @k) . (vec_lit (list_lit . (sym_lit name: (sym_name) @name) . (vec_lit) . (_) @body) @definition.function))
  (#eq? @k "letfn"))
((list_lit . (sym_lit name: (sym_name) @k) . (sym_lit name: (sym_name) @name) . (str_lit) @doc) @definition.module
  (#eq? @k "ns"))
((list_lit . (sym_lit name: (sym_name) @k) . (sym_lit name: (sym_name) @name)) @definition.module
  (#eq? @k "ns"))

; (:require [a.b :as c]) and (:use a.b) name namespaces.
(list_lit . (kwd_lit name: (kwd_name) @k) (vec_lit . (sym_lit name: (sym_name) @name)) @reference.import
  (#any-of? @k "require" "use" "import"))
(list_lit . (kwd_lit name: (kwd_name) @k) (sym_lit name: (sym_name) @name) @reference.import
  (#any-of? @k "require" "use" "import"))
((list_lit . (sym_lit name: (sym_name) @name)) @reference.call
  (#not-match? @name "^(def|defn|defn-|defmacro|defmulti|defmethod|defonce|defrecord|deftype|defprotocol|definterface|ns|fn|fn\\*|let|letfn|loop|recur|if|if-not|when|when-not|when-let|if-let|cond|condp|case|do|quote|var|try|catch|finally|throw|new|set!|and|or|not|->|->>)$"))
