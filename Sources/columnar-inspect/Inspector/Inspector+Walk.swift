// Inspector+Walk.swift — the live nodes of a version, its free list and the space per owner
// (columnar_inspect_walk, columnar_inspect_free_list, columnar_inspect_usage_get).

import CColumnar

/// Something wrong, and where: the file offset and a sentence.
struct Finding: Codable, Equatable {
    let offset: UInt64
    let what: String
}

/// One live node as the walk reports it (columnar_inspect_node, with its strings copied).
struct NodeRecord {
    let ref: UInt64
    let sizeBytes: UInt64
    let payloadBytes: UInt64
    let plainBytes: UInt64
    let parentRef: UInt64
    let position: UInt32
    let depth: UInt32
    let role: UInt8
    let roleName: String
    let roleDetail: UInt8
    let encoding: columnar_encoding
    let width: UInt32
    let count: UInt64
    let checksumValid: Bool
    let table: UInt32
    let column: UInt32
    let inIndex: Bool
    let inCollection: Bool
    let what: String

    init(_ node: columnar_inspect_node) {
        ref = node.ref
        sizeBytes = node.size_bytes
        payloadBytes = node.payload_bytes
        plainBytes = node.plain_bytes
        parentRef = node.parent_ref
        position = node.position
        depth = node.depth
        role = node.role
        roleName = String(cString: node.role_name)
        roleDetail = node.role_detail
        encoding = node.encoding
        width = node.width
        count = node.count
        checksumValid = node.checksum_valid
        table = node.table
        column = node.column
        inIndex = node.in_index
        inCollection = node.in_collection
        what = String(cString: node.what)
    }
}

/// The callbacks of one walk, handed to C as its context pointer.
private final class WalkContext {
    var onNode: (NodeRecord) -> Bool = { _ in true }
    var onUsage: (columnar_inspect_usage) -> Void = { _ in }
    var findings: [Finding] = []
}

private let damageCallback: columnar_finding_fn = { context, ref, what in
    let walk = Unmanaged<WalkContext>.fromOpaque(context!).takeUnretainedValue()
    walk.findings.append(Finding(offset: ref, what: what.map { String(cString: $0) } ?? ""))
}

extension Inspector {
    /// Walks every live node of the version; `body` returns false to stop. Returns the damage met on the way.
    @discardableResult
    func walk(_ body: (NodeRecord) -> Bool) throws -> [Finding] {
        try withoutActuallyEscaping(body) { body in
            let context = WalkContext()
            context.onNode = body
            let code = columnar_inspect_walk(handle, { context, node in
                let walk = Unmanaged<WalkContext>.fromOpaque(context!).takeUnretainedValue()
                return walk.onNode(NodeRecord(node!.pointee)) ? 0 : 1
            }, damageCallback, Unmanaged.passUnretained(context).toOpaque())
            // 1 is our own stop signal, not an error.
            if code != COLUMNAR_OK && code != 1 { throw EngineFailure(code: code) }
            return context.findings
        }
    }

    /// The version's free list, in list order (by position).
    func freeList() throws -> [columnar_free_entry] {
        final class Entries { var items: [columnar_free_entry] = [] }
        let entries = Entries()
        try check(columnar_inspect_free_list(handle, { context, entry in
            Unmanaged<Entries>.fromOpaque(context!).takeUnretainedValue().items.append(entry!.pointee)
            return 0
        }, Unmanaged.passUnretained(entries).toOpaque()))
        return entries.items
    }

    /// The space per owner, and the damage the walk met.
    func usage() throws -> (usage: [columnar_inspect_usage], damage: [Finding]) {
        let context = WalkContext()
        var usage: [columnar_inspect_usage] = []
        context.onUsage = { usage.append($0) }
        let code = columnar_inspect_usage_get(handle, { context, item in
            Unmanaged<WalkContext>.fromOpaque(context!).takeUnretainedValue().onUsage(item!.pointee)
            return 0
        }, damageCallback, Unmanaged.passUnretained(context).toOpaque())
        try check(code)
        return (usage, context.findings)
    }
}

extension columnar_inspect_usage {
    /// The (role, encoding, width) combinations in use.
    var encodingUses: [columnar_inspect_encoding_use] {
        withUnsafeBytes(of: encodings) { buffer in
            Array(buffer.bindMemory(to: columnar_inspect_encoding_use.self).prefix(Int(encoding_count)))
        }
    }
}

extension Array where Element == Finding {
    /// The findings without repeats: several readers may meet the same damage, and one may say it with more
    /// context ("... (the ref is in slot 3 of the node at 8192)"); of findings at one offset where one's text
    /// contains the other's, the longer is kept. Order is kept.
    func deduplicated() -> [Finding] {
        var kept: [Finding] = []
        for finding in self {
            let same = { (other: Finding) in
                other.offset == finding.offset
                    && (other.what.contains(finding.what) || finding.what.contains(other.what))
            }
            if let index = kept.firstIndex(where: same) {
                if finding.what.count > kept[index].what.count { kept[index] = finding }
            } else {
                kept.append(finding)
            }
        }
        return kept
    }
}
