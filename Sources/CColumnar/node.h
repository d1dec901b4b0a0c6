/*
 * node.h — reading and writing nodes, the arrays every structure in the file is made of (format.h).
 *
 * Reading: cc_node_read validates a node before anything uses it — the ref is aligned and inside the version's
 * used size, the header is sane (known encoding, a width valid for it, reserved bits zero, the expected role),
 * and the payload lies inside the file — so a damaged file yields COLUMNAR_ECORRUPT naming the ref, never an
 * out-of-bounds read. Checksums are verified by columnar_verify, and on every read with COLUMNAR_OPEN_PARANOID.
 *
 * Writing: a commit encodes nodes into an emitter (a private buffer), which asks the allocator for each node's
 * file offset; the buffer is then written with one batched submission.
 */
#ifndef COLUMNAR_NODE_H
#define COLUMNAR_NODE_H

#include "internal.h"

#include <string.h>

/* The most elements a packed-int node narrower than a byte may hold. Such a node's payload is smaller than its
 * count (empty at width 0), so the count alone, unbacked by bytes in the file, could drive a loop or an
 * allocation for billions of elements; the writer's largest narrow arrays are a leaf's keys, values and null
 * flags, at most 4 x COLUMNAR_MAX_CLUSTER_SIZE (tree.h checks that CC_MAX_LEAF_ROWS is within this). A node of
 * any other width holds no more elements than its payload has bytes, which lie inside the file. */
#define CC_MAX_NARROW_COUNT (COLUMNAR_MAX_CLUSTER_SIZE * 4u)

/* Payload bytes of a node with this encoding/width/count, or UINT64_MAX when the combination is invalid. */
uint64_t cc_payload_bytes(uint8_t encoding, uint8_t width, uint64_t count);
/* Total bytes a node occupies in the file (header + payload, rounded up to 8). */
static inline uint64_t cc_node_span(uint64_t payload_bytes) {
    return (CF_NODE_HEADER_BYTES + payload_bytes + 7) & ~(uint64_t)7;
}

/* Validates and views the node at `ref` inside [CF_HEADER_BYTES, limit) of `base`. `expect_role` 0 accepts any
 * role. `verify_checksum` also checks the CRC. A packed-int node narrower than a byte may have at most
 * CC_MAX_NARROW_COUNT elements. Returns 0 or COLUMNAR_ECORRUPT. */
int cc_node_view(const uint8_t *base, uint64_t limit, uint64_t ref, uint8_t expect_role, bool verify_checksum,
                 cc_node *out);
/* The same within a transaction's version, where a file of format version 2 or 3 may hold no base at all. */
int cc_node_read(const columnar_txn *txn, uint64_t ref, uint8_t expect_role, cc_node *out);
/* COLUMNAR_ECORRUPT when `node` has a base and `db`'s format version has none (2 and 3), else 0. */
int cc_node_base_check(const columnar_db *db, const cc_node *node);
/* Reads child `index` of a REFS node; ref 0 is allowed only when `may_be_zero` (then out->ref == 0). */
int cc_node_child(const columnar_txn *txn, const cc_node *parent, uint32_t index, uint8_t expect_role,
                  bool may_be_zero, cc_node *out);
/* cc_node_read and cc_node_child (a ref of 0 refused) that always check the node's CRC as well: for what the
 * write path reads and acts on (the top, the free list, the table list, the record, the size of a node it
 * frees), where a damaged node that merely looks sane would otherwise be written back or freed wrongly. */
int cc_node_read_verified(const columnar_txn *txn, uint64_t ref, uint8_t expect_role, cc_node *out);
int cc_node_child_verified(const columnar_txn *txn, const cc_node *parent, uint32_t index, uint8_t expect_role,
                           cc_node *out);

static inline uint64_t cc_node_ref_at(const cc_node *node, uint32_t index) {
    uint64_t ref;
    memcpy(&ref, node->payload + (size_t)index * 8, 8);
    return ref;
}

/* Element `index` of a packed-int payload of `width` bits. */
static inline int64_t cc_packed_get(const uint8_t *data, uint8_t width, uint64_t index) {
    switch (width) {
    case 0: return 0;
    case 1: return (data[index >> 3] >> (index & 7)) & 1;
    case 2: return (data[index >> 2] >> ((index & 3) * 2)) & 3;
    case 4: return (data[index >> 1] >> ((index & 1) * 4)) & 15;
    case 8: return (int8_t)data[index];
    case 16: { int16_t v; memcpy(&v, data + index * 2, 2); return v; }
    case 32: { int32_t v; memcpy(&v, data + index * 4, 4); return v; }
    default: { int64_t v; memcpy(&v, data + index * 8, 8); return v; }
    }
}
/* Element `index` of a packed-int node, its base added (a based node's elements are within 32 bits of it, so the
 * sum never overflows). */
static inline int64_t cc_node_int_at(const cc_node *node, uint64_t index) {
    return cc_packed_get(node->payload, node->width, index) + node->base;
}
/* Whether a node may carry a base (format.h NODE): what it holds, not the file's version, decides. */
static inline bool cc_role_may_have_base(uint8_t role, uint8_t role_detail) {
    return role == CF_ROLE_KEYS || (role == CF_ROLE_VALUES && role_detail == COLUMNAR_TYPE_INT);
}
/* Packs `count` values at `width` into `out` (payload bytes, zeroed by the callee), each minus `base` (0 except at
 * widths 8, 16 and 32, format.h NODE). */
void cc_packed_encode(const int64_t *values, uint64_t count, uint8_t width, int32_t base, uint8_t *out);
/* Index of the first element >= `key` in an ascending packed-int node (its base counted). */
uint64_t cc_packed_lower_bound(const cc_node *node, int64_t key);

/* ---------------------------------------------------------------------------------------------------------- */
/* Emitting nodes during a commit                                                                               */
/* ---------------------------------------------------------------------------------------------------------- */

typedef struct cc_pending_write {
    uint64_t ref;
    size_t buffer_offset;
    uint64_t bytes;
} cc_pending_write;

typedef struct cc_emitter cc_emitter;
/* Returns the file offset for a node of `bytes` bytes (a multiple of 8), or 0 with *error set. */
typedef uint64_t (*cc_alloc_fn)(cc_emitter *emitter, uint64_t bytes, int *error);

struct cc_emitter {
    columnar_txn *txn;
    cc_alloc_fn alloc;
    uint8_t *buffer;
    size_t used;
    size_t capacity;
    cc_pending_write *writes;
    size_t write_count;
    size_t write_capacity;
    uint64_t *scratch;        /* reusable int64 buffer for packing */
    size_t scratch_capacity;
};

void cc_emitter_init(cc_emitter *emitter, columnar_txn *txn, cc_alloc_fn alloc);
void cc_emitter_free(cc_emitter *emitter);
/* Returns a zeroed payload area of `payload_bytes`, valid until the next emitter call. NULL on -ENOMEM. */
uint8_t *cc_emit_begin(cc_emitter *emitter, uint64_t payload_bytes);
/* Finishes the node begun last: fills its header and checksum and allocates its ref. */
int cc_emit_end(cc_emitter *emitter, uint8_t encoding, uint8_t width, uint8_t role, uint8_t role_detail,
                uint64_t count, uint64_t *out_ref);
int cc_emit_ints(cc_emitter *emitter, uint8_t role, uint8_t role_detail, const int64_t *values, uint64_t count,
                 uint64_t *out_ref);
int cc_emit_refs(cc_emitter *emitter, uint8_t role, uint8_t role_detail, const uint64_t *refs, uint64_t count,
                 uint64_t *out_ref);
int cc_emit_raw(cc_emitter *emitter, uint8_t encoding, uint8_t width, uint8_t role, uint8_t role_detail,
                uint64_t count, const void *payload, uint64_t payload_bytes, uint64_t *out_ref);
/* A scratch int64 array of `count` elements owned by the emitter. */
int64_t *cc_emitter_scratch(cc_emitter *emitter, size_t count);

#endif /* COLUMNAR_NODE_H */
