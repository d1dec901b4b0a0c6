// Results+Aggregates: min, max, sum and average of a property over the results, with RealmSwift's types and
// rules: nulls are skipped; the sum of no values is zero; the minimum, maximum and average of no values are nil.
// Over a whole table (or a filter the kernels decide), the engine aggregates each cluster's column array in C.

import CColumnar
import Foundation
import QueryVM

extension Results {
    /// The smallest value of a property (numbers and dates), or nil when there are no non-null values.
    public func min<T: MinMaxType>(ofProperty property: String) -> T? {
        guard let result = extremes(property, wanted: COLUMNAR_AGGREGATE_MIN) else { return nil }
        return AggregateConversion.value(result.minimum, as: T.self, property: property)
    }

    /// The largest value of a property (numbers and dates), or nil when there are no non-null values.
    public func max<T: MinMaxType>(ofProperty property: String) -> T? {
        guard let result = extremes(property, wanted: COLUMNAR_AGGREGATE_MAX) else { return nil }
        return AggregateConversion.value(result.maximum, as: T.self, property: property)
    }

    /// The sum of a numeric property; zero when there are no values. A mixed property sums its numbers in
    /// Decimal128 (MixedAggregation.swift).
    public func sum<T: AddableType>(ofProperty property: String) -> T {
        guard let target else { return AggregateConversion.sum(AggregateResult(), type: COLUMNAR_TYPE_DOUBLE,
                                                                  as: T.self, property: property) }
        let result = aggregate(property, .sumAverage, wanted: COLUMNAR_AGGREGATE_SUM, target: target) ?? AggregateResult()
        let type = resolvedPath(property, .sumAverage, target: target)?.type ?? COLUMNAR_TYPE_DOUBLE
        return AggregateConversion.sum(result, type: type, as: T.self, property: property)
    }

    /// The mean of a numeric property, or nil when there are no non-null values. A mixed property averages its
    /// numbers in Decimal128.
    public func average<T: AddableType>(ofProperty property: String) -> T? {
        guard let target, let result = aggregate(property, .sumAverage, wanted: COLUMNAR_AGGREGATE_SUM, target: target)
        else { return nil }
        let type = resolvedPath(property, .sumAverage, target: target)?.type ?? COLUMNAR_TYPE_DOUBLE
        return AggregateConversion.average(result, type: type, as: T.self, property: property)
    }

    private func resolvedPath(_ property: String, _ use: TypeChecker.KeyPathUse, target: QueryTarget) -> CheckedPath? {
        do {
            // A collection of values has a model of its own; the classes' key paths are remembered by the Realm.
            if case .values = source {
                return try TypeChecker.resolveKeyPath(property, table: target.table, model: target.model, for: use)
            }
            return try core.resolvedKeyPath(property, table: target.table, for: use)
        } catch {
            fatalError("Columnar: \(error)")
        }
    }

    /// The minimum and/or maximum (`wanted`) of the property over the results (nil when they are invalidated).
    private func extremes(_ property: String, wanted: UInt32) -> AggregateResult? {
        if let fromIndex = wholeTableIndexExtremes(property, wanted: wanted) { return fromIndex }
        guard let target else { return nil }
        return aggregate(property, .minMax, wanted: wanted, target: target)
    }

    /// The whole table's minimum and/or maximum of an int or date property with an ordered index, read from the
    /// index's ends; nil when something else must answer (a filter, a distinct, results of a collection, another
    /// kind of property, no ordered index, an unknown property whose error the aggregate reports). It needs neither
    /// the query model nor a program, so the call costs about the index's descent.
    private func wholeTableIndexExtremes(_ property: String, wanted: UInt32) -> AggregateResult? {
        guard case .table = source, !query.hasPredicate, query.distinct.isEmpty, !isInvalidated,
              let table = currentBinding?.table,
              let path = try? core.resolvedKeyPath(property, table: table, for: .minMax),
              let (column, type) = path.ownColumn
        else { return nil }
        return try? QueryExecutor.indexExtremes(transaction: core.currentTransaction, table: table, column: column,
                                                type: type, wanted: wanted)
    }

    /// Aggregates the property over the results (nil when they are invalidated).
    /// `wanted` names the aggregates the caller reads (COLUMNAR_AGGREGATE_*), so a scan computes only those.
    private func aggregate(_ property: String, _ use: TypeChecker.KeyPathUse, wanted: UInt32,
                           target: QueryTarget) -> AggregateResult? {
        guard let path = resolvedPath(property, use, target: target), !isInvalidated else { return nil }
        do {
            if query.distinct.isEmpty {
                let executor = query.executor(core: core, target: target, source: source)
                return try executor.aggregate(path, candidates: try source.candidateKeys(in: core) ?? [],
                                              wanted: wanted)
            }
            // Distinct results: aggregate exactly the objects (or values) they hold.
            let program = QueryCompiler.compile(.constant(true), table: target.table, model: target.model,
                                                source: source.keysProgramSource)
            let executor = QueryExecutor(program: program, transaction: core.currentTransaction,
                                         decimals: RealmCore.decimalSupport)
            return try executor.aggregate(path, candidates: keys, wanted: wanted)
        } catch {
            fatalError("Columnar: cannot aggregate '\(property)': \(error)")
        }
    }
}

/// Converts an aggregate's value to the type the caller asked for.
enum AggregateConversion {
    /// The sum of values of `valueType` as `T`: integers summed exactly (stopping when the sum does not fit),
    /// Decimal128 exactly in Decimal128, other numbers in Double, mixed values as MixedAggregation sums them.
    static func sum<T>(_ result: AggregateResult, type valueType: columnar_type, as type: T.Type,
                       property: String) -> T {
        let total: ScalarValue
        if valueType == COLUMNAR_TYPE_MIXED {
            total = MixedAggregation.sum(result, decimals: RealmCore.decimalSupport)
        } else if let decimalSum = result.decimalSum {
            total = .decimal128(decimalSum)
        } else if valueType == COLUMNAR_TYPE_INT {
            guard let exact = Int64(exactly: result.integerSum) else {
                fatalError("Columnar: the sum of '\(property)' (\(result.integerSum)) does not fit in Int64")
            }
            total = .int(exact)
        } else {
            total = .double(result.doubleSum)
        }
        guard let value = AggregateConversion.value(total, as: T.self, property: property) else {
            fatalError("Columnar: cannot express the sum of '\(property)' as \(T.self)")
        }
        return value
    }

    /// The mean of values of `valueType` as `T`, or nil when no value was aggregated.
    static func average<T>(_ result: AggregateResult, type valueType: columnar_type, as type: T.Type,
                           property: String) -> T? {
        guard result.count > 0 else { return nil }
        if valueType == COLUMNAR_TYPE_MIXED {
            return value(MixedAggregation.average(result, decimals: RealmCore.decimalSupport), as: T.self,
                         property: property)
        }
        if let decimalSum = result.decimalSum {
            let mean = Decimal128(bits: decimalSum) / Decimal128(exactly: Int64(result.count))!
            return AggregateConversion.value(.decimal128(mean.bits), as: T.self, property: property)
        }
        let total = result.integerSum != 0 ? Double(result.integerSum) + result.doubleSum : result.doubleSum
        return AggregateConversion.value(.double(total / Double(result.count)), as: T.self, property: property)
    }

    static func value<T>(_ value: ScalarValue, as type: T.Type, property: String) -> T? {
        let any: Any?
        switch value {
        case .null: return nil
        // The common case without boxing: an Int64 asked for as Int.
        case .int(let integer) where T.self == Int.self: return unsafeBitCast(Int(integer), to: T.self)
        case .int(let integer): any = integer
        case .float(let float): any = float
        case .double(let double): any = double
        case .timestamp(let seconds, let nanoseconds):
            any = Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1e9)
        case .decimal128(let bits): any = bits.withUnsafeBytes { Decimal128(rawBytes: $0) }
        // The extremes of mixed values can be of the other kinds that sort.
        case .bool(let bool): any = bool
        case .string(let bytes): any = String(decoding: bytes, as: UTF8.self)
        case .data(let bytes): any = Data(bytes)
        case .objectId(let bytes): any = bytes.withUnsafeBytes { ObjectId(rawBytes: $0) }
        case .uuid(let bytes): any = bytes.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
        default: any = nil
        }
        guard let any else { return nil }
        return convert(any, as: T.self, property: property)
    }

    /// A value (an Int64, Float, Double, Date or Decimal128) as `T`, converting numbers where needed.
    static func convert<T>(_ any: Any, as type: T.Type, property: String) -> T? {
        // The common case first: an Int64 asked for as Int (a failed cast and a conformance lookup otherwise).
        if T.self == Int.self, let integer = any as? Int64 { return Int(integer) as? T }
        if let exact = any as? T { return exact }
        let target = (T.self as? OptionalProtocol.Type).map { $0.wrappedType } ?? T.self
        if let wrapping = target as? AggregateValueWrapping.Type {
            return wrapping._wrapAggregate(any, property: property) as? T
        }
        if let persistable = target as? any _Persistable.Type, let converted = persistable._convert(fromAny: any) {
            return (converted as Any) as? T
        }
        if let number = NumericConversion.convert(any, to: target) { return number as? T }
        fatalError("Columnar: cannot express the value of '\(property)' (\(any)) as \(T.self)")
    }
}

/// A type that takes an aggregate's value whatever its type (`NSNumber`, and the key-value coding operators'
/// AggregateValue), so that `min(ofProperty:)` and the others can answer in it.
protocol AggregateValueWrapping {
    static func _wrapAggregate(_ value: Any, property: String) -> Self?
}

extension NSNumber: AggregateValueWrapping {
    /// An aggregate's value boxed as RealmSwift's Objective-C roots return it: integers as integer NSNumbers,
    /// floating values as doubles, decimals as NSDecimalNumber. A date is no number.
    static func _wrapAggregate(_ value: Any, property: String) -> Self? {
        let number: NSNumber
        switch value {
        case let integer as any BinaryInteger: number = NSNumber(value: Int64(integer))
        case let float as Float: number = NSNumber(value: float)
        case let double as Double: number = NSNumber(value: double)
        case let decimal as Decimal128: number = NSDecimalNumber(decimal: decimal.decimalValue)
        default: fatalError("Columnar: cannot express the value of '\(property)' (\(value)) as NSNumber")
        }
        return number as? Self
    }
}

/// Numeric conversions between the aggregate's value and the requested number type (truncating toward zero for
/// integers, as RealmSwift's NSNumber conversions do).
enum NumericConversion {
    static func convert(_ value: Any, to type: Any.Type) -> Any? {
        let double: Double
        switch value {
        case let integer as Int64: double = Double(integer)
        case let float as Float: double = Double(float)
        case let number as Double: double = number
        case let decimal as Decimal128: double = decimal.doubleValue
        default: return nil
        }
        switch type {
        case is Int.Type: return Int(exactly: double.rounded(.towardZero))
        case is Int8.Type: return Int8(exactly: double.rounded(.towardZero))
        case is Int16.Type: return Int16(exactly: double.rounded(.towardZero))
        case is Int32.Type: return Int32(exactly: double.rounded(.towardZero))
        case is Int64.Type:
            if let integer = value as? Int64 { return integer }
            return Int64(exactly: double.rounded(.towardZero))
        case is Float.Type: return Float(double)
        case is Double.Type: return double
        case is Decimal128.Type:
            if let integer = value as? Int64 { return Decimal128(exactly: integer) }
            return Decimal128(floatLiteral: double)
        default: return nil
        }
    }
}
