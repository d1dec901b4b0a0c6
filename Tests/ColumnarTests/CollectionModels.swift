// Model classes of the collection tests (MutableSet, Map, LinkingObjects, and List in the property tests).

import Columnar
import Foundation

/// A collection property of each kind and several element types.
final class CollectionHolder: Object {
    @Persisted var name = ""
    @Persisted var intList: List<Int>
    @Persisted var intSet: MutableSet<Int>
    @Persisted var otherIntSet: MutableSet<Int>
    @Persisted var stringSet: MutableSet<String>
    @Persisted var optionalIntSet: MutableSet<Int?>
    @Persisted var doubleSet: MutableSet<Double>
    @Persisted var intMap: Map<String, Int>
    @Persisted var otherIntMap: Map<String, Int>
    @Persisted var optionalStringMap: Map<String, String?>
    @Persisted var dateMap: Map<String, Date>
}

final class Kennel: Object {
    @Persisted var name = ""
    @Persisted var dogs: List<KennelDog>
    @Persisted var favorite: KennelDog?
    @Persisted var dogSet: MutableSet<KennelDog>
    @Persisted var dogsByName: Map<String, KennelDog?>
}

/// A dog with several linking-objects properties of the same origin class.
final class KennelDog: Object {
    @Persisted var name = ""
    @Persisted(originProperty: "dogs") var kennels: LinkingObjects<Kennel>
    @Persisted(originProperty: "favorite") var fans: LinkingObjects<Kennel>
    @Persisted(originProperty: "dogSet") var setKennels: LinkingObjects<Kennel>
    @Persisted(originProperty: "dogsByName") var namingKennels: LinkingObjects<Kennel>
}

/// A linking-objects property whose origin property does not exist (reading it stops).
final class StrayDog: Object {
    @Persisted var name = ""
    @Persisted(originProperty: "noSuchProperty") var owners: LinkingObjects<StrayOwner>
}

final class StrayOwner: Object {
    @Persisted var dog: StrayDog?
}
