// Results+Projections: the Swift key path spellings of sorting, distinct, aggregates, sections and observation
// for collections of projections (`people.sorted(by: \.homeCity)`), which name the root class's properties the
// projected key paths read and hand over to the string forms, as Results+KeyPaths.swift does for objects.

import Foundation

extension RealmCollection where Element: ProjectionObservable {
    /// The root class's property path a key path of the projection reads.
    fileprivate func rootPath(_ keyPath: AnyKeyPath) -> String {
        guard let kind = Element.self as? any ProjectionKind.Type else {
            fatalError("Columnar: \(Element.self) is not a Projection")
        }
        return ProjectionSchema.rootPath(of: keyPath, in: kind)
    }

    public func sorted<T: SortableType>(by keyPath: KeyPath<Element, T>, ascending: Bool = true) -> Results<Element> {
        sorted(byKeyPath: rootPath(keyPath), ascending: ascending)
    }

    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == PartialKeyPath<Element> {
        distinct(by: keyPaths.map { rootPath($0) })
    }

    public func min<T: MinMaxType>(of keyPath: KeyPath<Element, T>) -> T? { min(ofProperty: rootPath(keyPath)) }
    public func max<T: MinMaxType>(of keyPath: KeyPath<Element, T>) -> T? { max(ofProperty: rootPath(keyPath)) }
    public func sum<T: AddableType>(of keyPath: KeyPath<Element, T>) -> T { sum(ofProperty: rootPath(keyPath)) }
    public func average<T: AddableType>(of keyPath: KeyPath<Element, T>) -> T? {
        average(ofProperty: rootPath(keyPath))
    }
}

extension Results where Element: ProjectionObservable {
    /// `observe(keyPaths:on:_:)` with key paths of the projection, which select the root properties they read.
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Results<Element>>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { rootPath($0) }, on: queue, block)
    }

    /// The results sorted by a key path of the projection and divided into one section per value of it.
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>, ascending: Bool = true)
        -> SectionedResults<Key, Element> {
        sectioned(by: keyPath, sortDescriptors: [SortDescriptor(keyPath: rootPath(keyPath), ascending: ascending)])
    }

    /// The results sorted by `sortDescriptors`, the first of which must be the key path's (as the root property
    /// path it reads), and divided into one section per value of the key path.
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>,
                                                        sortDescriptors: [SortDescriptor])
        -> SectionedResults<Key, Element> {
        sectioned(by: keyPath, named: rootPath(keyPath), sortDescriptors: sortDescriptors)
    }

    /// The results sorted by `sortDescriptors` and divided into one section per key `keyBlock` gives a projection.
    public func sectioned<Key: _Persistable & Hashable>(sortDescriptors: [SortDescriptor],
                                                        _ keyBlock: @escaping (Element) -> Key)
        -> SectionedResults<Key, Element> {
        SectionedResults(results: sortDescriptors.isEmpty ? self : sorted(by: sortDescriptors), sectionKey: keyBlock)
    }
}
