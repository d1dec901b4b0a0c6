/*
 * leaf.c — encoding and decoding column leaves (see leaf.h and format.h).
 */
#include "leaf.h"

#include "kernels.h"
#include "mixed.h"

#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

static uint8_t expected_values_encoding(uint8_t type, uint8_t collection) {
    if (collection != COLUMNAR_COLLECTION_NONE) return COLUMNAR_ENCODING_REFS;
    switch (type) {
    case COLUMNAR_TYPE_FLOAT: return COLUMNAR_ENCODING_FLOAT;
    case COLUMNAR_TYPE_DOUBLE: return COLUMNAR_ENCODING_DOUBLE;
    case COLUMNAR_TYPE_OBJECTID: case COLUMNAR_TYPE_UUID: case COLUMNAR_TYPE_DECIMAL128:
        return COLUMNAR_ENCODING_FIXED;
    default: return COLUMNAR_ENCODING_PACKED_INT;   /* ints, bools, links, timestamps, string offsets */
    }
}

static uint8_t fixed_width(uint8_t type) { return type == COLUMNAR_TYPE_OBJECTID ? 12 : 16; }

int cc_leaf_open(const columnar_txn *txn, uint64_t ref, uint8_t type, uint8_t collection, cc_leaf *out) {
    cc_node column;
    int rc = cc_node_read(txn, ref, CF_ROLE_COLUMN, &column);
    if (rc) return rc;
    memset(out, 0, sizeof *out);
    out->type = type;
    out->collection = collection;
    bool is_string = collection == COLUMNAR_COLLECTION_NONE && cc_type_is_bytes(type);
    bool is_timestamp = collection == COLUMNAR_COLLECTION_NONE && type == COLUMNAR_TYPE_TIMESTAMP;
    uint32_t parts = (is_string || is_timestamp) ? 3 : 2;
    if (column.encoding != COLUMNAR_ENCODING_REFS || column.count != parts || column.role_detail != type)
        return CC_CORRUPT(ref, "column leaf at %llu has %u parts and type %u; expected %u parts of type %u",
                          (unsigned long long)ref, column.count, column.role_detail, parts, type);
    rc = cc_node_child(txn, &column, 0, CF_ROLE_VALUES, false, &out->values);
    if (rc) return rc;
    out->count = out->values.count;
    if (is_string && out->values.encoding == COLUMNAR_ENCODING_SHORT_STRINGS) {
        if (cc_node_ref_at(&column, 1) != 0)
            return CC_CORRUPT(ref, "short-string leaf at %llu has a blob", (unsigned long long)ref);
    } else if (out->values.encoding != expected_values_encoding(type, collection)) {
        return CC_CORRUPT(out->values.ref, "values node at %llu has encoding %u; type %u needs %u",
                          (unsigned long long)out->values.ref, out->values.encoding, type,
                          expected_values_encoding(type, collection));
    } else if (out->values.encoding == COLUMNAR_ENCODING_FIXED && out->values.width != fixed_width(type)) {
        return CC_CORRUPT(out->values.ref, "fixed-width values at %llu are %u bytes wide, not %u",
                          (unsigned long long)out->values.ref, out->values.width, fixed_width(type));
    } else if (is_string) {
        out->long_strings = true;
        rc = cc_node_child(txn, &column, 1, CF_ROLE_BLOB, false, &out->second);
        if (rc) return rc;
        if (out->second.encoding != COLUMNAR_ENCODING_BYTES)
            return CC_CORRUPT(out->second.ref, "blob at %llu is not a byte array", (unsigned long long)out->second.ref);
    } else if (is_timestamp) {
        rc = cc_node_child(txn, &column, 1, CF_ROLE_VALUES, false, &out->second);
        if (rc) return rc;
        if (out->second.encoding != COLUMNAR_ENCODING_PACKED_INT || out->second.count != out->count)
            return CC_CORRUPT(out->second.ref, "timestamp nanoseconds at %llu do not match the seconds",
                              (unsigned long long)out->second.ref);
    } else if (cc_node_ref_at(&column, 1) != 0 && collection != COLUMNAR_COLLECTION_NONE) {
        return CC_CORRUPT(ref, "collection column at %llu has a null bitmap", (unsigned long long)ref);
    }
    rc = cc_node_child(txn, &column, parts - 1, CF_ROLE_NULLS, true, &out->nulls);
    if (rc) return rc;
    if (out->nulls.ref && (out->nulls.encoding != COLUMNAR_ENCODING_PACKED_INT || out->nulls.count != out->count))
        return CC_CORRUPT(out->nulls.ref, "null bitmap at %llu does not match its %u values",
                          (unsigned long long)out->nulls.ref, out->count);
    return 0;
}

int cc_leaf_get(const cc_leaf *leaf, uint32_t index, void *cell, bool *is_null) {
    *is_null = leaf->nulls.ref && cc_node_int_at(&leaf->nulls, index) != 0;
    const cc_node *values = &leaf->values;
    if (leaf->collection != COLUMNAR_COLLECTION_NONE) {
        cc_collcell c = { cc_node_ref_at(values, index), NULL };
        memcpy(cell, &c, sizeof c);
        return 0;
    }
    switch (leaf->type) {
    case COLUMNAR_TYPE_BOOL: { int64_t v = cc_node_int_at(values, index) != 0; memcpy(cell, &v, 8); return 0; }
    case COLUMNAR_TYPE_FLOAT: memcpy(cell, values->payload + (size_t)index * 4, 4); return 0;
    case COLUMNAR_TYPE_DOUBLE: memcpy(cell, values->payload + (size_t)index * 8, 8); return 0;
    case COLUMNAR_TYPE_OBJECTID: memcpy(cell, values->payload + (size_t)index * 12, 12); return 0;
    case COLUMNAR_TYPE_UUID: case COLUMNAR_TYPE_DECIMAL128:
        memcpy(cell, values->payload + (size_t)index * 16, 16);
        return 0;
    case COLUMNAR_TYPE_TIMESTAMP: {
        cc_ts ts = { cc_node_int_at(values, index), (int32_t)cc_node_int_at(&leaf->second, index), 0 };
        int64_t nanos = cc_node_int_at(&leaf->second, index);
        if (nanos < 0 || nanos > 999999999)
            return CC_CORRUPT(leaf->second.ref, "timestamp at %llu has %lld nanoseconds",
                              (unsigned long long)leaf->second.ref, (long long)nanos);
        memcpy(cell, &ts, sizeof ts);
        return 0;
    }
    case COLUMNAR_TYPE_STRING: case COLUMNAR_TYPE_BINARY: case COLUMNAR_TYPE_MIXED: {
        cc_bytes bytes;
        if (!leaf->long_strings) {
            uint32_t width = values->width;
            const uint8_t *slot = values->payload + (size_t)index * width;
            uint32_t unused = slot[width - 1];
            if (unused > width - 1)
                return CC_CORRUPT(values->ref, "short string %u at %llu has length byte %u", index,
                                  (unsigned long long)values->ref, unused);
            bytes.data = slot;
            bytes.size = width - 1 - unused;
        } else {
            int64_t end = cc_node_int_at(values, index);
            int64_t start = index ? cc_node_int_at(values, index - 1) : 0;
            if (start < 0 || end < start || (uint64_t)end > leaf->second.count)
                return CC_CORRUPT(values->ref, "string %u at %llu spans %lld..%lld of a %u-byte blob", index,
                                  (unsigned long long)values->ref, (long long)start, (long long)end,
                                  leaf->second.count);
            bytes.data = leaf->second.payload + start;
            bytes.size = (uint64_t)(end - start);
        }
        /* A mixed value is checked as a string's bounds are: a reader never hands out an encoding that does not
         * decode. */
        const char *problem = leaf->type == COLUMNAR_TYPE_MIXED && !*is_null
                              ? cc_mixed_unpack(bytes.data, bytes.size, NULL) : NULL;
        if (problem)
            return CC_CORRUPT(values->ref, "mixed value %u of the leaf at %llu does not decode: %s", index,
                              (unsigned long long)values->ref, problem);
        memcpy(cell, &bytes, sizeof bytes);
        return 0;
    }
    default: { int64_t v = cc_node_int_at(values, index); memcpy(cell, &v, 8); return 0; }
    }
}

/* Decodes rows [from, from + count) of a leaf of a fixed-size type into cells `cells` (the mvec layout) in one
 * loop per leaf rather than one call per cell: a write transaction copies a whole cluster into memory to change
 * one value in it, every column of every row, and a call per cell was most of that cost. Returns false for the
 * types it does not cover (strings, mixed values, timestamps, collections), which go cell by cell. */
static bool leaf_decode_fixed(const cc_leaf *leaf, uint32_t from, uint32_t count, uint8_t cell_bytes,
                              uint8_t *cells) {
    if (leaf->collection != COLUMNAR_COLLECTION_NONE) return false;
    const cc_node *values = &leaf->values;
    switch (leaf->type) {
    case COLUMNAR_TYPE_STRING: case COLUMNAR_TYPE_BINARY: case COLUMNAR_TYPE_MIXED: case COLUMNAR_TYPE_TIMESTAMP:
        return false;
    case COLUMNAR_TYPE_FLOAT: case COLUMNAR_TYPE_DOUBLE: case COLUMNAR_TYPE_OBJECTID: case COLUMNAR_TYPE_UUID:
    case COLUMNAR_TYPE_DECIMAL128: {
        /* Stored at the cell's own size (leaf_open checked the fixed widths; floats and doubles are 4 and 8). */
        size_t width = leaf->type == COLUMNAR_TYPE_FLOAT ? 4 : leaf->type == COLUMNAR_TYPE_DOUBLE ? 8
                       : fixed_width(leaf->type);
        if (width != cell_bytes) return false;
        memcpy(cells, values->payload + (size_t)from * width, (size_t)count * width);
        return true;
    }
    default: {
        /* Packed ints (ints, bools, links and the rest of cc_leaf_get's default): cells are int64. */
        if (cell_bytes != 8) return false;
        int64_t *out = (int64_t *)(void *)cells;
        cc_unpack_ints(values->payload, values->width, from, count, out);
        if (leaf->type == COLUMNAR_TYPE_BOOL) {
            for (uint32_t i = 0; i < count; i++) out[i] = out[i] != 0;
        } else {
            cc_add_base(out, count, values->base);
        }
        return true;
    }
    }
}

int cc_leaf_append(const cc_leaf *leaf, uint32_t from, uint32_t count, cc_mvec *vec) {
    uint32_t at = vec->count;
    int rc = cc_mvec_insert_default(vec, at, count);
    if (rc) return rc;
    if (count && leaf_decode_fixed(leaf, from, count, vec->cell_bytes, cc_mvec_cell(vec, at))) {
        if (vec->nulls) {
            /* Null flags are 1-bit packed ints without a base (node validation refuses one). */
            if (leaf->nulls.ref) cc_unpack_flags(leaf->nulls.payload, leaf->nulls.width, from, count, vec->nulls + at);
            else memset(vec->nulls + at, 0, count);
        }
        return 0;
    }
    for (uint32_t i = 0; i < count; i++) {
        bool is_null;
        rc = cc_leaf_get(leaf, from + i, cc_mvec_cell(vec, at + i), &is_null);
        if (rc) return rc;
        if (vec->nulls) vec->nulls[at + i] = is_null;
    }
    return 0;
}

/* Writes the string/binary values of rows [from, from+count) as one short or long leaf; returns the parts. */
static int write_strings(cc_emitter *emitter, const cc_mvec *vec, uint32_t from, uint32_t count,
                         uint64_t *values_ref, uint64_t *blob_ref) {
    uint64_t total_bytes = 0, longest = 0;
    for (uint32_t i = 0; i < count; i++) {
        const cc_bytes *b = cc_mvec_cell(vec, from + i);
        uint64_t size = cc_mvec_is_null(vec, from + i) ? 0 : b->size;
        total_bytes += size;
        longest = size > longest ? size : longest;
    }
    if (longest < 32) {
        /* Short form: fixed slots, no offsets — cheaper to read and smaller when every string is short. */
        uint8_t width = longest < 4 ? 4 : longest < 8 ? 8 : longest < 16 ? 16 : 32;
        uint8_t *slots = cc_emit_begin(emitter, (uint64_t)count * width);
        if (!slots) return -ENOMEM;
        for (uint32_t i = 0; i < count; i++) {
            const cc_bytes *b = cc_mvec_cell(vec, from + i);
            uint64_t size = cc_mvec_is_null(vec, from + i) ? 0 : b->size;
            uint8_t *slot = slots + (size_t)i * width;
            if (size) memcpy(slot, b->data, size);
            slot[width - 1] = (uint8_t)(width - 1 - size);
        }
        *blob_ref = 0;
        return cc_emit_end(emitter, COLUMNAR_ENCODING_SHORT_STRINGS, width, CF_ROLE_VALUES, vec->type, count,
                           values_ref);
    }
    if (total_bytes > UINT32_MAX)
        return CC_FAIL(COLUMNAR_ETOOBIG, "one leaf's strings exceed 4 GiB");
    uint8_t *blob = cc_emit_begin(emitter, total_bytes);
    if (!blob) return -ENOMEM;
    uint64_t offset = 0;
    for (uint32_t i = 0; i < count; i++) {
        const cc_bytes *b = cc_mvec_cell(vec, from + i);
        if (cc_mvec_is_null(vec, from + i) || !b->size) continue;
        memcpy(blob + offset, b->data, b->size);
        offset += b->size;
    }
    int rc = cc_emit_end(emitter, COLUMNAR_ENCODING_BYTES, 8, CF_ROLE_BLOB, vec->type, total_bytes, blob_ref);
    if (rc) return rc;
    int64_t *ends = cc_emitter_scratch(emitter, count);
    if (!ends) return -ENOMEM;
    offset = 0;
    for (uint32_t i = 0; i < count; i++) {
        const cc_bytes *b = cc_mvec_cell(vec, from + i);
        offset += cc_mvec_is_null(vec, from + i) ? 0 : b->size;
        ends[i] = (int64_t)offset;
    }
    return cc_emit_ints(emitter, CF_ROLE_VALUES, vec->type, ends, count, values_ref);
}

/* Whether rows [from, from+count) all hold the value a reader gives a cluster with no leaf for the column
 * (tree.c's default_cell): null in a nullable single-valued column; otherwise zero bytes (an empty string or
 * binary by its size alone, an empty collection by its ref). Null cells' bytes are never read. */
bool cc_leaf_rows_default(const cc_mvec *vec, uint32_t from, uint32_t count) {
    if (vec->collection != COLUMNAR_COLLECTION_NONE) {
        for (uint32_t i = 0; i < count; i++) {
            const cc_collcell *cell = cc_mvec_cell(vec, from + i);
            if (cell->ref || cell->dirty) return false;
        }
        return true;
    }
    if (vec->nullable) {
        for (uint32_t i = 0; i < count; i++)
            if (!cc_mvec_is_null(vec, from + i)) return false;
        return true;
    }
    bool sized = vec->type == COLUMNAR_TYPE_STRING || vec->type == COLUMNAR_TYPE_BINARY;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *cell = cc_mvec_cell(vec, from + i);
        if (sized) {
            if (((const cc_bytes *)cell)->size) return false;
            continue;
        }
        for (uint8_t b = 0; b < vec->cell_bytes; b++)
            if (cell[b]) return false;
    }
    return true;
}

int cc_leaf_write(cc_emitter *emitter, const cc_mvec *vec, uint32_t from, uint32_t count, uint64_t *out_ref) {
    uint64_t parts[3] = { 0, 0, 0 };
    uint32_t part_count = 2;
    int rc = 0;
    uint8_t type = vec->type;
    if (vec->collection != COLUMNAR_COLLECTION_NONE) {
        uint64_t *refs = (uint64_t *)cc_emitter_scratch(emitter, count);
        if (!refs) return -ENOMEM;
        for (uint32_t i = 0; i < count; i++) refs[i] = ((const cc_collcell *)cc_mvec_cell(vec, from + i))->ref;
        rc = cc_emit_refs(emitter, CF_ROLE_VALUES, type, refs, count, &parts[0]);
    } else {
        switch (type) {
        case COLUMNAR_TYPE_FLOAT:
            rc = cc_emit_raw(emitter, COLUMNAR_ENCODING_FLOAT, 32, CF_ROLE_VALUES, type, count,
                             cc_mvec_cell(vec, from), (uint64_t)count * 4, &parts[0]);
            break;
        case COLUMNAR_TYPE_DOUBLE:
            rc = cc_emit_raw(emitter, COLUMNAR_ENCODING_DOUBLE, 64, CF_ROLE_VALUES, type, count,
                             cc_mvec_cell(vec, from), (uint64_t)count * 8, &parts[0]);
            break;
        case COLUMNAR_TYPE_OBJECTID: case COLUMNAR_TYPE_UUID: case COLUMNAR_TYPE_DECIMAL128: {
            uint8_t width = fixed_width(type);
            rc = cc_emit_raw(emitter, COLUMNAR_ENCODING_FIXED, width, CF_ROLE_VALUES, type, count,
                             cc_mvec_cell(vec, from), (uint64_t)count * width, &parts[0]);
            break;
        }
        case COLUMNAR_TYPE_STRING: case COLUMNAR_TYPE_BINARY: case COLUMNAR_TYPE_MIXED:
            part_count = 3;
            rc = write_strings(emitter, vec, from, count, &parts[0], &parts[1]);
            break;
        case COLUMNAR_TYPE_TIMESTAMP: {
            part_count = 3;
            int64_t *scratch = cc_emitter_scratch(emitter, count);
            if (!scratch) return -ENOMEM;
            for (uint32_t i = 0; i < count; i++) scratch[i] = ((const cc_ts *)cc_mvec_cell(vec, from + i))->seconds;
            rc = cc_emit_ints(emitter, CF_ROLE_VALUES, type, scratch, count, &parts[0]);
            if (rc) return rc;
            for (uint32_t i = 0; i < count; i++)
                scratch[i] = ((const cc_ts *)cc_mvec_cell(vec, from + i))->nanoseconds;
            rc = cc_emit_ints(emitter, CF_ROLE_VALUES, type, scratch, count, &parts[1]);
            break;
        }
        default:
            rc = cc_emit_ints(emitter, CF_ROLE_VALUES, type, (const int64_t *)cc_mvec_cell(vec, from), count,
                              &parts[0]);
            break;
        }
    }
    if (rc) return rc;
    if (vec->nulls) {
        bool any_null = false;
        for (uint32_t i = 0; i < count && !any_null; i++) any_null = vec->nulls[from + i] != 0;
        if (any_null) {
            int64_t *flags = cc_emitter_scratch(emitter, count);
            if (!flags) return -ENOMEM;
            for (uint32_t i = 0; i < count; i++) flags[i] = vec->nulls[from + i];
            rc = cc_emit_ints(emitter, CF_ROLE_NULLS, type, flags, count, &parts[part_count - 1]);
            if (rc) return rc;
        }
    }
    return cc_emit_refs(emitter, CF_ROLE_COLUMN, type, parts, part_count, out_ref);
}

int cc_leaf_free(columnar_txn *txn, uint64_t ref) {
    cc_node column;
    int rc = cc_node_read(txn, ref, CF_ROLE_COLUMN, &column);
    if (rc) return rc;
    if (column.encoding != COLUMNAR_ENCODING_REFS)
        return CC_CORRUPT(ref, "column leaf at %llu does not hold refs", (unsigned long long)ref);
    for (uint32_t i = 0; i < column.count; i++) {
        uint64_t part = cc_node_ref_at(&column, i);
        if (part && (rc = cc_free_node(txn, part))) return rc;
    }
    return cc_free_node(txn, ref);
}

static int compare_bytes(const cc_bytes *a, const cc_bytes *b) {
    uint64_t common = a->size < b->size ? a->size : b->size;
    int c = common ? memcmp(a->data, b->data, common) : 0;
    if (c) return c;
    return a->size < b->size ? -1 : a->size > b->size;
}

int cc_cell_compare(uint8_t type, const void *a, bool a_null, const void *b, bool b_null) {
    if (a_null || b_null) return (int)b_null - (int)a_null;  /* null sorts first */
    switch (type) {
    case COLUMNAR_TYPE_FLOAT: {
        float x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        if (isnan(x) || isnan(y)) return (int)isnan(x) - (int)isnan(y);
        return x < y ? -1 : x > y;
    }
    case COLUMNAR_TYPE_DOUBLE: {
        double x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (isnan(x) || isnan(y)) return (int)isnan(x) - (int)isnan(y);
        return x < y ? -1 : x > y;
    }
    /* Cells may lie in byte buffers of any alignment: they are copied out, not read through a struct pointer.
     * Mixed values order by their encodings' bytes, as binary values do (tag first, so by type, then payload). */
    case COLUMNAR_TYPE_STRING: case COLUMNAR_TYPE_BINARY: case COLUMNAR_TYPE_MIXED: {
        cc_bytes x, y;
        memcpy(&x, a, sizeof x);
        memcpy(&y, b, sizeof y);
        return compare_bytes(&x, &y);
    }
    case COLUMNAR_TYPE_TIMESTAMP: {
        cc_ts x, y;
        memcpy(&x, a, sizeof x);
        memcpy(&y, b, sizeof y);
        if (x.seconds != y.seconds) return x.seconds < y.seconds ? -1 : 1;
        return x.nanoseconds < y.nanoseconds ? -1 : x.nanoseconds > y.nanoseconds;
    }
    case COLUMNAR_TYPE_OBJECTID: return memcmp(a, b, 12);
    case COLUMNAR_TYPE_UUID: case COLUMNAR_TYPE_DECIMAL128: return memcmp(a, b, 16);
    default: {
        int64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return x < y ? -1 : x > y;
    }
    }
}

void cc_cell_from_value(uint8_t type, const columnar_value *value, void *cell) {
    switch (type) {
    case COLUMNAR_TYPE_BOOL: { int64_t v = value->as.b ? 1 : 0; memcpy(cell, &v, 8); break; }
    case COLUMNAR_TYPE_FLOAT: memcpy(cell, &value->as.f, 4); break;
    case COLUMNAR_TYPE_DOUBLE: memcpy(cell, &value->as.d, 8); break;
    case COLUMNAR_TYPE_STRING: case COLUMNAR_TYPE_BINARY: case COLUMNAR_TYPE_MIXED: {
        cc_bytes b = { value->as.bytes.data, value->as.bytes.size };
        memcpy(cell, &b, sizeof b);
        break;
    }
    case COLUMNAR_TYPE_TIMESTAMP: {
        cc_ts ts = { value->as.timestamp.seconds, value->as.timestamp.nanoseconds, 0 };
        memcpy(cell, &ts, sizeof ts);
        break;
    }
    case COLUMNAR_TYPE_OBJECTID: memcpy(cell, value->as.objectid, 12); break;
    case COLUMNAR_TYPE_UUID: memcpy(cell, value->as.uuid, 16); break;
    case COLUMNAR_TYPE_DECIMAL128: memcpy(cell, value->as.decimal128, 16); break;
    case COLUMNAR_TYPE_LINK: memcpy(cell, &value->as.link, 8); break;
    default: memcpy(cell, &value->as.i, 8); break;
    }
}

void cc_value_from_cell(uint8_t type, const void *cell, bool is_null, columnar_value *out) {
    memset(out, 0, sizeof *out);
    out->type = (columnar_type)type;
    out->is_null = is_null;
    if (is_null) return;
    switch (type) {
    case COLUMNAR_TYPE_BOOL: { int64_t v; memcpy(&v, cell, 8); out->as.b = v != 0; break; }
    case COLUMNAR_TYPE_FLOAT: memcpy(&out->as.f, cell, 4); break;
    case COLUMNAR_TYPE_DOUBLE: memcpy(&out->as.d, cell, 8); break;
    case COLUMNAR_TYPE_STRING: case COLUMNAR_TYPE_BINARY: case COLUMNAR_TYPE_MIXED: {
        cc_bytes b;
        memcpy(&b, cell, sizeof b);
        out->as.bytes.data = b.data;
        out->as.bytes.size = b.size;
        break;
    }
    case COLUMNAR_TYPE_TIMESTAMP: {
        cc_ts ts;
        memcpy(&ts, cell, sizeof ts);
        out->as.timestamp.seconds = ts.seconds;
        out->as.timestamp.nanoseconds = ts.nanoseconds;
        break;
    }
    case COLUMNAR_TYPE_OBJECTID: memcpy(out->as.objectid, cell, 12); break;
    case COLUMNAR_TYPE_UUID: memcpy(out->as.uuid, cell, 16); break;
    case COLUMNAR_TYPE_DECIMAL128: memcpy(out->as.decimal128, cell, 16); break;
    case COLUMNAR_TYPE_LINK: memcpy(&out->as.link, cell, 8); break;
    default: memcpy(&out->as.i, cell, 8); break;
    }
}
