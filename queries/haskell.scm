(data_type name: (name) @name) @definition.type
(newtype name: (name) @name) @definition.type
(type_synomym name: (name) @name) @definition.type
(type_family name: (name) @name) @definition.type
(class name: (name) @name) @definition.interface
(instance name: (name) @name) @definition.impl
(declarations (signature name: (variable) @name) @definition.function)
(declarations (function name: (variable) @name) @definition.function)
(declarations (bind name: (variable) @name) @definition.function)
(class_declarations (signature name: (variable) @name) @definition.function)
(header module: (module) @name) @definition.module

(apply function: (variable) @name) @reference.call
(apply function: (qualified id: (variable) @name)) @reference.call
(apply function: (constructor) @name) @reference.call
(instance name: (name) @name) @reference.inherit
(name) @name @reference.type
(import module: (module) @name) @reference.import
(import_name variable: (variable) @name) @reference.import
