// UnmanagedIndexMatching: `index(matching:)` on an unmanaged List or MutableSet of objects.
//
// RealmSwift answers `index(matching:)` on an unmanaged list (by evaluating the predicate on each object), while
// its other queries need a managed collection. Columnar's queries run in the engine, so each object is copied,
// with the objects it links to, into a Realm of its own in memory and the predicate is run there: the answer
// follows exactly the rules of a query on managed objects (the same parser, type checker and kernels), and the
// unmanaged objects are not touched. One Realm per object keeps objects that share a primary key apart. The cost
// is a small in-memory Realm per element tried, up to the first match (about 1.4 ms per element in a debug build);
// it is meant for the short lists a program builds before adding them. The registry of open Realms sweeps the
// released ones, so calling it often does not grow it.

import Foundation
import QueryVM

enum UnmanagedIndexMatching {
    /// The position of the first element for which `select` (a query applied to Results holding just a copy of
    /// that element) selects something, or nil. Elements must be objects of a class that can stand alone (not
    /// embedded).
    static func firstIndex<Element>(of elements: [Element], method: String,
                                    _ select: (Results<Element>) throws -> Results<Element>) rethrows -> Int? {
        for (position, element) in elements.enumerated() {
            guard let object = element as? Object else {
                fatalError("Columnar: \(method) on an unmanaged collection needs objects that can be stored on "
                           + "their own; \(type(of: element)) elements are not (add the collection's owner to a "
                           + "Realm to query it)")
            }
            let realm: Realm
            do {
                realm = try Realm(configuration: Realm.Configuration(
                    inMemoryIdentifier: "columnar-unmanaged-index-matching-\(UUID().uuidString)"))
            } catch {
                fatalError("Columnar: cannot open the in-memory Realm that \(method) evaluates in: \(error)")
            }
            let objectType = type(of: object)
            do {
                // Adding would make the element and the objects it links to managed by this Realm: a deep copy
                // is added instead.
                var copies: [ObjectIdentifier: ObjectBase] = [:]
                let copy = deepCopy(object, &copies)
                try realm.write { realm.add(copy as! Object) }
            } catch {
                fatalError("Columnar: cannot copy the element at \(position) for \(method): \(error)")
            }
            let candidates = Results<Element>(core: realm.core, binding: realm.core.requireBinding(for: objectType))
            if try !select(candidates).isEmpty { return position }
        }
        return nil
    }

    /// A new unmanaged object of the same class with the same values, and copies of the objects it reaches
    /// (each copied once, so shared objects stay shared and cycles end).
    private static func deepCopy(_ object: ObjectBase, _ copies: inout [ObjectIdentifier: ObjectBase]) -> ObjectBase {
        if let done = copies[ObjectIdentifier(object)] { return done }
        let copy = type(of: object).init()
        copies[ObjectIdentifier(object)] = copy
        for property in SchemaDiscovery.info(for: type(of: object)).schema.properties
        where property.type != .linkingObjects {
            guard let value = object._value(forProperty: property.name) else { continue }
            copy._setValue(copied(ObjectValueAssignment.unwrapped(value), &copies), forProperty: property.name)
        }
        return copy
    }

    private static func copied(_ value: Any, _ copies: inout [ObjectIdentifier: ObjectBase]) -> Any {
        if let object = value as? ObjectBase { return deepCopy(object, &copies) }
        if let map = value as? any MapEntriesReading {
            var dictionary: [String: Any] = [:]
            for (key, item) in map._entries {
                dictionary[key] = item.map { copied(ObjectValueAssignment.unwrapped($0), &copies) } ?? NSNull()
            }
            return dictionary
        }
        if let collection = value as? any RealmCollection {
            return elements(of: collection).map { copied(ObjectValueAssignment.unwrapped($0), &copies) }
        }
        return value
    }

    private static func elements<C: RealmCollection>(of collection: C) -> [Any] { collection.map { $0 as Any } }
}

/// A map's entries with string keys and untyped values (nil for a key that holds nil), for copying.
protocol MapEntriesReading {
    var _entries: [(String, Any?)] { get }
}

extension Map: MapEntriesReading {
    var _entries: [(String, Any?)] {
        zip(keys, values).map { key, value in
            let unwrapped = ObjectValueAssignment.unwrapped(value)
            let isNil = (unwrapped as? OptionalProtocol)?.isNone == true
            return (Self.string(from: key), isNil ? nil : unwrapped)
        }
    }
}
