/*
 * kernels_compare.c — the comparison kernels: one cluster's column against a constant, one mask byte per row.
 *
 * Ints are the hot case (a query counting `intCol > x` over millions of objects runs nothing else), so they are
 * compared on the packed payload itself, with one loop per width (8, 16, 32, 64 bits) and per operator, in the
 * element's own type: the constant is first checked against the width's range, and a constant outside it decides
 * every row at once. The other kinds decode a block of rows with cc_unpack_ints and compare plain arrays. Every
 * kernel writes the value results first and then overwrites the null rows (cc_apply_nulls), so no value loop
 * branches on nulls.
 */
#include "kernels.h"

#include "node.h"

static inline int16_t load_i16(const uint8_t *p) { int16_t v; memcpy(&v, p, 2); return v; }
static inline int32_t load_i32(const uint8_t *p) { int32_t v; memcpy(&v, p, 4); return v; }
static inline int64_t load_i64(const uint8_t *p) { int64_t v; memcpy(&v, p, 8); return v; }
static inline float load_f32(const uint8_t *p) { float v; memcpy(&v, p, 4); return v; }
static inline double load_f64(const uint8_t *p) { double v; memcpy(&v, p, 8); return v; }

/* One loop per operator over rows [0, rows): out[i] = LOAD(i) OP constant. Kept as a macro so that each loop is a
 * separate, branch-free body the compiler can vectorize in the element's own type. NE is written !(a == b) so
 * that a NaN compares unequal, as the null rules and IEEE 754 require. */
#define COMPARE_LOOPS(LOAD, CONSTANT)                                                                            \
    switch (op) {                                                                                                \
    case COLUMNAR_COMPARE_EQ: for (uint64_t i = 0; i < rows; i++) out[i] = (LOAD(i)) == (CONSTANT); break;      \
    case COLUMNAR_COMPARE_NE: for (uint64_t i = 0; i < rows; i++) out[i] = !((LOAD(i)) == (CONSTANT)); break;   \
    case COLUMNAR_COMPARE_LT: for (uint64_t i = 0; i < rows; i++) out[i] = (LOAD(i)) < (CONSTANT); break;       \
    case COLUMNAR_COMPARE_LE: for (uint64_t i = 0; i < rows; i++) out[i] = (LOAD(i)) <= (CONSTANT); break;      \
    case COLUMNAR_COMPARE_GT: for (uint64_t i = 0; i < rows; i++) out[i] = (LOAD(i)) > (CONSTANT); break;       \
    case COLUMNAR_COMPARE_GE: for (uint64_t i = 0; i < rows; i++) out[i] = (LOAD(i)) >= (CONSTANT); break;      \
    }

static int order_of(int64_t value, int64_t constant) { return value < constant ? -1 : value > constant; }

/* Whether every element of a `width`-bit array compares the same way with `constant` because the constant lies
 * outside the width's range; then *out_fill is that result. */
static bool constant_outside(uint32_t width, int64_t constant, columnar_compare_op op, uint8_t *out_fill) {
    int64_t low, high;
    switch (width) {
    case 0: low = 0; high = 0; break;
    case 1: case 2: case 4: low = 0; high = ((int64_t)1 << width) - 1; break;
    case 8: low = INT8_MIN; high = INT8_MAX; break;
    case 16: low = INT16_MIN; high = INT16_MAX; break;
    case 32: low = INT32_MIN; high = INT32_MAX; break;
    default: return false;
    }
    if (constant < low) {
        *out_fill = cc_order_result(op, 1);    /* every element is greater */
        return true;
    }
    if (constant > high) {
        *out_fill = cc_order_result(op, -1);   /* every element is less */
        return true;
    }
    if (width == 0) {
        *out_fill = cc_order_result(op, order_of(0, constant));
        return true;
    }
    return false;
}

/* Compares the decoded int64s of rows [0, rows). */
static void compare_decoded(const int64_t *values, uint64_t rows, columnar_compare_op op, int64_t constant,
                            uint8_t *out) {
#define LOAD_DECODED(i) values[i]
    COMPARE_LOOPS(LOAD_DECODED, constant)
#undef LOAD_DECODED
}

/* Compares a packed int array. Sub-byte widths, and BOOL arrays wider than a bit (a file may store a bool as any
 * non-zero value: it reads as true), go through decoded blocks; the rest compare the payload in place. */
static void compare_packed(const columnar_array *values, uint64_t rows, bool is_bool, columnar_compare_op op,
                           int64_t constant, uint8_t *out) {
    const uint8_t *data = values->data;
    uint32_t width = values->width;
    uint8_t fill;
    /* A based array (INT values only: is_bool is false) compares its stored elements with the constant minus the
     * base; a constant that the subtraction carries out of 64 bits lies beyond every element. */
    if (values->base && __builtin_sub_overflow(constant, values->base, &constant)) {
        memset(out, cc_order_result(op, constant < 0 ? -1 : 1), rows);   /* wrapped negative: it was above */
        return;
    }
    if (!(is_bool && width > 1) && constant_outside(width, constant, op, &fill)) {
        memset(out, fill, rows);
        return;
    }
    if ((is_bool && width > 1) || width < 8) {
        int64_t block[CC_BLOCK_ROWS];
        for (uint64_t from = 0; from < rows; from += CC_BLOCK_ROWS) {
            uint64_t count = rows - from < CC_BLOCK_ROWS ? rows - from : CC_BLOCK_ROWS;
            cc_unpack_ints(data, width, from, count, block);
            if (is_bool)
                for (uint64_t i = 0; i < count; i++) block[i] = block[i] != 0;
            compare_decoded(block, count, op, constant, out + from);
        }
        return;
    }
    switch (width) {
    case 8: {
        const int8_t *p = (const int8_t *)data;
        int8_t k = (int8_t)constant;
#define LOAD8(i) p[i]
        COMPARE_LOOPS(LOAD8, k)
#undef LOAD8
        return;
    }
    case 16: {
        int16_t k = (int16_t)constant;
#define LOAD16(i) load_i16(data + (i) * 2)
        COMPARE_LOOPS(LOAD16, k)
#undef LOAD16
        return;
    }
    case 32: {
        int32_t k = (int32_t)constant;
#define LOAD32(i) load_i32(data + (i) * 4)
        COMPARE_LOOPS(LOAD32, k)
#undef LOAD32
        return;
    }
    default: {
#define LOAD64(i) load_i64(data + (i) * 8)
        COMPARE_LOOPS(LOAD64, constant)
#undef LOAD64
        return;
    }
    }
}

static bool is_int_type(columnar_type type) {
    return type == COLUMNAR_TYPE_INT || type == COLUMNAR_TYPE_BOOL || type == COLUMNAR_TYPE_LINK;
}

/* Fills the mask when the constant is null or the view stores nothing; returns false when the values must be
 * compared. `default_result` is the result for a row holding the column's default value. */
static bool decided_without_values(const columnar_column_view *view, columnar_compare_op op, bool constant_is_null,
                                   uint8_t default_result, uint8_t *out) {
    uint64_t rows = view->count;
    if (constant_is_null) {
        if (cc_view_all_null(view)) {
            memset(out, cc_null_row_result(op, true), rows);
        } else {
            memset(out, cc_non_null_row_against_null(op), rows);
            if (!view->all_default) cc_apply_nulls(view, out, cc_null_row_result(op, true));
        }
        return true;
    }
    if (view->all_default) {
        memset(out, view->nullable ? cc_null_row_result(op, false) : default_result, rows);
        return true;
    }
    return false;
}

void columnar_kernel_compare_int(const columnar_column_view *view, columnar_compare_op op, int64_t constant,
                                 bool constant_is_null, uint8_t *out_mask) {
    uint64_t rows = view->count;
    if (!cc_compare_op_ok(op) || !is_int_type(view->type) || !cc_view_nulls_ok(view) ||
        (!view->all_default && (!cc_packed_array_ok(&view->values, rows) || !cc_values_base_ok(view)))) {
        memset(out_mask, 0, rows);
        return;
    }
    if (decided_without_values(view, op, constant_is_null, cc_order_result(op, order_of(0, constant)), out_mask))
        return;
    compare_packed(&view->values, rows, view->type == COLUMNAR_TYPE_BOOL, op, constant, out_mask);
    cc_apply_nulls(view, out_mask, cc_null_row_result(op, false));
}

static uint8_t compare_double_value(columnar_compare_op op, double value, double constant) {
    switch (op) {
    case COLUMNAR_COMPARE_EQ: return value == constant;
    case COLUMNAR_COMPARE_NE: return !(value == constant);
    case COLUMNAR_COMPARE_LT: return value < constant;
    case COLUMNAR_COMPARE_LE: return value <= constant;
    case COLUMNAR_COMPARE_GT: return value > constant;
    case COLUMNAR_COMPARE_GE: return value >= constant;
    }
    return 0;
}

void columnar_kernel_compare_double(const columnar_column_view *view, columnar_compare_op op, double constant,
                                    bool constant_is_null, uint8_t *out_mask) {
    uint64_t rows = view->count;
    const columnar_array *values = &view->values;
    bool is_float = values->encoding == COLUMNAR_ENCODING_FLOAT && values->width == 32;
    bool is_double = values->encoding == COLUMNAR_ENCODING_DOUBLE && values->width == 64;
    bool values_ok = (is_float || is_double) && values->count >= rows && (rows == 0 || values->data);
    if (!cc_compare_op_ok(op) || (view->type != COLUMNAR_TYPE_FLOAT && view->type != COLUMNAR_TYPE_DOUBLE) ||
        !cc_view_nulls_ok(view) || (!view->all_default && !values_ok)) {
        memset(out_mask, 0, rows);
        return;
    }
    if (decided_without_values(view, op, constant_is_null, compare_double_value(op, 0.0, constant), out_mask))
        return;
    const uint8_t *data = values->data;
    uint8_t *out = out_mask;
    if (is_float) {
        /* Widening a float to double is exact, so comparing in double equals comparing the stored value. */
#define LOADF(i) (double)load_f32(data + (i) * 4)
        COMPARE_LOOPS(LOADF, constant)
#undef LOADF
    } else {
#define LOADD(i) load_f64(data + (i) * 8)
        COMPARE_LOOPS(LOADD, constant)
#undef LOADD
    }
    cc_apply_nulls(view, out_mask, cc_null_row_result(op, false));
}

void columnar_kernel_compare_timestamp(const columnar_column_view *view, columnar_compare_op op, int64_t seconds,
                                       int32_t nanoseconds, bool constant_is_null, uint8_t *out_mask) {
    uint64_t rows = view->count;
    if (!cc_compare_op_ok(op) || view->type != COLUMNAR_TYPE_TIMESTAMP || !cc_view_nulls_ok(view) ||
        (!view->all_default &&
         (!cc_packed_array_ok(&view->values, rows) || !cc_packed_array_ok(&view->nanos, rows) ||
          !cc_values_base_ok(view) || view->nanos.base))) {
        memset(out_mask, 0, rows);
        return;
    }
    int default_order = 0 < seconds ? -1 : 0 > seconds ? 1 : 0 < nanoseconds ? -1 : 0 > nanoseconds;
    if (decided_without_values(view, op, constant_is_null, cc_order_result(op, default_order), out_mask)) return;
    int64_t block_seconds[CC_BLOCK_ROWS], block_nanos[CC_BLOCK_ROWS];
    int64_t k_seconds = seconds, k_nanos = nanoseconds;
    for (uint64_t from = 0; from < rows; from += CC_BLOCK_ROWS) {
        uint64_t count = rows - from < CC_BLOCK_ROWS ? rows - from : CC_BLOCK_ROWS;
        cc_unpack_ints(view->values.data, view->values.width, from, count, block_seconds);
        cc_unpack_ints(view->nanos.data, view->nanos.width, from, count, block_nanos);
        uint8_t *out = out_mask + from;
        /* Lexicographic order on (seconds, nanoseconds), written with & and | so each loop stays branch-free. */
#define LESS(i) ((block_seconds[i] < k_seconds) | ((block_seconds[i] == k_seconds) & (block_nanos[i] < k_nanos)))
#define EQUAL(i) ((block_seconds[i] == k_seconds) & (block_nanos[i] == k_nanos))
        switch (op) {
        case COLUMNAR_COMPARE_EQ: for (uint64_t i = 0; i < count; i++) out[i] = (uint8_t)EQUAL(i); break;
        case COLUMNAR_COMPARE_NE: for (uint64_t i = 0; i < count; i++) out[i] = (uint8_t)!EQUAL(i); break;
        case COLUMNAR_COMPARE_LT: for (uint64_t i = 0; i < count; i++) out[i] = (uint8_t)LESS(i); break;
        case COLUMNAR_COMPARE_LE: for (uint64_t i = 0; i < count; i++) out[i] = (uint8_t)(LESS(i) | EQUAL(i)); break;
        case COLUMNAR_COMPARE_GT: for (uint64_t i = 0; i < count; i++) out[i] = (uint8_t)!(LESS(i) | EQUAL(i)); break;
        case COLUMNAR_COMPARE_GE: for (uint64_t i = 0; i < count; i++) out[i] = (uint8_t)!LESS(i); break;
        }
#undef LESS
#undef EQUAL
    }
    cc_apply_nulls(view, out_mask, cc_null_row_result(op, false));
}

static inline uint64_t load_be64(const uint8_t *p) { return __builtin_bswap64((uint64_t)load_i64(p)); }
static inline uint32_t load_be32(const uint8_t *p) { return __builtin_bswap32((uint32_t)load_i32(p)); }

/* Bytewise unsigned order of two 12- or 16-byte ids: as big-endian words, the first 8 bytes decide, then the
 * rest. */
static int fixed_order(const uint8_t *a, const uint8_t *b, uint32_t width) {
    uint64_t a0 = load_be64(a), b0 = load_be64(b);
    if (a0 != b0) return a0 < b0 ? -1 : 1;
    uint64_t a1 = width == 16 ? load_be64(a + 8) : load_be32(a + 8);
    uint64_t b1 = width == 16 ? load_be64(b + 8) : load_be32(b + 8);
    return a1 < b1 ? -1 : a1 > b1;
}

void columnar_kernel_compare_fixed(const columnar_column_view *view, columnar_compare_op op,
                                   const uint8_t *constant, bool constant_is_null, uint8_t *out_mask) {
    uint64_t rows = view->count;
    uint32_t width = view->type == COLUMNAR_TYPE_OBJECTID ? 12 : 16;
    bool type_ok = view->type == COLUMNAR_TYPE_OBJECTID || view->type == COLUMNAR_TYPE_UUID ||
                   view->type == COLUMNAR_TYPE_DECIMAL128;
    const columnar_array *values = &view->values;
    bool values_ok = values->encoding == COLUMNAR_ENCODING_FIXED && values->width == width &&
                     values->count >= rows && (rows == 0 || values->data);
    if (!cc_compare_op_ok(op) || !type_ok || (!constant && !constant_is_null) || !cc_view_nulls_ok(view) ||
        (!view->all_default && !values_ok)) {
        memset(out_mask, 0, rows);
        return;
    }
    bool ordering = op != COLUMNAR_COMPARE_EQ && op != COLUMNAR_COMPARE_NE;
    if (ordering && view->type == COLUMNAR_TYPE_DECIMAL128) {
        /* A decimal128 is stored, not interpreted: its bytes have no numeric order, so no row is ordered. */
        memset(out_mask, 0, rows);
        return;
    }
    static const uint8_t zero[16] = { 0 };
    uint8_t default_result = constant_is_null ? 0 : cc_order_result(op, fixed_order(zero, constant, width));
    if (decided_without_values(view, op, constant_is_null, default_result, out_mask)) return;
    const uint8_t *data = values->data;
    if (!ordering) {
        /* memcmp with a constant size of 12 or 16 compiles to a few word compares. */
        uint8_t equal_result = op == COLUMNAR_COMPARE_EQ;
        if (width == 12)
            for (uint64_t i = 0; i < rows; i++)
                out_mask[i] = (memcmp(data + i * 12, constant, 12) == 0) == equal_result;
        else
            for (uint64_t i = 0; i < rows; i++)
                out_mask[i] = (memcmp(data + i * 16, constant, 16) == 0) == equal_result;
    } else {
        for (uint64_t i = 0; i < rows; i++)
            out_mask[i] = cc_order_result(op, fixed_order(data + (uint64_t)i * width, constant, width));
    }
    cc_apply_nulls(view, out_mask, cc_null_row_result(op, false));
}

/* Index of the first constant >= value (constant_count when none). */
static size_t lower_bound(const int64_t *constants, size_t constant_count, int64_t value) {
    size_t low = 0, high = constant_count;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (constants[mid] < value) low = mid + 1;
        else high = mid;
    }
    return low;
}

/* Up to this many constants, each is compared with every row (a loop per constant that vectorizes); above it,
 * each row is looked up by binary search. */
#define IN_LINEAR_MAX 8u

void columnar_kernel_in_int(const columnar_column_view *view, const int64_t *constants, size_t constant_count,
                            bool match_null, uint8_t *out_mask) {
    uint64_t rows = view->count;
    if (!is_int_type(view->type) || (constant_count && !constants) || !cc_view_nulls_ok(view) ||
        (!view->all_default && (!cc_packed_array_ok(&view->values, rows) || !cc_values_base_ok(view)))) {
        memset(out_mask, 0, rows);
        return;
    }
    if (view->all_default) {
        size_t at = lower_bound(constants, constant_count, 0);
        bool zero_in = at < constant_count && constants[at] == 0;
        memset(out_mask, view->nullable ? match_null : zero_in, rows);
        return;
    }
    int64_t block[CC_BLOCK_ROWS];
    bool is_bool = view->type == COLUMNAR_TYPE_BOOL;
    for (uint64_t from = 0; from < rows; from += CC_BLOCK_ROWS) {
        uint64_t count = rows - from < CC_BLOCK_ROWS ? rows - from : CC_BLOCK_ROWS;
        uint8_t *out = out_mask + from;
        cc_unpack_ints(view->values.data, view->values.width, from, count, block);
        cc_add_base(block, count, view->values.base);
        if (is_bool)
            for (uint64_t i = 0; i < count; i++) block[i] = block[i] != 0;
        if (constant_count <= IN_LINEAR_MAX) {
            memset(out, 0, count);
            for (size_t c = 0; c < constant_count; c++) {
                int64_t k = constants[c];
                for (uint64_t i = 0; i < count; i++) out[i] |= block[i] == k;
            }
        } else {
            for (uint64_t i = 0; i < count; i++) {
                size_t at = lower_bound(constants, constant_count, block[i]);
                out[i] = at < constant_count && constants[at] == block[i];
            }
        }
    }
    cc_apply_nulls(view, out_mask, match_null);
}

void columnar_kernel_is_null(const columnar_column_view *view, uint8_t *out_mask) {
    if (view->all_default) {
        memset(out_mask, view->nullable, view->count);
        return;
    }
    memset(out_mask, 0, view->count);
    if (cc_view_nulls_ok(view)) cc_apply_nulls(view, out_mask, 1);
}
