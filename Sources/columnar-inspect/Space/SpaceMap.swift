// SpaceMap.swift — the map of a file's space: every byte of the file assigned to the header, a live node of some
// owner (a table's column, its index, a table's own structure, the file's structure), a free-list entry, space
// that is neither (unaccounted: leaked, or below damage the walk could not pass), or the preallocated tail past
// the version's used size. `space` prints and draws it; `info` sums it.

import CColumnar

struct SpaceMap {
    enum Kind: String, Encodable {
        case header, node, free, unaccounted, preallocated
    }

    /// Whom a live node belongs to.
    struct Owner: Hashable {
        let table: UInt32
        let column: UInt32
        let inIndex: Bool

        static let file = Owner(table: COLUMNAR_NO_TABLE, column: COLUMNAR_NO_COLUMN, inIndex: false)
    }

    /// A run of the file: adjacent live nodes of one owner are one region, each free-list entry is one.
    struct Region {
        let start: UInt64
        var end: UInt64
        let kind: Kind
        let owner: Owner?
        var nodeCount: Int
        /// Free regions: the version whose commit freed the space.
        let freedByVersion: UInt64?

        var sizeBytes: UInt64 { end - start }
    }

    /// Bytes and nodes per owner.
    struct OwnerTotal {
        let owner: Owner
        var sizeBytes: UInt64 = 0
        var nodeCount = 0
    }

    /// The header's size: the first 8192 bytes of every file.
    static let headerBytes = Inspector.headerBytes

    let fileSizeBytes: UInt64
    let usedSizeBytes: UInt64
    let version: UInt64
    private(set) var regions: [Region] = []
    private(set) var owners: [OwnerTotal] = []
    private(set) var freeList: [columnar_free_entry] = []
    private(set) var liveBytes: UInt64 = 0
    private(set) var liveNodeCount = 0
    private(set) var freeBytes: UInt64 = 0
    private(set) var unaccountedBytes: UInt64 = 0
    /// Bytes claimed twice (live nodes overlapping each other or free entries): damage, reported by verify.
    private(set) var overlapBytes: UInt64 = 0
    /// Damage met while walking or reading the free list.
    private(set) var findings: [Finding] = []

    var preallocatedBytes: UInt64 { fileSizeBytes > usedSizeBytes ? fileSizeBytes - usedSizeBytes : 0 }

    /// The sum of `values`, or UInt64.max when it would overflow (sizes read from a damaged file).
    static func saturatingSum<S: Sequence>(_ values: S) -> UInt64 where S.Element == UInt64 {
        values.reduce(0) { total, value in
            let (sum, overflow) = total.addingReportingOverflow(value)
            return overflow ? .max : sum
        }
    }

    /// Walks the inspector's version and reads its free list.
    init(inspector: Inspector) throws {
        let version = inspector.version().version
        fileSizeBytes = version.file_size_bytes
        usedSizeBytes = version.used_size_bytes
        self.version = version.version
        var nodes: [(start: UInt64, end: UInt64, owner: Owner)] = []
        var totals: [Owner: OwnerTotal] = [:]
        findings = try inspector.walk { node in
            let owner = Owner(table: node.table, column: node.column, inIndex: node.inIndex)
            nodes.append((node.ref, node.ref + node.sizeBytes, owner))
            totals[owner, default: OwnerTotal(owner: owner)].sizeBytes += node.sizeBytes
            totals[owner, default: OwnerTotal(owner: owner)].nodeCount += 1
            return true
        }
        do {
            freeList = try inspector.freeList()
        } catch let failure as EngineFailure {
            findings.append(Finding(offset: failure.offset, what: "free list unreadable: \(failure.message)"))
        }
        liveNodeCount = nodes.count
        liveBytes = nodes.reduce(0) { $0 + ($1.end - $1.start) }
        // A damaged free list may hold any sizes: the sum saturates instead of trapping.
        freeBytes = SpaceMap.saturatingSum(freeList.map(\.size_bytes))
        owners = totals.values.sorted { ($0.owner.table &+ 1, $0.owner.column &+ 1, $0.owner.inIndex ? 1 : 0)
                                        < ($1.owner.table &+ 1, $1.owner.column &+ 1, $1.owner.inIndex ? 1 : 0) }
        buildRegions(nodes: nodes)
    }

    private mutating func buildRegions(nodes: [(start: UInt64, end: UInt64, owner: Owner)]) {
        // Nodes and free entries in file order; a free entry sorts before a node at the same offset.
        var items: [(start: UInt64, end: UInt64, owner: Owner?, version: UInt64?)] = nodes.map {
            ($0.start, $0.end, $0.owner, nil)
        }
        for entry in freeList where entry.size_bytes > 0 && entry.pos < usedSizeBytes {
            // Clipped to the used size without overflow, whatever size a damaged entry claims.
            let end = entry.size_bytes > usedSizeBytes - entry.pos ? usedSizeBytes : entry.pos + entry.size_bytes
            items.append((entry.pos, end, nil, entry.version))
        }
        items.sort { ($0.start, $0.owner == nil ? 0 : 1) < ($1.start, $1.owner == nil ? 0 : 1) }
        let headerEnd = min(SpaceMap.headerBytes, fileSizeBytes)
        if headerEnd > 0 {
            regions.append(Region(start: 0, end: headerEnd, kind: .header, owner: nil, nodeCount: 0,
                                  freedByVersion: nil))
        }
        var covered = headerEnd
        for item in items {
            if item.end <= covered {
                overlapBytes += item.end - item.start
                continue
            }
            var start = item.start
            if start < covered {
                overlapBytes += covered - start
                start = covered
            } else if start > covered {
                append(Region(start: covered, end: start, kind: .unaccounted, owner: nil, nodeCount: 0,
                              freedByVersion: nil))
            }
            if let owner = item.owner {
                append(Region(start: start, end: item.end, kind: .node, owner: owner, nodeCount: 1,
                              freedByVersion: nil))
            } else {
                append(Region(start: start, end: item.end, kind: .free, owner: nil, nodeCount: 0,
                              freedByVersion: item.version))
            }
            covered = item.end
        }
        if covered < usedSizeBytes {
            append(Region(start: covered, end: usedSizeBytes, kind: .unaccounted, owner: nil, nodeCount: 0,
                          freedByVersion: nil))
            covered = usedSizeBytes
        }
        if covered < fileSizeBytes {
            append(Region(start: covered, end: fileSizeBytes, kind: .preallocated, owner: nil, nodeCount: 0,
                          freedByVersion: nil))
        }
    }

    /// Appends a region, merging it into the previous one when both are live nodes of one owner and adjacent.
    private mutating func append(_ region: Region) {
        if region.kind == .unaccounted { unaccountedBytes += region.sizeBytes }
        if let last = regions.last, last.end == region.start, last.kind == region.kind,
           region.kind == .node || region.kind == .unaccounted, last.owner == region.owner {
            regions[regions.count - 1].end = region.end
            regions[regions.count - 1].nodeCount += region.nodeCount
            return
        }
        regions.append(region)
    }
}
