; defun, defmacro, defgeneric and defmethod parse as a `defun` inside the list: the list is the
; definition, so that comments above attach to it. The body starts after the lambda list.
((list_lit . (defun (defun_header keyword: (defun_keyword) @k function_name: (_) @name) . (str_lit) @doc @body . (_))) @definition.function
  (#any-of? @k "defun" "defgeneric"))
((list_lit . (defun (defun_header keyword: (defun_keyword) @k function_name: (_) @name) . (_)? @body)) @definition.function
  (#any-of? @k "defun" "defgeneric"))
((list_lit . (defun (defun_header keyword: (defun_keyword) @k function_name: (_) @name) . (str_lit) @doc @body . (_))) @definition.method
  (#eq? @k "defmethod"))
((list_lit . (defun (defun_header keyword: (defun_keyword) @k function_name: (_) @name) . (_)? @body)) @definition.method
  (#eq? @k "defmethod"))
((list_lit . (defun (defun_header keyword: (defun_keyword) @k function_name: (_) @name) . (str_lit) @doc @body . (_))) @definition.macro
  (#eq? @k "defmacro"))
((list_lit . (defun (defun_header keyword: (defun_keyword) @k function_name: (_) @name) . (_)? @body)) @definition.macro
  (#eq? @k "defmacro"))
((list_lit . (sym_lit) @k . (sym_lit) @name . (_) . (str_lit) @doc) @definition.constant
  (#match? @k "(?i)^(defvar|defparameter|defconstant)$"))
((list_lit . (sym_lit) @k . (sym_lit) @name) @definition.constant
  (#match? @k "(?i)^(defvar|defparameter|defconstant)$"))
((list_lit . (sym_lit) @k . [(sym_lit) @name (list_lit . (sym_lit) @name)]) @definition.struct
  (#match? @k "(?i)^defstruct$"))
((list_lit . (sym_lit) @k . (sym_lit) @name . (list_lit) @body (list_lit . (kwd_lit) @d . (str_lit) @doc)) @definition.class
  (#match? @k "(?i)^(defclass|define-condition)$") (#match? @d "(?i)^:documentation$"))
((list_lit . (sym_lit) @k . (sym_lit) @name . (list_lit) @body) @definition.class
  (#match? @k "(?i)^(defclass|define-condition)$"))
((list_lit . (sym_lit) @k . [(sym_lit) @name (kwd_lit (kwd_symbol) @name)]) @definition.module
  (#match? @k "(?i)^defpackage$"))
; Local functions: (labels ((name (args) body)) ...)
((list_lit . (sym_lit) @k . (list_lit (list_lit . (sym_lit) @name . (list_lit) . (_) @body) @definition.function))
  (#match? @k "(?i)^(flet|labels)$"))

((list_lit . (sym_lit) @k . [(sym_lit) @name (kwd_lit (kwd_symbol) @name)]) @reference.import
  (#match? @k "(?i)^(in-package|require)$"))
((list_lit . (kwd_lit) @k (_ (kwd_symbol) @name)) @reference.import
  (#match? @k "(?i)^:use$"))
; A call is a list headed by a symbol (but for the special forms and the defining ones), in a
; body or at top level: a lambda list is not one, though the lists nested in it look like calls.
((source (list_lit . (sym_lit) @name) @reference.call)
  (#not-match? @name "(?i)^(defvar|defparameter|defconstant|defstruct|defclass|define-condition|defpackage|in-package|require|block|catch|eval-when|flet|function|go|if|labels|let|let\\*|locally|macrolet|multiple-value-call|multiple-value-prog1|progn|progv|quote|return-from|setq|setf|symbol-macrolet|tagbody|the|throw|unwind-protect|when|unless|cond|case|and|or|not|lambda|loop|dolist|dotimes|do|declare)$"))
((list_lit (list_lit . (sym_lit) @name) @reference.call)
  (#not-match? @name "(?i)^(defvar|defparameter|defconstant|defstruct|defclass|define-condition|defpackage|in-package|require|block|catch|eval-when|flet|function|go|if|labels|let|let\\*|locally|macrolet|multiple-value-call|multiple-value-prog1|progn|progv|quote|return-from|setq|setf|symbol-macrolet|tagbody|the|throw|unwind-protect|when|unless|cond|case|and|or|not|lambda|loop|dolist|dotimes|do|declare)$"))
((defun (list_lit . (sym_lit) @name) @reference.call)
  (#not-match? @name "(?i)^(defvar|defparameter|defconstant|defstruct|defclass|define-condition|defpackage|in-package|require|block|catch|eval-when|flet|function|go|if|labels|let|let\\*|locally|macrolet|multiple-value-call|multiple-value-prog1|progn|progv|quote|return-from|setq|setf|symbol-macrolet|tagbody|the|throw|unwind-protect|when|unless|cond|case|and|or|not|lambda|loop|dolist|dotimes|do|declare)$"))
(var_quoting_lit value: (sym_lit) @name) @reference.call
