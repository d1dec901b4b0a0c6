// QueryMirrorGenerator: random queries in the differential test's query structure (QueryMirrorQuery.swift).
//
// Leaves cover every comparison operator on every type (with constants drawn mostly from the data, so that
// equality finds matches), [c]/[d]/[cd], LIKE patterns with ? and *, BETWEEN, IN {…} and IN %@, nil
// comparisons, to-one link paths, ANY/SOME/ALL/NONE over lists of links and of values, @count/@min/@max/@sum/@avg,
// SUBQUERY, map subscripts and @allKeys/@allValues, linking objects, `value IN collection`, TRUEPREDICATE and
// FALSEPREDICATE, and comparisons of two properties; AND, OR and NOT combine them up to three levels deep.
// Constants are written as literals of every kind the grammar has (decimal and hex integers, exponents,
// T-seconds and calendar dates, oid(), uuid(), B64"", escapes in strings) or passed as `%@` arguments.

import Columnar
import ColumnarTestSupport
import Foundation

struct QDQueryGenerator {
    var generator: SeededGenerator
    let mirror: QDMirror
    /// When set, every leaf that Columnar decides object by object (links, collections, aggregates, SUBQUERY,
    /// folded strings, two properties) is ANDed with `id BETWEEN {window}`. The kernels still scan every object,
    /// but the row-by-row part runs on the window only: in a debug build that part costs some microseconds per
    /// object, and without windows 2,000 queries over 10,000 objects take minutes instead of seconds.
    var window: ClosedRange<Int>?

    init(seed: UInt64, mirror: QDMirror) {
        generator = SeededGenerator(seed: seed)
        self.mirror = mirror
    }

    private mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0 ..< 100, using: &generator) < percent }
    private mutating func pick<T>(_ choices: [T]) -> T { choices.randomElement(using: &generator)! }
    private mutating func number(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }

    // MARK: Predicates

    /// A random predicate on objects of `type` (or, with `variable`, on the SUBQUERY variable of that class).
    mutating func predicate(on type: QDClass, depth: Int = 0, variable: String? = nil) -> QDPredicate {
        let maxDepth = variable == nil ? 3 : 1
        if depth >= maxDepth || chance(depth == 0 ? 45 : 55) { return leaf(on: type, variable: variable) }
        switch number(0 ... 9) {
        case 0 ... 3: return .and(predicate(on: type, depth: depth + 1, variable: variable),
                                  predicate(on: type, depth: depth + 1, variable: variable))
        case 4 ... 7: return .or(predicate(on: type, depth: depth + 1, variable: variable),
                                 predicate(on: type, depth: depth + 1, variable: variable))
        default: return .not(predicate(on: type, depth: depth + 1, variable: variable))
        }
    }

    private func path(_ names: [String], _ variable: String?) -> QDPath { QDPath(names, variable: variable) }

    mutating func leaf(on type: QDClass, variable: String?) -> QDPredicate {
        let leaf = rawLeaf(on: type, variable: variable)
        return variable == nil ? windowed(leaf, on: type) : leaf
    }

    /// The leaf ANDed with `id BETWEEN {window}` when a window is set and Columnar decides the leaf object by
    /// object (see `window`).
    func windowed(_ leaf: QDPredicate, on type: QDClass) -> QDPredicate {
        guard let window, !isLight(leaf, on: type) else { return leaf }
        let lower = QDConstant.literal(.int(Int64(window.lowerBound)), "\(window.lowerBound)")
        let upper = QDConstant.literal(.int(Int64(window.upperBound)), "\(window.upperBound)")
        return .and(.between(nil, .path(QDPath(["id"])), lower: lower, upper: upper, asArgument: false), leaf)
    }

    /// Whether Columnar (most likely) decides the leaf with kernels alone: a comparison of one of the object's
    /// own scalar properties with constants of its kind, without string modifiers. (Only a guess at the
    /// compiler's choices, used to keep the test fast; a wrong guess costs time, not correctness.)
    private func isLight(_ leaf: QDPredicate, on type: QDClass) -> Bool {
        func ownScalar(_ expression: QDExpression, _ constants: [QDConstant]) -> Bool {
            guard case .path(let path) = expression, path.variable == nil, path.steps.count == 1,
                  case .property(let name) = path.steps[0],
                  case .scalar(let valueType, _) = mirror.property(name, of: type).kind else { return false }
            switch valueType {
            case .decimal: return false  // no kernel for Decimal128
            case .int:
                // An integer column against a non-integer constant is decided object by object.
                return constants.allSatisfy { if case .int = $0.value { return true } else { return $0.value.isNull } }
            default: return true
            }
        }
        switch leaf {
        case .constant: return true
        case .comparison(let comparison):
            guard comparison.options == .exact else { return false }
            switch (comparison.lhs, comparison.rhs) {
            case (let path, .constant(let constant)), (.constant(let constant), let path):
                return ownScalar(path, [constant])
            default: return false
            }
        case .between(_, let value, let lower, let upper, _): return ownScalar(value, [lower, upper])
        case .inList(_, let value, let constants, _): return ownScalar(value, constants)
        default: return false
        }
    }

    private mutating func rawLeaf(on type: QDClass, variable: String?) -> QDPredicate {
        let properties = mirror.properties(of: type)
        let scalars = properties.filter { if case .scalar = $0.kind { return true } else { return false } }
        let links = properties.filter { if case .link = $0.kind { return true } else { return false } }
        // Inside a SUBQUERY over owners, their linking objects (some 30 items each) make every object of the outer
        // query cost hundreds of reads: keep those paths rare.
        let secondDegree = variable != nil && type == .owner && !chance(15)
        let toMany = secondDegree ? [] : properties.filter { if case .links = $0.kind { return true } else { return false } }
        let valueLists = properties.filter { if case .values = $0.kind { return true } else { return false } }
        let maps = properties.filter { if case .map = $0.kind { return true } else { return false } }

        let roll = number(0 ... 99)
        switch roll {
        case 0 ..< 33:
            let property = pick(scalars)
            return comparison(path([property.name], variable), property, of: type)
        case 33 ..< 38:
            return nilComparison(on: type, variable: variable)
        case 38 ..< 42:
            let property = pick(scalars.filter { $0.valueType != .bool })
            return between(path([property.name], variable), property, of: type, quantifier: nil)
        case 42 ..< 46:
            let property = pick(scalars)
            return membership(path([property.name], variable), property, of: type, quantifier: nil)
        case 46 ..< 53 where !links.isEmpty:
            // Through a to-one link: owner.name, owner.age …
            let link = pick(links)
            let target = mirror.target(of: link)!
            let property = pick(mirror.properties(of: target).filter { if case .scalar = $0.kind { return true } else { return false } })
            if chance(6) {
                // A to-many path after the to-one link: owner.items.@count, ANY owner.items.int … (rare: each
                // owner has some 30 items, so these read a few hundred thousand values per query).
                let many = pick(mirror.properties(of: target).filter { if case .links = $0.kind { return true } else { return false } })
                let element = pick(mirror.properties(of: .item).filter { if case .scalar = $0.kind { return true } else { return false } })
                if chance(50) {
                    return countComparison(.count(path([link.name, many.name], variable), spelling: "@count"))
                }
                return comparison(path([link.name, many.name, element.name], variable), element, of: .item,
                                  quantifier: randomQuantifier())
            }
            return comparison(path([link.name, property.name], variable), property, of: target)
        case 53 ..< 63 where !valueLists.isEmpty:
            let list = pick(valueLists)
            let quantifier = randomQuantifier()
            switch number(0 ... 9) {
            case 0: return between(path([list.name], variable), list, of: type, quantifier: quantifier)
            case 1: return membership(path([list.name], variable), list, of: type, quantifier: quantifier)
            default: return comparison(path([list.name], variable), list, of: type, quantifier: quantifier)
            }
        case 63 ..< 71 where !toMany.isEmpty:
            let relation = pick(toMany)
            let target = mirror.target(of: relation)!
            let property = pick(mirror.properties(of: target).filter { if case .scalar = $0.kind { return true } else { return false } })
            let quantifier = randomQuantifier()
            if chance(10) && property.valueType != .bool {
                return between(path([relation.name, property.name], variable), property, of: target, quantifier: quantifier)
            }
            return comparison(path([relation.name, property.name], variable), property, of: target, quantifier: quantifier)
        case 71 ..< 77 where !(toMany + valueLists + maps).isEmpty:
            let collections = toMany + valueLists + maps
            let collection = pick(collections)
            return countComparison(.count(path([collection.name], variable), spelling: chance(15) ? "@size" : "@count"))
        case 77 ..< 85:
            return aggregateComparison(on: type, variable: variable)
        case 85 ..< 90 where variable == nil && !toMany.isEmpty:
            let relation = pick(toMany)
            let target = mirror.target(of: relation)!
            let name = pick(["$x", "$f", "$element", "$o"])
            let inner = predicate(on: target, depth: 0, variable: name)
            let expression = QDExpression.subqueryCount(path([relation.name], variable), variable: name, inner)
            return countComparison(expression)
        case 90 ..< 95 where !maps.isEmpty:
            return mapComparison(pick(maps), variable: variable, of: type)
        case 95 ..< 97 where !valueLists.isEmpty:
            // value IN collection
            let list = pick(valueLists)
            let constant = self.constant(for: list, of: type, allowNull: true)
            return .comparison(QDComparison(quantifier: nil, lhs: .constant(constant), op: .equal,
                                            spelling: pick(["IN", "in"]), options: .exact,
                                            rhs: .path(path([list.name], variable))))
        case 97:
            return .constant(chance(50))
        default:
            return propertyComparison(on: type, variable: variable, scalars: scalars)
        }
    }

    private mutating func randomQuantifier() -> QDQuantifier? {
        pick([nil, .any, .some, .all, .noElement, .all, .noElement])
    }

    // MARK: Comparisons

    private mutating func operators(for type: QDValueType) -> [MirrorOperator] {
        switch type {
        case .bool: return MirrorOperator.equality
        case .string: return chance(50) ? MirrorOperator.text : MirrorOperator.ordering
        case .data: return chance(30) ? [.beginsWith, .endsWith, .contains] : MirrorOperator.ordering
        default: return MirrorOperator.ordering
        }
    }

    private mutating func spelling(_ op: MirrorOperator) -> String {
        switch op {
        case .equal: return pick(["==", "==", "="])
        case .notEqual: return pick(["!=", "!=", "<>"])
        case .lessOrEqual: return pick(["<=", "<=", "=<"])
        case .greaterOrEqual: return pick([">=", ">=", "=>"])
        case .beginsWith, .endsWith, .contains, .like:
            return chance(80) ? op.rawValue : op.rawValue.lowercased()
        default: return op.rawValue
        }
    }

    private mutating func options(for type: QDValueType) -> MirrorStringOptions {
        guard type == .string, chance(45) else { return .exact }
        switch number(0 ... 2) {
        case 0: return MirrorStringOptions(caseInsensitive: true)
        case 1: return MirrorStringOptions(diacriticInsensitive: true)
        default: return MirrorStringOptions(caseInsensitive: true, diacriticInsensitive: true)
        }
    }

    /// `[quantifier] path op constant`, or at random `constant op path` (single-valued paths only).
    mutating func comparison(_ path: QDPath, _ property: QDProperty, of type: QDClass,
                             quantifier: QDQuantifier? = nil) -> QDPredicate {
        let valueType = property.valueType!
        let op = pick(operators(for: valueType))
        let options = self.options(for: valueType)
        var constant: QDConstant
        if MirrorOperator.text.contains(op), case .string = valueType {
            let sample = self.sample(property, of: type)
            guard case .string(let text) = sample else {
                constant = chance(50) ? nullConstant() : stringConstant(mirror.randomString(&generator))
                return .comparison(QDComparison(quantifier: quantifier, lhs: .path(path), op: op, spelling: spelling(op),
                                                options: options, rhs: .constant(constant)))
            }
            constant = stringConstant(needle(op, from: text.string))
        } else {
            constant = self.constant(for: property, of: type, allowNull: true)
            if options != .exact, case .string(let text) = constant.value, chance(50) {
                constant = stringConstant(chance(50) ? text.string.uppercased() : text.string.lowercased())
            }
        }
        if quantifier == nil && !pathIsMany(path) && chance(15) {
            // Constant on the left: `3 < int` (and `'abc' BEGINSWITH string`, which reads the other way round).
            let flipped = MirrorOperator.text.contains(op) ? op : op.flipped
            return .comparison(QDComparison(quantifier: nil, lhs: .constant(constant), op: flipped,
                                            spelling: spelling(flipped), options: options, rhs: .path(path)))
        }
        return .comparison(QDComparison(quantifier: quantifier, lhs: .path(path), op: op, spelling: spelling(op),
                                        options: options, rhs: .constant(constant)))
    }

    private func pathIsMany(_ path: QDPath) -> Bool {
        QDEvaluator(mirror: mirror, rootClass: .item).isManyIgnoringVariable(path)
    }

    mutating func nilComparison(on type: QDClass, variable: String?) -> QDPredicate {
        let candidates = mirror.properties(of: type).filter {
            switch $0.kind {
            case .scalar(_, let nullable): return nullable || $0.name.count % 3 == 0
            case .link: return true
            default: return false
            }
        }
        let property = pick(candidates)
        let op: MirrorOperator = chance(50) ? .equal : .notEqual
        let constant = nullConstant()
        if chance(20) {
            return .comparison(QDComparison(quantifier: nil, lhs: .constant(constant), op: op, spelling: spelling(op),
                                            options: .exact, rhs: .path(path([property.name], variable))))
        }
        if chance(10), let valueType = property.valueType, valueType != .bool {
            // Ordering against nil is false either way round.
            let ordering = pick([MirrorOperator.less, .lessOrEqual, .greater, .greaterOrEqual])
            return .comparison(QDComparison(quantifier: nil, lhs: .path(path([property.name], variable)), op: ordering,
                                            spelling: spelling(ordering), options: .exact, rhs: .constant(constant)))
        }
        return .comparison(QDComparison(quantifier: nil, lhs: .path(path([property.name], variable)), op: op,
                                        spelling: spelling(op), options: .exact, rhs: .constant(constant)))
    }

    /// `value BETWEEN {lower, upper}` (literals or `%@` in the braces) or `value BETWEEN %@` with an array; the
    /// bounds are sometimes the wrong way round, which matches nothing.
    mutating func between(_ path: QDPath, _ property: QDProperty, of type: QDClass,
                          quantifier: QDQuantifier?) -> QDPredicate {
        let asArgument = chance(40)
        var lower = constant(for: property, of: type, allowNull: false, forArgument: asArgument)
        var upper = constant(for: property, of: type, allowNull: false, forArgument: asArgument)
        if let sign = MirrorSemantics.order(lower.value, upper.value), sign > 0, chance(85) { swap(&lower, &upper) }
        return .between(pathIsMany(path) ? quantifier : nil, .path(path), lower: lower, upper: upper,
                        asArgument: asArgument)
    }

    mutating func membership(_ path: QDPath, _ property: QDProperty, of type: QDClass,
                             quantifier: QDQuantifier?) -> QDPredicate {
        let count = pick([0, 1, 2, 3, 4, 6])
        let asArgument = chance(40)
        var constants: [QDConstant] = []
        for _ in 0 ..< count {
            constants.append(constant(for: property, of: type, allowNull: !asArgument || chance(30),
                                      forArgument: asArgument))
        }
        if asArgument { constants = constants.map { $0.argument == nil ? QDConstant.argument($0.value, NSNull()) : $0 } }
        return .inList(pathIsMany(path) ? quantifier : nil, .path(path), constants, asArgument: asArgument)
    }

    mutating func countComparison(_ expression: QDExpression) -> QDPredicate {
        let op = pick(MirrorOperator.ordering)
        let value = Int64(pick([0, 0, 1, 1, 2, 3, 4, 5]))
        let constant = chance(30) ? QDConstant.argument(.int(value), Int(value)) : .literal(.int(value), "\(value)")
        if chance(10) {
            return .comparison(QDComparison(quantifier: nil, lhs: .constant(constant), op: op.flipped,
                                            spelling: spelling(op.flipped), options: .exact, rhs: expression))
        }
        return .comparison(QDComparison(quantifier: nil, lhs: expression, op: op, spelling: spelling(op), options: .exact,
                                        rhs: .constant(constant)))
    }

    mutating func aggregateComparison(on type: QDClass, variable: String?) -> QDPredicate {
        let properties = mirror.properties(of: type)
        var candidates: [(path: QDPath, property: String?, valueType: QDValueType, element: QDProperty, elementClass: QDClass)] = []
        for property in properties {
            switch property.kind {
            case .values(let valueType, _) where [.int, .double, .date].contains(valueType):
                candidates.append((path([property.name], variable), nil, valueType, property, type))
            case .map(let valueType):
                candidates.append((path([property.name], variable), nil, valueType, property, type))
            case .links(let target) where !(variable != nil && type == .owner && !chance(15)):
                for element in mirror.properties(of: target) {
                    guard case .scalar(let valueType, _) = element.kind,
                          [.int, .float, .double, .date, .decimal].contains(valueType) else { continue }
                    candidates.append((path([property.name], variable), element.name, valueType, element, target))
                }
            case .link(let target) where variable == nil && chance(8):
                // owner.items.@sum.int: a to-many path after a to-one link.
                for relation in mirror.properties(of: target) {
                    guard case .links(let elementClass) = relation.kind else { continue }
                    for element in mirror.properties(of: elementClass) {
                        guard case .scalar(let valueType, _) = element.kind, [.int, .double].contains(valueType) else { continue }
                        candidates.append((path([property.name, relation.name], variable), element.name, valueType,
                                           element, elementClass))
                    }
                }
            default: break
            }
        }
        guard !candidates.isEmpty else {
            let property = pick(properties.filter { if case .scalar = $0.kind { return true } else { return false } })
            return comparison(path([property.name], variable), property, of: type)
        }
        let candidate = pick(candidates)
        var operators: [QDAggregate] = [.min, .max]
        if candidate.valueType != .date && candidate.valueType != .decimal { operators += [.sum, .avg] }
        let op = pick(operators)
        let expression = QDExpression.aggregate(op, candidate.path, property: candidate.property)
        let comparisonOp = pick(MirrorOperator.ordering)
        let constant: QDConstant
        if chance(12) {
            constant = nullConstant()
        } else if op == .avg || (op == .sum && candidate.valueType != .int) {
            let value = Double(number(-40 ... 40)) / 4
            constant = chance(50) ? .literal(.double(value), "\(value)") : .argument(.double(value), value)
        } else if op == .sum {
            let value = Int64(number(-30 ... 30))
            constant = chance(50) ? .literal(.int(value), "\(value)") : .argument(.int(value), Int(value))
        } else {
            constant = self.constant(for: candidate.element, of: candidate.elementClass, allowNull: false)
        }
        return .comparison(QDComparison(quantifier: nil, lhs: expression, op: comparisonOp,
                                        spelling: spelling(comparisonOp), options: .exact, rhs: .constant(constant)))
    }

    mutating func mapComparison(_ map: QDProperty, variable: String?, of type: QDClass) -> QDPredicate {
        switch number(0 ... 5) {
        case 0, 1:
            let key = chance(85) ? pick(mirror.mapKeyPool) : "absent"
            let keyed = QDPath(steps: path([map.name], variable).steps + [.subscriptKey(key, asArgument: chance(30))],
                               variable: variable)
            let op = pick(MirrorOperator.ordering)
            let constant = chance(20) ? nullConstant() : self.constant(for: map, of: type, allowNull: true)
            return .comparison(QDComparison(quantifier: nil, lhs: .path(keyed), op: op, spelling: spelling(op),
                                            options: .exact, rhs: .constant(constant)))
        case 2:
            let keys = path([map.name], variable).appending(.allKeys)
            let op = pick(MirrorOperator.ordering + MirrorOperator.text)
            let options = self.options(for: .string)
            var key = pick(mirror.mapKeyPool)
            if MirrorOperator.text.contains(op) { key = needle(op, from: key) }
            if options.caseInsensitive && chance(50) { key = key.uppercased() }
            return .comparison(QDComparison(quantifier: randomQuantifier(), lhs: .path(keys), op: op,
                                            spelling: spelling(op), options: options, rhs: .constant(stringConstant(key))))
        default:
            let values = number(0 ... 1) == 0 ? path([map.name], variable).appending(.allValues) : path([map.name], variable)
            return comparison(values, map, of: type, quantifier: randomQuantifier())
        }
    }

    mutating func propertyComparison(on type: QDClass, variable: String?, scalars: [QDProperty]) -> QDPredicate {
        let left = pick(scalars)
        // Integers, floats and doubles compare with each other; every other type only with itself.
        let family: (QDValueType) -> QDValueType = { [.int, .float, .double].contains($0) ? .double : $0 }
        let partners = scalars.filter { family($0.valueType!) == family(left.valueType!) }
        let right = pick(partners)
        let ops = left.valueType == .bool ? MirrorOperator.equality
            : (left.valueType == .string && chance(30) ? MirrorOperator.text : MirrorOperator.ordering)
        let op = pick(ops)
        return .comparison(QDComparison(quantifier: nil, lhs: .path(path([left.name], variable)), op: op,
                                        spelling: spelling(op), options: self.options(for: left.valueType!),
                                        rhs: .path(path([right.name], variable))))
    }

    // MARK: Constants

    /// A value of the property from a random object (an element for collections; null for an empty one).
    mutating func sample(_ property: QDProperty, of type: QDClass) -> MirrorValue {
        var local = SeededGenerator(seed: generator.next())
        return sample(property, of: type, using: &local)
    }

    private func sample(_ property: QDProperty, of type: QDClass, using generator: inout SeededGenerator) -> MirrorValue {
        let count = type == .item ? mirror.items.count : mirror.owners.count
        for _ in 0 ..< 20 {
            let index = Int.random(in: 0 ..< count, using: &generator)
            switch property.kind {
            case .scalar: return property.scalar(index)
            case .values:
                if let value = property.values(index).randomElement(using: &generator) { return value }
            case .map:
                if let entry = property.entries(index).randomElement(using: &generator) { return entry.value }
            default: return .null
            }
        }
        return .null
    }

    mutating func nullConstant() -> QDConstant {
        switch number(0 ... 4) {
        case 0: return .literal(.null, "nil")
        case 1: return .literal(.null, "NULL")
        case 2: return .literal(.null, "NIL")
        case 3: return .argument(.null, NSNull())
        default: return .argument(.null, Optional<Int>.none as Any)
        }
    }

    mutating func stringConstant(_ string: String) -> QDConstant {
        chance(35) ? .argument(.string(MirrorText(string)), string)
            : .literal(.string(MirrorText(string)), QDRenderer.quoted(string, &generator))
    }

    /// A needle for BEGINSWITH/ENDSWITH/CONTAINS/LIKE cut from a sample string, sometimes with its case changed.
    mutating func needle(_ op: MirrorOperator, from sample: String) -> String {
        let scalars = Array(sample.unicodeScalars)
        var pieces: [Unicode.Scalar]
        let length = scalars.isEmpty ? 0 : number(0 ... scalars.count)
        switch op {
        case .beginsWith: pieces = Array(scalars.prefix(length))
        case .endsWith: pieces = Array(scalars.suffix(length))
        case .contains:
            let start = scalars.isEmpty ? 0 : number(0 ... scalars.count - length)
            pieces = Array(scalars[start ..< start + length])
        default:
            pieces = []
            var index = 0
            if chance(20) { pieces.append("*") }
            while index < scalars.count {
                switch number(0 ... 19) {
                case 0 ... 2: pieces.append("?"); index += 1
                case 3 ... 4:
                    pieces.append("*")
                    index += number(0 ... 3)
                default: pieces.append(scalars[index]); index += 1
                }
            }
            if chance(20) { pieces.append("*") }
        }
        var text = String(String.UnicodeScalarView(pieces))
        switch number(0 ... 9) {
        case 0: text = text.uppercased()
        case 1: text = text.lowercased()
        case 2: text = mirror.randomString(&generator)
        default: break
        }
        return text
    }

    /// A constant for comparing with the property: usually a value from the data, else an edge value; null only
    /// with `allowNull`. With `forArgument`, the constant is always passed as an argument (for `IN %@`).
    mutating func constant(for property: QDProperty, of type: QDClass, allowNull: Bool,
                           forArgument: Bool = false) -> QDConstant {
        let valueType = property.valueType!
        var value = sample(property, of: type)
        if allowNull && (chance(8) || (value.isNull && chance(50))) {
            return forArgument ? .argument(.null, NSNull()) : nullConstant()
        }
        if value.isNull || chance(35) { value = edgeValue(valueType, bits: property.integerBits) }
        return spell(value, type: valueType, bits: property.integerBits, forArgument: forArgument)
    }

    private mutating func edgeValue(_ type: QDValueType, bits: Int) -> MirrorValue {
        switch type {
        case .bool: return .bool(chance(50))
        case .int:
            switch number(0 ... 9) {
            case 0: return .int(Int64.min)
            case 1: return .int(Int64.max)
            case 2: return .int(bits == 64 ? Int64.max : (Int64(1) << (bits - 1)) - 1)
            case 3: return .int(bits == 64 ? Int64.min : -(Int64(1) << (bits - 1)))
            case 4: return .double(Double(number(-20 ... 20)) + 0.5)
            case 5: return .double(9_223_372_036_854_775_808.0)
            default: return .int(Int64(number(-20 ... 20)))
            }
        case .float, .double:
            return .double(pick([0, -0.0, 0.25, -1.5, 2.5, 1e9, 3, -10, .nan, .infinity, -.infinity, 0.1, 1e-3]))
        case .string: return .string(MirrorText(mirror.randomString(&generator)))
        case .data: return .data(mirror.randomData(&generator))
        case .date: return .date(pick(mirror.datePool))
        case .objectId: return .objectId(pick(mirror.objectIdPool))
        case .uuid: return .uuid(pick(mirror.uuidPool))
        case .decimal: return .decimal(try! Decimal128(string: pick(mirror.decimalPool)))
        }
    }

    /// How to write a value: a literal of the kind the grammar has for it, or a `%@` argument.
    private mutating func spell(_ value: MirrorValue, type: QDValueType, bits: Int, forArgument: Bool) -> QDConstant {
        let useArgument = forArgument || chance(40)
        switch value {
        case .null:
            return useArgument ? .argument(.null, NSNull()) : nullConstant()
        case .bool(let bool):
            if useArgument { return .argument(value, bool) }
            if chance(10) { return .literal(value, bool ? "1" : "0") }
            return .literal(value, bool ? pick(["TRUE", "true", "YES", "yes"]) : pick(["FALSE", "false", "NO", "no"]))
        case .int(let integer):
            if useArgument {
                switch bits {
                case 8 where Int8(exactly: integer) != nil && chance(50): return .argument(value, Int8(integer))
                case 16 where Int16(exactly: integer) != nil && chance(50): return .argument(value, Int16(integer))
                case 32 where Int32(exactly: integer) != nil && chance(50): return .argument(value, Int32(integer))
                default: return chance(50) ? .argument(value, integer) : .argument(value, Int(integer))
                }
            }
            if chance(15) {
                let magnitude = String(integer.magnitude, radix: 16)
                return .literal(value, (integer < 0 ? "-0x" : "0x") + (chance(50) ? magnitude : magnitude.uppercased()))
            }
            return .literal(value, "\(integer)")
        case .float(let float):
            return useArgument || !float.isFinite ? .argument(value, float)
                : .literal(.double(Double(float)), "\(Double(float))")
        case .double(let double):
            if useArgument || !double.isFinite {
                if type == .float, Double(Float(double)) == double || double.isNaN, chance(50) {
                    return .argument(.float(Float(double)), Float(double))
                }
                return .argument(value, double)
            }
            if double == double.rounded(), abs(double) < 1e15, chance(40), double != 0 || double.sign == .plus {
                return .literal(.int(Int64(double)), "\(Int64(double))")
            }
            return .literal(value, "\(double)")
        case .string(let text):
            return useArgument ? .argument(value, text.string) : .literal(value, QDRenderer.quoted(text.string, &generator))
        case .data(let bytes):
            return useArgument ? .argument(value, Data(bytes)) : .literal(value, "B64\"\(Data(bytes).base64EncodedString())\"")
        case .date(let seconds):
            if useArgument { return .argument(value, Date(timeIntervalSince1970: seconds)) }
            return .literal(value, dateLiteral(seconds))
        case .objectId(let bytes):
            if useArgument { return .argument(value, QDMirror.objectId(bytes)) }
            if chance(15) { return .literal(value, "'\(MirrorValue.hex(bytes))'") }
            return .literal(value, "oid(\(MirrorValue.hex(bytes)))")
        case .uuid(let bytes):
            let uuid = QDMirror.uuid(bytes)
            if useArgument { return .argument(value, uuid) }
            if chance(15) { return .literal(value, "'\(uuid.uuidString)'") }
            return .literal(value, "uuid(\(chance(50) ? uuid.uuidString : uuid.uuidString.lowercased()))")
        case .decimal(let decimal):
            if useArgument || decimal.isNaN { return .argument(value, decimal) }
            let text = decimal.stringValue
            if let integer = Int64(text) { return .literal(value, "\(integer)") }
            if let double = Double(text), double.isFinite, (try? Decimal128(string: "\(double)")) == decimal,
               abs(double) < 1e15 {
                return .literal(value, "\(double)")
            }
            return .argument(value, decimal)
        case .object:
            fatalError("object constants are not generated")
        }
    }

    /// `T<seconds>:<nanoseconds>` or, for whole seconds, the calendar form (UTC).
    private mutating func dateLiteral(_ seconds: Double) -> String {
        let whole = seconds.rounded(.towardZero)
        let nanoseconds = Int64(((seconds - whole) * 1e9).rounded())
        if nanoseconds == 0 || (seconds > 0 && chance(30)), chance(50) {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second],
                                                from: Date(timeIntervalSince1970: whole))
            func padded(_ number: Int, _ width: Int) -> String {
                let digits = String(number)
                return String(repeating: "0", count: max(0, width - digits.count)) + digits
            }
            let text = padded(parts.year!, 4) + "-" + padded(parts.month!, 2) + "-" + padded(parts.day!, 2)
                + pick(["@", "T"]) + padded(parts.hour!, 2) + ":" + padded(parts.minute!, 2) + ":"
                + padded(parts.second!, 2)
            let prefix = chance(30) ? "T" : ""
            return prefix + text + (nanoseconds != 0 ? ":\(nanoseconds)" : "")
        }
        return "T\(Int64(whole)):\(nanoseconds)"
    }
}

extension QDEvaluator {
    /// Whether a path reaches many values, for generation (variables are resolved against the path's own start).
    func isManyIgnoringVariable(_ path: QDPath) -> Bool {
        for case .property(let name) in path.steps {
            for type in [QDClass.item, .owner] {
                guard let property = mirror.properties(of: type).first(where: { $0.name == name }) else { continue }
                switch property.kind {
                case .links, .values, .map: return true
                default: break
                }
            }
        }
        return false
    }
}
