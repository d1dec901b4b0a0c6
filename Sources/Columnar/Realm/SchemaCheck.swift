// SchemaCheck: comparing the classes about to be used with their stored tables, before they are bound.
//
// For each class whose table exists (a class without one gets a fresh table, which needs no migration), the
// differences (SchemaDifferences.swift) are judged by the class's stamp (ClassVersionRecord.swift):
// - stamped at the file's schema version: the table took this shape at this version, so any difference is a
//   mismatch, thrown as RealmSwift throws it ("Migration is required due to the following errors: …");
// - stamped lower: the version was raised by a migration that did not know this class (Columnar learns classes
//   as they are used). Properties added to or removed from the model are then applied here, as the migration
//   would have, and the class is stamped; a change of type, optionality or primary key needs the migration block
//   and is refused with advice to list the class in `objectTypes` and raise the version again.
// A class without differences but with a lower stamp is stamped too (when the Realm can write), so that a model
// change made later without raising the version is caught.

import CColumnar
import Foundation
import QueryVM

struct SchemaCheck {
    private struct Adaptation {
        let className: String
        let table: columnar_table_id
        let differences: [SchemaDifference]
    }

    private let fileVersion: UInt64
    private var adaptations: [Adaptation] = []

    /// Throws `SchemaMismatch` for differences that need a migration.
    init(_ types: [ObjectBase.Type], _ txn: OpaquePointer) throws {
        fileVersion = try SchemaVersionRecord.read(txn)
        var mismatches: [String] = []
        var unadaptable: [String] = []
        for type in types {
            let schema = SchemaDiscovery.info(for: type).schema
            var table: columnar_table_id = 0
            guard columnar_table_find(txn, schema.className, &table) == COLUMNAR_OK else { continue }
            let differences = try SchemaDifferences.of(schema, table: table, txn)
            let stamp = try ClassVersionRecord.version(of: schema.className, txn)
            if stamp >= fileVersion {
                mismatches += differences.map(\.text)
            } else if differences.contains(where: { $0.kind == .changed }) {
                unadaptable += differences.map(\.text)
            } else {
                adaptations.append(Adaptation(className: schema.className, table: table, differences: differences))
            }
        }
        guard mismatches.isEmpty && unadaptable.isEmpty else {
            var advice: [String] = []
            if !mismatches.isEmpty {
                advice.append("The file's schema version is \(fileVersion): to migrate, raise the configuration's "
                              + "schemaVersion (listing the changed classes in objectTypes, or using them before "
                              + "opening), or set deleteRealmIfMigrationNeeded.")
            }
            if !unadaptable.isEmpty {
                advice.append("Some of these classes were not known to the migration to schema version "
                              + "\(fileVersion); a class first used after a migration can only gain or lose "
                              + "properties: raise schemaVersion again and list it in objectTypes to migrate it.")
            }
            throw SchemaMismatch(differences: mismatches + unadaptable, advice: advice.joined(separator: "\n"))
        }
    }

    /// Whether a class must be changed (properties added or removed) before it can be used.
    var mustAdapt: Bool { adaptations.contains { !$0.differences.isEmpty } }

    /// Whether a class may be stamped with the file's version (a write, done when the Realm can write).
    var mayStamp: Bool { !adaptations.isEmpty }

    /// The error for a class that must be adapted in a Realm opened read-only.
    var readOnlyMismatch: SchemaMismatch {
        SchemaMismatch(differences: adaptations.flatMap { $0.differences.map(\.text) },
                       advice: "The Realm is read-only, so the classes cannot be adapted to their models.")
    }

    /// Removes the columns of removed properties and stamps the classes (inside the write transaction that
    /// `RealmCore.createSchema` has just added the missing columns in).
    func adapt(_ txn: OpaquePointer) throws {
        for adaptation in adaptations {
            for difference in adaptation.differences {
                guard case .removed(let name) = difference.kind else { continue }
                var column: columnar_col_id = 0
                try Engine.check(columnar_column_find(txn, adaptation.table, name, &column))
                try Engine.check(columnar_column_remove(txn, adaptation.table, column))
            }
            try ClassVersionRecord.stamp(adaptation.className, fileVersion, txn)
        }
    }
}
