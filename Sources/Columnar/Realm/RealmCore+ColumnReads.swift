// RealmCore+ColumnReads: one property of many objects read in one engine call (columnar_obj_get_many), for
// `value(forKey:)` on Results. The objects of a sorted Results come in value order, not key order; reading them one
// by one costs a tree descent each at a random key, where the engine call sorts the keys and walks the table once.

import CColumnar
import Foundation

extension RealmCore {
    /// The values of a column that is not a collection, for each of `keys` in order, as `[Value]`; nil when the
    /// engine cannot read them all (the caller then reads object by object, which reports the problem).
    func readColumn<Value: _Persistable>(_ type: Value.Type, binding: ClassBinding, column: columnar_col_id,
                                         keys: [columnar_key]) -> [Value]? {
        precondition(!Value._isCollection, "collections are read through their own accessors")
        if keys.isEmpty { return [] }
        let txn = currentTransaction
        if Value.self == Int.self {
            // Int is Int64 here: the engine writes straight into the array's storage.
            var rc = COLUMNAR_OK
            let values = [Int](unsafeUninitializedCapacity: keys.count) { buffer, initialized in
                rc = buffer.withMemoryRebound(to: Int64.self) { ints in
                    columnar_obj_get_many_int(txn, binding.table, column, keys, UInt64(keys.count), ints.baseAddress,
                                              nil, nil)
                }
                initialized = rc == COLUMNAR_OK ? keys.count : 0
            }
            return rc == COLUMNAR_OK ? unsafeBitCast(values, to: [Value].self) : nil
        }
        let engineValues = UnsafeMutableBufferPointer<columnar_value>.allocate(capacity: keys.count)
        defer { engineValues.deallocate() }
        guard columnar_obj_get_many(txn, binding.table, column, keys, UInt64(keys.count), engineValues.baseAddress,
                                    nil) == COLUMNAR_OK else { return nil }
        // The common scalar types directly, as readValue does; the rest through the type's own conversion.
        if Value.self == Double.self { return engineValues.map { unsafeBitCast($0.as.d, to: Value.self) } }
        if Value.self == Bool.self { return engineValues.map { unsafeBitCast($0.as.b, to: Value.self) } }
        if Value.self == String.self {
            return engineValues.map { value in
                let bytes = UnsafeRawBufferPointer(start: value.as.bytes.data, count: value.as.bytes.size)
                return unsafeBitCast(String(decoding: bytes, as: UTF8.self), to: Value.self)
            }
        }
        let realm = Realm(core: self)
        return engineValues.map { Value._read($0, from: realm) }
    }
}
