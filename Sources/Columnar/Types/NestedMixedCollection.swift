// Nested collections in mixed values: `AnyRealmValue.list` and `.dictionary` (RealmSwift 20).
//
// The engine keeps a nested list or dictionary inside the mixed value's own encoding (columnar.h, "Nested
// collections"), so the whole tree of a property, list element or map value is one stored value. A `List` or
// `Map` read out of such a tree stays live, as in RealmSwift: it remembers where its tree is stored (its root)
// and the steps from the root to it (its path), reads the tree again on every access, and writes a change by
// re-encoding the root's whole tree. A change therefore costs the size of the tree, which suits the small
// documents nested collections hold; a large collection belongs in a `List` or `Map` property of its own.
//
// A nested collection is found again by its path of positions and keys. When a change elsewhere moves it (an
// element inserted before it in its parent list) the path follows the position, not the collection, as the
// positions of a list's elements do; when the value at its path is no longer a collection of its kind, it is
// invalidated and any use of it stops with a message.
//
// The same root and path name the collection in another core of the file, which is how a nested collection is
// frozen, thawed, handed to another thread and observed on a queue. Its notifications compare the elements'
// encodings before and after each version (NestedListRegistration; a nested dictionary uses the map's own
// registration over copies of its values), since nested values have no identity to follow.

import CColumnar
import Foundation
import QueryVM

/// A mixed value as a tree: a scalar's encoding, or a nested collection of trees.
indirect enum MixedTree {
    /// A non-collection value as its mixed encoding; nil is `.none`.
    case scalar([UInt8]?)
    case list([MixedTree])
    /// Entries in any order; they are encoded in ascending bytewise key order, as the engine requires.
    case dictionary([String: MixedTree])

    /// The tree of an encoding the engine has checked (a value read from the file, or one built here).
    init(encoding: UnsafeRawBufferPointer) {
        guard !encoding.isEmpty else {
            self = .scalar(nil)
            return
        }
        var decoded = columnar_value()
        Engine.mustSucceed(columnar_mixed_decode(encoding.baseAddress, encoding.count, &decoded),
                           "decoding a mixed value")
        let tag = Int32(decoded.type.rawValue)
        guard tag == COLUMNAR_MIXED_LIST || tag == COLUMNAR_MIXED_DICTIONARY else {
            self = .scalar(Array(encoding))
            return
        }
        var cursor = columnar_mixed_cursor()
        Engine.mustSucceed(columnar_mixed_cursor_init(&decoded, &cursor, nil), "reading a nested collection")
        var key = columnar_value()
        var element = columnar_value()
        if tag == COLUMNAR_MIXED_LIST {
            var elements: [MixedTree] = []
            while columnar_mixed_cursor_next(&cursor, nil, &element) {
                elements.append(MixedTree(engineValue: element))
            }
            self = .list(elements)
        } else {
            var entries: [String: MixedTree] = [:]
            while columnar_mixed_cursor_next(&cursor, &key, &element) {
                let keyBytes = UnsafeRawBufferPointer(start: key.as.bytes.data, count: key.as.bytes.size)
                entries[String(decoding: keyBytes, as: UTF8.self)] = MixedTree(engineValue: element)
            }
            self = .dictionary(entries)
        }
    }

    /// The tree of an engine value of a MIXED column or collection, or of a nested element a cursor gave (null is
    /// `.none`).
    init(engineValue value: columnar_value) {
        if value.is_null {
            self = .scalar(nil)
        } else {
            self.init(encoding: UnsafeRawBufferPointer(start: value.as.bytes.data, count: value.as.bytes.size))
        }
    }

    /// The tree of a value about to be stored: a collection's current elements (whatever kind of list or map it
    /// is), and each scalar's encoding. An unmanaged object is added to `realm`, which can fail.
    static func of(_ value: AnyRealmValue, in realm: Realm) throws -> MixedTree {
        switch value {
        case .none: return .scalar(nil)
        case .list(let list): return .list(try list.map { try of($0, in: realm) })
        case .dictionary(let map):
            var entries: [String: MixedTree] = [:]
            for entry in map { entries[entry.key] = try of(entry.value, in: realm) }
            return .dictionary(entries)
        default:
            return .scalar(try value._withValue(in: realm) { engineValue in
                Array(UnsafeRawBufferPointer(start: engineValue.as.bytes.data, count: engineValue.as.bytes.size))
            })
        }
    }

    /// COLUMNAR_MAX_VALUE_BYTES (a macro Swift does not import).
    static let maximumEncodingBytes = 16 * 1024 * 1024

    /// The encoding (nil for `.none`), checked against the engine's limits: the depth and the size of a value.
    func encoded() -> [UInt8]? {
        let out = encoded(depth: 0)
        if let out {
            precondition(out.count <= Self.maximumEncodingBytes,
                         "Columnar: a nested collection encodes to \(out.count) bytes, more than a value may hold "
                             + "(\(Self.maximumEncodingBytes) bytes)")
        }
        return out
    }

    /// The framing is NestedCollectionValue's (QueryVM), which query constants use too.
    private func encoded(depth: UInt32) -> [UInt8]? {
        switch self {
        case .scalar(let bytes):
            return bytes
        case .list(let elements):
            requireDepth(depth)
            return NestedCollectionValue.list(elements.map { $0.encoded(depth: depth + 1) })
        case .dictionary(let entries):
            requireDepth(depth)
            return NestedCollectionValue.dictionary(entries.mapValues { $0.encoded(depth: depth + 1) })
        }
    }

    private func requireDepth(_ depth: UInt32) {
        precondition(depth < COLUMNAR_MIXED_MAX_DEPTH,
                     "Columnar: collections in an AnyRealmValue nest at most \(COLUMNAR_MIXED_MAX_DEPTH) deep")
    }

    /// The subtree one step down, or nil when there is none.
    func child(_ step: NestedMixedSlot.Step) -> MixedTree? {
        switch (self, step) {
        case (.list(let elements), .index(let index)): return elements.indices.contains(index) ? elements[index] : nil
        case (.dictionary(let entries), .key(let key)): return entries[key]
        default: return nil
        }
    }

    /// This tree with the subtree at `path` replaced by `replacement` (the path exists: the caller read it).
    func replacing(at path: ArraySlice<NestedMixedSlot.Step>, with replacement: MixedTree) -> MixedTree {
        guard let step = path.first else { return replacement }
        switch (self, step) {
        case (.list(var elements), .index(let index)):
            elements[index] = elements[index].replacing(at: path.dropFirst(), with: replacement)
            return .list(elements)
        case (.dictionary(var entries), .key(let key)):
            entries[key] = entries[key]!.replacing(at: path.dropFirst(), with: replacement)
            return .dictionary(entries)
        default:
            preconditionFailure("Columnar: a nested collection's path no longer leads to it")
        }
    }
}

/// Where a live nested collection is: the stored mixed value whose tree holds it, and the path down that tree.
struct NestedMixedSlot {
    /// The stored value at the top of the tree.
    enum Root {
        /// An AnyRealmValue property of an object.
        case property(ObjectLocation, columnar_col_id)
        /// An element of a `List<AnyRealmValue>` property.
        case listElement(CollectionColumn, Int)
        /// The value of a key of a `Map<String, AnyRealmValue>` property.
        case mapValue(CollectionColumn, String)
    }

    enum Step: Hashable {
        case index(Int)
        case key(String)
    }

    let root: Root
    let path: [Step]
    /// The core's generation when the collection was made; `invalidate()` makes older collections invalid.
    let generation: UInt64

    init(root: Root, path: [Step]) {
        self.root = root
        self.path = path
        self.generation = Self.core(of: root).generation
    }

    func appending(_ step: Step) -> NestedMixedSlot { NestedMixedSlot(root: root, path: path + [step]) }

    /// The same place in another core of the same file (a frozen version, another thread's Realm).
    func rebound(to core: RealmCore) -> NestedMixedSlot {
        switch root {
        case .property(let location, let column):
            return NestedMixedSlot(root: .property(location.rebound(to: core), column), path: path)
        case .listElement(let list, let position):
            return NestedMixedSlot(root: .listElement(list.rebound(to: core), position), path: path)
        case .mapValue(let map, let key):
            return NestedMixedSlot(root: .mapValue(map.rebound(to: core), key), path: path)
        }
    }

    /// The encodings of the collection's elements (nil for null) in order, or of its values in key order, now;
    /// nil when the path no longer leads to a collection. What change notifications compare.
    func elementEncodings() -> [[UInt8]?]? {
        switch currentTree() {
        case .list(let elements)?: return elements.map { $0.encoded() }
        case .dictionary(let entries)?:
            return entries.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { entries[$0]!.encoded() }
        default: return nil
        }
    }

    var core: RealmCore { Self.core(of: root) }
    var realm: Realm { Realm(core: core) }

    private static func core(of root: Root) -> RealmCore {
        switch root {
        case .property(let location, _): return location.core
        case .listElement(let column, _), .mapValue(let column, _): return column.core
        }
    }

    /// Whether both are the same place.
    static func same(_ lhs: NestedMixedSlot?, _ rhs: NestedMixedSlot?) -> Bool {
        guard let lhs, let rhs else { return false }
        return lhs.isSame(as: rhs)
    }

    private func isSame(as other: NestedMixedSlot) -> Bool {
        guard path == other.path, core.file === other.core.file else { return false }
        switch (root, other.root) {
        case let (.property(a, ac), .property(b, bc)):
            return a.binding.table == b.binding.table && a.key == b.key && ac == bc
        case let (.listElement(a, ai), .listElement(b, bi)): return CollectionColumn.same(a, b) && ai == bi
        case let (.mapValue(a, ak), .mapValue(b, bk)): return CollectionColumn.same(a, b) && ak == bk
        default: return false
        }
    }

    // MARK: Reading

    /// The collection's tree now, or nil when the path no longer leads to a collection (or the object holding
    /// the tree is gone, or the Realm was invalidated).
    func currentTree() -> MixedTree? {
        guard generation == core.generation, var tree = rootTree() else { return nil }
        for step in path {
            guard let child = tree.child(step) else { return nil }
            tree = child
        }
        return tree
    }

    /// The stored tree at the root, or nil when its object, list element or map key is gone.
    private func rootTree() -> MixedTree? {
        let txn = core.currentTransaction
        var value = columnar_value()
        switch root {
        case .property(let location, let column):
            guard core.objectExists(location) else { return nil }
            Engine.mustSucceed(columnar_obj_get(txn, location.binding.table, location.key, column, &value),
                               "reading a mixed property")
        case .listElement(let list, let position):
            guard !list.isInvalidated, position < list.size else { return nil }
            list.check(columnar_coll_get(txn, list.table, list.key, list.column, UInt64(position), &value))
        case .mapValue(let map, let key):
            guard !map.isInvalidated else { return nil }
            var found = false
            var keyCopy = key
            keyCopy.withUTF8 { bytes in
                map.check(columnar_dict_get(txn, map.table, map.key, map.column, bytes.baseAddress, bytes.count,
                                            &value, &found))
            }
            guard found else { return nil }
        }
        return MixedTree(engineValue: value)
    }

    // MARK: Writing

    /// Replaces the collection with `tree` (the caller read the collection, so its path exists), re-encoding and
    /// storing the root's whole tree in the current write transaction.
    func store(_ tree: MixedTree, typeName: String) {
        core.requireWriteTransaction()
        guard let rootTree = rootTree(), generation == core.generation else {
            fatalError("\(typeName) is no longer valid: the AnyRealmValue holding it was deleted or replaced.")
        }
        let encoding = MixedEncoding(bytes: rootTree.replacing(at: path[...], with: tree).encoded())
        switch root {
        case .property(let location, let column):
            do {
                try core.write(encoding, location, column: column)
            } catch {
                fatalError("Columnar: cannot change the nested \(typeName): \(error)")
            }
        case .listElement(let list, let position):
            list.mutate { txn in
                try list.withEngineValue(encoding) { value in
                    columnar_list_set(txn, list.table, list.key, list.column, UInt64(position), &value)
                }
            }
        case .mapValue(let map, let key):
            map.mutate { txn in
                try map.withEngineValue(encoding) { value in
                    var keyCopy = key
                    return keyCopy.withUTF8 { bytes in
                        columnar_dict_set(txn, map.table, map.key, map.column, bytes.baseAddress, bytes.count, &value)
                    }
                }
            }
        }
    }
}

/// An encoded mixed value (nil: none) stored as it is: how a nested collection's change writes its root's tree.
struct MixedEncoding: _Persistable {
    let bytes: [UInt8]?

    static var _storage: _StorageType { AnyRealmValue._storage }
    static func _rlmDefaultValue() -> MixedEncoding { MixedEncoding(bytes: nil) }
    static func _read(_ value: columnar_value, from realm: Realm) -> MixedEncoding {
        MixedEncoding(bytes: Array(UnsafeRawBufferPointer(start: value.as.bytes.data, count: value.as.bytes.size)))
    }

    func _withValue<R>(in realm: Realm, _ body: (inout columnar_value) throws -> R) throws -> R {
        var value = columnar_value()
        value.type = COLUMNAR_TYPE_MIXED
        guard let bytes else {
            value.is_null = true
            return try body(&value)
        }
        return try bytes.withUnsafeBytes { buffer in
            value.as.bytes.data = buffer.baseAddress
            value.as.bytes.size = buffer.count
            return try body(&value)
        }
    }
}

// MARK: Values of trees

extension AnyRealmValue {
    /// The value of a tree; a collection is live at `slot` when there is one, else an unmanaged copy.
    static func value(of tree: MixedTree, at slot: NestedMixedSlot?, in core: RealmCore) -> AnyRealmValue {
        switch tree {
        case .scalar(nil): return .none
        case .scalar(let bytes?):
            return bytes.withUnsafeBytes { buffer in
                var decoded = columnar_value()
                Engine.mustSucceed(columnar_mixed_decode(buffer.baseAddress, buffer.count, &decoded),
                                   "decoding a mixed value")
                return MixedValueReading.value(of: decoded, in: core)
            }
        case .list(let elements):
            if let slot { return .list(List(nestedSlot: slot)) }
            let list = List<AnyRealmValue>()
            list.append(objectsIn: elements.map { value(of: $0, at: nil, in: core) })
            return .list(list)
        case .dictionary(let entries):
            if let slot { return .dictionary(Map(nestedSlot: slot)) }
            let map = Map<String, AnyRealmValue>()
            for (key, element) in entries { map[key] = value(of: element, at: nil, in: core) }
            return .dictionary(map)
        }
    }

    /// A value read from `root` (an engine value of a MIXED column or collection): a nested collection in it is
    /// live at that place. `root` is made only for a collection (a map's key costs an engine call).
    static func read(_ value: columnar_value, root: @autoclosure () -> NestedMixedSlot.Root,
                     in core: RealmCore) -> AnyRealmValue {
        guard !value.is_null, value.as.bytes.size > 0 else { return .none }
        let tag = Int32(value.as.bytes.data.load(as: UInt8.self))
        guard tag == COLUMNAR_MIXED_LIST || tag == COLUMNAR_MIXED_DICTIONARY else {
            return _read(value, from: Realm(core: core))
        }
        return AnyRealmValue.value(of: MixedTree(engineValue: value), at: NestedMixedSlot(root: root(), path: []),
                                   in: core)
    }

    /// Stops when the value is a nested collection: a `MutableSet` cannot hold one, as in RealmSwift.
    static func requireNotCollection(_ value: Any) {
        switch ObjectValueAssignment.unwrapped(value) as? AnyRealmValue {
        case .list?, .dictionary?:
            fatalError("Columnar: a MutableSet<AnyRealmValue> cannot hold a nested List or Map (sets of mixed "
                       + "values hold only non-collection values, as in RealmSwift)")
        default: return
        }
    }
}

/// Change notifications of a nested list: the object (or list or map) holding the tree is compared at each new
/// version, element by element. Nested values have no identity to follow, so the change is stated as the engine's
/// collections state a replacement: the elements equal at the start and at the end are kept, and in the range
/// between, positions present in both are modifications, the rest deletions (old) or insertions (new).
final class NestedListRegistration<Element: RealmCollectionValue>: NotificationRegistration {
    private let list: List<Element>
    private let slot: NestedMixedSlot
    private let block: (RealmCollectionChange<List<Element>>) -> Void
    private var encodings: [[UInt8]?] = []

    init(list: List<Element>, slot: NestedMixedSlot, block: @escaping (RealmCollectionChange<List<Element>>) -> Void) {
        self.list = list
        self.slot = slot
        self.block = block
    }

    override func deliver(_ comparison: VersionComparison, notify: Bool, siblingFired: Bool) {
        if needsInitial {
            needsInitial = false
            encodings = slot.elementEncodings() ?? []
            if notify { block(.initial(list)) }
            return
        }
        // A list whose place no longer holds one has nothing more to report.
        guard comparison.versionChanged, let now = slot.elementEncodings() else { return }
        let change = Self.change(from: encodings, to: now)
        encodings = now
        guard notify, !(change.deletions.isEmpty && change.insertions.isEmpty && change.modifications.isEmpty)
        else { return }
        block(.update(list, deletions: change.deletions, insertions: change.insertions,
                      modifications: change.modifications))
    }

    static func change(from old: [[UInt8]?], to new: [[UInt8]?])
        -> (deletions: [Int], insertions: [Int], modifications: [Int]) {
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix,
              old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        let oldMiddle = prefix ..< old.count - suffix, newMiddle = prefix ..< new.count - suffix
        let shared = min(oldMiddle.count, newMiddle.count)
        return (deletions: Array(oldMiddle.dropFirst(shared)), insertions: Array(newMiddle.dropFirst(shared)),
                modifications: Array(prefix ..< prefix + shared))
    }
}

enum NestedCollectionObservation {
    /// Registers an observation of a nested list on the observing thread, or in `context`, where it is rebuilt at
    /// the same place in that context's core.
    static func start<Element>(_ list: List<Element>, slot: NestedMixedSlot, in context: ConfinementContext?,
                               block: @escaping (RealmCollectionChange<List<Element>>) -> Void) -> NotificationToken {
        let core = slot.core
        core.requireObservable()
        guard let context else {
            let registration = NestedListRegistration(list: list, slot: slot, block: block)
            core.register(registration)
            return NotificationToken(registration)
        }
        return ConfinedObservation.start(in: context, configuration: core.configuration) { confinedCore in
            let rebound = slot.rebound(to: confinedCore)
            guard rebound.currentTree() != nil else { return nil }
            return NestedListRegistration(list: List<Element>(nestedSlot: rebound), slot: rebound, block: block)
        }
    }
}
