// PreparedSeek: `filter("indexedProperty == %@", v)` made again for another value, without parsing or checking.
//
// The first call of a format on a class takes the full path (the parse cache, the checker) and, when its checked
// predicate is one exact index seek on the format's only argument, leaves a seek template (QueryVM's
// SeekTemplate.swift) in the core's memo. A later call of the same format on the same table, in the same binding
// generation (the same classes bound to the same tables and columns), with an argument of the same kind, converts the
// argument and records it in the new Results as a prepared seek: `first`, `count` and iteration then ask the index
// for it directly, and anything else that needs the checked predicate (a sort, a further filter, `explain`,
// notifications) gets it made from the template on demand. The full path remains the reference: a call the template
// does not fit goes through it, and so does every error.

import CColumnar
import QueryVM

/// A predicate that is one exact index seek, from a seek template and one argument value.
struct PreparedSeek {
    let template: SeekTemplate
    /// The table and binding generation the template was made for; the seek is used only while both hold.
    let table: columnar_table_id
    let bindingGeneration: UInt64
    /// The argument as the query takes it, and the constant the index is asked for.
    let value: QueryValue
    let constant: ScalarValue
    /// The format string, the predicate's text.
    let format: String

    /// The checked predicate the full path makes for the same call.
    var predicate: CheckedPredicate { template.predicate(value: value, constant: constant) }
}

/// The seek templates a core made last, by format string and table. A program repeats few formats, so a handful
/// of entries, searched most recent first, answer without hashing the format (a literal compares equal to itself at
/// the cost of a pointer comparison).
struct SeekTemplateMemo {
    private struct Entry {
        let format: String
        let table: columnar_table_id
        let bindingGeneration: UInt64
        let template: SeekTemplate
    }

    static let capacity = 8
    private var entries: [Entry] = []

    /// The template for `format` on `table` in `bindingGeneration`, or nil.
    mutating func template(_ format: String, table: columnar_table_id, bindingGeneration: UInt64) -> SeekTemplate? {
        guard let index = entries.firstIndex(where: { $0.table == table && $0.format == format }) else { return nil }
        let entry = entries[index]
        guard entry.bindingGeneration == bindingGeneration else {
            entries.remove(at: index)
            return nil
        }
        if index > 0 { entries.swapAt(index, index - 1) }
        return entry.template
    }

    /// Keeps a template, dropping the one used least recently when full.
    mutating func keep(_ template: SeekTemplate, format: String, table: columnar_table_id, bindingGeneration: UInt64) {
        entries.removeAll { $0.table == table && $0.format == format }
        if entries.count >= Self.capacity { entries.removeLast() }
        entries.insert(Entry(format: format, table: table, bindingGeneration: bindingGeneration, template: template),
                       at: 0)
    }
}

extension Results {
    /// These results filtered by a prepared seek when `format` has a seek template on this class that fits
    /// `arguments`; nil sends the call down the full path.
    func preparedSeekFiltered(_ format: String, _ arguments: [Any]) -> Results<Element>? {
        guard query.isTrivial, source.isTable, !core.isFrozen, let binding, !binding.isDynamic else { return nil }
        let generation = core.bindingGeneration
        guard let template = core.seekTemplates.template(format, table: binding.table, bindingGeneration: generation),
              let (value, constant) = template.seek(arguments)
        else { return nil }
        let seek = PreparedSeek(template: template, table: binding.table, bindingGeneration: generation, value: value,
                                constant: constant, format: format)
        return with(ResultsQuery(seek: seek))
    }

    /// After a full-path `filter(format, arguments)` of these results: keeps a seek template for the next call
    /// when the checked predicate is one exact index seek on the format's only argument.
    func noteSeekTemplate(_ format: String, _ arguments: [Any], checked: CheckedPredicate, target: QueryTarget) {
        guard query.isTrivial, source.isTable, !core.isFrozen, let binding, !binding.isDynamic,
              binding.table == target.table,
              let template = SeekTemplate.make(format: format, arguments: arguments, checked: checked,
                                               table: target.table, model: target.model)
        else { return }
        core.seekTemplates.keep(template, format: format, table: target.table,
                                bindingGeneration: core.bindingGeneration)
    }
}
