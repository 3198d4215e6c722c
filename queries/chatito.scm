; Chatito: intents, slots (the entities a sentence names) and aliases (text substituted
; where they are named, a macro's role). A definition's node takes the blank lines after
; it: it ends with the last word or reference of its body.
(intent_def (intent) @name (intent_body (_) @end .) @body) @definition.function
(slot_def (slot) @name (slot_body (_) @end .) @body) @definition.type
(alias_def (alias) @name (alias_body (_) @end .) @body) @definition.macro

(slot_ref (slot) @name) @reference.type
(alias_ref (alias) @name) @reference.call
