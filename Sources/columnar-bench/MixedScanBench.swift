// MixedScanBench.swift — `columnar-bench mixed`: the cost of a mixed (AnyRealmValue) column in a scan. --objects
// objects hold the same integers in an Int property and in an AnyRealmValue property; counting `value > x` is timed
// against counting `int > x` (both through the object API, which runs the query VM's kernels over the columns), and
// once more with a quarter of the mixed values doubles and a quarter strings, which the mixed kernel must tell apart.

import ArgumentParser
import Columnar
import Foundation

final class MixedScanItem: Object {
    @Persisted var int = 0
    @Persisted var value: AnyRealmValue
    @Persisted var varied: AnyRealmValue
}

struct MixedScanBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mixed",
        _superCommandName: "columnar-bench",
        abstract: "Measures a scan of a mixed column against the same scan of an Int column.",
        discussion: """
            --objects objects (one write transaction) hold i % 1000 in an Int property and as .int in an \
            AnyRealmValue property; a third property holds the same numbers as .int, .double or .string by turns \
            (i % 4: int, int, double, string). Each count (`int > 500`, `value > 500`, `varied > 500`) runs \
            --runs times on fresh results after one untimed run; the p50 is reported, and the mixed counts as a \
            ratio to the Int count of the same run. Every count is checked against the expected number.
            """)

    @Option(help: "Objects in the table.")
    var objects: Int = 1_000_000

    @Option(help: "Timed runs of each count.")
    var runs: Int = 11

    @Option(help: """
        Directory for the database file, created if needed; the file is kept there afterwards. \
        Default: a fresh temporary directory, removed afterwards.
        """)
    var dir: String?

    mutating func validate() throws {
        if objects < 1000 { throw ValidationError("--objects must be at least 1,000") }
        if runs < 1 { throw ValidationError("--runs must be at least 1") }
    }

    func run() throws {
        try ColumnarBench.inRunDirectory(dir) { directory, machine in try measure(in: directory, machine: machine) }
    }

    private func measure(in directory: String, machine: MachineInfo) throws {
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: "\(directory)/mixed.realm"))
        configuration.objectTypes = [MixedScanItem.self]
        let realm = try Realm(configuration: configuration)
        ColumnarBench.log("  writing \(Report.grouped(objects)) objects")
        try realm.write {
            for index in 0 ..< objects {
                let number = index % 1000
                let varied: AnyRealmValue
                switch index % 4 {
                case 2: varied = .double(Double(number))
                case 3: varied = .string(String(number))
                default: varied = .int(number)
                }
                realm.create(MixedScanItem.self, value: ["int": number, "value": AnyRealmValue.int(number),
                                                         "varied": varied])
            }
        }
        let threshold = 500
        let expected = (0 ..< objects).filter { $0 % 1000 > threshold }.count
        let expectedVaried = (0 ..< objects).filter { $0 % 1000 > threshold && $0 % 4 != 3 }.count
        func timedCount(_ property: String, expecting count: Int) throws -> [Double] {
            let query = "\(property) > %@"
            guard realm.objects(MixedScanItem.self).filter(query, threshold).count == count else {
                throw BenchError.setup("\(property) > \(threshold) did not count \(count) objects")
            }
            return try (0 ..< runs).map { _ in
                try MaintenanceBench.timed {
                    let counted = realm.objects(MixedScanItem.self).filter(query, threshold).count
                    if counted != count { throw BenchError.setup("\(property): counted \(counted), not \(count)") }
                }
            }
        }
        ColumnarBench.log("  counting, \(runs) runs each")
        var intTimes: [Double] = [], mixedTimes: [Double] = [], variedTimes: [Double] = []
        // Interleaved, so that a slow moment of the machine falls on every measure alike.
        for _ in 0 ..< 3 {
            intTimes += try timedCount("int", expecting: expected)
            mixedTimes += try timedCount("value", expecting: expected)
            variedTimes += try timedCount("varied", expecting: expectedVaried)
        }
        let intP50 = Self.median(intTimes), mixedP50 = Self.median(mixedTimes), variedP50 = Self.median(variedTimes)
        var lines = [machine.line, "mixed; \(Report.grouped(objects)) objects, count of `property > \(threshold)`, "
                     + "p50 of \(intTimes.count) runs", ""]
        var rows = [["column", "p50 ms", "objects/s", "vs Int column"]]
        func row(_ name: String, _ seconds: Double) -> [String] {
            [name, String(format: "%.2f", seconds * 1000), Report.grouped(Int(Double(objects) / seconds)),
             String(format: "%.2f×", seconds / intP50)]
        }
        rows.append(row("Int", intP50))
        rows.append(row("AnyRealmValue, all .int", mixedP50))
        rows.append(row("AnyRealmValue, .int/.double/.string", variedP50))
        lines += Report.tableLines(rows, leftAligned: [0])
        lines.append("")
        lines.append("vs Int column: the mixed count's time over the Int count's (lower is better; 1.00× is level)")
        print("\n" + lines.joined(separator: "\n"))
        _ = realm
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}
