// Results+Query: filtering, sorting and distinct on Results, as RealmSwift offers them.
//
// Each call returns new Results that share the source and add to the selection; nothing runs until the results
// are read. A predicate string is parsed and type-checked against the model at the call: a mistake stops the
// program with a message that names the position, what was expected and the class and property involved (as
// RealmSwift raises an exception), and `filter(checking:_:)` throws the same message as a `ColumnarError`.

import CColumnar
import Foundation
import QueryVM

extension Results {
    /// The objects that satisfy a predicate-format string, e.g. `filter("age > %@ AND name BEGINSWITH[c] %@", 3, "r")`.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        do { return try filtered(predicateFormat, args) } catch {
            fatalError("Columnar: \(error)")
        }
    }

    /// Like `filter(_:_:)`, but a malformed or ill-typed query throws a `ColumnarError` (code `.misuse`) whose
    /// message gives the position and the reason, instead of stopping the program.
    public func filter(checking predicateFormat: String, _ args: Any...) throws -> Results<Element> {
        try filtered(predicateFormat, args)
    }

    func filtered(_ predicateFormat: String, _ args: [Any]) throws -> Results<Element> {
        // A repeated equality on an indexed property skips everything below (PreparedSeek.swift).
        if let prepared = preparedSeekFiltered(predicateFormat, args) { return prepared }
        let (predicate, templateID) = try PredicateParser.parseTemplated(predicateFormat, arguments: args)
        guard let target else { return self }
        let checked = try check(predicate, text: predicateFormat, templateID: templateID, target: target)
        if templateID != nil { noteSeekTemplate(predicateFormat, args, checked: checked, target: target) }
        return adding(checked, text: predicateFormat)
    }

    /// Adds a parsed predicate (from any front end) to the selection, checking it against the model now.
    func filtered(_ predicate: QueryPredicate, text: String?, templateID: Int? = nil) throws -> Results<Element> {
        guard let target else { return self }
        return adding(try check(predicate, text: text, templateID: templateID, target: target),
                      text: text ?? predicate.description)
    }

    /// A parsed predicate checked against the target's model. A predicate made from a cached parse template
    /// (`templateID`) reuses the check of its template's first one, except over a collection of values, whose
    /// model describes the element type rather than the bound classes.
    private func check(_ predicate: QueryPredicate, text: String?, templateID: Int?, target: QueryTarget) throws
        -> CheckedPredicate
    {
        source.holdsValues
            ? try TypeChecker.check(predicate, table: target.table, model: target.model, query: text)
            : try core.checkedPredicate(predicate, templateID: templateID, table: target.table, model: target.model,
                                        query: text)
    }

    /// The results with a checked predicate added to the selection (ANDed with the one there).
    private func adding(_ checked: CheckedPredicate, text: String) -> Results<Element> {
        var query = self.query
        query.predicate = query.predicate.map { .and([$0, checked]) } ?? checked
        query.predicateText.append(text)
        return with(query)
    }

    /// The results sorted by a property or a key path through to-one links (`owner.name`). Sorting is stable and
    /// the new key comes first: ties keep the previous order.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// The results sorted by several keys, the first deciding first.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        let descriptors = Array(sortDescriptors)
        if let target {
            for descriptor in descriptors {
                do {
                    _ = try TypeChecker.resolveKeyPath(descriptor.keyPath, table: target.table, model: target.model,
                                                       for: .sort)
                } catch {
                    fatalError("Columnar: \(error)")
                }
            }
        }
        var query = self.query
        query.appendSort(descriptors)
        return with(query)
    }

    /// The first object of each distinct combination of the key paths' values, in order.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        let paths = Array(keyPaths)
        if let target {
            for path in paths {
                do {
                    _ = try TypeChecker.resolveKeyPath(path, table: target.table, model: target.model, for: .distinct)
                } catch {
                    fatalError("Columnar: \(error)")
                }
            }
        }
        var query = self.query
        query.appendDistinct(paths)
        return with(query)
    }

    /// The position of the first object that satisfies a predicate-format string, or nil.
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        let matching: Results<Element>
        do { matching = try filtered(predicateFormat, args) } catch { fatalError("Columnar: \(error)") }
        return firstPosition(in: matching)
    }

    // MARK: NSPredicate

    /// The objects that satisfy an NSPredicate made with `NSPredicate(format:)` (NSPredicate+Format.swift), its
    /// `NSCompoundPredicate` combinations, or `NSPredicate(value:)`.
    public func filter(_ predicate: NSPredicate) -> Results<Element> {
        do { return try filtered(predicate) } catch { fatalError("Columnar: \(error)") }
    }

    /// Like `filter(_:)` with an NSPredicate, but a malformed or ill-typed predicate throws a `ColumnarError`.
    public func filter(checking predicate: NSPredicate) throws -> Results<Element> {
        try filtered(predicate)
    }

    /// The position of the first object that satisfies an NSPredicate, or nil.
    public func index(matching predicate: NSPredicate) -> Int? {
        let matching: Results<Element>
        do { matching = try filtered(predicate) } catch { fatalError("Columnar: \(error)") }
        return firstPosition(in: matching)
    }

    func filtered(_ predicate: NSPredicate) throws -> Results<Element> {
        let (format, arguments) = try PredicateFormat.of(predicate)
        return try filtered(format, arguments)
    }

    /// The position in these results of the first of `matching`'s objects (which are a subset of them).
    func firstPosition(in matching: Results<Element>) -> Int? {
        let selected = Set(matching.keys)
        return keys.firstIndex(where: selected.contains)
    }

    /// The compiled query, one instruction per line with each opcode's synopsis.
    public func explain() -> String {
        guard let target else { return "(no table: the class is not in this read-only file)" }
        var text = query.executor(core: core, target: target, source: source).program.explain()
        if !query.sort.isEmpty {
            text += "\nsort by " + query.sort.map { "\($0.keyPath) \($0.ascending ? "ascending" : "descending")" }
                .joined(separator: ", ")
        }
        if !query.distinct.isEmpty { text += "\ndistinct by " + query.distinct.joined(separator: ", ") }
        return text
    }
}

extension Results where Element: ObjectBase {
    /// The objects that satisfy a Foundation `#Predicate`. A predicate using a construct that has no query
    /// equivalent stops with a message naming it; `filter(checking:)` throws instead.
    public func filter(_ predicate: Predicate<Element>) -> Results<Element> {
        do { return try filter(checking: predicate) } catch { fatalError("Columnar: \(error)") }
    }

    /// Like `filter(_:)` with a `#Predicate`, but an untranslatable or ill-typed predicate throws a
    /// `ColumnarError` (code `.misuse`) naming the construct.
    public func filter(checking predicate: Predicate<Element>) throws -> Results<Element> {
        try filtered(try PredicateTranslator.translate(predicate), text: nil)
    }
}

extension Results {
    /// The objects that satisfy a typed query, e.g. `where { $0.age > 3 && $0.name.starts(with: "R") }`; for
    /// results of values the query's root is the value (`where { $0 > 3 }` is `self > 3`).
    public func `where`(_ isIncluded: ((Query<Element>) -> Query<Bool>)) -> Results<Element> {
        do {
            return try filtered(Query<Element>._predicate(isPrimitive: source.holdsValues, isIncluded), text: nil)
        } catch {
            fatalError("Columnar: \(error)")
        }
    }

    /// The position of the first object that satisfies a typed query, or nil.
    public func index(matching isIncluded: ((Query<Element>) -> Query<Bool>)) -> Int? {
        firstPosition(in: self.where(isIncluded))
    }
}
