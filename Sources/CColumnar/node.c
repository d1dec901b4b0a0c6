/*
 * node.c — node validation, bit-packed integer arrays, and the emitter that builds a commit's new nodes.
 */
#include "node.h"

#include "checksum.h"

#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>

/* Inlined into cc_node_view, which every read of a node goes through. */
static inline __attribute__((always_inline)) uint64_t payload_bytes(uint8_t encoding, uint8_t width,
                                                                    uint64_t count) {
    switch (encoding) {
    case COLUMNAR_ENCODING_PACKED_INT:
        switch (width) {
        case 0: case 1: case 2: case 4: case 8: case 16: case 32: case 64:
            return (count * width + 7) / 8;
        default: return UINT64_MAX;
        }
    case COLUMNAR_ENCODING_REFS: return width == 64 ? count * 8 : UINT64_MAX;
    case COLUMNAR_ENCODING_FLOAT: return width == 32 ? count * 4 : UINT64_MAX;
    case COLUMNAR_ENCODING_DOUBLE: return width == 64 ? count * 8 : UINT64_MAX;
    case COLUMNAR_ENCODING_BYTES: return width == 8 ? count : UINT64_MAX;
    case COLUMNAR_ENCODING_FIXED: return (width == 12 || width == 16) ? count * width : UINT64_MAX;
    case COLUMNAR_ENCODING_SHORT_STRINGS:
        return (width == 4 || width == 8 || width == 16 || width == 32) ? count * width : UINT64_MAX;
    default: return UINT64_MAX;
    }
}

uint64_t cc_payload_bytes(uint8_t encoding, uint8_t width, uint64_t count) {
    return payload_bytes(encoding, width, count);
}

int cc_node_view(const uint8_t *base, uint64_t limit, uint64_t ref, uint8_t expect_role, bool verify_checksum,
                 cc_node *out) {
    if (ref < CF_HEADER_BYTES || (ref & 7) != 0)
        return CC_CORRUPT(ref, "ref %llu is %s", (unsigned long long)ref,
                          (ref & 7) ? "not 8-byte aligned" : "inside the file header");
    if (ref > limit || limit - ref < CF_NODE_HEADER_BYTES)
        return CC_CORRUPT(ref, "ref %llu points past the end of the used file (%llu bytes)",
                          (unsigned long long)ref, (unsigned long long)limit);
    cf_node_header header;
    memcpy(&header, base + ref, sizeof header);
    uint64_t payload = payload_bytes(header.encoding, header.width, header.count);
    if (payload == UINT64_MAX)
        return CC_CORRUPT(ref, "node at %llu has an invalid encoding %u / width %u", (unsigned long long)ref,
                          header.encoding, header.width);
    if (header.encoding == COLUMNAR_ENCODING_PACKED_INT && header.width < 8 && header.count > CC_MAX_NARROW_COUNT)
        return CC_CORRUPT(ref, "node at %llu claims %u elements of %u bits, more than the %u a writer makes",
                          (unsigned long long)ref, header.count, header.width, CC_MAX_NARROW_COUNT);
    if (header.role == 0 || header.role >= CF_ROLE_COUNT_)
        return CC_CORRUPT(ref, "node at %llu has an invalid header (role %u)", (unsigned long long)ref, header.role);
    /* A base only where the readers of such nodes add it, and only with widths whose elements plus the base
     * stay far inside 64 bits; anywhere else it is damage. */
    if (header.base != 0 &&
        !(header.encoding == COLUMNAR_ENCODING_PACKED_INT &&
          (header.width == 8 || header.width == 16 || header.width == 32) &&
          cc_role_may_have_base(header.role, header.role_detail)))
        return CC_CORRUPT(ref, "node at %llu (role %u, encoding %u, width %u) has base %d, which only a packed-int "
                          "node of keys or int values 8 to 32 bits wide may have", (unsigned long long)ref,
                          header.role, header.encoding, header.width, header.base);
    if (expect_role && header.role != expect_role)
        return CC_CORRUPT(ref, "node at %llu has role %u where role %u was expected", (unsigned long long)ref,
                          header.role, expect_role);
    if (payload > limit - ref - CF_NODE_HEADER_BYTES)
        return CC_CORRUPT(ref, "node at %llu (%llu payload bytes) extends past the used file end %llu",
                          (unsigned long long)ref, (unsigned long long)payload, (unsigned long long)limit);
    if (verify_checksum) {
        uint32_t crc = cc_crc32c(0, base + ref + 4, CF_NODE_HEADER_BYTES - 4 + payload);
        if (crc != header.checksum)
            return CC_CORRUPT(ref, "node at %llu fails its checksum (stored %08x, computed %08x)",
                              (unsigned long long)ref, header.checksum, crc);
    }
    out->ref = ref;
    out->encoding = header.encoding;
    out->width = header.width;
    out->role = header.role;
    out->role_detail = header.role_detail;
    out->count = header.count;
    out->base = header.base;
    out->payload = base + ref + CF_NODE_HEADER_BYTES;
    out->payload_bytes = payload;
    return 0;
}

int cc_node_base_check(const columnar_db *db, const cc_node *node) {
    /* Before format version 4 the header's last four bytes were reserved and always zero: anything else there is
     * damage (that the node's checksum would show, but ordinary reads do not compute it), not a base to add. */
    if (node->base == 0 || db->node_bases) return 0;
    return CC_CORRUPT(node->ref, "node at %llu has base %lld in its header, but a file of format version 2 or 3 "
                      "holds no bases (those header bytes are reserved and zero)", (unsigned long long)node->ref,
                      (long long)node->base);
}

int cc_node_read(const columnar_txn *txn, uint64_t ref, uint8_t expect_role, cc_node *out) {
    int rc = cc_node_view(txn->db->map.base, txn->used_size, ref, expect_role,
                          (txn->db->flags & COLUMNAR_OPEN_PARANOID) != 0 ||
                              atomic_load_explicit(&txn->db->map.verify_reads, memory_order_relaxed),
                          out);
    return rc ? rc : cc_node_base_check(txn->db, out);
}

int cc_node_child(const columnar_txn *txn, const cc_node *parent, uint32_t index, uint8_t expect_role,
                  bool may_be_zero, cc_node *out) {
    if (parent->encoding != COLUMNAR_ENCODING_REFS || index >= parent->count)
        return CC_CORRUPT(parent->ref, "node at %llu (role %u) has no child %u", (unsigned long long)parent->ref,
                          parent->role, index);
    uint64_t ref = cc_node_ref_at(parent, index);
    if (ref == 0) {
        if (may_be_zero) {
            memset(out, 0, sizeof *out);
            return 0;
        }
        return CC_CORRUPT(parent->ref, "node at %llu (role %u) has a null child %u",
                          (unsigned long long)parent->ref, parent->role, index);
    }
    return cc_node_read(txn, ref, expect_role, out);
}

int cc_node_read_verified(const columnar_txn *txn, uint64_t ref, uint8_t expect_role, cc_node *out) {
    int rc = cc_node_view(txn->db->map.base, txn->used_size, ref, expect_role, true, out);
    return rc ? rc : cc_node_base_check(txn->db, out);
}

int cc_node_child_verified(const columnar_txn *txn, const cc_node *parent, uint32_t index, uint8_t expect_role,
                           cc_node *out) {
    if (parent->encoding != COLUMNAR_ENCODING_REFS || index >= parent->count)
        return CC_CORRUPT(parent->ref, "node at %llu (role %u) has no child %u", (unsigned long long)parent->ref,
                          parent->role, index);
    uint64_t ref = cc_node_ref_at(parent, index);
    if (ref == 0)
        return CC_CORRUPT(parent->ref, "node at %llu (role %u) has a null child %u", (unsigned long long)parent->ref,
                          parent->role, index);
    return cc_node_read_verified(txn, ref, expect_role, out);
}

/* The smallest plain width (no base) that holds every value of [min, max], a range that includes 0. */
static uint8_t plain_width(int64_t min, int64_t max) {
    if (min == 0 && max == 0) return 0;
    if (min >= 0 && max <= 1) return 1;
    if (min >= 0 && max <= 3) return 2;
    if (min >= 0 && max <= 15) return 4;
    if (min >= INT8_MIN && max <= INT8_MAX) return 8;
    if (min >= INT16_MIN && max <= INT16_MAX) return 16;
    if (min >= INT32_MIN && max <= INT32_MAX) return 32;
    return 64;
}

void cc_packed_encode(const int64_t *values, uint64_t count, uint8_t width, int32_t base, uint8_t *out) {
    switch (width) {
    case 0: return;
    case 1: case 2: case 4: {
        uint64_t per_byte = 8 / width;
        for (uint64_t i = 0; i < count; i++)
            out[i / per_byte] |= (uint8_t)((uint64_t)values[i] << ((i % per_byte) * width));
        return;
    }
    case 8: for (uint64_t i = 0; i < count; i++) out[i] = (uint8_t)(int8_t)(values[i] - base); return;
    case 16:
        for (uint64_t i = 0; i < count; i++) { int16_t v = (int16_t)(values[i] - base); memcpy(out + i * 2, &v, 2); }
        return;
    case 32:
        for (uint64_t i = 0; i < count; i++) { int32_t v = (int32_t)(values[i] - base); memcpy(out + i * 4, &v, 4); }
        return;
    default: memcpy(out, values, count * 8); return;
    }
}

uint64_t cc_packed_lower_bound(const cc_node *node, int64_t key) {
    /* Compare stored elements with the key minus the base; a key beyond what the stored width can reach lies
     * before or after every element. */
    int64_t stored_key;
    if (__builtin_sub_overflow(key, node->base, &stored_key)) return key < node->base ? 0 : node->count;
    uint64_t count = node->count;
    if (count == 0) return 0;
    int64_t low_value = cc_packed_get(node->payload, node->width, 0);
    if (stored_key <= low_value) return 0;
    int64_t high_value = cc_packed_get(node->payload, node->width, count - 1);
    if (stored_key > high_value) return count;
    /* The answer lies in (low, high]: element low is below the key, element high is not. Object keys and the
     * first keys of an inner node's children are spread nearly evenly, so the first probes interpolate between
     * the two ends, which finds a key of a cluster without a deletion in one probe and its neighbour; after two
     * such probes the search halves, so that uneven keys cost at most two probes more than a binary search. Each
     * probe of a node not in the cache is a cache miss, which is what a lookup's descent mostly waits for. */
    uint64_t low = 0, high = count - 1;
    for (int interpolations = 0; high - low > 1; interpolations++) {
        uint64_t probe;
        if (interpolations < 2 && high - low > 8) {
            /* low_value < stored_key <= high_value, so both differences are positive and fit in 64 bits. */
            uint64_t below = (uint64_t)stored_key - (uint64_t)low_value;
            uint64_t span = (uint64_t)high_value - (uint64_t)low_value;
            uint64_t rows = high - low, product;
            probe = low + (__builtin_mul_overflow(below, rows, &product)
                               ? (uint64_t)((double)below / (double)span * (double)rows)
                               : product / span);
            if (probe <= low) probe = low + 1;
            if (probe >= high) probe = high - 1;
        } else {
            probe = low + (high - low) / 2;
        }
        int64_t value = cc_packed_get(node->payload, node->width, probe);
        if (value < stored_key) {
            low = probe;
            low_value = value;
        } else {
            high = probe;
            high_value = value;
        }
    }
    return high;
}

/* ---------------------------------------------------------------------------------------------------------- */

void cc_emitter_init(cc_emitter *emitter, columnar_txn *txn, cc_alloc_fn alloc) {
    memset(emitter, 0, sizeof *emitter);
    emitter->txn = txn;
    emitter->alloc = alloc;
}

void cc_emitter_free(cc_emitter *emitter) {
    free(emitter->buffer);
    free(emitter->writes);
    free(emitter->scratch);
    memset(emitter, 0, sizeof *emitter);
}

uint8_t *cc_emit_begin(cc_emitter *emitter, uint64_t payload_bytes) {
    uint64_t span = cc_node_span(payload_bytes);
    if (emitter->used + span > emitter->capacity) {
        size_t capacity = emitter->capacity ? emitter->capacity : (1u << 20);
        while (capacity < emitter->used + span) capacity *= 2;
        uint8_t *grown = realloc(emitter->buffer, capacity);
        if (!grown) return NULL;
        emitter->buffer = grown;
        emitter->capacity = capacity;
    }
    uint8_t *node = emitter->buffer + emitter->used;
    memset(node, 0, span);
    return node + CF_NODE_HEADER_BYTES;
}

/* Finishes the node begun last, with a base in its header (cc_emit_end's with base 0). */
static int emit_end_based(cc_emitter *emitter, uint8_t encoding, uint8_t width, uint8_t role, uint8_t role_detail,
                          uint64_t count, int32_t base, uint64_t *out_ref) {
    if (count > UINT32_MAX)
        return CC_FAIL(COLUMNAR_ETOOBIG, "a node of %llu elements exceeds the format's limit",
                       (unsigned long long)count);
    uint64_t payload = cc_payload_bytes(encoding, width, count);
    uint64_t span = cc_node_span(payload);
    uint8_t *node = emitter->buffer + emitter->used;
    cf_node_header header = { 0, encoding, width, role, role_detail, (uint32_t)count, base };
    memcpy(node, &header, sizeof header);
    header.checksum = cc_crc32c(0, node + 4, CF_NODE_HEADER_BYTES - 4 + payload);
    memcpy(node, &header.checksum, 4);
    int error = 0;
    uint64_t ref = emitter->alloc(emitter, span, &error);
    if (!ref) return error;
    if (emitter->write_count == emitter->write_capacity) {
        size_t capacity = emitter->write_capacity ? emitter->write_capacity * 2 : 1024;
        cc_pending_write *grown = realloc(emitter->writes, capacity * sizeof *grown);
        if (!grown) return -ENOMEM;
        emitter->writes = grown;
        emitter->write_capacity = capacity;
    }
    emitter->writes[emitter->write_count++] = (cc_pending_write){ ref, emitter->used, span };
    emitter->used += span;
    *out_ref = ref;
    return 0;
}

int cc_emit_end(cc_emitter *emitter, uint8_t encoding, uint8_t width, uint8_t role, uint8_t role_detail,
                uint64_t count, uint64_t *out_ref) {
    return emit_end_based(emitter, encoding, width, role, role_detail, count, 0, out_ref);
}

/* The narrower width a base would give values spanning [min, max], with that base in *out_base; or `width` (the
 * plain one) when a base gains nothing or would not fit the header's 32 bits. The base maps `min` to the
 * smallest element of the width, so values spanning up to 2^w - 1 fit in w bits whatever their size. */
static uint8_t based_width(int64_t min, int64_t max, uint8_t width, int32_t *out_base) {
    *out_base = 0;
    if (width <= 8) return width;
    uint64_t span = (uint64_t)max - (uint64_t)min;
    uint8_t narrow = span <= UINT8_MAX ? 8 : span <= UINT16_MAX ? 16 : span <= UINT32_MAX ? 32 : 64;
    if (narrow >= width) return width;
    int64_t base;
    if (__builtin_add_overflow(min, (int64_t)1 << (narrow - 1), &base) || base < INT32_MIN || base > INT32_MAX)
        return width;
    *out_base = (int32_t)base;
    return narrow;
}

int cc_emit_ints(cc_emitter *emitter, uint8_t role, uint8_t role_detail, const int64_t *values, uint64_t count,
                 uint64_t *out_ref) {
    int64_t low = count ? values[0] : 0, high = low;
    for (uint64_t i = 1; i < count; i++) {
        low = values[i] < low ? values[i] : low;
        high = values[i] > high ? values[i] : high;
    }
    uint8_t width = plain_width(low < 0 ? low : 0, high > 0 ? high : 0);
    int32_t base = 0;
    if (count && emitter->txn && emitter->txn->db->node_bases && cc_role_may_have_base(role, role_detail))
        width = based_width(low, high, width, &base);
    uint8_t *payload = cc_emit_begin(emitter, cc_payload_bytes(COLUMNAR_ENCODING_PACKED_INT, width, count));
    if (!payload) return -ENOMEM;
    cc_packed_encode(values, count, width, base, payload);
    return emit_end_based(emitter, COLUMNAR_ENCODING_PACKED_INT, width, role, role_detail, count, base, out_ref);
}

int cc_emit_refs(cc_emitter *emitter, uint8_t role, uint8_t role_detail, const uint64_t *refs, uint64_t count,
                 uint64_t *out_ref) {
    return cc_emit_raw(emitter, COLUMNAR_ENCODING_REFS, 64, role, role_detail, count, refs, count * 8, out_ref);
}

int cc_emit_raw(cc_emitter *emitter, uint8_t encoding, uint8_t width, uint8_t role, uint8_t role_detail,
                uint64_t count, const void *payload, uint64_t payload_bytes, uint64_t *out_ref) {
    uint8_t *area = cc_emit_begin(emitter, payload_bytes);
    if (!area) return -ENOMEM;
    if (payload_bytes) memcpy(area, payload, payload_bytes);
    return cc_emit_end(emitter, encoding, width, role, role_detail, count, out_ref);
}

int64_t *cc_emitter_scratch(cc_emitter *emitter, size_t count) {
    if (count > emitter->scratch_capacity) {
        size_t capacity = count < 1024 ? 1024 : count;
        uint64_t *grown = realloc(emitter->scratch, capacity * sizeof *grown);
        if (!grown) return NULL;
        emitter->scratch = grown;
        emitter->scratch_capacity = capacity;
    }
    return (int64_t *)emitter->scratch;
}
