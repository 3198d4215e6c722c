; udev rules, modestly: a LABEL is a definition (the target GOTO jumps to, a function for
; want of a kind for labels), and so is a variable a rule sets with ENV{NAME}= or :=
; (not +=, which adds to it). References: GOTO targets, and ENV{NAME} matched or
; $env{NAME} substituted.
(rule (assignment key: "LABEL" (value (content) @name))) @definition.function
(assignment key: "ENV" (env_var) @name (assignment_op) @op (#match? @op "^:?=$")) @definition.constant

(assignment key: "GOTO" (value (content) @name)) @reference.call
(match key: "ENV" (env_var) @name) @reference.variable
(var_sub (env_var) @name) @reference.variable
