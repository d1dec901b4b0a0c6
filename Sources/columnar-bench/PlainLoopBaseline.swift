// PlainLoopBaseline: the query suite's scans as plain C loops over an int64_t array of the same values
// (CBenchBaseline), the ceiling a column scan can approach. No file, no engine: the array is the data set's own
// `scanValues`, already in memory. Each aggregate is its own pass, as each is its own query on the engines.

import CBenchBaseline

final class PlainLoopBaseline: QueryBenchmarkEngine {
    let name = "C loop"
    let fileExtension = "none"
    private var values: [Int64] = []

    var setupDescription: String {
        "C loop: plain loops over an int64_t array in memory (CBenchBaseline, compiled with CColumnar's settings)"
    }

    func dataFiles(at path: String) -> [String] { [] }
    func allFiles(at path: String) -> [String] { [] }

    func createQueryTables(path: String, data: QueryDataSet) throws -> [String] {
        values = data.scanValues
        return []
    }

    func supports(_ query: BenchQuery) -> Bool { query.readsScanTable }

    func run(_ query: BenchQuery, path: String, repetitions: QueryRepetitions, recorder: inout LatencyRecorder) throws
        -> QueryAnswer
    {
        values.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress
            let count = buffer.count
            func runOnce() -> QueryAnswer {
                switch query {
                case .countGreater(let threshold):
                    return .integer(bench_baseline_count_greater(base, count, threshold))
                case .sum: return .integer(bench_baseline_sum(base, count))
                case .minimum: return .integer(bench_baseline_min(base, count))
                case .maximum: return .integer(bench_baseline_max(base, count))
                case .average: return .double(Double(bench_baseline_sum(base, count)) / Double(count))
                case .countBeginsWith, .sortByInt, .sortByString, .lookups:
                    preconditionFailure("the C loop runs only the scans")
                }
            }
            _ = runOnce()
            var answer = QueryAnswer.ids([])
            recorder.startRun()
            repetitions.repeatTimed { answer = recorder.measure { runOnce() } }
            recorder.endRun()
            return answer
        }
    }
}
