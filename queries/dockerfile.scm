; Dockerfile: build stages (`FROM image AS name`), build arguments and environment variables.
; A stage's definition is its FROM line: the grammar lists instructions flat, not by stage.
(from_instruction as: (image_alias) @name) @definition.module
(arg_instruction name: (unquoted_string) @name) @definition.constant
(env_pair name: (unquoted_string) @name) @definition.constant

; References: the image a stage starts from (an earlier stage, `FROM build AS test`) and
; variables expanded. `COPY --from=build` names its stage inside one `param` token, which
; has no node for the name alone to capture.
(from_instruction (image_spec name: (image_name) @name)) @reference.type
(expansion (variable) @name) @reference.variable
