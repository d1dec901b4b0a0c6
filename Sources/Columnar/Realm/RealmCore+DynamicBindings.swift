// RealmCore+DynamicBindings: the bindings of `DynamicObject`s, whose class is known by name only
// (`realm.dynamicObjects("Dog")`, `realm.dynamicCreate("Dog", value: ...)`).
//
// A dynamic binding is a ClassBinding like a model class's, so that DynamicObjects are managed objects as any
// other (Results, List, MutableSet, Map, freezing, deletion and queries take them unchanged), with two
// differences: its schema's class is `DynamicObject`, and it records the table each link property points to,
// because a DynamicObject's links are DynamicObjects of whatever class the file says.
//
// Its properties are those of the model class of that name when Columnar knows one: a class `objectTypes` lists
// (or reaches), or, without `objectTypes`, the only class of that name the process has used. The dynamic names
// are then the model's property names (which differ from the stored ones under `propertiesMapping()`), and the
// class's default values and embeddedness apply. Otherwise they are the file's columns, named as stored. Linking
// objects properties have no column and are left out.
//
// Bindings are made on first use and kept until the model classes' bindings change (a class bound later may
// rename the properties). With `objectTypes`, a class outside it is not managed by the Realm, as in RealmSwift.

import CColumnar
import Foundation

extension RealmCore {
    /// The dynamic binding of the class stored under `className`, or nil when the Realm does not manage such a
    /// class (no table of that name in the file, or, with `objectTypes`, no listed class of that name).
    func dynamicBinding(named className: String) -> ClassBinding? {
        if let known = withBindingsLocked({ dynamicBindings[className] }) { return known }
        let modelClass = knownModelClass(named: className)
        if configuration.objectTypes != nil && modelClass == nil { return nil }
        // Binding the model class first creates its table when the file lacks it (as typed use would), and
        // gives the dynamic binding its property names. A class that does not match the file is read as stored.
        let modelBinding = modelClass.flatMap { try? binding(for: $0) }
        return withBindingsLocked {
            if let known = dynamicBindings[className] { return known }
            guard let made = makeDynamicBinding(className, modelBinding: modelBinding) else { return nil }
            dynamicBindings[className] = made
            return made
        }
    }

    /// The dynamic binding of the class whose table is `table`; stops when the file has no such table.
    func dynamicBinding(table: columnar_table_id) -> ClassBinding {
        var info = columnar_table_info()
        Engine.mustSucceed(columnar_table_info_get(currentTransaction, table, &info), "reading a linked class")
        let className = Engine.name(info.name)
        guard let binding = dynamicBinding(named: className) else { fatalError(Self.notManagedMessage(className)) }
        return binding
    }

    /// The dynamic binding of `className`; stops with RealmSwift's message when the Realm does not manage it.
    func requireDynamicBinding(named className: String) -> ClassBinding {
        guard let binding = dynamicBinding(named: className) else { fatalError(Self.notManagedMessage(className)) }
        return binding
    }

    /// The binding in this core of the class `binding` (of any core of the same file) describes: the model
    /// class's, or the dynamic one of the same name.
    func requireBinding(like binding: ClassBinding) -> ClassBinding {
        binding.isDynamic ? requireDynamicBinding(named: binding.schema.className)
            : requireBinding(for: binding.schema.objectClass)
    }

    /// The binding of the class a link property (or a collection of links) of `binding` points to; nil for other
    /// properties. A DynamicObject's links lead to DynamicObjects.
    func linkedBinding(of binding: ClassBinding, propertyIndex: Int) -> ClassBinding? {
        if let targets = binding.dynamicLinkTargets { return targets[propertyIndex].map(dynamicBinding(table:)) }
        return binding.schema.properties[propertyIndex].storage.objectType.map(requireBinding(for:))
    }

    /// The model class stored under `className` that Columnar knows: one that `objectTypes` lists or reaches, or,
    /// without `objectTypes`, the only class of that name the process has used.
    func knownModelClass(named className: String) -> ObjectBase.Type? {
        if let types = managedClassTypes {
            return types.first { SchemaDiscovery.info(for: $0).schema.className == className }
        }
        return SchemaDiscovery.discoveredClasses(named: [className]).first
    }

    /// Threads share a frozen core: its bindings change under its lock only.
    private func withBindingsLocked<T>(_ body: () -> T) -> T {
        if let frozen { return frozen.lock.withLock(body) }
        return body()
    }

    private func makeDynamicBinding(_ className: String, modelBinding: ClassBinding?) -> ClassBinding? {
        let txn = currentTransaction
        var table: columnar_table_id = 0
        guard columnar_table_find(txn, className, &table) == COLUMNAR_OK else { return nil }
        var properties: [Property] = []
        var columns: [columnar_col_id] = []
        var targets: [columnar_table_id?] = []
        var isEmbedded = false
        if let modelBinding, modelBinding.table == table {
            isEmbedded = modelBinding.schema.isEmbedded
            let modelProperties = modelBinding.schema.properties.enumerated()
            for (index, property) in modelProperties where property.type != .linkingObjects {
                let column = modelBinding.columns[index]
                var info = columnar_column_info()
                Engine.mustSucceed(columnar_column_info_get(txn, table, column, &info), "reading \(className)")
                properties.append(property)
                columns.append(column)
                targets.append(info.type == COLUMNAR_TYPE_LINK ? info.target_table : nil)
            }
        } else {
            var tableInfo = columnar_table_info()
            Engine.mustSucceed(columnar_table_info_get(txn, table, &tableInfo), "reading \(className)")
            let stored: [(id: columnar_col_id, info: columnar_column_info)]
            do { stored = try Engine.columns(txn, table: table, tableInfo) } catch {
                fatalError("Columnar: cannot read the columns of '\(className)': \(error)")
            }
            for (column, info) in stored {
                let name = Engine.name(info.name)
                if name.hasPrefix("__") { continue }   // the file's own bookkeeping
                var targetName: String?
                if info.type == COLUMNAR_TYPE_LINK {
                    var target = columnar_table_info()
                    Engine.mustSucceed(columnar_table_info_get(txn, info.target_table, &target), "reading \(className)")
                    targetName = Engine.name(target.name)
                }
                let storage = _StorageType(type: info.type, nullable: info.nullable, collection: info.collection,
                                           objectType: nil)
                properties.append(Property(name: name, columnName: name, storage: storage,
                                           isPrimary: info.is_primary_key, isIndexed: info.indexed,
                                           objectClassName: targetName))
                columns.append(column)
                targets.append(info.type == COLUMNAR_TYPE_LINK ? info.target_table : nil)
            }
        }
        let schema = ObjectSchema(className: className, properties: properties, objectClass: DynamicObject.self,
                                  isEmbedded: isEmbedded)
        let info = ClassInfo(schema: schema, constructionOrder: nil, prototypeCells: [], cellFreeOrder: nil,
                             storesOnlyPersistedProperties: false)
        return ClassBinding(info: info, table: table, columns: columns, dynamicLinkTargets: targets,
                            dynamicModelClass: modelBinding?.table == table ? modelBinding?.schema.objectClass : nil)
    }

    /// The dynamic bindings the query model describes beside the model classes': every dynamic binding made so
    /// far whose table no model class is bound to, and those of the tables they link to (made now).
    func dynamicBindingsForQueries(boundTables: Set<columnar_table_id>) -> [ClassBinding] {
        var result: [ClassBinding] = []
        var seen = boundTables
        var pending = Array(withBindingsLocked { dynamicBindings.values })
        while let next = pending.popLast() {
            guard seen.insert(next.table).inserted else { continue }
            result.append(next)
            for case let target? in next.dynamicLinkTargets ?? [] where !seen.contains(target) {
                pending.append(dynamicBinding(table: target))
            }
        }
        return result
    }
}
