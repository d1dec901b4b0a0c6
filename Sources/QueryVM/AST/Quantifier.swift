// Quantifier: ANY, ALL and NONE in front of a comparison whose left side goes through a to-many step.

/// How the results of comparing each element of a to-many key path combine into one truth value.
public enum Quantifier: String, Hashable, Sendable, CaseIterable {
    /// True when the comparison holds for at least one element (`ANY`, also spelled `SOME`). Without a
    /// quantifier a to-many comparison means `ANY`.
    case any = "ANY"
    /// True when the comparison holds for every element, and for an empty collection. RealmSwift refuses `ALL`;
    /// Columnar supports it.
    case all = "ALL"
    /// True when the comparison holds for no element (`NONE`, i.e. `NOT ANY`). Not named `none`, which
    /// `Optional<Quantifier>` would shadow.
    case noElement = "NONE"
}
