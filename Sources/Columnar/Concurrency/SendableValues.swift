// SendableValues: which of Columnar's values may cross isolation boundaries in Swift 6.
//
// A Realm, a collection or an object is either live, confined to the thread, serial queue or actor of its Realm
// and checked on every access (using one elsewhere stops with "Realm accessed from incorrect thread"), or frozen,
// readable from any thread at once (Freezing.swift). Swift's types cannot tell the two apart, so these values are
// `Sendable` unchecked, as in RealmSwift: handing over a frozen value (or a ThreadSafeReference) is how they are
// meant to travel, and a live one that travels is caught at run time where it is used.

extension Realm: @unchecked Sendable {}
extension Results: @unchecked Sendable {}
extension List: @unchecked Sendable {}
extension MutableSet: @unchecked Sendable {}
extension Map: @unchecked Sendable {}
extension LinkingObjects: @unchecked Sendable {}
extension AnyRealmCollection: @unchecked Sendable {}
extension SectionedResults: @unchecked Sendable {}
extension ResultsSection: @unchecked Sendable {}
