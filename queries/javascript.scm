; inherits: _ecma _jsx
(class_heritage (identifier) @name) @reference.inherit
(class_heritage (member_expression property: (property_identifier) @name)) @reference.inherit
