; (define (name args ...) body ...): the body starts after the header list.
((list . (symbol) @k . (list . (symbol) @name) . (_) @body) @definition.function
  (#any-of? @k "define" "define/contract" "define/public" "define/private" "define/override"))
((list . (symbol) @k . (symbol) @name . (list . (symbol) @l)) @definition.function
  (#any-of? @k "define" "define/contract" "define/public" "define/private" "define/override")
  (#any-of? @l "lambda" "λ" "case-lambda"))
((list . (symbol) @k . (symbol) @name) @definition.constant
  (#eq? @k "define"))
((list . (symbol) @k . (list . (symbol) @name) . (_) @body) @definition.macro
  (#any-of? @k "define-syntax-rule" "define-syntax"))
((list . (symbol) @k . (symbol) @name) @definition.macro
  (#any-of? @k "define-syntax" "define-syntax-rule"))
((list . (symbol) @k . (symbol) @name . (list) @body) @definition.struct
  (#any-of? @k "struct" "define-struct"))
((list . (symbol) @k . (symbol) @name) @definition.class
  (#any-of? @k "define-class"))
((list . (symbol) @k . (symbol) @name . (_) . (_) @body) @definition.module
  (#any-of? @k "module" "module*" "module+"))

((list . (symbol) @k (symbol) @name) @reference.import
  (#eq? @k "require"))
((list . (symbol) @name) @reference.call
  (#not-match? @name "^(define|define/contract|define/public|define/private|define/override|define-syntax|define-syntax-rule|define-values|struct|define-struct|module|module\\*|module\\+|require|provide|lambda|λ|case-lambda|let|let\\*|letrec|let-values|if|cond|case|when|unless|and|or|begin|begin0|set!|quote|quasiquote|unquote|syntax|for|for/list|for/fold|match|else|parameterize|with-handlers)$"))
