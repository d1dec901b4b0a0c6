// PNGImage.swift — just enough of a PNG reader to count the colours of a picture rsvg-convert made: 8-bit RGB or
// RGBA, not interlaced, with the five scanline filters. The zlib stream is inflated by the system's zlib, loaded
// with dlopen (Foundation on Linux offers no decompression, and the test target links no zlib module).

import Foundation
#if canImport(Glibc)
import Glibc
#endif

struct PNGImage {
    let width: Int
    let height: Int
    /// RGBA, row by row.
    let pixels: [UInt8]

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    init(contentsOf url: URL) throws {
        let data = [UInt8](try Data(contentsOf: url))
        guard data.count > 8, data.prefix(8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else {
            throw Failure("not a PNG file")
        }
        func be32(_ at: Int) -> Int {
            Int(data[at]) << 24 | Int(data[at + 1]) << 16 | Int(data[at + 2]) << 8 | Int(data[at + 3])
        }
        var at = 8
        var width = 0, height = 0, colorType = 0
        var compressed: [UInt8] = []
        while at + 8 <= data.count {
            let length = be32(at)
            let type = String(decoding: data[(at + 4)..<(at + 8)], as: UTF8.self)
            let body = Array(data[(at + 8)..<min(data.count, at + 8 + length)])
            switch type {
            case "IHDR":
                width = be32(at + 8)
                height = be32(at + 12)
                guard body[8] == 8, body[12] == 0 else { throw Failure("only 8-bit, non-interlaced PNGs are read") }
                colorType = Int(body[9])
                guard colorType == 2 || colorType == 6 else { throw Failure("colour type \(colorType) is not read") }
            case "IDAT":
                compressed += body
            default:
                break
            }
            at += 12 + length
        }
        let channels = colorType == 6 ? 4 : 3
        let stride = width * channels
        var raw = [UInt8](repeating: 0, count: height * (stride + 1))
        try PNGImage.inflate(compressed, into: &raw)
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        try raw.withUnsafeMutableBufferPointer { raw in
            try pixels.withUnsafeMutableBufferPointer { pixels in
                for row in 0..<height {
                    let lineStart = row * (stride + 1) + 1
                    let previousStart = lineStart - (stride + 1)
                    let filter = raw[lineStart - 1]
                    for index in 0..<stride {
                        let left = index >= channels ? Int(raw[lineStart + index - channels]) : 0
                        let up = row > 0 ? Int(raw[previousStart + index]) : 0
                        let upLeft = row > 0 && index >= channels ? Int(raw[previousStart + index - channels]) : 0
                        let predictor: Int
                        switch filter {
                        case 0: predictor = 0
                        case 1: predictor = left
                        case 2: predictor = up
                        case 3: predictor = (left + up) / 2
                        case 4:
                            let p = left + up - upLeft
                            let (pa, pb, pc) = (abs(p - left), abs(p - up), abs(p - upLeft))
                            predictor = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft
                        default: throw Failure("unknown PNG filter \(filter)")
                        }
                        raw[lineStart + index] = UInt8(truncatingIfNeeded: Int(raw[lineStart + index]) + predictor)
                    }
                    for x in 0..<width {
                        for channel in 0..<channels {
                            pixels[(row * width + x) * 4 + channel] = raw[lineStart + x * channels + channel]
                        }
                    }
                }
            }
        }
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// How many opaque pixels of each colour ("#rrggbb") there are in rows `rows` (all rows by default).
    func histogram(rows: Range<Int>? = nil) -> [String: Int] {
        let rows = rows ?? 0..<height
        var counts: [UInt32: Int] = [:]
        pixels.withUnsafeBufferPointer { buffer in
            for row in rows.clamped(to: 0..<height) {
                var index = row * width * 4
                let end = index + width * 4
                while index < end {
                    if buffer[index + 3] == 255 {
                        let key = UInt32(buffer[index]) << 16 | UInt32(buffer[index + 1]) << 8 | UInt32(buffer[index + 2])
                        counts[key, default: 0] += 1
                    }
                    index += 4
                }
            }
        }
        var named: [String: Int] = [:]
        for (key, count) in counts { named[String(format: "#%06x", key)] = count }
        return named
    }

    /// zlib's uncompress(), found at run time.
    private static func inflate(_ source: [UInt8], into destination: inout [UInt8]) throws {
        typealias Uncompress = @convention(c) (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt>?,
                                               UnsafePointer<UInt8>?, UInt) -> Int32
        guard let library = dlopen("libz.so.1", RTLD_NOW) ?? dlopen("libz.so", RTLD_NOW),
              let symbol = dlsym(library, "uncompress") else {
            throw Failure("zlib (libz.so.1) not found")
        }
        let uncompress = unsafeBitCast(symbol, to: Uncompress.self)
        var length = UInt(destination.count)
        let code = destination.withUnsafeMutableBufferPointer { out in
            source.withUnsafeBufferPointer { input in
                uncompress(out.baseAddress, &length, input.baseAddress, UInt(input.count))
            }
        }
        guard code == 0, Int(length) == destination.count else {
            throw Failure("zlib uncompress returned \(code) (\(length) of \(destination.count) bytes)")
        }
    }
}
