// CampaignWorkload.swift — the power-cut campaign's workload: what commit number c of writer w does, as a pure
// function of (seed, w, c) and the state before it, applied both to a plain Swift model and to a database.
//
// Writer w owns tables "w<w>_meta" (one object: INT "commits", the number of its commits applied) and
// "w<w>_items" (INT "id" as primary key, so an ordered search index; nullable STRING "s"; LIST<INT> "l";
// SET<STRING> "t"; DICTIONARY<INT> "m"). A commit updates, inserts or deletes a few items, changes their
// collections, rewrites many of them, inserts a large batch (over a megabyte, so the commit takes the path that
// syncs its nodes before its slot), or, once the table is large, deletes a third of it. Because every choice comes from the seed and the model, any process
// can rebuild the state after k commits of a writer and compare it with what a file holds.

import CColumnar
#if canImport(Glibc)
import Glibc
#endif

/// SplitMix64: small, fast and reproducible on every platform.
struct CampaignRandom {
    private var state: UInt64
    init(_ seeds: UInt64...) {
        state = seeds.reduce(0x243F_6A88_85A3_08D3) { ($0 ^ $1) &* 0x9E37_79B9_7F4A_7C15 }
    }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { bound <= 0 ? 0 : Int(next() % UInt64(bound)) }
    mutating func text(_ length: Int) -> String {
        String(decoding: (0..<length).map { _ in UInt8(ascii: "a") + UInt8(next() % 26) }, as: UTF8.self)
    }
}

/// One item of a writer's table, as the model holds it.
struct CampaignItem: Equatable {
    var s: String?
    var l: [Int64] = []
    var t: Set<String> = []
    var m: [String: Int64] = [:]
}

/// One change a commit makes.
enum CampaignOp {
    case insert(id: Int64, s: String?)
    case delete(id: Int64)
    case setString(id: Int64, s: String?)
    case listInsert(id: Int64, index: Int, value: Int64)
    case listRemove(id: Int64, index: Int)
    case setInsert(id: Int64, value: String)
    case setRemove(id: Int64, value: String)
    case dictSet(id: Int64, key: String, value: Int64)
    case dictRemove(id: Int64, key: String)
}

/// A writer's state: its items and the next free id.
struct CampaignModel {
    var items: [Int64: CampaignItem] = [:]
    /// The ids of `items`, ascending (kept in order as items come and go, so no commit has to sort them).
    private(set) var ids: [Int64] = []
    var nextId: Int64 = 1
    var commits: Int64 = 0

    /// The changes of commit number `commits + 1` of writer `writer`.
    func operations(seed: UInt64, writer: Int) -> [CampaignOp] {
        var random = CampaignRandom(seed, UInt64(writer), UInt64(commits + 1))
        var ops: [CampaignOp] = []
        var nextId = self.nextId
        func newString() -> String? { random.below(10) == 0 ? nil : random.text(4 + random.below(20)) }
        func pick() -> Int64? { ids.isEmpty ? nil : ids[random.below(ids.count)] }
        // A table grown past a few thousand items sheds some, so that rebuilding and checking stay quick.
        let kind = ids.count > 2_500 ? 100 : random.below(100)
        switch kind {
        case 0..<40:
            for _ in 0..<(1 + random.below(3)) { if let id = pick() { ops.append(.setString(id: id, s: newString())) } }
        case 40..<60:
            for _ in 0..<(1 + random.below(5)) {
                ops.append(.insert(id: nextId, s: newString()))
                nextId += 1
            }
        case 60..<72:
            var deleted = Set<Int64>()
            for _ in 0..<(1 + random.below(2)) {
                if let id = pick(), deleted.insert(id).inserted { ops.append(.delete(id: id)) }
            }
        case 72..<90:
            guard let id = pick(), let item = items[id] else { break }
            switch random.below(6) {
            case 0, 1: ops.append(.listInsert(id: id, index: random.below(item.l.count + 1), value: Int64(random.below(1000))))
            case 2 where !item.l.isEmpty: ops.append(.listRemove(id: id, index: random.below(item.l.count)))
            case 3: ops.append(.setInsert(id: id, value: random.text(1 + random.below(6))))
            case 4 where !item.t.isEmpty: ops.append(.setRemove(id: id, value: item.t.sorted()[random.below(item.t.count)]))
            default:
                if !item.m.isEmpty && random.below(3) == 0 {
                    ops.append(.dictRemove(id: id, key: item.m.keys.sorted()[random.below(item.m.count)]))
                } else {
                    ops.append(.dictSet(id: id, key: random.text(1 + random.below(5)), value: Int64(random.below(1 << 20))))
                }
            }
        case 90..<96:
            for _ in 0..<(50 + random.below(150)) { if let id = pick() { ops.append(.setString(id: id, s: newString())) } }
        case 100:
            for index in stride(from: 0, to: ids.count, by: 3) { ops.append(.delete(id: ids[index])) }
        default:
            // Over a megabyte: the commit syncs its nodes before its slot.
            for _ in 0..<1_500 {
                ops.append(.insert(id: nextId, s: random.text(700 + random.below(100))))
                nextId += 1
            }
        }
        return ops
    }

    /// The state after `ops` (of commit number commits + 1).
    mutating func apply(_ ops: [CampaignOp]) {
        for op in ops {
            switch op {
            case .insert(let id, let s): add(CampaignItem(s: s), id: id)
            case .delete(let id):
                if items.removeValue(forKey: id) != nil { removeId(id) }
            case .setString(let id, let s): items[id]?.s = s
            case .listInsert(let id, let index, let value): items[id]?.l.insert(value, at: index)
            case .listRemove(let id, let index): items[id]?.l.remove(at: index)
            case .setInsert(let id, let value): items[id]?.t.insert(value)
            case .setRemove(let id, let value): items[id]?.t.remove(value)
            case .dictSet(let id, let key, let value): items[id]?.m[key] = value
            case .dictRemove(let id, let key): items[id]?.m[key] = nil
            }
        }
        commits += 1
    }

    /// Adds (or replaces) the item `id`.
    mutating func add(_ item: CampaignItem, id: Int64) {
        if items.updateValue(item, forKey: id) == nil { insertId(id) }
        nextId = max(nextId, id + 1)
    }

    /// The position of `id` in `ids`, or where it would go.
    private func position(of id: Int64) -> Int {
        var low = 0, high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private mutating func insertId(_ id: Int64) {
        if ids.last.map({ $0 < id }) ?? true { ids.append(id) } else { ids.insert(id, at: position(of: id)) }
    }

    private mutating func removeId(_ id: Int64) {
        let at = position(of: id)
        if at < ids.count && ids[at] == id { ids.remove(at: at) }
    }

    /// Whether `other` holds the same commits and items (the next free id is the writer's business).
    func sameContents(as other: CampaignModel) -> Bool { commits == other.commits && items == other.items }

    /// The first difference from `other`, described.
    func difference(from other: CampaignModel) -> String {
        if commits != other.commits { return "\(commits) commits, not \(other.commits)" }
        for id in Set(items.keys).union(other.items.keys).sorted() where items[id] != other.items[id] {
            return "item \(id) is \(items[id].map { "\($0)" } ?? "absent"), not \(other.items[id].map { "\($0)" } ?? "absent")"
        }
        return "no difference"
    }

    /// The state after `count` commits of `writer`.
    static func after(_ count: Int64, seed: UInt64, writer: Int) -> CampaignModel {
        var model = CampaignModel()
        while model.commits < count { model.apply(model.operations(seed: seed, writer: writer)) }
        return model
    }
}

/// The writer's tables and columns in one open transaction.
struct CampaignTables {
    let meta: columnar_table_id
    let metaKey: columnar_key
    let commits: columnar_col_id
    let items: columnar_table_id
    let id: columnar_col_id
    let s: columnar_col_id
    let l: columnar_col_id
    let t: columnar_col_id
    let m: columnar_col_id

    private static func names(_ writer: Int) -> (meta: String, items: String) { ("w\(writer)_meta", "w\(writer)_items") }

    /// Finds the writer's tables, creating them (inside `txn`, a write transaction) when `create` and absent.
    static func find(_ txn: OpaquePointer, writer: Int, create: Bool) throws -> CampaignTables? {
        let (metaName, itemsName) = names(writer)
        if try findTable(txn, metaName) == nil {
            guard create else { return nil }
            _ = try ensureSingleton(txn, metaName, column: "commits")
            var items: columnar_table_id = 0
            try check(columnar_table_add(txn, itemsName, &items), "columnar_table_add \(itemsName)")
            let specs: [(String, columnar_type, columnar_collection_kind, Bool)] = [
                ("id", COLUMNAR_TYPE_INT, COLUMNAR_COLLECTION_NONE, false),
                ("s", COLUMNAR_TYPE_STRING, COLUMNAR_COLLECTION_NONE, true),
                ("l", COLUMNAR_TYPE_INT, COLUMNAR_COLLECTION_LIST, false),
                ("t", COLUMNAR_TYPE_STRING, COLUMNAR_COLLECTION_SET, false),
                ("m", COLUMNAR_TYPE_INT, COLUMNAR_COLLECTION_DICT, false),
            ]
            for (name, type, collection, nullable) in specs {
                var column: columnar_col_id = 0
                let rc = name.withCString { cName -> Int32 in
                    var spec = columnar_column_spec()
                    spec.name = cName
                    spec.type = type
                    spec.collection = collection
                    spec.nullable = nullable
                    return columnar_column_add(txn, items, &spec, &column)
                }
                try check(rc, "columnar_column_add \(itemsName).\(name)")
            }
            try check(columnar_table_set_primary_key(txn, items, try findColumn(txn, items, "id")),
                      "columnar_table_set_primary_key")
        }
        let (meta, commits, metaKey) = try ensureSingleton(txn, metaName, column: "commits")
        guard let items = try findTable(txn, itemsName) else {
            throw WorkerError(description: "\(itemsName) is missing beside \(metaName)")
        }
        return CampaignTables(meta: meta, metaKey: metaKey, commits: commits, items: items,
                              id: try findColumn(txn, items, "id"), s: try findColumn(txn, items, "s"),
                              l: try findColumn(txn, items, "l"), t: try findColumn(txn, items, "t"),
                              m: try findColumn(txn, items, "m"))
    }

    func commitCount(_ txn: OpaquePointer) throws -> Int64 { try getInt(txn, meta, metaKey, commits) }

    private func key(_ txn: OpaquePointer, _ id: Int64) throws -> columnar_key {
        var value = columnar_value()
        value.type = COLUMNAR_TYPE_INT
        value.`as`.i = id
        var key: columnar_key = 0
        try check(columnar_obj_find_primary_key(txn, items, &value, &key), "find item \(id) by its primary key")
        return key
    }

    private func withValue<R>(_ text: String?, _ body: (UnsafePointer<columnar_value>) throws -> R) rethrows -> R {
        var value = columnar_value()
        value.type = COLUMNAR_TYPE_STRING
        guard let text else {
            value.is_null = true
            return try body(&value)
        }
        var bytes = Array(text.utf8)
        return try bytes.withUnsafeMutableBytes { buffer in
            value.`as`.bytes.data = UnsafeRawPointer(buffer.baseAddress)
            value.`as`.bytes.size = buffer.count
            return try body(&value)
        }
    }

    private func int(_ number: Int64) -> columnar_value {
        var value = columnar_value()
        value.type = COLUMNAR_TYPE_INT
        value.`as`.i = number
        return value
    }

    /// Applies commit `commit`'s operations inside `txn`.
    func apply(_ ops: [CampaignOp], commit: Int64, _ txn: OpaquePointer) throws {
        for op in ops {
            switch op {
            case .insert(let id, let s):
                var pk = int(id)
                var key: columnar_key = 0
                try check(columnar_obj_create_with_primary_key(txn, items, &pk, &key), "create item \(id)")
                try withValue(s) { try check(columnar_obj_set(txn, items, key, self.s, $0), "set s") }
            case .delete(let id):
                try check(columnar_obj_delete(txn, items, try key(txn, id)), "delete item \(id)")
            case .setString(let id, let s):
                let key = try key(txn, id)
                try withValue(s) { try check(columnar_obj_set(txn, items, key, self.s, $0), "set s") }
            case .listInsert(let id, let index, let value):
                var element = int(value)
                try check(columnar_list_insert(txn, items, try key(txn, id), l, UInt64(index), &element), "list insert")
            case .listRemove(let id, let index):
                try check(columnar_list_remove(txn, items, try key(txn, id), l, UInt64(index)), "list remove")
            case .setInsert(let id, let value):
                let key = try key(txn, id)
                try withValue(value) { try check(columnar_set_insert(txn, items, key, t, $0, nil), "set insert") }
            case .setRemove(let id, let value):
                let key = try key(txn, id)
                try withValue(value) { try check(columnar_set_remove(txn, items, key, t, $0, nil), "set remove") }
            case .dictSet(let id, let dictKey, let value):
                var element = int(value)
                let bytes = Array(dictKey.utf8)
                try check(columnar_dict_set(txn, items, try key(txn, id), m, bytes, bytes.count, &element), "dict set")
            case .dictRemove(let id, let dictKey):
                let bytes = Array(dictKey.utf8)
                try check(columnar_dict_remove(txn, items, try key(txn, id), m, bytes, bytes.count, nil), "dict remove")
            }
        }
        try setInt(txn, meta, metaKey, commits, commit)
    }

    /// What the file holds for this writer, as a model (its commit count included).
    func read(_ txn: OpaquePointer) throws -> CampaignModel {
        var model = CampaignModel()
        model.commits = try commitCount(txn)
        var iterator = columnar_cluster_iter()
        try check(columnar_cluster_iter_init(txn, items, &iterator), "columnar_cluster_iter_init")
        var cluster = columnar_cluster()
        while true {
            let rc = columnar_cluster_iter_next(&iterator, &cluster)
            if rc == COLUMNAR_ENOTFOUND { break }
            try check(rc, "columnar_cluster_iter_next")
            for row in 0..<UInt64(cluster.row_count) {
                let key = columnar_array_get_int(&cluster.keys, row)
                let id = try getInt(txn, items, key, self.id)
                var item = CampaignItem()
                var value = columnar_value()
                try check(columnar_obj_get(txn, items, key, s, &value), "get s")
                item.s = value.is_null ? nil : text(value)
                var size: UInt64 = 0
                try check(columnar_coll_size(txn, items, key, l, &size), "list size")
                for index in 0..<size {
                    try check(columnar_coll_get(txn, items, key, l, index, &value), "list get")
                    item.l.append(value.`as`.i)
                }
                try check(columnar_coll_size(txn, items, key, t, &size), "set size")
                for index in 0..<size {
                    try check(columnar_coll_get(txn, items, key, t, index, &value), "set get")
                    item.t.insert(text(value))
                }
                try check(columnar_coll_size(txn, items, key, m, &size), "dict size")
                for index in 0..<size {
                    var keyBytes: UnsafeRawPointer?
                    var keySize = 0
                    try check(columnar_dict_key_at(txn, items, key, m, index, &keyBytes, &keySize), "dict key")
                    let dictKey = String(decoding: UnsafeRawBufferPointer(start: keyBytes, count: keySize), as: UTF8.self)
                    try check(columnar_coll_get(txn, items, key, m, index, &value), "dict get")
                    item.m[dictKey] = value.`as`.i
                }
                model.add(item, id: id)
            }
        }
        return model
    }

    private func text(_ value: columnar_value) -> String {
        String(decoding: UnsafeRawBufferPointer(start: value.`as`.bytes.data, count: value.`as`.bytes.size), as: UTF8.self)
    }
}
