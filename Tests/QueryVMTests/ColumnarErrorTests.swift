// ColumnarErrorTests: the mapping from the engine's error codes to ColumnarError.Code, and what a
// ColumnarError says about itself.

import CColumnar
import QueryVM
import XCTest

final class ColumnarErrorTests: XCTestCase {
    /// Every COLUMNAR_E* constant of columnar.h, in the header's order.
    private let engineCodes: [Int32] = [
        COLUMNAR_ECORRUPT, COLUMNAR_ENOTDB, COLUMNAR_EFORMAT, COLUMNAR_EMISUSE, COLUMNAR_ENOTFOUND,
        COLUMNAR_EEXISTS, COLUMNAR_ETYPE, COLUMNAR_ENULL, COLUMNAR_ERANGE, COLUMNAR_EPOISONED, COLUMNAR_EVERSIONS,
        COLUMNAR_EREADONLY, COLUMNAR_EREADERS, COLUMNAR_ETOOBIG, COLUMNAR_EMAPFULL, COLUMNAR_ELOCKFILE,
        COLUMNAR_ESTORAGE, COLUMNAR_EKEY,
    ]

    func testEveryEngineCodeMapsToADistinctCodeThatMapsBack() {
        let codes = engineCodes.map(ColumnarError.Code.init(rawValue:))
        XCTAssertEqual(Set(codes).count, engineCodes.count, "two engine codes share a Swift code: \(codes)")
        for (rawValue, code) in zip(engineCodes, codes) {
            XCTAssertEqual(code.rawValue, rawValue, "\(code) does not map back to \(rawValue)")
            if case .io = code { XCTFail("engine code \(rawValue) was taken for an errno") }
            if case .unknown = code { XCTFail("engine code \(rawValue) is unknown to ColumnarError.Code") }
        }
        XCTAssertEqual(codes, ColumnarError.Code.engineCodes)
    }

    func testNegativeErrnoMapsToIO() {
        XCTAssertEqual(ColumnarError.Code(rawValue: -EIO), .io(errno: EIO))
        XCTAssertEqual(ColumnarError.Code(rawValue: -ENOSPC), .io(errno: ENOSPC))
        XCTAssertEqual(ColumnarError.Code.io(errno: ENOENT).rawValue, -ENOENT)
        XCTAssertNotEqual(ColumnarError.Code(rawValue: -EIO), ColumnarError.Code(rawValue: -ENOSPC))
    }

    func testCodesOutsideTheListAreUnknownNotMisread() {
        XCTAssertEqual(ColumnarError.Code(rawValue: -30999), .unknown(rawValue: -30999))
        XCTAssertEqual(ColumnarError.Code(rawValue: 7), .unknown(rawValue: 7))
    }

    func testCodeDescriptionIsTheEngineName() {
        XCTAssertEqual(ColumnarError.Code.corrupt.description, String(cString: columnar_strerror(COLUMNAR_ECORRUPT)))
        XCTAssertEqual(ColumnarError.Code.io(errno: EIO).description, String(cString: columnar_strerror(-EIO)))
    }

    func testDescriptionContainsMessageOffsetAndSource() {
        let error = ColumnarError(code: .corrupt, message: "node checksum mismatch", fileOffset: 0x2A10,
                                  sourceLocation: "node.c:120")
        XCTAssertTrue(error.description.contains("node checksum mismatch"), error.description)
        XCTAssertTrue(error.description.contains("0x2a10"), error.description)
        XCTAssertTrue(error.description.contains("node.c:120"), error.description)
        XCTAssertTrue(error.description.contains(ColumnarError.Code.corrupt.description), error.description)

        for code in ColumnarError.Code.engineCodes + [.io(errno: EIO)] {
            let plain = ColumnarError(code: code, message: "what went wrong")
            XCTAssertTrue(plain.description.contains("what went wrong"), plain.description)
            XCTAssertFalse(plain.description.contains("file offset"), plain.description)
        }
    }

    func testFromLastErrorFallsBackToTheCodeNameWhenNoDetailsMatch() {
        // No engine call has failed on this thread with this code, so the recorded details (if any) are of
        // another code and must not be attached to it.
        let error = ColumnarError.fromLastError(-EIO)
        XCTAssertEqual(error.code, .io(errno: EIO))
        XCTAssertEqual(error.message, String(cString: columnar_strerror(-EIO)))
        XCTAssertNil(error.fileOffset)
        XCTAssertNil(error.sourceLocation)
    }

    func testEqualityComparesEveryField() {
        let error = ColumnarError(code: .notFound, message: "no table Dog")
        XCTAssertEqual(error, ColumnarError(code: .notFound, message: "no table Dog"))
        XCTAssertNotEqual(error, ColumnarError(code: .notFound, message: "no table Cat"))
        XCTAssertNotEqual(error, ColumnarError(code: .notFound, message: "no table Dog", fileOffset: 8))
    }
}
