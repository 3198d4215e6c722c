(_ "pub"? @definition.function . (Decl (FnProto function: (IDENTIFIER) @name) (Block) @body) @definition.function)
(_ "pub"? @definition.struct . (Decl (VarDecl variable_type_function: (IDENTIFIER) @name
   (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType ["struct" "union"])) @body)))) @definition.struct)
(_ "pub"? @definition.enum . (Decl (VarDecl variable_type_function: (IDENTIFIER) @name
   (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType "enum")) @body)))) @definition.enum)
(_ "pub"? @definition.type . (Decl (VarDecl variable_type_function: (IDENTIFIER) @name
   (ErrorUnionExpr (SuffixExpr (ContainerDecl) @body)))) @definition.type)
(_ "pub"? @definition.constant . (Decl (VarDecl "const" variable_type_function: (IDENTIFIER) @name
   [(ErrorUnionExpr (SuffixExpr [(INTEGER) (FLOAT) (STRINGLITERALSINGLE) (CHAR_LITERAL) (InitList)])) (BinaryExpr) (UnaryExpr)]
   . ";")) @definition.constant)

(SuffixExpr variable_type_function: (IDENTIFIER) @name . (FnCallArguments)) @reference.call
(FieldOrFnCall function_call: (IDENTIFIER) @name) @reference.member
(ParamType (ErrorUnionExpr (SuffixExpr . variable_type_function: (IDENTIFIER) @name .))) @reference.type
(FnProto (ErrorUnionExpr (SuffixExpr . variable_type_function: (IDENTIFIER) @name .))) @reference.type
(ContainerField field_member: (_) (ErrorUnionExpr (SuffixExpr . variable_type_function: (IDENTIFIER) @name .))) @reference.type
(VarDecl (ErrorUnionExpr (SuffixExpr (FieldOrFnCall field_access: (IDENTIFIER) @name) .)) . ";") @reference.import
