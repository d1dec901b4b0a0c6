// Results+KeyPaths: the Swift key path spellings of sorting, distinct and aggregates on every RealmCollection of
// objects (`sorted(by: \.age)`, `sum(of: \.price)`), which name the property and hand over to the string forms.

import Foundation

extension RealmCollection where Element: ObjectBase {
    public func sorted<T: SortableType>(by keyPath: KeyPath<Element, T>, ascending: Bool = true) -> Results<Element> {
        sorted(byKeyPath: _name(for: keyPath), ascending: ascending)
    }

    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == PartialKeyPath<Element> {
        distinct(by: keyPaths.map { _name(for: $0) })
    }

    public func min<T: MinMaxType>(of keyPath: KeyPath<Element, T>) -> T? { min(ofProperty: _name(for: keyPath)) }
    public func max<T: MinMaxType>(of keyPath: KeyPath<Element, T>) -> T? { max(ofProperty: _name(for: keyPath)) }
    public func sum<T: AddableType>(of keyPath: KeyPath<Element, T>) -> T { sum(ofProperty: _name(for: keyPath)) }
    public func average<T: AddableType>(of keyPath: KeyPath<Element, T>) -> T? {
        average(ofProperty: _name(for: keyPath))
    }
}

extension SortDescriptor {
    /// Sorts by the property a key path names.
    public init<Element: ObjectBase>(keyPath: PartialKeyPath<Element>, ascending: Bool = true) {
        self.init(keyPath: _name(for: keyPath), ascending: ascending)
    }
}
