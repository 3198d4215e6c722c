; JSX elements whose name is a component (capitalised) are uses of it.
((jsx_opening_element name: (identifier) @name) @reference.call (#match? @name "^[A-Z]"))
((jsx_self_closing_element name: (identifier) @name) @reference.call (#match? @name "^[A-Z]"))
