// RealmCore+QueryModel: describes the bound model classes to the query engine.
//
// QueryVM resolves property names against a QueryModel: per table, each property's Swift name, column, type,
// collection kind, index and link target, and for linking-objects properties the origin table and column. The
// model is built from the class bindings when a query needs it and rebuilt when more classes are bound. The
// Decimal128 closures give the engine this module's decimal arithmetic.

import CColumnar
import QueryVM

/// The query model and the binding generation it describes. A struct rather than a tuple: every query reads the
/// model, and copying a tuple of it out of an optional went through the run-time's generic tuple copy.
struct QueryModelCache {
    let bindingGeneration: UInt64
    let model: QueryModel
}

extension RealmCore {
    /// The query model of every class bound so far (binding the origin classes of linking-objects properties).
    func queryModel() -> QueryModel {
        // Threads share a frozen core: its caches change under its lock only.
        if let frozen { return frozen.lock.withLock { queryModelUnlocked() } }
        return queryModelUnlocked()
    }

    private func queryModelUnlocked() -> QueryModel {
        if let cached = queryModelCache, cached.bindingGeneration == bindingGeneration { return cached.model }
        // Linking objects name their origin class, which no link of the bound classes may reach: bind those too.
        var known = -1
        while known != bindingCount {
            known = bindingCount
            for binding in allBindings() {
                for property in binding.schema.properties where property.type == .linkingObjects {
                    if let originType = property.storage.objectType { _ = try? self.binding(for: originType) }
                }
            }
        }
        var tables: [QueryTable] = []
        for binding in allBindings() {
            var properties: [QueryProperty] = []
            for (index, property) in binding.schema.properties.enumerated() {
                let storage = property.storage
                let target = storage.objectType.flatMap { try? self.binding(for: $0) }?.table  // bound already
                if property.type == .linkingObjects {
                    guard let originType = storage.objectType, let origin = try? self.binding(for: originType),
                          let originIndex = origin.schema.properties.firstIndex(where: {
                              $0.name == property.linkOriginPropertyName }) else { continue }
                    properties.append(QueryProperty(
                        name: property.name,
                        kind: .linkingObjects(originTable: origin.table, originColumn: origin.columns[originIndex]),
                        column: COLUMNAR_NO_COLUMN, type: COLUMNAR_TYPE_LINK, isNullable: false,
                        targetTable: origin.table))
                    continue
                }
                var queryProperty = QueryProperty(
                    name: property.name, kind: Self.queryKind(storage.collection), column: binding.columns[index],
                    type: storage.type,
                    isNullable: storage.nullable, isIndexed: property.isIndexed, isPrimaryKey: property.isPrimary,
                    targetTable: target)
                queryProperty.hasOrderedIndex = hasOrderedIndex(table: binding.table, column: binding.columns[index])
                properties.append(queryProperty)
            }
            tables.append(QueryTable(id: binding.table, className: binding.schema.className, properties: properties))
        }
        // DynamicObjects' classes that no model class describes (their link targets come from the file).
        for binding in dynamicBindingsForQueries(boundTables: Set(tables.map(\.id))) {
            var properties: [QueryProperty] = []
            for (index, property) in binding.schema.properties.enumerated() {
                var queryProperty = QueryProperty(
                    name: property.name, kind: Self.queryKind(property.storage.collection),
                    column: binding.columns[index], type: property.storage.type,
                    isNullable: property.storage.nullable, isIndexed: property.isIndexed,
                    isPrimaryKey: property.isPrimary, targetTable: binding.dynamicLinkTargets?[index])
                queryProperty.hasOrderedIndex = hasOrderedIndex(table: binding.table, column: binding.columns[index])
                properties.append(queryProperty)
            }
            tables.append(QueryTable(id: binding.table, className: binding.schema.className, properties: properties))
        }
        var model = QueryModel(tables: tables, decimals: Self.decimalSupport)
        // Objects compared with links must be stored in this file (any Realm instance of it shares its keys).
        model.database = ObjectIdentifier(file)
        queryModelCache = QueryModelCache(bindingGeneration: bindingGeneration, model: model)
        return model
    }

    /// A key path of one of the bound classes resolved for `use` against the query model, remembered until the
    /// bindings change: an aggregate over a property name would otherwise split and check the name on every call,
    /// a good part of what `min(ofProperty:)` costs when an index answers it.
    func resolvedKeyPath(_ text: String, table: columnar_table_id,
                         for use: TypeChecker.KeyPathUse) throws -> CheckedPath {
        if let frozen { return try frozen.lock.withLock { try resolvedKeyPathUnlocked(text, table: table, for: use) } }
        return try resolvedKeyPathUnlocked(text, table: table, for: use)
    }

    private func resolvedKeyPathUnlocked(_ text: String, table: columnar_table_id,
                                         for use: TypeChecker.KeyPathUse) throws -> CheckedPath {
        let key = ResolvedKeyPathKey(table: table, text: text, use: use)
        // The last one first: repeated aggregates of one property skip hashing the name.
        if let last = lastResolvedKeyPath, last.bindingGeneration == bindingGeneration, last.key == key {
            return last.path
        }
        if resolvedKeyPaths.bindingGeneration != bindingGeneration { resolvedKeyPaths = (bindingGeneration, [:]) }
        let path: CheckedPath
        if let known = resolvedKeyPaths.paths[key] {
            path = known
        } else {
            path = try TypeChecker.resolveKeyPath(text, table: table, model: queryModel(), for: use)
            resolvedKeyPaths.paths[key] = path
        }
        lastResolvedKeyPath = (bindingGeneration, key, path)
        return path
    }

    /// `predicate` checked against the bound classes' model. A predicate made from a cached parse template
    /// (`templateID`) reuses the check of the first one of its template against the same table while the bindings
    /// stay the same: only its values are converted (CheckedTemplate.swift).
    func checkedPredicate(_ predicate: QueryPredicate, templateID: Int?, table: columnar_table_id,
                          model: QueryModel, query: String?) throws -> CheckedPredicate {
        guard let templateID else { return try TypeChecker.check(predicate, table: table, model: model, query: query) }
        if let frozen {
            return try frozen.lock.withLock {
                try checkedPredicateUnlocked(predicate, templateID: templateID, table: table, model: model,
                                             query: query)
            }
        }
        return try checkedPredicateUnlocked(predicate, templateID: templateID, table: table, model: model, query: query)
    }

    /// Templates kept per core; past that the cache starts over.
    private static let checkedTemplateCapacity = 256

    private func checkedPredicateUnlocked(_ predicate: QueryPredicate, templateID: Int, table: columnar_table_id,
                                          model: QueryModel, query: String?) throws -> CheckedPredicate {
        if checkedTemplates.bindingGeneration != bindingGeneration { checkedTemplates = (bindingGeneration, [:]) }
        let key = CheckedTemplateKey(templateID: templateID, table: table)
        if let template = checkedTemplates.predicates[key] {
            return try TypeChecker.check(predicate, reusing: template, table: table, model: model, query: query)
        }
        let checked = try TypeChecker.check(predicate, table: table, model: model, query: query)
        if checkedTemplates.predicates.count >= Self.checkedTemplateCapacity {
            checkedTemplates.predicates.removeAll(keepingCapacity: true)
        }
        checkedTemplates.predicates[key] = checked
        return checked
    }

    /// How the query engine sees a column of a collection kind.
    private static func queryKind(_ collection: columnar_collection_kind) -> QueryProperty.Kind {
        switch collection {
        case COLUMNAR_COLLECTION_LIST: .list
        case COLUMNAR_COLLECTION_SET: .set
        case COLUMNAR_COLLECTION_DICT: .map
        default: .value
        }
    }

    /// Whether the file's index of the column keeps values in order (files written before ordered indexes keep
    /// hash-keyed ones, which only answer equality).
    private func hasOrderedIndex(table: columnar_table_id, column: columnar_col_id) -> Bool {
        guard let transaction = frozen != nil ? currentTransaction : transaction else { return false }
        var info = columnar_column_info()
        return columnar_column_info_get(transaction, table, column, &info) == 0 && info.ordered_index
    }

    /// Decimal128 arithmetic for queries: constants parse from their text or number, values compare numerically.
    static let decimalSupport = QueryDecimalSupport(
        encode: { value in
            let decimal: Decimal128?
            switch value {
            case .int(let integer): decimal = Decimal128(exactly: integer)
            case .double(let double): decimal = Decimal128(floatLiteral: double)
            case .float(let float): decimal = Decimal128(floatLiteral: Double(float))
            case .string(let text), .decimal128(let text): decimal = try? Decimal128(string: text)
            default: decimal = nil
            }
            return decimal.map { value in value.withUnsafeBytes { Array($0) } }
        },
        compare: { left, right in
            let lhs = left.withUnsafeBytes { Decimal128(rawBytes: $0) }
            let rhs = right.withUnsafeBytes { Decimal128(rawBytes: $0) }
            if lhs.isNaN || rhs.isNaN { return nil }
            return lhs < rhs ? -1 : (lhs == rhs ? 0 : 1)
        },
        toDouble: { bits in Decimal128(bits: bits).doubleValue },
        add: { left, right in (Decimal128(bits: left) + Decimal128(bits: right)).bits },
        divide: { value, count in (Decimal128(bits: value) / Decimal128(exactly: Int64(count))!).bits })
}

extension Decimal128 {
    /// The value of a 16-byte bit pattern, as queries carry decimals.
    init(bits: [UInt8]) { self = bits.withUnsafeBytes { Decimal128(rawBytes: $0) } }

    /// The 16-byte bit pattern.
    var bits: [UInt8] { withUnsafeBytes { Array($0) } }
}

/// What a checked template depends on besides the bindings.
struct CheckedTemplateKey: Hashable {
    let templateID: Int
    let table: columnar_table_id
}

/// What a resolved key path depends on besides the bindings.
struct ResolvedKeyPathKey: Hashable {
    let table: columnar_table_id
    let text: String
    let use: TypeChecker.KeyPathUse
}
