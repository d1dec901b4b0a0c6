// SectionedObservation: `observe` on SectionedResults and ResultsSection.
//
// The state is each section's key and its objects' keys. An update first diffs the section keys (sections whose
// key disappeared are deleted, new keys inserted, and sections whose order changed, which only key blocks can
// cause, deleted and inserted), then, within each section kept, the object keys as collections do. Deletions are
// index paths into the old sections, insertions and modifications into the new; the elements of deleted and
// inserted sections are covered by the section change and not listed one by one. An object whose section key
// changes leaves one section and enters another.

import CColumnar
import Foundation

/// What changed in observed sectioned results.
@frozen public enum SectionedResultsChange<Collection> {
    case initial(Collection)
    case update(Collection, deletions: [IndexPath], insertions: [IndexPath], modifications: [IndexPath],
                sectionsToInsert: IndexSet, sectionsToDelete: IndexSet)
}

final class SectionedRegistration<Key: _Persistable & Hashable, Element: RealmCollectionValue, Observed>:
    NotificationRegistration {
    private let sectioned: SectionedResults<Key, Element>
    private let observed: Observed
    /// Only this section (ResultsSection.observe), reported as a collection change.
    private let onlySection: Key?
    private let node: ObservedNode?
    private let sectionedBlock: ((SectionedResultsChange<Observed>) -> Void)?
    private let sectionBlock: ((RealmCollectionChange<Observed>) -> Void)?
    private var sections: [(key: Key, keys: [Int64])] = []

    init(sectioned: SectionedResults<Key, Element>, observed: Observed, onlySection: Key?, keyPaths: [String]?,
         sectionedBlock: ((SectionedResultsChange<Observed>) -> Void)?,
         sectionBlock: ((RealmCollectionChange<Observed>) -> Void)?) {
        self.sectioned = sectioned
        self.observed = observed
        self.onlySection = onlySection
        self.sectionedBlock = sectionedBlock
        self.sectionBlock = sectionBlock
        let results = sectioned.results
        if let binding = results.binding {
            node = keyPaths.map { ObservedNode.keyPaths($0, of: binding, in: results.core) }
                ?? ObservedNode.allProperties(of: binding, in: results.core, depth: 4)
        } else {
            node = nil
        }
    }

    private func currentSections() -> [(key: Key, keys: [Int64])] {
        let layout = sectioned.current()
        let keys = sectioned.results.keys
        return layout.keys.map { key in (key, (layout.positions[key] ?? []).map { keys[$0] }) }
    }

    override func deliver(_ comparison: VersionComparison, notify: Bool, siblingFired: Bool) {
        if needsInitial {
            needsInitial = false
            sections = currentSections()
            if notify { sectionedBlock?(.initial(observed)) ?? sectionBlock?(.initial(observed)) }
            return
        }
        guard comparison.versionChanged else { return }
        let now = currentSections()
        let old = sections
        sections = now
        let modified = node.map { comparison.modifiedKeys($0, among: now.flatMap(\.keys)) } ?? []
        if let onlySection {
            let before = old.first { $0.key == onlySection }?.keys ?? []
            let after = now.first { $0.key == onlySection }?.keys ?? []
            let change = OrderedChangeSet.between(before, after, modified: modified)
            guard notify, !change.isEmpty else { return }
            sectionBlock?(.update(observed, deletions: change.deletions, insertions: change.insertions,
                                  modifications: change.modifications))
            return
        }
        let sectionChange = OrderedChangeSet.between(old.map(\.key), now.map(\.key))
        let deletedSections = Set(sectionChange.deletions), insertedSections = Set(sectionChange.insertions)
        var deletions: [IndexPath] = [], insertions: [IndexPath] = [], modifications: [IndexPath] = []
        // Kept sections pair up in order: the i-th kept old section is the i-th kept new one.
        let keptOld = old.indices.filter { !deletedSections.contains($0) }
        let keptNew = now.indices.filter { !insertedSections.contains($0) }
        for (oldIndex, newIndex) in zip(keptOld, keptNew) {
            let change = OrderedChangeSet.between(old[oldIndex].keys, now[newIndex].keys, modified: modified)
            deletions += change.deletions.map { IndexPath(indexes: [oldIndex, $0]) }
            insertions += change.insertions.map { IndexPath(indexes: [newIndex, $0]) }
            modifications += change.modifications.map { IndexPath(indexes: [newIndex, $0]) }
        }
        guard notify, !(deletions.isEmpty && insertions.isEmpty && modifications.isEmpty && deletedSections.isEmpty
                        && insertedSections.isEmpty) else { return }
        sectionedBlock?(.update(observed, deletions: deletions, insertions: insertions, modifications: modifications,
                                sectionsToInsert: IndexSet(sectionChange.insertions),
                                sectionsToDelete: IndexSet(sectionChange.deletions)))
    }
}

extension SectionedResults {
    /// Registers a block called with the sectioned results' changes: `.initial`, then `.update` with index paths
    /// and the sections inserted and deleted (see `Results.observe(keyPaths:on:_:)` for key paths and delivery).
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<SectionedResults<Key, SectionElement>>) -> Void)
        -> NotificationToken {
        SectionedObservation.start(self, keyPaths: keyPaths, in: queue.map(ConfinementContext.queue)) { sectioned in
            SectionedRegistration(sectioned: sectioned, observed: sectioned, onlySection: nil, keyPaths: keyPaths,
                                  sectionedBlock: block, sectionBlock: nil)
        }
    }

    public func observe(keyPaths: [PartialKeyPath<SectionElement>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<SectionedResults<Key, SectionElement>>) -> Void)
        -> NotificationToken where SectionElement: ObjectBase {
        observe(keyPaths: CollectionObservation.names(keyPaths), on: queue, block)
    }
}

extension ResultsSection {
    /// Registers a block called with this section's changes, as positions in the section (an object moving to
    /// another section is a deletion here).
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<ResultsSection<Key, Element>>) -> Void)
        -> NotificationToken {
        let key = self.key
        return SectionedObservation.start(parent, keyPaths: keyPaths, in: queue.map(ConfinementContext.queue)) { sectioned in
            SectionedRegistration(sectioned: sectioned, observed: ResultsSection(parent: sectioned, key: key),
                                  onlySection: key, keyPaths: keyPaths, sectionedBlock: nil, sectionBlock: block)
        }
    }

    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<ResultsSection<Key, Element>>) -> Void)
        -> NotificationToken where Element: ObjectBase {
        observe(keyPaths: CollectionObservation.names(keyPaths), on: queue, block)
    }
}

enum SectionedObservation {
    static func start<Key, Element>(_ sectioned: SectionedResults<Key, Element>, keyPaths: [String]?,
                                    in context: ConfinementContext?,
                                    register: @escaping (SectionedResults<Key, Element>) -> NotificationRegistration)
        -> NotificationToken {
        let core = sectioned.results.core
        core.requireObservable()
        guard let context else {
            let registration = register(sectioned)
            core.register(registration)
            return NotificationToken(registration)
        }
        if let binding = sectioned.results.binding, let keyPaths {
            _ = ObservedNode.keyPaths(keyPaths, of: binding, in: core)
        }
        let recipe = sectioned.results._handOverRecipe()
        let sectionKey = sectioned.sectionKey
        return ConfinedObservation.start(in: context, configuration: core.configuration) { confinedCore in
            guard let results = recipe.rebuild(confinedCore) as? Results<Element> else { return nil }
            return register(SectionedResults(results: results, sectionKey: sectionKey))
        }
    }
}
