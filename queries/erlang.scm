(module_attribute name: (atom) @name) @definition.module
; A function's -spec starts its definition; its clauses follow (tags.EQUATIONS).
(spec fun: (atom) @name) @definition.function
(fun_decl clause: (function_clause name: (atom) @name body: (clause_body) @body)) @definition.function
(record_decl name: (atom) @name) @definition.struct
(type_alias name: (type_name name: (atom) @name)) @definition.type
(opaque name: (type_name name: (atom) @name)) @definition.type
(pp_define lhs: (macro_lhs name: (_) @name)) @definition.macro
(callback fun: (atom) @name) @definition.function

(call expr: (atom) @name) @reference.call
(call expr: (remote fun: (atom) @name)) @reference.call
(remote module: (remote_module module: (atom) @name)) @reference.import
(fa fun: (atom) @name) @reference.call
(record_name name: (atom) @name) @reference.type
(macro_call_expr name: (_) @name) @reference.macro
(behaviour_attribute name: (atom) @name) @reference.import
