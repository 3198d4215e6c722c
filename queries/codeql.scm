(dataclass name: (className) @name "{" @body) @definition.class
(dataclass name: (className) @name [(typeAliasBody) (typeUnionBody)]) @definition.type
(datatype name: (className) @name) @definition.type
(datatypeBranch name: (className) @name) @definition.function
(memberPredicate name: (predicateName) @name (body)? @body) @definition.method
(classlessPredicate name: (predicateName) @name (body)? @body) @definition.function
(module name: (moduleName) @name "{"? @body) @definition.module

(importDirective (importModuleExpr (moduleExpr (simpleId) @name))) @reference.import
(call_or_unqual_agg_expr (aritylessPredicateExpr name: (literalId) @name)) @reference.call
(qualified_expr (qualifiedRhs name: (predicateName) @name)) @reference.member
(dataclass [extends: (typeExpr name: (className) @name) instanceof: (typeExpr name: (className) @name)]) @reference.inherit
(typeExpr name: (className) @name) @reference.type
(typeExpr qualifier: (moduleExpr (simpleId) @name)) @reference.type
