; Protocol Buffers: messages (nested ones keep their outer message's name), enums and their
; values, services and their rpcs. An rpc without options ends at `;`: the `;` is its body,
; so a signature that wraps `returns (...)` onto its own line is shown whole.
(message (message_name (identifier) @name) (message_body) @body) @definition.struct
(enum (enum_name (identifier) @name) (enum_body) @body) @definition.enum
(enum_field (identifier) @name) @definition.constant
(service (service_name (identifier) @name) "{" @body) @definition.interface
(rpc (rpc_name (identifier) @name) ["{" ";"] @body) @definition.method

; References: the message or enum a field, an rpc or an `extend` names (its last part:
; `Order.LineItem` names LineItem).
(message_or_enum_type (identifier) @name .) @reference.type
