; Java .properties: every key is a constant; a `${key}` substitution references one.
(property (key) @name) @definition.constant
(substitution (key) @name) @reference.variable
