// ResultsQuery and ResultsSource: what a Results value selects and where its objects come from, and the step
// that turns the two into object keys with the query engine.
//
// A Results value is lazy: `filter`, `sorted` and `distinct` only record a checked predicate, sort descriptors and
// distinct key paths (checked when they are made, so mistakes surface at the call). The keys are computed when the
// results are read, against the Realm's current state, and cached until the Realm changes.

import CColumnar
import QueryVM

/// Where the objects of a Results value come from.
enum ResultsSource {
    /// Every object of the class.
    case table
    /// The objects of a managed list or set of links, in its order.
    case collection(CollectionColumn)
    /// The objects linking to an object through one link column (a LinkingObjects property).
    case backlinks(ObjectLocation, originTable: columnar_table_id, originColumn: columnar_col_id)
    /// The elements of a managed collection of values (a list or set, or a map's values), whose keys are their
    /// positions (ValueCollection+Query.swift).
    case values(CollectionColumn)

    /// The keys of the objects to test, or nil for the whole table.
    func candidateKeys(in core: RealmCore) throws -> [Int64]? {
        let txn = core.currentTransaction
        switch self {
        case .table:
            return nil
        case .collection(let column):
            guard !column.isInvalidated else { return [] }
            var size: UInt64 = 0
            try Engine.check(columnar_coll_size(txn, column.table, column.key, column.column, &size))
            var keys: [Int64] = []
            keys.reserveCapacity(Int(size))
            var value = columnar_value()
            for index in 0..<size {
                try Engine.check(columnar_coll_get(txn, column.table, column.key, column.column, index, &value))
                if !value.is_null { keys.append(value.as.link) }
            }
            return keys
        case .backlinks(let location, let originTable, let originColumn):
            guard core.objectExists(location) else { return [] }
            var count: UInt64 = 0
            try Engine.check(columnar_backlink_count(txn, location.binding.table, location.key, originTable,
                                                     originColumn, &count))
            var keys: [Int64] = []
            for index in 0..<count {
                var key: columnar_key = 0
                try Engine.check(columnar_backlink_get(txn, location.binding.table, location.key, originTable,
                                                       originColumn, index, &key))
                keys.append(key)
            }
            return keys
        case .values(let column):
            guard !column.isInvalidated else { return [] }
            var size: UInt64 = 0
            try Engine.check(columnar_coll_size(txn, column.table, column.key, column.column, &size))
            return (0..<Int64(size)).map { $0 }
        }
    }

    var isTable: Bool { if case .table = self { return true } else { return false } }
}

/// The selection a Results value applies to its source: checked predicate, sort keys, distinct key paths.
struct ResultsQuery {
    /// The checked predicate, unless `seek` stands for it.
    private var checkedPredicate: CheckedPredicate?
    /// A predicate that is one exact index seek, made from a seek template by a repeated `filter(format, value)`
    /// (PreparedSeek.swift): its checked form is made only when something other than the seek needs it.
    private(set) var seek: PreparedSeek?

    var predicate: CheckedPredicate? {
        get { seek?.predicate ?? checkedPredicate }
        set {
            if let seek { texts = [seek.format] }
            checkedPredicate = newValue
            seek = nil
        }
    }

    var hasPredicate: Bool { seek != nil || checkedPredicate != nil }

    /// The same selection with a prepared seek turned into its checked predicate: for another core, whose binding
    /// generations are its own.
    var withoutPreparedSeek: ResultsQuery {
        var query = self
        if seek != nil { query.predicate = predicate }
        return query
    }

    /// The predicates' text, for `description` and `explain`: the format strings, or each predicate's description.
    var predicateText: [String] {
        get { seek.map { [$0.format] } ?? texts }
        set { texts = newValue }
    }

    private var texts: [String] = []

    init() {}

    /// The selection of one prepared seek.
    init(seek: PreparedSeek) {
        self.seek = seek
    }

    /// Sorting and distinct, in the order they were asked for (realm-core applies them in call order: distinct
    /// then sorted keeps the first object of each value in the old order, then sorts those).
    enum OrderingStep: Equatable {
        case sort([SortDescriptor])
        case distinct([String])
    }

    private(set) var orderingSteps: [OrderingStep] = []

    /// Adds a sort. Sorting sorted results makes the new keys primary and the old ones break ties, which is what
    /// one sort by the new keys followed by the old ones gives; consecutive sorts are merged into that one.
    mutating func appendSort(_ descriptors: [SortDescriptor]) {
        if case .sort(let previous)? = orderingSteps.last {
            orderingSteps[orderingSteps.count - 1] = .sort(descriptors + previous)
        } else {
            orderingSteps.append(.sort(descriptors))
        }
    }

    mutating func appendDistinct(_ keyPaths: [String]) {
        orderingSteps.append(.distinct(keyPaths))
    }

    /// Every sort key, the most recent first (for `explain` and equality).
    var sort: [SortDescriptor] {
        orderingSteps.reversed().flatMap { step -> [SortDescriptor] in
            if case .sort(let descriptors) = step { return descriptors } else { return [] }
        }
    }

    /// Every distinct key path.
    var distinct: [String] {
        orderingSteps.flatMap { step -> [String] in
            if case .distinct(let paths) = step { return paths } else { return [] }
        }
    }

    var isTrivial: Bool { !hasPredicate && orderingSteps.isEmpty }

    /// The compiled program and an executor for it in the core's current transaction.
    func executor(core: RealmCore, target: QueryTarget, source: ResultsSource) -> QueryExecutor {
        let program = QueryCompiler.compile(predicate ?? .constant(true), table: target.table, model: target.model,
                                            source: source.programSource)
        return QueryExecutor(program: program, transaction: core.currentTransaction, decimals: target.model.decimals)
    }

    /// The keys of the objects an unordered selection of a table holds when its predicate is one exact index
    /// seek (an indexed property equal to a value): the index's answer, with no program compiled or run.
    private func exactSeekKeys(core: RealmCore, target: QueryTarget, source: ResultsSource) throws -> [Int64]? {
        guard source.isTable, orderingSteps.isEmpty else { return nil }
        if let keys = try preparedSeekKeys(core: core, table: target.table, source: source) { return keys }
        guard let predicate,
              let seek = QueryCompiler.exactIndexSeek(predicate, table: target.table, model: target.model)
        else { return nil }
        return try QueryExecutor.indexSeekKeys(transaction: core.currentTransaction, table: target.table,
                                               column: seek.column, constant: seek.constant)
    }

    /// The keys a prepared seek selects, when the selection is one that holds for `table` in the core's binding
    /// generation; nil otherwise. Needs no query model.
    func preparedSeekKeys(core: RealmCore, table: columnar_table_id, source: ResultsSource) throws -> [Int64]? {
        guard let seek, source.isTable, orderingSteps.isEmpty, seek.plan.bindingGeneration == core.bindingGeneration,
              seek.plan.table == table else { return nil }
        return try QueryExecutor.indexSeekKeys(transaction: core.currentTransaction, table: table,
                                               column: seek.plan.template.column, constant: seek.constant)
    }

    /// The keys of the selected objects (or positions of the selected values), in order.
    func keys(core: RealmCore, target: QueryTarget, source: ResultsSource) throws -> [Int64] {
        if let keys = try exactSeekKeys(core: core, target: target, source: source) { return keys }
        let model = target.model
        let executor = executor(core: core, target: target, source: source)
        let candidates = try source.candidateKeys(in: core)
        var steps = orderingSteps[...]
        var keys: [Int64]
        if case .sort(let first)? = steps.first, candidates == nil {
            // The first sort of a table reads its keys from the cluster arrays while the scan selects the rows.
            keys = try executor.sortedMatchingKeys(by: try Self.sortKeys(first, target: target))
            steps = steps.dropFirst()
        } else {
            keys = try executor.matchingKeys(candidates: candidates ?? [])
        }
        for step in steps {
            switch step {
            case .sort(let descriptors):
                keys = try executor.sortKeys(keys, by: try Self.sortKeys(descriptors, target: target))
            case .distinct(let distinctPaths):
                let paths = try distinctPaths.map {
                    try TypeChecker.resolveKeyPath($0, table: target.table, model: model, for: .distinct)
                }
                keys = try executor.distinctKeys(keys, by: paths)
            }
        }
        return keys
    }

    /// The first `limit` keys of `keys(core:target:source:)`, picked without ordering the rest, or nil when the
    /// selection cannot do that (only results of a table that are unordered, or sorted once without distinct, can).
    func leadingKeys(core: RealmCore, target: QueryTarget, source: ResultsSource, limit: Int) throws -> [Int64]? {
        guard source.isTable else { return nil }
        if orderingSteps.isEmpty {
            // Unordered: the first matches in the order the whole selection lists them, found by stopping early.
            if let keys = try exactSeekKeys(core: core, target: target, source: source) {
                return keys.count <= limit ? keys : Array(keys.prefix(limit))
            }
            return try executor(core: core, target: target, source: source).matchingKeys(limit: limit)
        }
        guard orderingSteps.count == 1, case .sort(let descriptors) = orderingSteps[0] else {
            return nil
        }
        return try executor(core: core, target: target, source: source)
            .sortedMatchingKeys(by: try Self.sortKeys(descriptors, target: target), limit: limit)
    }

    /// The descriptors' key paths resolved against the target's model.
    private static func sortKeys(_ descriptors: [SortDescriptor], target: QueryTarget) throws -> [SortKey] {
        try descriptors.map {
            SortKey(path: try TypeChecker.resolveKeyPath($0.keyPath, table: target.table, model: target.model,
                                                          for: .sort),
                    ascending: $0.ascending)
        }
    }

    /// The number of selected objects, without materializing keys where the engine can count directly.
    func count(core: RealmCore, target: QueryTarget, source: ResultsSource) throws -> Int {
        guard distinct.isEmpty, source.isTable else {
            return try keys(core: core, target: target, source: source).count
        }
        if let keys = try exactSeekKeys(core: core, target: target, source: source) { return keys.count }
        return try executor(core: core, target: target, source: source).count()
    }
}
