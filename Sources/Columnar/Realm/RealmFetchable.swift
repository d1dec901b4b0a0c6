// RealmFetchable: the types `Realm.objects(_:)` returns results of, named as RealmSwift names them, so that code
// generic over them (`func all<T: RealmFetchable>(_ type: T.Type) -> Results<T>`) compiles unchanged.
//
// Model classes conform here; projections in Object/Projection.swift.

/// A type whose stored instances a Realm can list: model classes (`Object` subclasses) and projections.
public protocol RealmFetchable: RealmCollectionValue {
    /// The name the type is stored under.
    static func className() -> String
}

extension Object: RealmFetchable {}
