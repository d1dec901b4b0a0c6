// ObservedNode: which columns of a class an observation watches, and through which links it looks at other
// objects, built from the observation's key paths (or its kind's default) against the core's bindings.
//
// RealmSwift's rules: a key path names a property; the first component's own change counts (a link's target, a
// list's or set's membership, a map's entries), and further components look through the link at the linked
// objects' properties, so `["toys"]` fires when toys are added or removed but not when a toy's brand changes, and
// `["toys.brand"]` fires for both. `*` names every property at its level. Without key paths, a collection watches
// every property of its objects and of the objects they link to, four levels deep; an object watches its own
// properties only (shallow).

import CColumnar

final class ObservedNode {
    struct Column: Hashable {
        let column: columnar_col_id
        let collection: UInt32
        /// The property's index in its class's schema (to name it in PropertyChange).
        let propertyIndex: Int
    }

    struct Link {
        let column: Column
        let child: ObservedNode
    }

    let binding: ClassBinding
    private(set) var columns: [Column] = []
    private(set) var links: [Link] = []

    init(binding: ClassBinding) {
        self.binding = binding
    }

    /// The table of the observed class.
    var table: columnar_table_id { binding.table }

    private func addColumn(_ index: Int) -> Column {
        let property = binding.schema.properties[index]
        let column = Column(column: binding.columns[index], collection: property.storage.collection.rawValue,
                            propertyIndex: index)
        if !columns.contains(column) { columns.append(column) }
        return column
    }

    private func child(through column: Column, in core: RealmCore) -> ObservedNode {
        if let existing = links.first(where: { $0.column == column }) { return existing.child }
        let child = ObservedNode(binding: core.linkedBinding(of: binding, propertyIndex: column.propertyIndex)!)
        links.append(Link(column: column, child: child))
        return child
    }

    /// Every stored property, looking through links `depth - 1` further levels.
    static func allProperties(of binding: ClassBinding, in core: RealmCore, depth: Int) -> ObservedNode {
        let node = ObservedNode(binding: binding)
        for (index, property) in binding.schema.properties.enumerated() where property.type != .linkingObjects {
            let column = node.addColumn(index)
            if depth > 1, let target = core.linkedBinding(of: binding, propertyIndex: index) {
                let child = allProperties(of: target, in: core, depth: depth - 1)
                node.links.append(Link(column: column, child: child))
            }
        }
        return node
    }

    /// The properties named by key paths; an unknown name stops with RealmSwift's message.
    static func keyPaths(_ paths: [String], of binding: ClassBinding, in core: RealmCore) -> ObservedNode {
        let root = ObservedNode(binding: binding)
        for path in paths {
            var node = root
            let components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            for (position, name) in components.enumerated() {
                let properties = node.binding.schema.properties
                let isLast = position == components.count - 1
                if name == "*" {
                    precondition(isLast, "Invalid key path '\(path)': '*' must be its last component")
                    for (index, property) in properties.enumerated() where property.type != .linkingObjects {
                        _ = node.addColumn(index)
                    }
                    break
                }
                guard let index = properties.firstIndex(where: { $0.name == name }) else {
                    fatalError("Property '\(name)' not found in object of type '\(node.binding.schema.className)'")
                }
                guard properties[index].type != .linkingObjects else {
                    fatalError("Invalid key path '\(path)': observing through the linking objects property '\(name)' "
                               + "is not supported; observe the linking objects collection itself")
                }
                let column = node.addColumn(index)
                if isLast { break }
                guard properties[index].storage.type == COLUMNAR_TYPE_LINK else {
                    fatalError("Property '\(name)' of object of type '\(node.binding.schema.className)' is not a link, "
                               + "so the key path '\(path)' cannot go on through it")
                }
                node = node.child(through: column, in: core)
            }
        }
        return root
    }

    /// Own properties only (an object observation without key paths).
    static func shallow(_ binding: ClassBinding) -> ObservedNode {
        let node = ObservedNode(binding: binding)
        for (index, property) in binding.schema.properties.enumerated() where property.type != .linkingObjects {
            _ = node.addColumn(index)
        }
        return node
    }
}
