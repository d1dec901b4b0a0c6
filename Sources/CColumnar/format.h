/*
 * format.h — the on-disk format of a Columnar file, written down beside the structs that hold it.
 * docs/FileFormat.md says the same in prose. Every multi-byte integer is little-endian (the engine refuses to
 * build on big-endian hosts). Every on-disk enum reserves 0 as invalid.
 *
 * FILE LAYOUT
 *
 *   0        8192                                                      used_size        file size
 *   +--------+---------------------------------------------------------+----------------+
 *   | header | nodes (8-byte aligned), free space between them         | preallocated   |
 *   +--------+---------------------------------------------------------+----------------+
 *
 * HEADER (offset 0, 8192 bytes: sixteen 512-byte sectors). A disk writes a sector whole or not at all, so each
 * piece of the header that changes lives in a sector of its own and carries its own checksum:
 *
 *   sector 0        the file's identity (struct cf_identity), written once when the file is created
 *   sectors 1 .. 15 fifteen commit slots (struct cf_slot): version v lives in sector 1 + v % 15
 *
 * IDENTITY (sector 0, bytes 0 .. 511; never rewritten after creation)
 *
 *   OFFSET SIZE DESCRIPTION
 *        0    8 magic "CLMNRDB1" (every format version; the version field tells them apart)
 *        8    4 format version: 4 (CF_FORMAT_VERSION), 5 encrypted (CF_FORMAT_VERSION_ENCRYPTED); versions 2 and 3,
 *               the same without frame-of-reference packed ints (node header offset 12), are read and written
 *               as they are
 *       12    4 header size in bytes (8192)
 *       16    4 sector size in bytes (512): the stride of the slots
 *       20    4 slot count (15)
 *       24   16 file id: random bytes chosen at creation; every slot repeats them
 *       40    4 encryption scheme: 0 none (format versions 2, 4); 1 AES-256-CTR + HMAC-SHA256 sectors (3, 5)
 *       44    4 encrypted files: logical bytes per 512-byte sector (480); else 0
 *       48   32 encrypted files: the key check, HMAC-SHA256(MAC key, "Columnar key check" || file id); else 0
 *       80  428 reserved, zero
 *      508    4 CRC-32C of bytes 0 .. 507
 *
 * ENCRYPTED FILES (format version 5, or 3; docs/Encryption.md, crypt.h) hold the same logical content as a
 * version 4 (or 2) file. The header (bytes 0 .. 8191) is stored as it is; every later logical byte lives in a 512-byte sector
 * holding a random IV, an authentication tag and 480 bytes of ciphertext. Refs, used sizes and every offset
 * inside the file's structures are logical offsets.
 *
 * SLOT (one per sector; bytes 0 .. 511 of the sector). A slot names a committed version. There is no selector:
 * on open, the valid slot of the highest version whose commit record verifies wins (docs/CommitPath.md).
 *
 *   OFFSET SIZE DESCRIPTION
 *        0    8 version (>= 1; 0 marks an empty or invalidated slot)
 *        8    8 top ref: file offset of the version's TOP node
 *       16    8 used size: bytes from the file start to the end of the last node of this version
 *       24    8 free bytes: bytes on the version's free list (informational; verified against the list)
 *       32    8 base version: the latest version known durable when this one was written. The commit record
 *               (TOP child 6) covers every range written by the versions base + 1 .. version.
 *       40    4 flags: CF_SLOT_NODES_SYNCED (1): every node of this version was durable before the slot was
 *               written, so recovery has nothing to verify beyond the top and the record's own checksums
 *       44    4 reserved, zero
 *       48   16 file id (a copy of the identity's)
 *       64  444 reserved, zero
 *      508    4 CRC-32C of bytes 0 .. 507
 *
 * A commit writes its nodes, its commit record and its slot in one batch followed by one fdatasync; recovery
 * checks each range the record lists against its CRC, so a torn or reordered write can never make a slot point
 * at nodes that are not all on disk. Commits larger than CF_ONE_SYNC_MAX_BYTES sync their nodes before writing
 * the slot (flag NODES_SYNCED) so that recovery never has to read them back.
 *
 * COMMIT RECORD (TOP child 6, role COMMIT_RECORD, packed int of width 64, count = 4 x entries): one entry per
 * contiguous range written by the versions base + 1 .. version, the range holding this version's TOP node and
 * record excepted (each is checked by its own node checksum):
 *     [4i] position   [4i+1] size in bytes   [4i+2] CRC-32C of the range's bytes   [4i+3] version that wrote it
 * Entries are sorted by version, then by position. A NODES_SYNCED version's record has no entries.
 *
 * NODE: every structure after the header is a node: a 16-byte header then a payload, padded to a multiple of
 * 8 bytes. A ref is the file offset of a node header; ref 0 means "none".
 *
 *   OFFSET SIZE DESCRIPTION
 *        0    4 CRC-32C of bytes 4 .. end of payload (padding excluded)
 *        4    1 encoding (columnar_encoding: 1 packed int, 2 refs, 3 float, 4 double, 5 bytes, 6 fixed,
 *               7 short strings)
 *        5    1 width: packed int bits (0,1,2,4,8,16,32,64); fixed and short-string element bytes; 64 for refs
 *               and doubles, 32 for floats, 8 for bytes
 *        6    1 role (enum cf_role): what the node is, for validation and inspection
 *        7    1 role detail: the value type (columnar_type) for COLUMN, VALUES, BLOB, NULLS, LIST_INNER and DICT
 *               nodes, else 0
 *        8    4 count: elements (bytes for BYTES)
 *       12    4 base (signed): PACKED_INT nodes of width 8, 16 or 32 that hold cluster or inner keys (role KEYS)
 *               or the values of an INT column or collection (role VALUES, detail INT) may store each element
 *               minus this base ("frame of reference": ascending keys and ids that span a few hundred values
 *               fit in 8 or 16 bits whatever their size); element i is stored value + base, computed in 64
 *               bits. Zero in every other node, and in every node of a format version 2 or 3 file
 *       16    - payload: PACKED_INT: ceil(count*width/8) bytes, element i at bit i*width, little-endian
 *               within 64-bit words; widths 0,1,2,4 are unsigned, 8..64 signed two's complement.
 *               REFS: count x u64. FLOAT/DOUBLE: count x IEEE 754. BYTES: count bytes. FIXED: count x width
 *               bytes. SHORT_STRINGS: count slots of width bytes (width 4, 8, 16 or 32); a slot holds the
 *               string's bytes then zero padding, and its last byte is (width - 1 - length).
 *
 * STRUCTURE (every arrow is a ref; "INT[...]" is a packed-int node)
 *
 *   TOP (REFS, 7): [0] META INT[version, cluster_size]
 *                  [1] SCHEMA (BYTES, format below)
 *                  [2] TABLES (REFS, one per table id; 0 for a removed table)
 *                  [3] FREE_POS INT[]  [4] FREE_SIZE INT[]  [5] FREE_VERSION INT[]  (sorted by position; always
 *                      width 64, so their size depends only on the entry count: see commit.c write_tail; version 0
 *                      marks never-used slack of the region a commit reserved at the end of the file)
 *                  [6] COMMIT_RECORD INT[] (width 64; format above)
 *   TABLE (REFS, 3): [0] META INT[object_count, next_key, keyed_by]   [1] tree root (INNER or CLUSTER, 0 if empty)
 *                    (keyed_by: 0, or the primary key's column id + 1 when every object's key equals its int primary
 *                    key; see object.c. Optional: a META of two elements means 0, and readers ignore elements past it)
 *                    [2] INDEXES (REFS, one per column id: index tree root or 0), or 0 when no column is indexed
 *   INNER (REFS, 1+n): [0] KEYS INT[first key of each child] then n children (all INNER or all CLUSTER)
 *   CLUSTER (REFS, 1+c): [0] KEYS INT[object keys, ascending], then one COLUMN per column id (0 = all default)
 *   COLUMN (REFS, role detail = value type): the values of `count` rows/elements:
 *        INT, BOOL, LINK:          [0] VALUES INT                                 [1] NULLS or 0
 *        FLOAT / DOUBLE:           [0] VALUES FLOAT / DOUBLE                      [1] NULLS or 0
 *        STRING, BINARY, MIXED:    [0] VALUES SHORT_STRINGS, or VALUES INT of end offsets, [1] BLOB BYTES
 *                                  [2] NULLS or 0   (short form: [1] is 0). A MIXED value is its encoding
 *                                  (columnar.h "Mixed values", mixed.c): a type tag byte, then the payload.
 *        TIMESTAMP:                [0] VALUES INT seconds  [1] VALUES INT nanoseconds   [2] NULLS or 0
 *        OBJECTID, UUID, DECIMAL:  [0] VALUES FIXED (12/16/16 bytes)              [1] NULLS or 0
 *        collections and backlinks: [0] VALUES REFS (collection root per row, 0 = empty)  [1] 0
 *      NULLS is a packed int array of `count` entries, 1 = null; a column without nulls stores ref 0.
 *   Collection root: a COLUMN of up to CF_COLL_LEAF_MAX elements, or LIST_INNER (REFS, 1+n):
 *        [0] INT[cumulative element count after each child] then n children (COLUMN or LIST_INNER).
 *        A dictionary is DICT (REFS, 2): [0] keys collection (STRING, sorted) [1] values collection.
 *   Search index: a tree like a table's (INNER/CLUSTER) keyed by the 64-bit hash of the value, with two
 *        columns: [0] INT first object key with that hash, [1] list of further object keys (REFS per row).
 *
 * SCHEMA (BYTES): u32 table_count, then per table (collection 0 means "a single value", a real value rather
 * than an absent one, so it is the one on-disk enum where 0 is valid):
 *     u8 name_len, name, u8 flags (1 = removed), u32 primary_key_col (0xFFFFFFFF none), u32 column_count,
 *     then per column: u8 name_len, name, u8 type, u8 collection, u8 flags (1 nullable, 2 indexed,
 *     4 backlink (hidden), 8 removed), u32 target_table, u32 origin_table, u32 origin_column.
 *
 * LIMITS a reader enforces (a node past one is damage, COLUMNAR_ECORRUPT, whatever its checksum says): a packed-int
 * node narrower than a byte holds at most CC_MAX_NARROW_COUNT elements (node.h; its count is not backed by payload
 * bytes); an INNER or LIST_INNER node has 1 to CF_INNER_FANOUT children; a CLUSTER 1 to CC_MAX_LEAF_ROWS rows
 * (tree.h); a collection leaf at most CF_COLL_LEAF_MAX elements; a tree at most CF_MAX_TREE_DEPTH levels.
 */
#ifndef COLUMNAR_FORMAT_H
#define COLUMNAR_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "Columnar's file format is little-endian and this engine reads it in place: big-endian hosts are unsupported"
#endif

#define CF_MAGIC "CLMNRDB1"
#define CF_MAGIC_BYTES 8
#define CF_FORMAT_VERSION 4u
#define CF_FORMAT_VERSION_ENCRYPTED 5u   /* version 4's content in encrypted sectors */
/* Earlier versions this library still reads and writes: the same layout, with every node's base zero. */
#define CF_FORMAT_VERSION_NO_BASES 2u
#define CF_FORMAT_VERSION_ENCRYPTED_NO_BASES 3u
#define CF_SECTOR_BYTES 512u
#define CF_SLOT_COUNT 15u
#define CF_HEADER_BYTES (CF_SECTOR_BYTES * (1u + CF_SLOT_COUNT))   /* 8192 */
#define CF_FILE_ID_BYTES 16u
#define CF_NODE_HEADER_BYTES 16u
#define CF_COLL_LEAF_MAX 1000u     /* elements per collection leaf */
#define CF_INNER_FANOUT 256u       /* children per INNER / LIST_INNER node when written */
#define CF_MAX_TREE_DEPTH 24u      /* deeper trees are treated as corrupt (guards against ref cycles) */
/* A commit that writes more than this many bytes makes its nodes durable before it writes its slot, so that
 * recovery never reads more than about CF_SLOT_COUNT times this much back to verify a version. */
#define CF_ONE_SYNC_MAX_BYTES (1u << 20)

/* Sector 0 of the header: what the file is. Written once, when the file is created. */
typedef struct cf_identity {
    char magic[CF_MAGIC_BYTES];
    uint32_t format_version;
    uint32_t header_bytes;
    uint32_t sector_bytes;
    uint32_t slot_count;
    uint8_t file_id[CF_FILE_ID_BYTES];
    uint32_t encryption;
    uint32_t sector_payload_bytes;
    uint8_t key_check[32];
    uint8_t reserved[428];
    uint32_t checksum;
} cf_identity;
_Static_assert(sizeof(cf_identity) == CF_SECTOR_BYTES, "the identity fills sector 0");
_Static_assert(offsetof(cf_identity, format_version) == 8, "format version at 8");
_Static_assert(offsetof(cf_identity, header_bytes) == 12, "header size at 12");
_Static_assert(offsetof(cf_identity, sector_bytes) == 16, "sector size at 16");
_Static_assert(offsetof(cf_identity, slot_count) == 20, "slot count at 20");
_Static_assert(offsetof(cf_identity, file_id) == 24, "file id at 24");
_Static_assert(offsetof(cf_identity, encryption) == 40, "encryption scheme at 40");
_Static_assert(offsetof(cf_identity, key_check) == 48, "key check at 48");
_Static_assert(offsetof(cf_identity, checksum) == 508, "identity checksum at 508");

/* Slot flags. */
enum { CF_SLOT_NODES_SYNCED = 1, CF_SLOT_FLAGS_KNOWN = 1 };

/* A committed version: one per sector after the identity. */
typedef struct cf_slot {
    uint64_t version;
    uint64_t top_ref;
    uint64_t used_size;
    uint64_t free_bytes;
    uint64_t base_version;
    uint32_t flags;
    uint32_t reserved0;
    uint8_t file_id[CF_FILE_ID_BYTES];
    uint8_t reserved[444];
    uint32_t checksum;
} cf_slot;
_Static_assert(sizeof(cf_slot) == CF_SECTOR_BYTES, "a slot fills one sector");
_Static_assert(offsetof(cf_slot, top_ref) == 8, "slot top ref at 8");
_Static_assert(offsetof(cf_slot, used_size) == 16, "slot used size at 16");
_Static_assert(offsetof(cf_slot, free_bytes) == 24, "slot free bytes at 24");
_Static_assert(offsetof(cf_slot, base_version) == 32, "slot base version at 32");
_Static_assert(offsetof(cf_slot, flags) == 40, "slot flags at 40");
_Static_assert(offsetof(cf_slot, file_id) == 48, "slot file id at 48");
_Static_assert(offsetof(cf_slot, checksum) == 508, "slot checksum at 508");

/* The file offset of the slot that holds `version`. */
static inline uint64_t cf_slot_offset(uint64_t version) {
    return (uint64_t)CF_SECTOR_BYTES * (1u + version % CF_SLOT_COUNT);
}

/* One commit-record entry (four packed 64-bit ints). */
enum { CF_RECORD_POS = 0, CF_RECORD_SIZE = 1, CF_RECORD_CRC = 2, CF_RECORD_VERSION = 3, CF_RECORD_FIELDS = 4 };

/* What a node is. Stored in the node header; 0 is invalid. */
typedef enum cf_role {
    CF_ROLE_TOP = 1,
    CF_ROLE_META = 2,
    CF_ROLE_SCHEMA = 3,
    CF_ROLE_TABLES = 4,
    CF_ROLE_FREE_POS = 5,
    CF_ROLE_FREE_SIZE = 6,
    CF_ROLE_FREE_VERSION = 7,
    CF_ROLE_TABLE = 8,
    CF_ROLE_INDEXES = 9,
    CF_ROLE_INNER = 10,
    CF_ROLE_CLUSTER = 11,
    CF_ROLE_KEYS = 12,
    CF_ROLE_COLUMN = 13,
    CF_ROLE_VALUES = 14,
    CF_ROLE_BLOB = 15,
    CF_ROLE_NULLS = 16,
    CF_ROLE_LIST_INNER = 17,
    CF_ROLE_DICT = 18,
    CF_ROLE_COMMIT_RECORD = 19,
    CF_ROLE_COUNT_ = 20,  /* one past the last role */
} cf_role;

/* The 16-byte header of every node. */
typedef struct cf_node_header {
    uint32_t checksum;
    uint8_t encoding;
    uint8_t width;
    uint8_t role;
    uint8_t role_detail;
    uint32_t count;
    int32_t base;    /* frame-of-reference base of a PACKED_INT node (see NODE above); else 0 */
} cf_node_header;
_Static_assert(sizeof(cf_node_header) == CF_NODE_HEADER_BYTES, "node header is 16 bytes");
_Static_assert(offsetof(cf_node_header, encoding) == 4, "encoding at 4");
_Static_assert(offsetof(cf_node_header, width) == 5, "width at 5");
_Static_assert(offsetof(cf_node_header, role) == 6, "role at 6");
_Static_assert(offsetof(cf_node_header, role_detail) == 7, "role detail at 7");
_Static_assert(offsetof(cf_node_header, count) == 8, "count at 8");

/* TOP node children. */
enum { CF_TOP_META = 0, CF_TOP_SCHEMA = 1, CF_TOP_TABLES = 2, CF_TOP_FREE_POS = 3, CF_TOP_FREE_SIZE = 4,
       CF_TOP_FREE_VERSION = 5, CF_TOP_COMMIT_RECORD = 6, CF_TOP_CHILDREN = 7 };
/* TOP META elements. */
enum { CF_TOP_META_VERSION = 0, CF_TOP_META_CLUSTER_SIZE = 1, CF_TOP_META_COUNT = 2 };
/* TABLE node children and META elements. */
enum { CF_TABLE_META = 0, CF_TABLE_ROOT = 1, CF_TABLE_INDEXES = 2, CF_TABLE_CHILDREN = 3 };
/* CF_TABLE_META_COUNT elements are required; writers add KEYED_BY (CF_TABLE_META_WRITTEN elements in all). */
enum { CF_TABLE_META_OBJECT_COUNT = 0, CF_TABLE_META_NEXT_KEY = 1, CF_TABLE_META_KEYED_BY = 2, CF_TABLE_META_COUNT = 2,
       CF_TABLE_META_WRITTEN = 3 };

/* Schema flags. */
enum { CF_TABLE_FLAG_REMOVED = 1 };
/* ORDERED: the column's search index files values under order-preserving keys (see index.c), so ranges and
 * prefixes are key ranges; without it the keys are hashes. Only set together with INDEXED. */
enum { CF_COL_FLAG_NULLABLE = 1, CF_COL_FLAG_INDEXED = 2, CF_COL_FLAG_BACKLINK = 4, CF_COL_FLAG_REMOVED = 8,
       CF_COL_FLAG_ORDERED = 16, CF_COL_FLAGS_KNOWN = 31 };
#define CF_NO_COLUMN 0xFFFFFFFFu

#endif /* COLUMNAR_FORMAT_H */
