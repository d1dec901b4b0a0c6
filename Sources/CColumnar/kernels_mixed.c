/*
 * kernels_mixed.c — the kernels of MIXED columns: a comparison with a constant of any type, a test of each row's
 * type (`@type` queries), and string matching of the strings and binary values among the rows.
 *
 * A MIXED view has the arrays of a BINARY view, whose rows are the values' encodings (mixed.h). The kernels read
 * them a block at a time through cc_view_bytes_block (kernels_string.c), which checks each row's bounds, and
 * decode every non-null row with cc_mixed_unpack, which checks the encoding: a damaged row gives
 * COLUMNAR_ECORRUPT, never a read outside the node or a guess. Unlike the kernels of typed columns these work row
 * by row after the block read, since each row may hold another type; what stays branch-free elsewhere (the
 * packed nulls, the block's bounds) is done here a block at a time too.
 *
 * Values compare as Realm compares mixed values (columnar.h, "Mixed kernels"): INT, FLOAT, DOUBLE and DECIMAL128
 * are numbers and compare by value across those types, exactly; STRING and BINARY compare with each other
 * bytewise; every other type only with itself; LINK values are equal or not, never ordered. A comparison that
 * would have to interpret a DECIMAL128 as a number writes 2: the engine stores decimals without interpreting them,
 * and the caller, which can, decides those rows.
 */
#include "kernels.h"

#include "mixed.h"
#include "node.h"

#include <math.h>

/* Rows read and decoded per block: the rows' pointers, sizes and null flags live on the stack. */
#define MIXED_BLOCK_ROWS 256u

static const uint8_t no_bytes[1] = { 0 };

/* The rows [from, from + rows) of a MIXED view: their null flags and the bytes of their encodings. */
typedef struct mixed_block {
    uint64_t from;
    uint64_t rows;
    uint8_t nulls[MIXED_BLOCK_ROWS];
    const uint8_t *data[MIXED_BLOCK_ROWS];
    size_t sizes[MIXED_BLOCK_ROWS];
} mixed_block;

static bool mixed_view_ok(const columnar_column_view *view) {
    return view->type == COLUMNAR_TYPE_MIXED && cc_bytes_view_ok(view);
}

/* Reads the block starting at `from` of a view that is not all_default. */
static int read_block(const columnar_column_view *view, uint64_t from, mixed_block *block) {
    uint64_t rows = view->count - from < MIXED_BLOCK_ROWS ? view->count - from : MIXED_BLOCK_ROWS;
    block->from = from;
    block->rows = rows;
    if (view->nulls.encoding) cc_unpack_flags(view->nulls.data, view->nulls.width, from, rows, block->nulls);
    else memset(block->nulls, 0, rows);
    return cc_view_bytes_block(view, from, rows, block->data, block->sizes);
}

/* Decodes row `i` of the block (not null). */
static int decode_row(const mixed_block *block, uint64_t i, columnar_value *out) {
    const char *problem = cc_mixed_unpack(block->data[i], block->sizes[i], out);
    if (problem)
        return CC_CORRUPT(0, "mixed row %llu of the view (%zu bytes, tag %u) does not decode: %s",
                          (unsigned long long)(block->from + i), block->sizes[i],
                          block->sizes[i] ? block->data[i][0] : 0u, problem);
    return 0;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* How two mixed values relate                                                                                  */
/* ---------------------------------------------------------------------------------------------------------- */

typedef enum relation {
    REL_LESS,
    REL_EQUAL,
    REL_GREATER,
    REL_EQUAL_UNORDERED,     /* equal, but the type has no order (links) */
    REL_UNEQUAL_UNORDERED,   /* types that do not compare, NaN, two different links */
    REL_UNDECIDED,           /* a decimal against a number: the caller decides */
} relation;

static relation relation_of_order(int order) { return order < 0 ? REL_LESS : order > 0 ? REL_GREATER : REL_EQUAL; }

static relation reversed(relation r) { return r == REL_LESS ? REL_GREATER : r == REL_GREATER ? REL_LESS : r; }

static uint8_t relation_result(columnar_compare_op op, relation r) {
    switch (r) {
    case REL_LESS: return cc_order_result(op, -1);
    case REL_EQUAL: return cc_order_result(op, 0);
    case REL_GREATER: return cc_order_result(op, 1);
    case REL_EQUAL_UNORDERED: return op == COLUMNAR_COMPARE_EQ;
    case REL_UNEQUAL_UNORDERED: return op == COLUMNAR_COMPARE_NE;
    case REL_UNDECIDED: return 2;
    }
    return 0;
}

static bool is_number(columnar_type type) {
    return type == COLUMNAR_TYPE_INT || type == COLUMNAR_TYPE_FLOAT || type == COLUMNAR_TYPE_DOUBLE ||
           type == COLUMNAR_TYPE_DECIMAL128;
}

static bool is_bytes(columnar_type type) { return type == COLUMNAR_TYPE_STRING || type == COLUMNAR_TYPE_BINARY; }

static relation compare_doubles(double a, double b) {
    if (isnan(a) || isnan(b)) return REL_UNEQUAL_UNORDERED;
    return a < b ? REL_LESS : a > b ? REL_GREATER : REL_EQUAL;
}

/* An int64 against a double without rounding the int: every double in [-2^63, 2^63) has an integral part that is
 * an int64, and doubles outside that range lie beyond every int64. Ties on the integral part are settled by the
 * fraction (exact: subtracting a double's own integral part loses nothing). */
static relation compare_int_double(int64_t i, double d) {
    if (isnan(d)) return REL_UNEQUAL_UNORDERED;
    if (d >= 9223372036854775808.0) return REL_LESS;      /* 2^63 */
    if (d < -9223372036854775808.0) return REL_GREATER;   /* -2^63 */
    double whole = trunc(d);
    int64_t whole_int = (int64_t)whole;
    if (i != whole_int) return i < whole_int ? REL_LESS : REL_GREATER;
    return d > whole ? REL_LESS : d < whole ? REL_GREATER : REL_EQUAL;
}

static double as_double(const columnar_value *v) { return v->type == COLUMNAR_TYPE_FLOAT ? (double)v->as.f : v->as.d; }

static relation compare_numbers(const columnar_value *a, const columnar_value *b) {
    if (a->type == COLUMNAR_TYPE_DECIMAL128 || b->type == COLUMNAR_TYPE_DECIMAL128) return REL_UNDECIDED;
    bool a_int = a->type == COLUMNAR_TYPE_INT, b_int = b->type == COLUMNAR_TYPE_INT;
    if (a_int && b_int) return a->as.i < b->as.i ? REL_LESS : a->as.i > b->as.i ? REL_GREATER : REL_EQUAL;
    if (a_int) return compare_int_double(a->as.i, as_double(b));
    if (b_int) return reversed(compare_int_double(b->as.i, as_double(a)));
    return compare_doubles(as_double(a), as_double(b));
}

static relation compare_byte_strings(const void *a, size_t a_size, const void *b, size_t b_size) {
    size_t common = a_size < b_size ? a_size : b_size;
    int c = common ? memcmp(a, b, common) : 0;
    if (c) return c < 0 ? REL_LESS : REL_GREATER;
    return a_size < b_size ? REL_LESS : a_size > b_size ? REL_GREATER : REL_EQUAL;
}

/* How the non-null value `a` relates to the non-null value `b`. */
static relation compare_mixed(const columnar_value *a, const columnar_value *b) {
    bool a_number = is_number(a->type), b_number = is_number(b->type);
    if (a_number && b_number) return compare_numbers(a, b);
    if (a_number || b_number) return REL_UNEQUAL_UNORDERED;
    if (is_bytes(a->type) && is_bytes(b->type))
        return compare_byte_strings(a->as.bytes.data, a->as.bytes.size, b->as.bytes.data, b->as.bytes.size);
    if (a->type != b->type) return REL_UNEQUAL_UNORDERED;
    switch (a->type) {
    case COLUMNAR_TYPE_BOOL: return relation_of_order((int)a->as.b - (int)b->as.b);
    case COLUMNAR_TYPE_TIMESTAMP:
        if (a->as.timestamp.seconds != b->as.timestamp.seconds)
            return a->as.timestamp.seconds < b->as.timestamp.seconds ? REL_LESS : REL_GREATER;
        return relation_of_order(a->as.timestamp.nanoseconds < b->as.timestamp.nanoseconds ? -1
                                 : a->as.timestamp.nanoseconds > b->as.timestamp.nanoseconds);
    case COLUMNAR_TYPE_OBJECTID: return relation_of_order(memcmp(a->as.objectid, b->as.objectid, 12));
    case COLUMNAR_TYPE_UUID: return relation_of_order(memcmp(a->as.uuid, b->as.uuid, 16));
    case COLUMNAR_TYPE_LINK:
        return a->as.typed_link.table == b->as.typed_link.table && a->as.typed_link.key == b->as.typed_link.key
               ? REL_EQUAL_UNORDERED : REL_UNEQUAL_UNORDERED;
    default: return REL_UNEQUAL_UNORDERED;
    }
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Kernels                                                                                                      */
/* ---------------------------------------------------------------------------------------------------------- */

/* Whether `constant` is null or a value of a type INT ... LINK (bytes with a pointer unless empty). */
static bool constant_ok(const columnar_value *constant) {
    if (!constant) return false;
    if (constant->is_null) return true;
    if (constant->type < COLUMNAR_TYPE_INT || constant->type > COLUMNAR_TYPE_LINK) return false;
    return !is_bytes(constant->type) || constant->as.bytes.data || !constant->as.bytes.size;
}

int columnar_kernel_compare_mixed(const columnar_column_view *view, columnar_compare_op op,
                                  const columnar_value *constant, uint8_t *out_mask) {
    uint64_t rows = view->count;
    if (!cc_compare_op_ok(op) || !constant_ok(constant) || !mixed_view_ok(view)) {
        memset(out_mask, 0, rows);
        return CC_MISUSE("columnar_kernel_compare_mixed: not a MIXED view, an unknown operator, or a constant that "
                         "is not null or of a type INT ... LINK");
    }
    columnar_value wanted = constant->is_null ? (columnar_value){ .is_null = true } : *constant;
    if (!wanted.is_null && is_bytes(wanted.type) && !wanted.as.bytes.size) wanted.as.bytes.data = no_bytes;
    /* A mixed column's default is null: it is always nullable. */
    uint8_t null_row = cc_null_row_result(op, wanted.is_null);
    if (view->all_default) {
        memset(out_mask, null_row, rows);
        return 0;
    }
    uint8_t against_null = cc_non_null_row_against_null(op);
    /* Ints and doubles against an int constant, the commonest mixed comparisons, skip the general decode: any 8
     * bytes after an INT or DOUBLE tag are a valid value, so such a row needs no other check. The outcomes of the
     * three orders are computed once. */
    bool int_constant = !wanted.is_null && wanted.type == COLUMNAR_TYPE_INT;
    uint8_t if_less = cc_order_result(op, -1), if_equal = cc_order_result(op, 0), if_greater = cc_order_result(op, 1);
    mixed_block block;
    for (uint64_t from = 0; from < rows; from += MIXED_BLOCK_ROWS) {
        int rc = read_block(view, from, &block);
        if (rc) return rc;
        for (uint64_t i = 0; i < block.rows; i++) {
            uint8_t *out = &out_mask[from + i];
            if (block.nulls[i]) {
                *out = null_row;
                continue;
            }
            if (int_constant && block.sizes[i] == 9) {
                if (block.data[i][0] == COLUMNAR_TYPE_INT) {
                    int64_t row;
                    memcpy(&row, block.data[i] + 1, 8);
                    *out = row < wanted.as.i ? if_less : row > wanted.as.i ? if_greater : if_equal;
                    continue;
                }
                if (block.data[i][0] == COLUMNAR_TYPE_DOUBLE) {   /* any 8 bytes are a double too */
                    double row;
                    memcpy(&row, block.data[i] + 1, 8);
                    *out = relation_result(op, reversed(compare_int_double(wanted.as.i, row)));
                    continue;
                }
            }
            columnar_value value;
            if ((rc = decode_row(&block, i, &value))) return rc;
            /* A link whose object was deleted reads as null, which only the caller can tell: against null or a
             * link, a link row is the caller's. */
            if (value.type == COLUMNAR_TYPE_LINK && (wanted.is_null || wanted.type == COLUMNAR_TYPE_LINK)) *out = 2;
            else *out = wanted.is_null ? against_null : relation_result(op, compare_mixed(&value, &wanted));
        }
    }
    return 0;
}

int columnar_kernel_mixed_type(const columnar_column_view *view, uint32_t type_mask, uint8_t *out_mask) {
    uint64_t rows = view->count;
    if (!mixed_view_ok(view)) {
        memset(out_mask, 0, rows);
        return CC_MISUSE("columnar_kernel_mixed_type: not a MIXED view");
    }
    uint8_t null_row = type_mask & 1u;
    /* A link row is the caller's when the mask tells null from LINK: a link whose object was deleted is null. */
    uint8_t link_row = ((type_mask >> COLUMNAR_TYPE_LINK) & 1u) == null_row ? null_row : 2;
    if (view->all_default) {
        memset(out_mask, null_row, rows);
        return 0;
    }
    mixed_block block;
    for (uint64_t from = 0; from < rows; from += MIXED_BLOCK_ROWS) {
        int rc = read_block(view, from, &block);
        if (rc) return rc;
        for (uint64_t i = 0; i < block.rows; i++) {
            columnar_value value;
            if (block.nulls[i]) out_mask[from + i] = null_row;
            else if ((rc = decode_row(&block, i, &value))) return rc;
            else out_mask[from + i] = value.type == COLUMNAR_TYPE_LINK ? link_row
                                                                       : (uint8_t)((type_mask >> value.type) & 1u);
        }
    }
    return 0;
}

int columnar_kernel_match_mixed_string(const columnar_column_view *view, columnar_string_op op, const void *needle,
                                       size_t needle_size, bool needle_is_null, uint32_t flags,
                                       uint8_t *out_mask) {
    uint64_t rows = view->count;
    if (!cc_string_op_ok(op) || (!needle && needle_size && !needle_is_null) || !mixed_view_ok(view)) {
        memset(out_mask, 0, rows);
        return CC_MISUSE("columnar_kernel_match_mixed_string: not a MIXED view, an unknown operator, or a NULL "
                         "needle with a size");
    }
    /* The string kernel's null rules; a row of another type than STRING or BINARY is no match, so only NE holds. */
    columnar_compare_op null_op = cc_string_null_op(op);
    uint8_t null_row = cc_null_row_result(null_op, needle_is_null);
    uint8_t against_null = cc_non_null_row_against_null(null_op);
    uint8_t other_type = op == COLUMNAR_STRING_NE;
    if (view->all_default) {
        memset(out_mask, null_row, rows);
        return 0;
    }
    cc_string_matcher matcher;
    if (!needle_is_null) cc_string_matcher_init(&matcher, op, needle, needle_size, flags);
    mixed_block block;
    for (uint64_t from = 0; from < rows; from += MIXED_BLOCK_ROWS) {
        int rc = read_block(view, from, &block);
        if (rc) return rc;
        for (uint64_t i = 0; i < block.rows; i++) {
            uint8_t *out = &out_mask[from + i];
            if (block.nulls[i]) {
                *out = null_row;
                continue;
            }
            columnar_value value;
            if ((rc = decode_row(&block, i, &value))) return rc;
            if (needle_is_null) *out = against_null;
            else if (!is_bytes(value.type)) *out = other_type;
            else *out = cc_string_match(&matcher, value.as.bytes.size ? value.as.bytes.data : no_bytes,
                                        value.as.bytes.size);
        }
    }
    return 0;
}
