// Collection+KeyValueCoding: `value(forKey:)`, `value(forKeyPath:)` and `setValue(_:forKey:)` on collections of
// objects, as RealmSwift offers them on every collection: each element's value of a property (or at a path through
// to-one links), or one property set on every element. List and MutableSet also answer `value(forKey:)` with
// `[AnyObject]`, as RealmSwift's do; that form is declared on the classes, so it is the one an unannotated call
// picks, and the `Any?` form below is chosen where the context asks for it.

import Foundation

extension QueryableValueCollection {
    /// Each element's value of a property, in order (an array; nil where the value is nil).
    public func value(forKey key: String) -> Any? { value(forKeyPath: key) }

    /// Each element's value at a key path through to-one links (`owner.name`), in order.
    public func value(forKeyPath keyPath: String) -> Any? {
        CollectionKeyValueCoding.values(of: self, keyPath: keyPath)
    }

    /// Sets a property of every element (objects; managed ones need a write transaction).
    public func setValue(_ value: Any?, forKey key: String) {
        CollectionKeyValueCoding.setValue(value, forKey: key, in: self)
    }
}

/// Key-value coding over the elements of a collection of objects: each element's value at a key path (through
/// to-one links, as in `owner.name`), or one property set on every element.
enum CollectionKeyValueCoding {
    /// Each element's value at `keyPath`, in order; nil where a link on the path is nil or the element is a value.
    static func values<C: Collection>(of collection: C, keyPath: String) -> [Any?] {
        collection.map { element -> Any? in
            var current: Any? = element
            for name in keyPath.split(separator: ".") {
                guard let object = current as? ObjectBase else { return nil }
                current = object._value(forProperty: String(name))
                if let optional = current as? OptionalProtocol, optional.isNone { return nil }
            }
            return current
        }
    }

    /// The same values as Objective-C style objects (nil as `NSNull`), as RealmSwift's List returns them.
    static func objects<C: Collection>(of collection: C, keyPath: String) -> [AnyObject] {
        values(of: collection, keyPath: keyPath).map { $0.map { $0 as AnyObject } ?? NSNull() }
    }

    /// Sets a property of every element (which must be objects; managed ones need a write transaction).
    static func setValue<C: Collection>(_ value: Any?, forKey key: String, in collection: C) {
        for element in Array(collection) {
            guard let object = element as? ObjectBase else {
                fatalError("Columnar: setValue(_:forKey:) needs a collection of objects; \(C.Element.self) is a value")
            }
            object._setValue(value, forProperty: key)
        }
    }
}
