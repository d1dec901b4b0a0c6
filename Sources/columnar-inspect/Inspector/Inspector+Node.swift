// Inspector+Node.swift — one node decoded by ref, and raw bytes of the file
// (columnar_inspect_node_decode, columnar_inspect_bytes).

import CColumnar

extension Inspector {
    /// Decodes the node at `ref` (anywhere in the file). `valid` is false when the header is not a node's.
    func decodeNode(_ ref: UInt64) -> (detail: columnar_inspect_node_detail, valid: Bool) {
        var detail = columnar_inspect_node_detail()
        let code = columnar_inspect_node_decode(handle, ref, &detail)
        return (detail, code == COLUMNAR_OK)
    }

    /// A copy of `size` bytes at `offset`, or nil when they are not all inside the file.
    func bytes(at offset: UInt64, count size: UInt64) -> [UInt8]? {
        var pointer: UnsafePointer<UInt8>?
        guard columnar_inspect_bytes(handle, offset, size, &pointer) == COLUMNAR_OK, let pointer else { return nil }
        return Array(UnsafeBufferPointer(start: pointer, count: Int(size)))
    }

    /// Whether the `size` bytes at `offset` have the CRC-32C `crc` (columnar_inspect_checksum); nil when they lie
    /// outside the file.
    func bytes(at offset: UInt64, count size: UInt64, haveChecksum crc: UInt64) -> Bool? {
        var pointer: UnsafePointer<UInt8>?
        guard columnar_inspect_bytes(handle, offset, size, &pointer) == COLUMNAR_OK, let pointer else { return nil }
        return crc <= UInt64(UInt32.max) && columnar_inspect_checksum(pointer, Int(size)) == UInt32(crc)
    }

    /// The file's size in bytes.
    var fileSizeBytes: UInt64 { header.file_size_bytes }
}

extension columnar_inspect_node_detail {
    var problemText: String { fixedString(problem) }
    var roleText: String { role_name.map { String(cString: $0) } ?? "invalid" }
}
