// Migration: what a migration block is given (RealmSwift's names). The work happens in SchemaMigration.swift.

import Foundation

/// Called when a file's schema version is lower than the configuration's, with the version stored in the file.
public typealias MigrationBlock = @Sendable (_ migration: Migration, _ oldSchemaVersion: UInt64) -> Void
/// An object as a migration reads and writes it: by property name.
public typealias MigrationObject = DynamicObject
/// Called once per object by `Migration.enumerateObjects(ofType:_:)`.
public typealias MigrationObjectEnumerateBlock = (_ oldObject: MigrationObject?, _ newObject: MigrationObject?) -> Void

/// A migration in progress, valid only inside its migration block (which runs inside the migration's write
/// transaction: nothing it does is kept unless the whole migration succeeds).
public final class Migration {
    private let migrator: SchemaMigrator

    init(migrator: SchemaMigrator) {
        self.migrator = migrator
    }

    /// The schema stored in the file before the migration (classes by stored name, properties by column name).
    public var oldSchema: Schema { migrator.oldSchema }
    /// The schema of the new model.
    public var newSchema: Schema { migrator.newSchema }

    /// Calls `block` for every object of the class: `oldObject` reads the values as stored before the migration
    /// (nil for a class the old schema does not have), `newObject` reads and writes the properties of the new model
    /// (nil for a class the new model does not have).
    public func enumerateObjects(ofType typeName: String, _ block: MigrationObjectEnumerateBlock) {
        migrator.enumerateObjects(ofType: typeName, block)
    }

    /// Creates an object of a class of the new model from a dictionary of property values or an array of values in
    /// property order.
    @discardableResult
    public func create(_ typeName: String, value: Any = [Any]()) -> MigrationObject {
        migrator.create(typeName, value: value)
    }

    /// Deletes an object handed out by this migration.
    public func delete(_ object: MigrationObject) {
        migrator.delete(object)
    }

    /// Deletes every object of a class, and its table when the new model no longer has the class. Returns whether
    /// the file had the class.
    @discardableResult
    public func deleteData(forType typeName: String) -> Bool {
        migrator.deleteData(forType: typeName)
    }

    /// Keeps the values of a property the new model has renamed: `oldName` of the old schema becomes `newName` of
    /// the new model (which must have the same type).
    public func renameProperty(onType typeName: String, from oldName: String, to newName: String) {
        migrator.renameProperty(onType: typeName, from: oldName, to: newName)
    }
}
