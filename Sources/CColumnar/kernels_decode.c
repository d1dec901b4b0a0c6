/*
 * kernels_decode.c — turning a view's packed arrays into plain arrays: the block decoders every kernel builds on
 * (one loop per packed width, see kernels.h), the null bitmap applied to a mask, and the public decode functions
 * that sorting, distinct and value gathering use.
 */
#include "kernels.h"

#include "node.h"

static inline int16_t load_i16(const uint8_t *p) { int16_t v; memcpy(&v, p, 2); return v; }
static inline int32_t load_i32(const uint8_t *p) { int32_t v; memcpy(&v, p, 4); return v; }
static inline int64_t load_i64(const uint8_t *p) { int64_t v; memcpy(&v, p, 8); return v; }

/* Sub-byte widths hold 8 / W elements per byte, lowest bits first. The middle loop takes whole bytes, so its
 * inner loop has a constant trip count and no per-element index arithmetic; only a misaligned head and the tail
 * go element by element. STORE(at, v) writes element value `v` to output position `at`. */
#define UNPACK_SUB_BYTE(W, STORE)                                                                                 \
    do {                                                                                                           \
        const uint64_t per_byte = 8 / (W);                                                                         \
        const uint8_t element_mask = (uint8_t)((1u << (W)) - 1);                                                   \
        uint64_t i = 0;                                                                                            \
        for (; i < count && (from + i) % per_byte != 0; i++) STORE(i, cc_packed_get(data, (W), from + i));       \
        const uint8_t *bytes = data + (from + i) / per_byte;                                                       \
        uint64_t whole_bytes = (count - i) / per_byte;                                                             \
        for (uint64_t b = 0; b < whole_bytes; b++) {                                                               \
            uint8_t byte = bytes[b];                                                                               \
            for (uint64_t k = 0; k < per_byte; k++)                                                                \
                STORE(i + b * per_byte + k, (byte >> (k * (W))) & element_mask);                                   \
        }                                                                                                          \
        for (i += whole_bytes * per_byte; i < count; i++) STORE(i, cc_packed_get(data, (W), from + i));           \
    } while (0)

#define STORE_INT(at, v) (out[(at)] = (int64_t)(v))
#define STORE_FLAG(at, v) (out[(at)] = (uint8_t)((v) != 0))
#define STORE_BYTE(at, v) (out[(at)] = (uint8_t)(v))

void cc_unpack_ints(const uint8_t *data, uint32_t width, uint64_t from, uint64_t count, int64_t *out) {
    switch (width) {
    case 1: UNPACK_SUB_BYTE(1, STORE_INT); return;
    case 2: UNPACK_SUB_BYTE(2, STORE_INT); return;
    case 4: UNPACK_SUB_BYTE(4, STORE_INT); return;
    case 8: {
        const int8_t *p = (const int8_t *)data + from;
        for (uint64_t i = 0; i < count; i++) out[i] = p[i];
        return;
    }
    case 16: {
        const uint8_t *p = data + from * 2;
        for (uint64_t i = 0; i < count; i++) out[i] = load_i16(p + i * 2);
        return;
    }
    case 32: {
        const uint8_t *p = data + from * 4;
        for (uint64_t i = 0; i < count; i++) out[i] = load_i32(p + i * 4);
        return;
    }
    case 64:
        memcpy(out, data + from * 8, count * 8);
        return;
    default:   /* width 0: every element is 0 (an invalid width never passes cc_packed_array_ok) */
        memset(out, 0, count * sizeof *out);
        return;
    }
}

void cc_unpack_flags(const uint8_t *data, uint32_t width, uint64_t from, uint64_t count, uint8_t *out) {
    switch (width) {
    case 1: UNPACK_SUB_BYTE(1, STORE_FLAG); return;
    case 2: UNPACK_SUB_BYTE(2, STORE_FLAG); return;
    case 4: UNPACK_SUB_BYTE(4, STORE_FLAG); return;
    case 8: {
        const uint8_t *p = data + from;
        for (uint64_t i = 0; i < count; i++) out[i] = p[i] != 0;
        return;
    }
    case 16: {
        const uint8_t *p = data + from * 2;
        for (uint64_t i = 0; i < count; i++) out[i] = load_i16(p + i * 2) != 0;
        return;
    }
    case 32: {
        const uint8_t *p = data + from * 4;
        for (uint64_t i = 0; i < count; i++) out[i] = load_i32(p + i * 4) != 0;
        return;
    }
    case 64: {
        const uint8_t *p = data + from * 8;
        for (uint64_t i = 0; i < count; i++) out[i] = load_i64(p + i * 8) != 0;
        return;
    }
    default:
        memset(out, 0, count);
        return;
    }
}

/* The 8 one-bit elements of `byte` spread over 8 bytes, element k to byte k: the multiply puts a copy of the byte in
 * every byte lane, the mask keeps bit k in lane k, and adding 0x7f carries a set bit into the lane's top bit. */
static inline uint64_t spread_bits(uint8_t byte) {
    uint64_t lanes = ((uint64_t)byte * 0x0101010101010101ull) & 0x8040201008040201ull;
    return ((lanes + 0x7f7f7f7f7f7f7f7full) >> 7) & 0x0101010101010101ull;
}

/* The 4 two-bit elements of `byte` spread over 4 bytes: the two nibbles go 16 bits apart, then the upper pair of
 * each nibble moves up a byte. */
static inline uint32_t spread_pairs(uint8_t byte) {
    uint32_t nibbles = (byte & 0x0fu) | ((uint32_t)(byte & 0xf0u) << 12);
    return (nibbles & 0x00030003u) | ((nibbles & 0x000c000cu) << 6);
}

/* Widths 1 and 2 spread a whole byte of elements with a few word operations and one store (the byte-order
 * assumption is format.h's: the host is little-endian); element by element they would cost a shift, a mask and a
 * store each. Width 4 (two elements a byte) vectorizes as it is. */
void cc_unpack_small(const uint8_t *data, uint32_t width, uint64_t from, uint64_t count, uint8_t *out) {
    uint64_t i = 0;
    switch (width) {
    case 1:
        for (; i < count && (from + i) % 8 != 0; i++) out[i] = (uint8_t)cc_packed_get(data, 1, from + i);
        for (; i + 8 <= count; i += 8) {
            uint64_t lanes = spread_bits(data[(from + i) / 8]);
            memcpy(out + i, &lanes, 8);
        }
        for (; i < count; i++) out[i] = (uint8_t)cc_packed_get(data, 1, from + i);
        return;
    case 2:
        for (; i < count && (from + i) % 4 != 0; i++) out[i] = (uint8_t)cc_packed_get(data, 2, from + i);
        for (; i + 4 <= count; i += 4) {
            uint32_t lanes = spread_pairs(data[(from + i) / 4]);
            memcpy(out + i, &lanes, 4);
        }
        for (; i < count; i++) out[i] = (uint8_t)cc_packed_get(data, 2, from + i);
        return;
    case 4: UNPACK_SUB_BYTE(4, STORE_BYTE); return;
    default: memset(out, 0, count); return;   /* width 0 (other widths are not small) */
    }
}

bool cc_packed_array_ok(const columnar_array *array, uint64_t count) {
    if (array->encoding != COLUMNAR_ENCODING_PACKED_INT || array->count < count) return false;
    if (array->base != 0 && array->width != 8 && array->width != 16 && array->width != 32) return false;
    switch (array->width) {
    case 0: return true;
    case 1: case 2: case 4: case 8: case 16: case 32: case 64: return count == 0 || array->data != NULL;
    default: return false;
    }
}

bool cc_view_nulls_ok(const columnar_column_view *view) {
    return view->nulls.encoding == 0 || (cc_packed_array_ok(&view->nulls, view->count) && view->nulls.base == 0);
}

void cc_apply_nulls(const columnar_column_view *view, uint8_t *out, uint8_t null_value) {
    const columnar_array *nulls = &view->nulls;
    if (nulls->encoding != COLUMNAR_ENCODING_PACKED_INT || nulls->width == 0) return;
    const uint8_t *data = nulls->data;
    uint64_t count = view->count;
    if (nulls->width == 1) {
        /* The committed form: one bit per row. Nulls are usually rare, so whole 64-row words without a null cost
         * one load and one test. */
        uint64_t words = count / 64;
        for (uint64_t w = 0; w < words; w++) {
            uint64_t bits;
            memcpy(&bits, data + w * 8, 8);
            while (bits) {
                out[w * 64 + (uint64_t)__builtin_ctzll(bits)] = null_value;
                bits &= bits - 1;
            }
        }
        for (uint64_t i = words * 64; i < count; i++)
            if ((data[i >> 3] >> (i & 7)) & 1) out[i] = null_value;
        return;
    }
    if (nulls->width == 8) {
        /* The form of private leaves: one byte per row. */
        for (uint64_t i = 0; i < count; i++) out[i] = data[i] ? null_value : out[i];
        return;
    }
    uint8_t flags[CC_BLOCK_ROWS];
    for (uint64_t from = 0; from < count; from += CC_BLOCK_ROWS) {
        uint64_t rows = count - from < CC_BLOCK_ROWS ? count - from : CC_BLOCK_ROWS;
        cc_unpack_flags(data, nulls->width, from, rows, flags);
        for (uint64_t i = 0; i < rows; i++) out[from + i] = flags[i] ? null_value : out[from + i];
    }
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Public decoding                                                                                              */
/* ---------------------------------------------------------------------------------------------------------- */

/* Writes the view's null flags for rows [from, from + rows) (all 0 without a NULLS array). */
static void block_nulls(const columnar_column_view *view, uint64_t from, uint64_t rows, uint8_t *flags) {
    if (view->nulls.encoding == COLUMNAR_ENCODING_PACKED_INT)
        cc_unpack_flags(view->nulls.data, view->nulls.width, from, rows, flags);
    else
        memset(flags, 0, rows);
}

void columnar_view_decode_int(const columnar_column_view *view, int64_t *out_values, uint8_t *out_nulls) {
    uint64_t count = view->count;
    bool is_int = view->type == COLUMNAR_TYPE_INT || view->type == COLUMNAR_TYPE_BOOL ||
                  view->type == COLUMNAR_TYPE_LINK;
    if (!is_int || view->all_default || !cc_packed_array_ok(&view->values, count) || !cc_values_base_ok(view) ||
        !cc_view_nulls_ok(view)) {
        /* The default is 0 (null when nullable); a view of another type decodes as zeros. */
        memset(out_values, 0, count * sizeof *out_values);
        if (out_nulls) memset(out_nulls, is_int && cc_view_all_null(view), count);
        return;
    }
    uint8_t flags[CC_BLOCK_ROWS];
    for (uint64_t from = 0; from < count; from += CC_BLOCK_ROWS) {
        uint64_t rows = count - from < CC_BLOCK_ROWS ? count - from : CC_BLOCK_ROWS;
        int64_t *values = out_values + from;
        cc_unpack_ints(view->values.data, view->values.width, from, rows, values);
        cc_add_base(values, rows, view->values.base);
        if (view->type == COLUMNAR_TYPE_BOOL)
            for (uint64_t i = 0; i < rows; i++) values[i] = values[i] != 0;
        block_nulls(view, from, rows, flags);
        for (uint64_t i = 0; i < rows; i++) values[i] = flags[i] ? 0 : values[i];
        if (out_nulls) memcpy(out_nulls + from, flags, rows);
    }
}

void columnar_view_decode_double(const columnar_column_view *view, double *out_values, uint8_t *out_nulls) {
    uint64_t count = view->count;
    const columnar_array *values = &view->values;
    bool is_float = view->type == COLUMNAR_TYPE_FLOAT || view->type == COLUMNAR_TYPE_DOUBLE;
    bool values_ok = (values->encoding == COLUMNAR_ENCODING_FLOAT && values->width == 32) ||
                     (values->encoding == COLUMNAR_ENCODING_DOUBLE && values->width == 64);
    values_ok = values_ok && values->count >= count && (count == 0 || values->data);
    if (!is_float || view->all_default || !values_ok || !cc_view_nulls_ok(view)) {
        for (uint64_t i = 0; i < count; i++) out_values[i] = 0.0;
        if (out_nulls) memset(out_nulls, is_float && cc_view_all_null(view), count);
        return;
    }
    const uint8_t *data = values->data;
    uint8_t flags[CC_BLOCK_ROWS];
    for (uint64_t from = 0; from < count; from += CC_BLOCK_ROWS) {
        uint64_t rows = count - from < CC_BLOCK_ROWS ? count - from : CC_BLOCK_ROWS;
        double *out = out_values + from;
        if (values->encoding == COLUMNAR_ENCODING_FLOAT) {
            for (uint64_t i = 0; i < rows; i++) {
                float f;
                memcpy(&f, data + (from + i) * 4, 4);
                out[i] = f;
            }
        } else {
            memcpy(out, data + from * 8, rows * 8);
        }
        block_nulls(view, from, rows, flags);
        for (uint64_t i = 0; i < rows; i++) out[i] = flags[i] ? 0.0 : out[i];
        if (out_nulls) memcpy(out_nulls + from, flags, rows);
    }
}

void columnar_view_decode_timestamp(const columnar_column_view *view, int64_t *out_seconds, int32_t *out_nanos,
                                    uint8_t *out_nulls) {
    uint64_t count = view->count;
    bool is_timestamp = view->type == COLUMNAR_TYPE_TIMESTAMP;
    if (!is_timestamp || view->all_default || !cc_packed_array_ok(&view->values, count) ||
        !cc_packed_array_ok(&view->nanos, count) || !cc_values_base_ok(view) || view->nanos.base ||
        !cc_view_nulls_ok(view)) {
        memset(out_seconds, 0, count * sizeof *out_seconds);
        memset(out_nanos, 0, count * sizeof *out_nanos);
        if (out_nulls) memset(out_nulls, is_timestamp && cc_view_all_null(view), count);
        return;
    }
    int64_t nanos[CC_BLOCK_ROWS];
    uint8_t flags[CC_BLOCK_ROWS];
    for (uint64_t from = 0; from < count; from += CC_BLOCK_ROWS) {
        uint64_t rows = count - from < CC_BLOCK_ROWS ? count - from : CC_BLOCK_ROWS;
        int64_t *seconds = out_seconds + from;
        cc_unpack_ints(view->values.data, view->values.width, from, rows, seconds);
        cc_unpack_ints(view->nanos.data, view->nanos.width, from, rows, nanos);
        block_nulls(view, from, rows, flags);
        for (uint64_t i = 0; i < rows; i++) {
            seconds[i] = flags[i] ? 0 : seconds[i];
            out_nanos[from + i] = flags[i] ? 0 : (int32_t)nanos[i];
        }
        if (out_nulls) memcpy(out_nulls + from, flags, rows);
    }
}
