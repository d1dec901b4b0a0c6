// SortDescriptor, MinMaxType and AddableType: the public vocabulary of sorting and aggregates, as RealmSwift
// names it.

import Foundation

/// A key path to sort by and a direction (RealmSwift's `SortDescriptor`).
public struct SortDescriptor: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The property, or a path through to-one links such as `owner.name`.
    public let keyPath: String
    public let ascending: Bool

    public init(keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    /// Sorts ascending by `keyPath`.
    public init(stringLiteral keyPath: String) {
        self.init(keyPath: keyPath)
    }

    /// `SortDescriptor(keyPath: name, direction: ascending)`, as RealmSwift prints it.
    public var description: String {
        "SortDescriptor(keyPath: \(keyPath), direction: \(ascending ? "ascending" : "descending"))"
    }

    /// The same key path in the other direction.
    public func reversed() -> SortDescriptor {
        SortDescriptor(keyPath: keyPath, ascending: !ascending)
    }
}

/// Types whose minimum and maximum a collection can report: numbers and dates.
public protocol MinMaxType {}
extension Int: MinMaxType {}
extension Int8: MinMaxType {}
extension Int16: MinMaxType {}
extension Int32: MinMaxType {}
extension Int64: MinMaxType {}
extension Float: MinMaxType {}
extension Double: MinMaxType {}
extension Date: MinMaxType {}
extension Decimal128: MinMaxType {}
extension Optional: MinMaxType where Wrapped: MinMaxType {}
/// `min(ofProperty:) as NSNumber?`, as RealmSwift's Objective-C roots allow: the number, boxed.
extension NSNumber: MinMaxType {}

/// Types a collection can sum and average: numbers.
public protocol AddableType {}
extension Int: AddableType {}
extension Int8: AddableType {}
extension Int16: AddableType {}
extension Int32: AddableType {}
extension Int64: AddableType {}
extension Float: AddableType {}
extension Double: AddableType {}
extension Decimal128: AddableType {}
extension Optional: AddableType where Wrapped: AddableType {}
extension NSNumber: AddableType {}
