// AccessorReuse: when a loop over Results, a list or a set of objects may hand out the accessor object it made for
// the previous element again, pointed at the next row, instead of making a new one (LoopAccessor, below).
//
// `for item in realm.objects(Item.self) { sum += item.value }` makes one accessor object per row and frees it at
// the end of the loop's body; making and freeing it (an allocation, the class's initializer, a retain and a release
// of the Realm core, which take the runtime's slow path) is most of such a loop. When the object handed out last is
// referenced by nothing but the iterator, no code can tell a reused object from a new one of the same class bound to
// the next row, so the iterator re-points it (ObjectBase._repoint).
//
// "Referenced by nothing but the iterator" is asked of the Swift runtime, which exports the three counts of an
// object (`swift_retainCount`, `swift_unownedRetainCount`, `swift_weakRetainCount`): strong references, unowned
// references (plus one on behalf of the strong ones) and weak references (plus one). The object is reused only when
// all three equal those of an object held by one strong reference and nothing else. A weak or unowned reference
// must never see its object change rows, and a strong one keeps it. Those expected counts are measured once per
// process on an object of this file's own, which also checks that each kind of reference moves its count; if the
// runtime answers otherwise, nothing is reused.
//
// A class qualifies when its accessor objects are made without cells and every stored property of its own
// classes is `@Persisted` (ClassInfo.accessorsAreReusable): then a fresh accessor object of a row holds nothing but
// its location, and re-pointing the location makes the same object. How many times a model class's `init()` and
// `deinit` run while a loop goes through its objects is not part of the contract (RealmSwift makes accessor
// objects without calling `init()`).

import CColumnar

@_silgen_name("swift_retainCount")
private func runtimeStrongCount(_ object: UnsafeMutableRawPointer) -> Int

@_silgen_name("swift_unownedRetainCount")
private func runtimeUnownedCount(_ object: UnsafeMutableRawPointer) -> Int

@_silgen_name("swift_weakRetainCount")
private func runtimeWeakCount(_ object: UnsafeMutableRawPointer) -> Int

enum AccessorReuse {
    /// An object's three counts as the runtime reports them.
    private struct Counts: Equatable {
        var strong: Int
        var unowned: Int
        var weak: Int

        @inline(__always)
        init(_ object: UnsafeMutableRawPointer) {
            strong = runtimeStrongCount(object)
            unowned = runtimeUnownedCount(object)
            weak = runtimeWeakCount(object)
        }
    }

    /// The counts of an object held by one strong reference and nothing else, as measured on an object of this
    /// file's own; nil (nothing is reused) when a second strong reference, an unowned one or a weak one did not
    /// each change its own count.
    private static let onlyReferenceCounts: Counts? = measureOnlyReferenceCounts()

    /// Whether the runtime reports the counts as this file reads them (checked once per process).
    static var isAvailable: Bool { onlyReferenceCounts != nil }

    /// Whether `object` is referenced by nothing but the caller's one strong reference (which must not be a
    /// reference the compiler manages: the caller holds it as `Unmanaged`).
    /// The strong count is asked first: it is the one that says no for elements a loop keeps (`Array(results)`),
    /// and then the other two calls are not made.
    @inline(__always)
    static func isReferencedOnlyByCaller(_ object: Unmanaged<ObjectBase>) -> Bool {
        guard let expected = onlyReferenceCounts else { return false }
        let pointer = object.toOpaque()
        return runtimeStrongCount(pointer) == expected.strong && runtimeUnownedCount(pointer) == expected.unowned
            && runtimeWeakCount(pointer) == expected.weak
    }

    private final class Probe {}

    private final class UnownedHolder {
        unowned let object: Probe
        init(_ object: Probe) { self.object = object }
    }

    private final class WeakHolder {
        weak var object: Probe?
        init(_ object: Probe) { self.object = object }
    }

    private static func measureOnlyReferenceCounts() -> Counts? {
        let probe = Unmanaged.passRetained(Probe())
        defer { probe.release() }
        let alone = Counts(probe.toOpaque())

        let second = probe.retain()
        let withSecondStrong = Counts(probe.toOpaque())
        second.release()
        guard withSecondStrong.strong != alone.strong, Counts(probe.toOpaque()) == alone else { return nil }

        let unownedHolder = UnownedHolder(probe.takeUnretainedValue())
        let withUnowned = withExtendedLifetime(unownedHolder) { Counts(probe.toOpaque()) }
        guard withUnowned.unowned != alone.unowned else { return nil }

        let weakHolder = WeakHolder(probe.takeUnretainedValue())
        let withWeak = withExtendedLifetime(weakHolder) { Counts(probe.toOpaque()) }
        guard withWeak.weak != alone.weak else { return nil }
        return alone
    }
}

/// The accessor object a loop handed out last, which the loop hands out again, re-pointed at the next row, when
/// nothing else references it. Held by one iterator's state (ResultsIteration, CollectionSnapshot); not copyable,
/// since it owns a reference it retained by hand (a reference the compiler manages could be copied, and the counts
/// would no longer say whether anything else holds the object).
struct LoopAccessor: ~Copyable {
    /// Whether the loop's class qualifies (`ClassInfo.accessorsAreReusable`) and the runtime's counts can be read.
    private let reuses: Bool
    private var last: Unmanaged<ObjectBase>?

    init(binding: ClassBinding?) {
        reuses = binding?.info.accessorsAreReusable == true && AccessorReuse.isAvailable
    }

    deinit { last?.release() }

    /// The accessor object of the row `key` of `binding`'s table in `core` (always the same binding and core for
    /// one loop).
    mutating func object(key: columnar_key, binding: ClassBinding, core: RealmCore) -> ObjectBase {
        guard reuses else { return core.materialize(binding.schema.objectClass, binding: binding, key: key) }
        if let last, AccessorReuse.isReferencedOnlyByCaller(last) {
            let generation = core.generation
            last._withUnsafeGuaranteedRef { $0._repoint(key: key, generation: generation) }
            return last.takeUnretainedValue()
        }
        let object = core.materialize(binding.schema.objectClass, binding: binding, key: key)
        last?.release()
        last = Unmanaged.passRetained(object)
        return object
    }
}
