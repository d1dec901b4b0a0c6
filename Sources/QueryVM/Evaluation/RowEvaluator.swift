// RowEvaluator: decides a checked predicate for one object at a time, reading through the engine's accessors.
//
// The VM's kernels handle comparisons of a table's own columns with constants, a whole cluster per call. Paths
// through links, lists, sets, maps and linking objects, collection operators, SUBQUERY and Unicode folding of
// non-ASCII text are decided here instead, object by object, for the rows the kernels leave undecided. It is also
// the whole engine for queries over a collection's objects (a list of links, linking objects) rather than a table,
// and over the elements of a collection of values (`self`, read at the row's position; QueryModel+Elements.swift).

import CColumnar

public final class RowEvaluator {
    let transaction: OpaquePointer
    let decimals: QueryDecimalSupport?
    /// The objects bound to SUBQUERY variables, outermost first.
    private var variables: [(table: columnar_table_id, key: Int64)] = []
    /// For programs over the elements of a collection of values: the collection, whose element at the row's key
    /// (a position) the step `.element` reads.
    public var elementCollection: ElementCollection?

    public init(transaction: OpaquePointer, decimals: QueryDecimalSupport?) {
        self.transaction = transaction
        self.decimals = decimals
    }

    /// What a step of a path reaches: an object, or a value (a null link is the value null).
    private enum Item {
        case object(columnar_table_id, Int64)
        case value(ScalarValue)

        var scalar: ScalarValue {
            switch self {
            case .object(let table, let key): return .link(table: table, key: key)
            case .value(let value): return value
            }
        }
    }

    /// Whether the object `key` of `table` satisfies `predicate`.
    public func holds(_ predicate: CheckedPredicate, table: columnar_table_id, key: Int64) throws -> Bool {
        switch predicate {
        case .constant(let value): return value
        case .and(let operands):
            for operand in operands where try !holds(operand, table: table, key: key) { return false }
            return true
        case .or(let operands):
            for operand in operands where try holds(operand, table: table, key: key) { return true }
            return false
        case .not(let operand): return try !holds(operand, table: table, key: key)
        case .comparison(let comparison): return try holds(comparison, table: table, key: key)
        }
    }

    private func holds(_ comparison: CheckedComparison, table: columnar_table_id, key: Int64) throws -> Bool {
        let left = try values(comparison.lhs, table: table, key: key)
        let right = try values(comparison.rhs, table: table, key: key)
        let compare = ScalarComparison(op: comparison.op, options: comparison.options, decimals: decimals)
        let anyOfRight = comparison.op == .in || comparison.rhs.isMany
        let upper = comparison.upperBound.map { ($0, ScalarComparison(op: .lessThanOrEqual, options: [], decimals: decimals)) }
        func holdsFor(_ value: ScalarValue) -> Bool {
            if let (bound, atMost) = upper {
                return compare.holds(value, right.first ?? .null) && atMost.holds(value, bound)
            }
            if anyOfRight { return right.contains { compare.holds(value, $0) } }
            return compare.holds(value, right.first ?? .null)
        }
        switch comparison.quantifier {
        case .any: return left.contains(where: holdsFor)
        case .all: return left.allSatisfy(holdsFor)
        case .noElement: return !left.contains(where: holdsFor)
        }
    }

    /// The values an operand has for one object: one for single values, any number for to-many paths and lists.
    func values(_ operand: CheckedOperand, table: columnar_table_id, key: Int64) throws -> [ScalarValue] {
        switch operand {
        case .constant(let value): return [value]
        case .constants(let values): return values
        case .path(let path): return try items(path, table: table, key: key).map(\.scalar)
        case .count(let path): return [.int(Int64(try items(path, table: table, key: key).count))]
        case .valueType(let path):
            return try items(path, table: table, key: key).map { .int(Int64($0.scalar.storedType?.rawValue ?? 0)) }
        case .aggregate(let op, let path):
            let values = try items(path, table: table, key: key).map(\.scalar)
            return [Aggregation.reduce(values, op, type: path.type, decimals: decimals)]
        case .subqueryCount(let path, _, let predicate):
            var count: Int64 = 0
            for item in try items(path, table: table, key: key) {
                guard case .object(let elementTable, let elementKey) = item else { continue }
                variables.append((elementTable, elementKey))
                defer { variables.removeLast() }
                if try holds(predicate, table: table, key: key) { count += 1 }
            }
            return [.int(count)]
        }
    }

    /// Follows a path from an object. A null link along the way gives a null value (for single steps after it)
    /// or nothing (for to-many steps after it), as an empty relationship would.
    private func items(_ path: CheckedPath, table: columnar_table_id, key: Int64) throws -> [Item] {
        var current: [Item]
        switch path.root {
        case .object: current = [.object(table, key)]
        case .variable(let depth): current = [.object(variables[depth].table, variables[depth].key)]
        }
        for step in path.steps {
            var next: [Item] = []
            if case .nested(let nestedStep) = step {
                for item in current { descend(into: item.scalar, nestedStep, into: &next) }
                current = next
                continue
            }
            for item in current {
                guard case .object(let table, let key) = item else {
                    // Only a null link leaves a value here; a single step keeps it null.
                    if case .column = step { next.append(item) }
                    if case .mapValue = step { next.append(item) }
                    continue
                }
                try follow(step, table: table, key: key, into: &next)
            }
            current = next
        }
        return current
    }

    private func follow(_ step: CheckedPath.Step, table: columnar_table_id, key: Int64, into items: inout [Item]) throws {
        var value = columnar_value()
        switch step {
        case .column(let column, let type, let target):
            try check(columnar_obj_get(transaction, table, key, column, &value))
            items.append(item(value, type: type, target: target))
        case .elements(let column, let type, let target), .mapValues(let column, let type, let target):
            var size: UInt64 = 0
            try check(columnar_coll_size(transaction, table, key, column, &size))
            for index in 0..<size {
                try check(columnar_coll_get(transaction, table, key, column, index, &value))
                items.append(item(value, type: type, target: target))
            }
        case .mapKeys(let column):
            var size: UInt64 = 0
            try check(columnar_coll_size(transaction, table, key, column, &size))
            for index in 0..<size {
                var bytes: UnsafeRawPointer?
                var length = 0
                try check(columnar_dict_key_at(transaction, table, key, column, index, &bytes, &length))
                let keyBytes = length == 0 || bytes == nil ? [] : Array(UnsafeRawBufferPointer(start: bytes, count: length))
                items.append(.value(.string(keyBytes)))
            }
        case .mapValue(let column, let mapKey, let type, let target):
            var found = false
            try mapKey.withUnsafeBytes { bytes in
                try check(columnar_dict_get(transaction, table, key, column, bytes.baseAddress, bytes.count, &value,
                                            &found))
            }
            items.append(found ? item(value, type: type, target: target) : .value(.null))
        case .element(let type):
            guard let collection = elementCollection else {
                throw ColumnarError(code: .misuse, message: "the key path 'self' reads the elements of a collection "
                                    + "of values, but the query does not run over one")
            }
            try check(columnar_coll_get(transaction, collection.table, collection.key, collection.column,
                                        UInt64(key), &value))
            items.append(item(value, type: type, target: nil))
        case .nested:
            return   // objects hold no nested collections; mixed values are followed by `descend`
        case .backlinks(let originTable, let originColumn):
            var count: UInt64 = 0
            try check(columnar_backlink_count(transaction, table, key, originTable, originColumn, &count))
            for index in 0..<count {
                var origin: columnar_key = 0
                try check(columnar_backlink_get(transaction, table, key, originTable, originColumn, index, &origin))
                items.append(.object(originTable, origin))
            }
        }
    }

    /// Follows a step into the collection nested in `value`: the element or elements it names, or for a position,
    /// key or LAST that is not there (or a value that is not a collection of that kind) null.
    private func descend(into value: ScalarValue, _ step: CheckedPath.NestedStep, into items: inout [Item]) {
        let single = step != .all
        guard case .nestedCollection(let encoding) = value else {
            if single { items.append(.value(.null)) }
            return
        }
        encoding.withUnsafeBytes { bytes in
            var collection = columnar_value()
            var cursor = columnar_mixed_cursor()
            var count: UInt32 = 0
            // The engine checked the encoding when it read the row, so these succeed.
            guard columnar_mixed_decode(bytes.baseAddress, bytes.count, &collection) == 0,
                  columnar_mixed_cursor_init(&collection, &cursor, &count) == 0 else {
                if single { items.append(.value(.null)) }
                return
            }
            let isList = Int32(collection.type.rawValue) == COLUMNAR_MIXED_LIST
            var wanted: Int?
            switch step {
            case .index(let position): wanted = isList && position < Int(count) ? position : nil
            case .last: wanted = isList && count > 0 ? Int(count) - 1 : nil
            case .key, .all: wanted = nil
            }
            var key = columnar_value()
            var element = columnar_value()
            var position = 0
            var found = false
            while columnar_mixed_cursor_next(&cursor, &key, &element) {
                defer { position += 1 }
                switch step {
                case .all: items.append(.value(mixedValue(element)))
                case .key(let wantedKey):
                    guard !isList, key.as.bytes.size == wantedKey.count,
                          wantedKey.isEmpty
                              || UnsafeRawBufferPointer(start: key.as.bytes.data, count: key.as.bytes.size)
                                  .elementsEqual(wantedKey) else { continue }
                case .index, .last:
                    guard position == wanted else { continue }
                }
                if single {
                    items.append(.value(mixedValue(element)))
                    found = true
                    break
                }
            }
            if single && !found { items.append(.value(.null)) }
        }
    }

    private func item(_ value: columnar_value, type: columnar_type, target: columnar_table_id?) -> Item {
        if type == COLUMNAR_TYPE_LINK, let target {
            return value.is_null ? .value(.null) : .object(target, value.as.link)
        }
        if type == COLUMNAR_TYPE_MIXED { return .value(mixedValue(value)) }
        return .value(ScalarValue(value, linkTarget: target))
    }

    /// A mixed value as queries compare it: a link whose object was deleted (or whose class was removed) is null,
    /// as readers see it (the engine does not follow links in mixed values; keys are never reused).
    func mixedValue(_ value: columnar_value) -> ScalarValue {
        let scalar = ScalarValue(value, linkTarget: nil)
        guard case .link(let table, let key) = scalar else { return scalar }
        var exists = false
        return columnar_obj_exists(transaction, table, key, &exists) == 0 && exists ? scalar : .null
    }

    private func check(_ rc: Int32) throws {
        if rc != 0 { throw ColumnarError.fromLastError(rc) }
    }
}
