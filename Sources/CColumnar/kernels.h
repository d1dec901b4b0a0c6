/*
 * kernels.h — what the scan kernels share: decoding bit-packed arrays a block of rows at a time, and the null
 * rules every kernel applies.
 *
 * The kernels never call a get-one-element function per row. Hot loops (an int column against a constant, the
 * aggregates of an int column) work on the packed payload directly with one loop per width; the rest decode a
 * block of at most CC_BLOCK_ROWS rows into a stack buffer with one loop per width (cc_unpack_ints) and then run a
 * plain loop over the int64s, which the compiler can vectorize. Nulls are applied after the value loop, from the
 * NULLS array (cc_apply_nulls), so the value loop has no branches.
 *
 * A view comes from columnar_scan_column, which validated its nodes; the kernels still check that its arrays
 * have the encoding they expect and at least `count` elements (cc_view_*_ok), so a view the caller built wrong
 * gives an all-zero mask, never a read out of bounds.
 */
#ifndef COLUMNAR_KERNELS_H
#define COLUMNAR_KERNELS_H

#include "internal.h"

#include <string.h>

/* Rows decoded per block: 8 KiB of int64 on the stack, and a multiple of 8 so blocks start on byte boundaries
 * of every sub-byte width. */
#define CC_BLOCK_ROWS 1024u

/* Decodes elements [from, from + count) of a PACKED_INT payload of `width` bits into `out`. */
void cc_unpack_ints(const uint8_t *data, uint32_t width, uint64_t from, uint64_t count, int64_t *out);
/* Decodes the same range as flags: out[i] = (element != 0). */
void cc_unpack_flags(const uint8_t *data, uint32_t width, uint64_t from, uint64_t count, uint8_t *out);
/* Decodes the same range of a payload of width 0, 1, 2 or 4 bits (unsigned values below 16) into bytes. */
void cc_unpack_small(const uint8_t *data, uint32_t width, uint64_t from, uint64_t count, uint8_t *out);

/* Whether `array` is a PACKED_INT array of a valid width with at least `count` elements (and a base only at
 * widths 8, 16 and 32, as in the file: format.h NODE). */
bool cc_packed_array_ok(const columnar_array *array, uint64_t count);
/* Whether a view's values may carry a base: only an INT column's do (format.h NODE); flags, links, timestamps,
 * string offsets and null flags never. A view breaking this is treated as invalid. */
static inline bool cc_values_base_ok(const columnar_column_view *view) {
    return view->values.base == 0 || view->type == COLUMNAR_TYPE_INT;
}
/* Adds a packed array's base to `count` decoded elements. */
static inline void cc_add_base(int64_t *values, uint64_t count, int64_t base) {
    if (base)
        for (uint64_t i = 0; i < count; i++) values[i] += base;
}
/* Whether the view's NULLS array, when present, can be read for its `count` rows. */
bool cc_view_nulls_ok(const columnar_column_view *view);

/* Whether the view says every row is null: the column stores nothing for the cluster and is nullable. */
static inline bool cc_view_all_null(const columnar_column_view *view) {
    return view->all_default && view->nullable;
}

/* Overwrites out[i] with `null_value` for every null row of the view (rows whose NULLS element is non-zero). Does
 * nothing when the view has no NULLS array. */
void cc_apply_nulls(const columnar_column_view *view, uint8_t *out, uint8_t null_value);

/* The mask value of a null row under the comparison null rules: a null row equals a null constant and nothing
 * else, NE is the negation of EQ, and ordering is false with a null on either side. */
static inline uint8_t cc_null_row_result(columnar_compare_op op, bool constant_is_null) {
    if (op == COLUMNAR_COMPARE_EQ) return constant_is_null;
    if (op == COLUMNAR_COMPARE_NE) return !constant_is_null;
    return 0;
}

/* The mask value of a non-null row against the null constant. */
static inline uint8_t cc_non_null_row_against_null(columnar_compare_op op) {
    return op == COLUMNAR_COMPARE_NE;
}

/* Whether `op` is one of the six comparison operators. */
static inline bool cc_compare_op_ok(columnar_compare_op op) {
    return op >= COLUMNAR_COMPARE_EQ && op <= COLUMNAR_COMPARE_GE;
}

/* The result of comparing a value with a constant, given their order (-1, 0, 1 for less, equal, greater). */
static inline uint8_t cc_order_result(columnar_compare_op op, int order) {
    switch (op) {
    case COLUMNAR_COMPARE_EQ: return order == 0;
    case COLUMNAR_COMPARE_NE: return order != 0;
    case COLUMNAR_COMPARE_LT: return order < 0;
    case COLUMNAR_COMPARE_LE: return order <= 0;
    case COLUMNAR_COMPARE_GT: return order > 0;
    case COLUMNAR_COMPARE_GE: return order >= 0;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Byte-valued views (kernels_string.c): STRING, BINARY, and MIXED, whose rows are their encodings              */
/* ---------------------------------------------------------------------------------------------------------- */

/* Whether the view is a STRING, BINARY or MIXED view whose arrays can be read for its rows (not yet checked: the
 * lengths and offsets inside them). */
bool cc_bytes_view_ok(const columnar_column_view *view);

/* The bytes of rows [from, from + count) of a view cc_bytes_view_ok accepted, not all_default, with count <=
 * CC_BLOCK_ROWS: data[i] and sizes[i] for row from + i (a null row holds no bytes; data is never NULL). Each
 * row's bounds are checked before it is handed out: COLUMNAR_ECORRUPT for a bad length or offset. */
int cc_view_bytes_block(const columnar_column_view *view, uint64_t from, uint64_t count, const uint8_t **data,
                        size_t *sizes);

/* One needle matched against the bytes of one value at a time, as columnar_kernel_match_string matches rows; the
 * mixed string kernel matches the STRING and BINARY values inside mixed rows with it. */
typedef struct cc_string_matcher {
    columnar_string_op op;
    const uint8_t *needle;   /* never NULL */
    size_t needle_size;
    bool fold;               /* COLUMNAR_STRING_FOLD_ASCII_CASE */
    bool needle_ascii;
} cc_string_matcher;

/* A matcher of a non-null needle (NULL with size 0 is the empty needle) for a known operator. */
void cc_string_matcher_init(cc_string_matcher *matcher, columnar_string_op op, const void *needle,
                            size_t needle_size, uint32_t flags);
/* The mask value of a non-null value: 0, 1, or 2 when ASCII folding cannot decide it. */
uint8_t cc_string_match(const cc_string_matcher *matcher, const uint8_t *value, size_t size);
/* Whether `op` is one of the string operators. */
static inline bool cc_string_op_ok(columnar_string_op op) {
    return op >= COLUMNAR_STRING_EQ && op <= COLUMNAR_STRING_GE;
}
/* The comparison operator whose null rules a string operator follows: only EQ and NE can be true where a null is
 * involved, so every other operator behaves as an ordering. */
static inline columnar_compare_op cc_string_null_op(columnar_string_op op) {
    return op == COLUMNAR_STRING_EQ ? COLUMNAR_COMPARE_EQ : op == COLUMNAR_STRING_NE ? COLUMNAR_COMPARE_NE
                                                                                     : COLUMNAR_COMPARE_LT;
}

#endif /* COLUMNAR_KERNELS_H */
