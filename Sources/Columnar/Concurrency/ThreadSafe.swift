// @ThreadSafe: a property that holds a live object or collection and gives it back on whichever thread reads it.
//
// It keeps the value's hand-over recipe, not the value: each read opens the Realm of the value's file on the
// reading thread (the thread's own core) and rebuilds the value there, or gives nil when it no longer exists.
// Unlike a ThreadSafeReference it can be read any number of times, and it pins no version.

import Foundation

@propertyWrapper public final class ThreadSafe<T: ThreadConfined>: @unchecked Sendable {
    private let lock = NSLock()
    private var recipe: _HandOverRecipe?

    public init(wrappedValue: T?) {
        if let wrappedValue { self.recipe = Self.recipe(for: wrappedValue) }
    }

    private static func recipe(for value: T) -> _HandOverRecipe {
        guard value.realm != nil else {
            fatalError("Only managed objects and collections may be wrapped in @ThreadSafe")
        }
        return value._handOverRecipe()
    }

    public var wrappedValue: T? {
        get {
            guard let recipe = lock.withLock({ recipe }) else { return nil }
            do {
                let realm = try Realm(configuration: recipe.configuration)
                return recipe.resolve(in: realm) as? T
            } catch {
                fatalError("Columnar: @ThreadSafe cannot open its Realm on this thread: \(error)")
            }
        }
        set {
            var recipe: _HandOverRecipe?
            if let newValue { recipe = Self.recipe(for: newValue) }
            lock.withLock { self.recipe = recipe }
        }
    }
}
