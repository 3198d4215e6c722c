; The body starts after the parameter list (with the docstring, where there is one).
(function_definition name: (symbol) @name parameters: (_) . docstring: (string) @doc @body) @definition.function
(function_definition name: (symbol) @name parameters: (_) . (_) @body) @definition.function
(function_definition name: (symbol) @name) @definition.function
(macro_definition name: (symbol) @name parameters: (_) . docstring: (string) @doc @body) @definition.macro
(macro_definition name: (symbol) @name parameters: (_) . (_) @body) @definition.macro
(macro_definition name: (symbol) @name) @definition.macro
((special_form . _ @k . (symbol) @name . (_) . (string) @doc) @definition.constant
  (#any-of? @k "defvar" "defconst"))
((special_form . _ @k . (symbol) @name) @definition.constant
  (#any-of? @k "defvar" "defconst"))
; Forms that macros define: cl-defun, cl-defmacro, defcustom, defgroup, define-minor-mode...
((list . (symbol) @k . (symbol) @name . (list) . (string) @doc @body) @definition.function
  (#any-of? @k "cl-defun" "cl-defgeneric" "cl-defmethod" "cl-defsubst" "define-minor-mode" "define-derived-mode"))
((list . (symbol) @k . (symbol) @name . (list) . (_) @body) @definition.function
  (#any-of? @k "cl-defun" "cl-defgeneric" "cl-defmethod" "cl-defsubst" "define-minor-mode" "define-derived-mode"))
((list . (symbol) @k . (symbol) @name . (list) . (string) @doc @body) @definition.macro
  (#eq? @k "cl-defmacro"))
((list . (symbol) @k . (symbol) @name . (list) . (_) @body) @definition.macro
  (#eq? @k "cl-defmacro"))
((list . (symbol) @k . (symbol) @name . (_) . (string) @doc) @definition.constant
  (#any-of? @k "defcustom" "defface" "defgroup" "defvar-local"))
((list . (symbol) @k . (symbol) @name) @definition.constant
  (#any-of? @k "defcustom" "defface" "defgroup" "defvar-local"))
((list . (symbol) @k . (symbol) @name) @definition.struct
  (#eq? @k "cl-defstruct"))

((list . (symbol) @k . (quote (symbol) @name)) @reference.import
  (#any-of? @k "require" "load"))
; A call is a list headed by a symbol, except a parameter list (a let's bindings look like calls).
((source_file (list . (symbol) @name) @reference.call)
  (#not-match? @name "^(require|provide|cl-defun|cl-defmacro|cl-defgeneric|cl-defmethod|cl-defsubst|cl-defstruct|defcustom|defface|defgroup|defvar-local|define-minor-mode|define-derived-mode)$"))
((list (list . (symbol) @name) @reference.call)
  (#not-match? @name "^(require|provide|cl-defun|cl-defmacro|cl-defgeneric|cl-defmethod|cl-defsubst|cl-defstruct|defcustom|defface|defgroup|defvar-local|define-minor-mode|define-derived-mode)$"))
((special_form (list . (symbol) @name) @reference.call)
  (#not-match? @name "^(require|provide|cl-defun|cl-defmacro|cl-defgeneric|cl-defmethod|cl-defsubst|cl-defstruct|defcustom|defface|defgroup|defvar-local|define-minor-mode|define-derived-mode)$"))
((function_definition parameters: (_) (list . (symbol) @name) @reference.call)
  (#not-match? @name "^(require|provide|cl-defun|cl-defmacro|cl-defgeneric|cl-defmethod|cl-defsubst|cl-defstruct|defcustom|defface|defgroup|defvar-local|define-minor-mode|define-derived-mode)$"))
((macro_definition parameters: (_) (list . (symbol) @name) @reference.call)
  (#not-match? @name "^(require|provide|cl-defun|cl-defmacro|cl-defgeneric|cl-defmethod|cl-defsubst|cl-defstruct|defcustom|defface|defgroup|defvar-local|define-minor-mode|define-derived-mode)$"))
((quote (list . (symbol) @name) @reference.call)
  (#not-match? @name "^(require|provide|cl-defun|cl-defmacro|cl-defgeneric|cl-defmethod|cl-defsubst|cl-defstruct|defcustom|defface|defgroup|defvar-local|define-minor-mode|define-derived-mode)$"))
((unquote (list . (symbol) @name) @reference.call)
  (#not-match? @name "^(require|provide|cl-defun|cl-defmacro|cl-defgeneric|cl-defmethod|cl-defsubst|cl-defstruct|defcustom|defface|defgroup|defvar-local|define-minor-mode|define-derived-mode)$"))
