// PreparedSeek: `filter("indexedProperty == %@", v)` made again for another value, without parsing or checking.
//
// The first call of a format on a class takes the full path (the parse cache, the checker) and, when its checked
// predicate is one exact index seek on the format's only argument, leaves a seek plan in the core's memo: a seek
// template (QueryVM's SeekTemplate.swift) with the format, the table and the binding generation. A later call of the same format on the same table, in the same binding
// generation (the same classes bound to the same tables and columns), with an argument of the same kind, converts the
// argument and records it in the new Results as a prepared seek: `first`, `count` and iteration then ask the index
// for it directly, and anything else that needs the checked predicate (a sort, a further filter, `explain`,
// notifications) gets it made from the template on demand. The full path remains the reference: a call the template
// does not fit goes through it, and so does every error.

import CColumnar
import QueryVM

/// A seek template of one format on one table, for one binding generation of one core.
final class SeekPlan {
    let template: SeekTemplate
    /// The format string: the key of the plan, and the predicate's text.
    let format: String
    /// The table and binding generation the template was made for; a seek is used only while both hold.
    let table: columnar_table_id
    let bindingGeneration: UInt64

    init(template: SeekTemplate, format: String, table: columnar_table_id, bindingGeneration: UInt64) {
        self.template = template
        self.format = format
        self.table = table
        self.bindingGeneration = bindingGeneration
    }
}

/// A predicate that is one exact index seek: a plan and one argument value. Kept small, since every copy of a
/// Results value copies it.
struct PreparedSeek {
    let plan: SeekPlan
    /// The argument as the query takes it, and the constant the index is asked for.
    let value: QueryValue
    let constant: ScalarValue

    var format: String { plan.format }

    /// The checked predicate the full path makes for the same call.
    var predicate: CheckedPredicate { plan.template.predicate(value: value, constant: constant) }
}

/// The seek plans a core made last. A program repeats few formats, so a handful of plans, searched most recent
/// first, answer without hashing the format (a literal compares equal to itself at the cost of a pointer
/// comparison).
struct SeekPlanMemo {
    static let capacity = 8
    private var plans: [SeekPlan] = []

    /// The plan for `format` on `table` in `bindingGeneration`, or nil.
    mutating func plan(_ format: String, table: columnar_table_id, bindingGeneration: UInt64) -> SeekPlan? {
        guard let index = plans.firstIndex(where: { $0.table == table && $0.format == format }) else { return nil }
        let plan = plans[index]
        guard plan.bindingGeneration == bindingGeneration else {
            plans.remove(at: index)
            return nil
        }
        if index > 0 { plans.swapAt(index, index - 1) }
        return plan
    }

    /// Keeps a plan, dropping the one used least recently when full.
    mutating func keep(_ plan: SeekPlan) {
        plans.removeAll { $0.table == plan.table && $0.format == plan.format }
        if plans.count >= Self.capacity { plans.removeLast() }
        plans.insert(plan, at: 0)
    }
}

extension Results {
    /// The binding of results a filter may turn into a prepared seek: every object of a model class (nothing
    /// filtered or ordered yet) in a live Realm; nil otherwise.
    private var seekableBinding: ClassBinding? {
        guard query.isTrivial, source.isTable, !core.isFrozen, let binding, !binding.isDynamic else { return nil }
        return binding
    }

    /// The keys of these results when they are one prepared seek that still holds (same table, same binding
    /// generation), found without the query model or a program; nil otherwise (then the full path answers, and
    /// reports any error the seek would have met).
    var preparedSeekKeys: [columnar_key]? {
        guard query.seek != nil, let binding else { return nil }
        return try? query.preparedSeekKeys(core: core, table: binding.table, source: source)
    }

    /// These results filtered by a prepared seek when `format` has a seek template on this class that fits
    /// `arguments`; nil sends the call down the full path.
    func preparedSeekFiltered(_ format: String, _ arguments: [Any]) -> Results<Element>? {
        guard let binding = seekableBinding,
              let plan = core.seekPlans.plan(format, table: binding.table,
                                                 bindingGeneration: core.bindingGeneration),
              let (value, constant) = plan.template.seek(arguments)
        else { return nil }
        return with(ResultsQuery(seek: PreparedSeek(plan: plan, value: value, constant: constant)))
    }

    /// After a full-path `filter(format, arguments)` of these results: keeps a seek template for the next call
    /// when the checked predicate is one exact index seek on the format's only argument.
    func noteSeekTemplate(_ format: String, _ arguments: [Any], checked: CheckedPredicate, target: QueryTarget) {
        guard let binding = seekableBinding, binding.table == target.table,
              let template = SeekTemplate.make(format: format, arguments: arguments, checked: checked,
                                               table: target.table, model: target.model)
        else { return }
        core.seekPlans.keep(SeekPlan(template: template, format: format, table: target.table,
                                         bindingGeneration: core.bindingGeneration))
    }
}
