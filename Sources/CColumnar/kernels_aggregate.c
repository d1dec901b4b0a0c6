/*
 * kernels_aggregate.c — count, sum, min and max over the masked, non-null rows of one cluster, added to a running
 * columnar_aggregate so a query folds clusters one after another.
 *
 * Ints are the hot case (sum, min, max and average over millions of objects run nothing else). They are
 * aggregated a block of CC_BLOCK_ROWS rows at a time, in the element's own type, by *dense* loops that take every
 * row of the block:
 *
 *  - A block whose rows are all masked in (mask NULL, or all non-zero) and not null — a column without nulls
 *    aggregated over a whole table — runs them on the packed payload in place.
 *  - Any other block is first made dense: its values are copied to a scratch array with each unselected row (null,
 *    or masked out) replaced by the value of a selected row, the "filler". That leaves min and max unchanged, and
 *    the sum over-counted by the filler once per unselected row, which is subtracted afterwards. When only nulls
 *    are in the way and they come as the committed 1-bit array, the block is copied as it is and the null rows,
 *    found 64 at a time in the bitmap, are overwritten; otherwise a select per row (from the block's selection
 *    bytes) builds the copy.
 *  - Sub-byte widths (values 0 ... 15) and BOOL arrays (true may be stored as any non-zero value) are decoded to
 *    bytes (BOOL as 0/1), which are then aggregated as above.
 *
 * The loops: 8 and 16-bit values sum in int32 lanes, and 32-bit values as their high and low 16 bits in int32
 * lanes (no widening in the loop); 64-bit values sum as their high (signed) and low (unsigned) 32 bits in int64
 * lanes. None of them can overflow within a block, and each block's total is added to the exact 128-bit sum once.
 * Min and max compare in the element's type with selects, which the compiler turns into vector compares and blends
 * (SSE2 has 8, 16 and 32-bit signed compares); 64-bit min and max run four independent scalar chains instead, as
 * SSE2 has no 64-bit compare. The sum and the extremes are separate loops, so each vectorizes on its own and a
 * caller that needs only some of the aggregates (columnar_kernel_aggregate_select) skips the others.
 *
 * Double sums add in row order (like a plain loop would), so a caller that folds clusters in key order gets the
 * same result as summing the values in that order; that loop cannot be vectorized without changing the result.
 * Double min and max can, with care for -0.0 and +0.0 (double_min_max). Blocks that are not dense are copied with
 * their unselected rows replaced by +0.0 for the sum and by NaN (which min and max skip) for the extremes.
 */
#include "kernels.h"

#include <math.h>

static inline int16_t load_i16(const uint8_t *p) { int16_t v; memcpy(&v, p, 2); return v; }
static inline int32_t load_i32(const uint8_t *p) { int32_t v; memcpy(&v, p, 4); return v; }
static inline int64_t load_i64(const uint8_t *p) { int64_t v; memcpy(&v, p, 8); return v; }

/* On x86-64 with glibc, the int loops below are compiled twice, for the baseline (SSE2) and for AVX2, and the
 * loader picks one when the library is loaded (target_clones makes an ifunc, which needs glibc). AVX2 has 64-bit
 * compares and twice the lanes, which makes min and max and the filling of masked blocks about twice as fast; the
 * sums are bound by memory bandwidth either way. Elsewhere the loops are compiled once, for the target. So are they
 * under a sanitizer: the loader runs an ifunc's resolver before the sanitizer's runtime is set up, and the
 * sanitizer's instrumentation of the resolver then crashes the program before main. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define COLUMNAR_SANITIZED 1
#endif
#endif
#if defined(__x86_64__) && defined(__GLIBC__) && defined(__has_attribute) && !defined(COLUMNAR_SANITIZED)
#if __has_attribute(target_clones)
#define VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef VECTOR_CLONES
#define VECTOR_CLONES
#endif

#define WANTS_SUM(wanted) (((wanted) & COLUMNAR_AGGREGATE_SUM) != 0)
#define WANTS_MIN_MAX(wanted) (((wanted) & (COLUMNAR_AGGREGATE_MIN | COLUMNAR_AGGREGATE_MAX)) != 0)

/* ---------------------------------------------------------------------------------------------------------- */
/* Merging into the running aggregate                                                                           */
/* ---------------------------------------------------------------------------------------------------------- */

/* Adds the 128-bit two's complement number (high, low) to the aggregate's int sum. */
static void add_128(columnar_aggregate *aggregate, int64_t high, uint64_t low) {
    uint64_t sum_low = aggregate->int_sum_low + low;
    uint64_t carry = sum_low < low;
    aggregate->int_sum_low = sum_low;
    /* Unsigned arithmetic wraps where signed would overflow (undefined); the bits are the same. */
    aggregate->int_sum_high = (int64_t)((uint64_t)aggregate->int_sum_high + (uint64_t)high + carry);
}

/* Adds high_sum * 2^32 + low_sum (both int64, either sign) to the aggregate's int sum. */
static void add_split_sum(columnar_aggregate *aggregate, int64_t high_sum, int64_t low_sum) {
    /* high_sum * 2^32 spans two 64-bit halves: its top 32 bits (sign-extended) and the rest shifted up. */
    add_128(aggregate, high_sum >> 32, (uint64_t)high_sum << 32);
    add_128(aggregate, low_sum >> 63, (uint64_t)low_sum);
}

/* Merges a block's extremes (of `seen` values) into the aggregate: the min when wanted, the max when wanted. */
static void merge_int_min_max(columnar_aggregate *aggregate, uint32_t wanted, uint64_t seen, int64_t min,
                              int64_t max) {
    if (!seen || !WANTS_MIN_MAX(wanted)) return;
    bool first = aggregate->minmax_count == 0;
    if ((wanted & COLUMNAR_AGGREGATE_MIN) && (first || min < aggregate->int_min)) aggregate->int_min = min;
    if ((wanted & COLUMNAR_AGGREGATE_MAX) && (first || max > aggregate->int_max)) aggregate->int_max = max;
    aggregate->minmax_count += seen;
}

static void merge_double_min_max(columnar_aggregate *aggregate, uint32_t wanted, uint64_t seen, double min,
                                 double max) {
    if (!seen || !WANTS_MIN_MAX(wanted)) return;
    bool first = aggregate->minmax_count == 0;
    if ((wanted & COLUMNAR_AGGREGATE_MIN) && (first || min < aggregate->double_min)) aggregate->double_min = min;
    if ((wanted & COLUMNAR_AGGREGATE_MAX) && (first || max > aggregate->double_max)) aggregate->double_max = max;
    aggregate->minmax_count += seen;
}

static bool timestamp_less(int64_t seconds_a, int32_t nanos_a, int64_t seconds_b, int32_t nanos_b) {
    return seconds_a < seconds_b || (seconds_a == seconds_b && nanos_a < nanos_b);
}

static void merge_timestamp_min_max(columnar_aggregate *aggregate, uint32_t wanted, uint64_t seen,
                                    int64_t min_seconds, int32_t min_nanos, int64_t max_seconds, int32_t max_nanos) {
    if (!seen || !WANTS_MIN_MAX(wanted)) return;
    bool first = aggregate->minmax_count == 0;
    if ((wanted & COLUMNAR_AGGREGATE_MIN) &&
        (first || timestamp_less(min_seconds, min_nanos, aggregate->seconds_min, aggregate->nanos_min))) {
        aggregate->seconds_min = min_seconds;
        aggregate->nanos_min = min_nanos;
    }
    if ((wanted & COLUMNAR_AGGREGATE_MAX) &&
        (first || timestamp_less(aggregate->seconds_max, aggregate->nanos_max, max_seconds, max_nanos))) {
        aggregate->seconds_max = max_seconds;
        aggregate->nanos_max = max_nanos;
    }
    aggregate->minmax_count += seen;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Selections                                                                                                   */
/* ---------------------------------------------------------------------------------------------------------- */

/* Whether every byte of mask[0, rows) is non-zero. A byte-wide minimum, so the loop runs on byte lanes. */
static bool mask_all_set(const uint8_t *mask, uint64_t rows) {
    uint8_t least = 0xff;
    for (uint64_t i = 0; i < rows; i++) least = mask[i] < least ? mask[i] : least;
    return least != 0;
}

/* Whether the view has a NULLS array that can hold a non-zero element. */
static bool view_has_nulls(const columnar_column_view *view) {
    return view->nulls.encoding == COLUMNAR_ENCODING_PACKED_INT && view->nulls.width != 0;
}

/* Word `word` of a block's 1-bit null flags (`bits`: the block's first byte; blocks start at multiples of
 * CC_BLOCK_ROWS, so on a byte boundary): rows 64 * word ... of the block's `rows`, bit k for row 64 * word + k.
 * Bits past the block's last row are cleared (they belong to later rows, or to none), and the array is not read
 * past the block's last byte. */
static uint64_t null_word(const uint8_t *bits, uint64_t word, uint64_t rows) {
    uint64_t first_row = word * 64, value = 0;
    if (rows - first_row >= 64) {
        memcpy(&value, bits + word * 8, 8);
        return value;
    }
    uint64_t left = rows - first_row;
    for (uint64_t b = 0; b * 8 < left; b++) value |= (uint64_t)bits[word * 8 + b] << (b * 8);
    return value & ((1ull << left) - 1);
}

static uint64_t null_words(uint64_t rows) { return (rows + 63) / 64; }

/* The number of null rows of a block with 1-bit null flags. */
static uint64_t null_bits_count(const uint8_t *bits, uint64_t rows) {
    uint64_t nulls = 0;
    for (uint64_t w = 0; w < null_words(rows); w++) nulls += (uint64_t)__builtin_popcountll(null_word(bits, w, rows));
    return nulls;
}

/* The first row of a block with 1-bit null flags that is not null (one must be). */
static uint64_t first_non_null(const uint8_t *bits, uint64_t rows) {
    uint64_t w = 0, present;
    while ((present = ~null_word(bits, w, rows)) == 0) w++;
    return w * 64 + (uint64_t)__builtin_ctzll(present);
}

/* Whether any of rows [from, from + rows) is null, for a view with a NULLS array. The committed form (1 bit a
 * row) and the private form (1 byte a row) are tested in place; other widths are decoded into `scratch`. */
static bool block_has_null(const columnar_column_view *view, uint64_t from, uint64_t rows, uint8_t *scratch) {
    const columnar_array *nulls = &view->nulls;
    const uint8_t *data = nulls->data;
    if (nulls->width == 1) return null_bits_count(data + from / 8, rows) != 0;
    uint8_t any = 0;
    if (nulls->width == 8) {
        for (uint64_t i = 0; i < rows; i++) any |= data[from + i];
        return any != 0;
    }
    cc_unpack_flags(data, nulls->width, from, rows, scratch);
    for (uint64_t i = 0; i < rows; i++) any |= scratch[i];
    return any != 0;
}

/* Selected rows of a block: 1 where the row is masked in (mask NULL: every row) and not null, else 0. */
static void block_selection(const columnar_column_view *view, const uint8_t *mask, uint64_t from, uint64_t rows,
                            uint8_t *selected) {
    if (mask)
        for (uint64_t i = 0; i < rows; i++) selected[i] = mask[from + i] != 0;
    else
        memset(selected, 1, rows);
    if (!view_has_nulls(view)) return;
    const columnar_array *nulls = &view->nulls;
    const uint8_t *data = nulls->data;
    if (nulls->width == 1) {
        /* Nulls are usually rare: a 64-row word without one costs a load and a test. */
        const uint8_t *bits = data + from / 8;
        for (uint64_t w = 0; w < null_words(rows); w++)
            for (uint64_t word = null_word(bits, w, rows); word; word &= word - 1)
                selected[w * 64 + (uint64_t)__builtin_ctzll(word)] = 0;
        return;
    }
    if (nulls->width == 8) {
        for (uint64_t i = 0; i < rows; i++) selected[i] &= data[from + i] == 0;
        return;
    }
    uint8_t flags[CC_BLOCK_ROWS];
    cc_unpack_flags(data, nulls->width, from, rows, flags);
    for (uint64_t i = 0; i < rows; i++) selected[i] &= !flags[i];
}

/* The first selected row of a block (one must be). */
static uint64_t first_selected(const uint8_t *selected) {
    uint64_t row = 0;
    while (!selected[row]) row++;
    return row;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Ints                                                                                                         */
/* ---------------------------------------------------------------------------------------------------------- */

/* What one block adds: `seen` values summing to sum_high * 2^32 + sum_low, with extremes min and max. Fields of
 * aggregates not wanted stay as they were. */
typedef struct int_block {
    uint64_t seen;
    int64_t sum_high, sum_low;
    int64_t min, max;
} int_block;

/* How the rows of a block are selected (see the top of the file). */
typedef struct block_rows {
    uint64_t count;             /* rows in the block */
    uint64_t seen;              /* of which selected (> 0) */
    const uint8_t *selected;    /* selection bytes, or NULL */
    const uint8_t *null_bits;   /* else the block's 1-bit null flags when some row is null, or NULL: all selected */
} block_rows;

/* A block's values made dense (DEFINE_FILL) in the element's type; or decoded to bytes, followed by their dense
 * copy (a copy in place would make the compiler fall back to a scalar loop, as it cannot rule out overlap). */
typedef union int_scratch {
    int64_t int64s[CC_BLOCK_ROWS];
    int32_t int32s[CC_BLOCK_ROWS];
    int16_t int16s[CC_BLOCK_ROWS];
    int8_t int8s[CC_BLOCK_ROWS];
    uint8_t bytes[2 * CC_BLOCK_ROWS];
} int_scratch;

/* The sums below add at most CC_BLOCK_ROWS values in int32 lanes, each below 2^16 in magnitude, and 64-bit
 * halves in int64 lanes, each below 2^32: with at most 2^14 rows neither can overflow. */
_Static_assert(CC_BLOCK_ROWS <= (1u << 14), "block sums of 16-bit halves must fit in an int32");

/* The min and max of `rows` elements of type T read with LOAD(i), each computed only when wanted; both together in
 * one loop, so that the values are loaded once. */
#define MIN_MAX_LOOPS(T, T_MIN, T_MAX, LOAD)                                                                       \
    bool wants_min = (wanted & COLUMNAR_AGGREGATE_MIN) != 0, wants_max = (wanted & COLUMNAR_AGGREGATE_MAX) != 0;   \
    T min = T_MAX, max = T_MIN;                                                                                    \
    if (wants_min && wants_max) {                                                                                  \
        for (uint64_t i = 0; i < rows; i++) {                                                                      \
            T v = LOAD(i);                                                                                         \
            min = v < min ? v : min;                                                                               \
            max = v > max ? v : max;                                                                               \
        }                                                                                                          \
    } else if (wants_min) {                                                                                        \
        for (uint64_t i = 0; i < rows; i++) {                                                                      \
            T v = LOAD(i);                                                                                         \
            min = v < min ? v : min;                                                                               \
        }                                                                                                          \
    } else if (wants_max) {                                                                                        \
        for (uint64_t i = 0; i < rows; i++) {                                                                      \
            T v = LOAD(i);                                                                                         \
            max = v > max ? v : max;                                                                               \
        }                                                                                                          \
    }                                                                                                              \
    out->min = min;                                                                                                \
    out->max = max;

/* 64-bit min and max: SSE2 has no 64-bit compare, and the compiler's emulation of one costs more than scalar
 * compares, so each loop keeps four running extremes (a single one would wait on the previous row's result at
 * every row). Targets with 64-bit vector compares (AVX2) vectorize the loops all the same, but only one extreme
 * per loop: min and max are separate passes over the block (in L1 by then). */
#define UPDATE_MIN(lane, v) (min[lane] = (v) < min[lane] ? (v) : min[lane])
#define UPDATE_MAX(lane, v) (max[lane] = (v) > max[lane] ? (v) : max[lane])
#define FOUR_CHAINS(UPDATE)                                                                                        \
    do {                                                                                                           \
        uint64_t i = 0;                                                                                            \
        for (; i + 4 <= rows; i += 4) {                                                                            \
            for (int lane = 0; lane < 4; lane++) {                                                                 \
                int64_t v = load_i64(data + (i + lane) * 8);                                                       \
                UPDATE(lane, v);                                                                                   \
            }                                                                                                      \
        }                                                                                                          \
        for (; i < rows; i++) {                                                                                    \
            int64_t v = load_i64(data + i * 8);                                                                    \
            UPDATE(0, v);                                                                                          \
        }                                                                                                          \
    } while (0)

VECTOR_CLONES static void int64_min_max(const uint8_t *data, uint64_t rows, uint32_t wanted, int_block *out) {
    int64_t min[4] = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
    int64_t max[4] = {INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN};
    bool wants_min = (wanted & COLUMNAR_AGGREGATE_MIN) != 0, wants_max = (wanted & COLUMNAR_AGGREGATE_MAX) != 0;
    if (wants_min) FOUR_CHAINS(UPDATE_MIN);
    if (wants_max) FOUR_CHAINS(UPDATE_MAX);
    for (int lane = 1; lane < 4; lane++) {
        min[0] = min[lane] < min[0] ? min[lane] : min[0];
        max[0] = max[lane] > max[0] ? max[lane] : max[0];
    }
    out->min = min[0];
    out->max = max[0];
}
#undef UPDATE_MIN
#undef UPDATE_MAX
#undef FOUR_CHAINS

/* 8 and 16-bit values sum in int32 lanes. */
#define PLAIN_SUM(T, LOAD)                                                                                         \
    int32_t sum = 0;                                                                                               \
    for (uint64_t i = 0; i < rows; i++) sum += LOAD(i);                                                            \
    out->sum_low = sum;

/* 32-bit values sum as their high 16 bits (signed) and low 16 bits (unsigned) in int32 lanes: no widening to
 * int64 in the loop, which SSE2 spends three instructions on per pair of values. */
#define SPLIT_SUM_32(T, LOAD)                                                                                      \
    int32_t high_sum = 0, low_sum = 0;                                                                             \
    for (uint64_t i = 0; i < rows; i++) {                                                                          \
        int32_t v = LOAD(i);                                                                                       \
        high_sum += v >> 16;                                                                                       \
        low_sum += v & 0xffff;                                                                                     \
    }                                                                                                              \
    out->sum_low = (int64_t)high_sum * 65536 + low_sum;

/* 64-bit values sum as their high 32 bits (signed: |v >> 32| <= 2^31) and low 32 bits (unsigned) in int64
 * lanes. */
#define SPLIT_SUM_64(T, LOAD)                                                                                      \
    int64_t high_sum = 0, low_sum = 0;                                                                             \
    for (uint64_t i = 0; i < rows; i++) {                                                                          \
        int64_t v = LOAD(i);                                                                                       \
        high_sum += v >> 32;                                                                                       \
        low_sum += (int64_t)(uint32_t)v;                                                                           \
    }                                                                                                              \
    out->sum_high = high_sum;                                                                                      \
    out->sum_low = low_sum;

/* The dense loops of a type: `rows` elements of type T at `data`, every one selected. The sum and the extremes are
 * separate loops, so that each vectorizes on its own and an aggregate not wanted costs nothing. */
#define DEFINE_DENSE(NAME, T, T_MIN, T_MAX, LOAD, SUM_LOOP)                                                        \
    VECTOR_CLONES static void NAME##_dense(const uint8_t *data, uint64_t rows, uint32_t wanted, int_block *out) { \
        if (WANTS_SUM(wanted)) { SUM_LOOP(T, LOAD) }                                                               \
        if (WANTS_MIN_MAX(wanted)) { MIN_MAX_LOOPS(T, T_MIN, T_MAX, LOAD) }                                        \
    }

/* Makes a block dense (see the top of the file): copies its values (T, read with LOAD) to `out` with every
 * unselected row replaced by the value of a selected row, and returns that value. */
#define DEFINE_FILL(NAME, T, LOAD)                                                                                 \
    VECTOR_CLONES static T NAME##_fill(const uint8_t *data, const block_rows *block, T *out) {                     \
        uint64_t rows = block->count;                                                                              \
        if (block->selected) {                                                                                     \
            const uint8_t *selected = block->selected;                                                             \
            T filler = LOAD(first_selected(selected));                                                             \
            for (uint64_t i = 0; i < rows; i++) {                                                                  \
                T v = LOAD(i);                                                                                     \
                out[i] = selected[i] ? v : filler;                                                                 \
            }                                                                                                      \
            return filler;                                                                                         \
        }                                                                                                          \
        const uint8_t *bits = block->null_bits;                                                                    \
        T filler = LOAD(first_non_null(bits, rows));                                                               \
        for (uint64_t i = 0; i < rows; i++) out[i] = LOAD(i);                                                      \
        for (uint64_t w = 0; w < null_words(rows); w++)                                                            \
            for (uint64_t word = null_word(bits, w, rows); word; word &= word - 1)                                 \
                out[w * 64 + (uint64_t)__builtin_ctzll(word)] = filler;                                            \
        return filler;                                                                                             \
    }

#define LOAD_U8(i) data[i]
#define LOAD_I8(i) ((int8_t)data[i])
#define LOAD_I16(i) load_i16(data + (i) * 2)
#define LOAD_I32(i) load_i32(data + (i) * 4)
#define LOAD_I64(i) load_i64(data + (i) * 8)
DEFINE_DENSE(bytes, uint8_t, 0, UINT8_MAX, LOAD_U8, PLAIN_SUM)
DEFINE_DENSE(int8, int8_t, INT8_MIN, INT8_MAX, LOAD_I8, PLAIN_SUM)
DEFINE_DENSE(int16, int16_t, INT16_MIN, INT16_MAX, LOAD_I16, PLAIN_SUM)
DEFINE_DENSE(int32, int32_t, INT32_MIN, INT32_MAX, LOAD_I32, SPLIT_SUM_32)

VECTOR_CLONES static void int64_dense(const uint8_t *data, uint64_t rows, uint32_t wanted, int_block *out) {
    if (WANTS_SUM(wanted)) { SPLIT_SUM_64(int64_t, LOAD_I64) }
    if (WANTS_MIN_MAX(wanted)) int64_min_max(data, rows, wanted, out);
}

DEFINE_FILL(bytes, uint8_t, LOAD_U8)
DEFINE_FILL(int8, int8_t, LOAD_I8)
DEFINE_FILL(int16, int16_t, LOAD_I16)
DEFINE_FILL(int32, int32_t, LOAD_I32)
DEFINE_FILL(int64, int64_t, LOAD_I64)
#undef LOAD_U8
#undef LOAD_I8
#undef LOAD_I16
#undef LOAD_I32
#undef LOAD_I64

/* One block of an int view, from row `from`. */
static void int_block_aggregate(const columnar_column_view *view, uint64_t from, const block_rows *block,
                                uint32_t wanted, int_scratch *scratch, int_block *out) {
    const uint8_t *payload = view->values.data;
    uint32_t width = view->values.width;
    uint64_t rows = block->count;
    bool dense = !block->selected && !block->null_bits;
    out->seen = block->seen;
    if (width == 0) {
        out->min = out->max = 0;
        return;
    }
    int64_t filler = 0;
    bool split_sum = false;
    if (view->type == COLUMNAR_TYPE_BOOL || width < 8) {
        uint8_t *decoded = scratch->bytes;
        if (view->type == COLUMNAR_TYPE_BOOL && width > 1)
            cc_unpack_flags(payload, width, from, rows, decoded);
        else
            cc_unpack_small(payload, width, from, rows, decoded);
        const uint8_t *data = decoded;
        if (!dense) {
            filler = bytes_fill(decoded, block, scratch->bytes + CC_BLOCK_ROWS);
            data = scratch->bytes + CC_BLOCK_ROWS;
        }
        bytes_dense(data, rows, wanted, out);
    } else {
        const uint8_t *data = payload + from * (width / 8);
        if (!dense) {
            switch (width) {
            case 8: filler = int8_fill(data, block, scratch->int8s); break;
            case 16: filler = int16_fill(data, block, scratch->int16s); break;
            case 32: filler = int32_fill(data, block, scratch->int32s); break;
            default: filler = int64_fill(data, block, scratch->int64s); break;
            }
            data = scratch->bytes;
        }
        switch (width) {
        case 8: int8_dense(data, rows, wanted, out); break;
        case 16: int16_dense(data, rows, wanted, out); break;
        case 32: int32_dense(data, rows, wanted, out); break;
        default: int64_dense(data, rows, wanted, out); split_sum = true; break;
        }
    }
    if (!dense && WANTS_SUM(wanted)) {
        /* Take the fillers back out of the sum, in the sum's own halves (for 64-bit values each half of the
         * filler is below 2^32 in magnitude, times at most 2^14 rows). */
        int64_t unselected = (int64_t)(rows - block->seen);
        if (split_sum) {
            out->sum_high -= unselected * (filler >> 32);
            out->sum_low -= unselected * (int64_t)(uint32_t)filler;
        } else {
            out->sum_low -= unselected * filler;
        }
    }
    /* A based array (INT values of width 8 to 32: never split) was aggregated as stored; each selected row's value
     * is its element plus the base (|base| < 2^31, times at most a block's rows: far inside the low half). */
    int64_t base = view->values.base;
    if (base) {
        out->min += base;
        out->max += base;
        out->sum_low += (int64_t)block->seen * base;
    }
}

static void aggregate_ints(const columnar_column_view *view, const uint8_t *mask, uint32_t wanted,
                           columnar_aggregate *aggregate) {
    int_scratch scratch;
    uint8_t selected[CC_BLOCK_ROWS];
    bool has_nulls = view_has_nulls(view);
    bool null_bits = has_nulls && view->nulls.width == 1;
    for (uint64_t from = 0; from < view->count; from += CC_BLOCK_ROWS) {
        uint64_t rows = view->count - from < CC_BLOCK_ROWS ? view->count - from : CC_BLOCK_ROWS;
        block_rows block = {rows, rows, NULL, NULL};
        bool mask_full = !mask || mask_all_set(mask + from, rows);
        if (mask_full && null_bits) {
            const uint8_t *bits = (const uint8_t *)view->nulls.data + from / 8;
            block.seen = rows - null_bits_count(bits, rows);
            if (block.seen < rows) block.null_bits = bits;
        } else if (!mask_full || (has_nulls && block_has_null(view, from, rows, selected))) {
            block_selection(view, mask, from, rows, selected);
            block.seen = columnar_mask_count(selected, rows);
            if (block.seen < rows) block.selected = selected;
        }
        if (block.seen == 0) continue;
        int_block result = {0, 0, 0, 0, 0};
        int_block_aggregate(view, from, &block, wanted, &scratch, &result);
        aggregate->count += result.seen;
        if (WANTS_SUM(wanted)) add_split_sum(aggregate, result.sum_high, result.sum_low);
        merge_int_min_max(aggregate, wanted, result.seen, result.min, result.max);
    }
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Doubles and timestamps                                                                                       */
/* ---------------------------------------------------------------------------------------------------------- */

static inline double load_f64(const uint8_t *p) { double v; memcpy(&v, p, 8); return v; }

/* The extremes of a block of doubles (`rows` at `data`, unaligned), merged into the aggregate. NaNs are skipped
 * (`v < min` is false for them), so the caller marks unselected rows as NaN. The rows are spread over four running
 * extremes, which the compiler turns into vector minimums and maximums; that changes which of two equal values is
 * kept, and the only equal values that differ are -0.0 and +0.0: the row-order rule (the first one wins, as with
 * a single running extreme) is restored by looking up the first zero when an extreme is zero. */
static void double_min_max(const uint8_t *data, uint64_t rows, uint32_t wanted, columnar_aggregate *aggregate) {
    double min[4] = {INFINITY, INFINITY, INFINITY, INFINITY}, max[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
    /* Counted in doubles (exact far beyond a block's rows), so that the count vectorizes with the rest. */
    double ordered[4] = {0, 0, 0, 0};
    uint64_t i = 0;
    for (; i + 4 <= rows; i += 4) {
        for (int lane = 0; lane < 4; lane++) {
            double v = load_f64(data + (i + lane) * 8);
            min[lane] = v < min[lane] ? v : min[lane];
            max[lane] = v > max[lane] ? v : max[lane];
            ordered[lane] += v == v ? 1.0 : 0.0;
        }
    }
    for (; i < rows; i++) {
        double v = load_f64(data + i * 8);
        min[0] = v < min[0] ? v : min[0];
        max[0] = v > max[0] ? v : max[0];
        ordered[0] += v == v ? 1.0 : 0.0;
    }
    for (int lane = 1; lane < 4; lane++) {
        min[0] = min[lane] < min[0] ? min[lane] : min[0];
        max[0] = max[lane] > max[0] ? max[lane] : max[0];
        ordered[0] += ordered[lane];
    }
    if (ordered[0] == 0) return;
    if (min[0] == 0 || max[0] == 0) {
        uint64_t row = 0;
        while (load_f64(data + row * 8) != 0) row++;
        if (min[0] == 0) min[0] = load_f64(data + row * 8);
        if (max[0] == 0) max[0] = load_f64(data + row * 8);
    }
    merge_double_min_max(aggregate, wanted, (uint64_t)ordered[0], min[0], max[0]);
}

/* out[i] = the double at values + 8 * i where selected[i], else `fill`. Written on the bits, so that it compiles
 * to masks rather than a branch per row (a random mask would mispredict half of them). */
static void select_doubles(const uint8_t *values, const uint8_t *selected, uint64_t rows, double fill,
                           double *out) {
    uint64_t fill_bits;
    memcpy(&fill_bits, &fill, 8);
    for (uint64_t i = 0; i < rows; i++) {
        uint64_t bits, keep = -(uint64_t)selected[i];
        memcpy(&bits, values + i * 8, 8);
        bits = (bits & keep) | (fill_bits & ~keep);
        memcpy(&out[i], &bits, 8);
    }
}

/* Doubles are read in place, except for floats (widened to doubles in a block buffer) and blocks that are not
 * dense, whose unselected rows are replaced in a copy: by +0.0 for the sum (adding +0.0 changes nothing: a sum
 * that starts at +0.0 is never -0.0) and by NaN for min and max. */
static void aggregate_doubles(const columnar_column_view *view, const uint8_t *mask, uint32_t wanted,
                              columnar_aggregate *aggregate) {
    double buffer[CC_BLOCK_ROWS], selected_values[CC_BLOCK_ROWS];
    uint8_t selected[CC_BLOCK_ROWS];
    bool is_float = view->values.encoding == COLUMNAR_ENCODING_FLOAT;
    bool has_nulls = view_has_nulls(view);
    const uint8_t *data = view->values.data;
    double sum = aggregate->double_sum;
    for (uint64_t from = 0; from < view->count; from += CC_BLOCK_ROWS) {
        uint64_t rows = view->count - from < CC_BLOCK_ROWS ? view->count - from : CC_BLOCK_ROWS;
        const uint8_t *values = data + from * 8;
        if (is_float) {
            for (uint64_t i = 0; i < rows; i++) {
                float f;
                memcpy(&f, data + (from + i) * 4, 4);
                buffer[i] = f;
            }
            values = (const uint8_t *)buffer;
        }
        bool dense = (!mask || mask_all_set(mask + from, rows)) &&
                     !(has_nulls && block_has_null(view, from, rows, selected));
        if (!dense) block_selection(view, mask, from, rows, selected);
        if (WANTS_SUM(wanted)) {
            const uint8_t *addends = values;
            if (!dense) {
                select_doubles(values, selected, rows, 0.0, selected_values);
                addends = (const uint8_t *)selected_values;
            }
            for (uint64_t i = 0; i < rows; i++) sum += load_f64(addends + i * 8);
        }
        if (WANTS_MIN_MAX(wanted)) {
            const uint8_t *candidates = values;
            if (!dense) {
                select_doubles(values, selected, rows, NAN, selected_values);
                candidates = (const uint8_t *)selected_values;
            }
            double_min_max(candidates, rows, wanted, aggregate);
        }
        aggregate->count += dense ? rows : columnar_mask_count(selected, rows);
    }
    aggregate->double_sum = sum;
}

static void aggregate_timestamps(const columnar_column_view *view, const uint8_t *mask, uint32_t wanted,
                                 columnar_aggregate *aggregate) {
    int64_t seconds[CC_BLOCK_ROWS], nanos[CC_BLOCK_ROWS];
    uint8_t selected[CC_BLOCK_ROWS];
    for (uint64_t from = 0; from < view->count; from += CC_BLOCK_ROWS) {
        uint64_t rows = view->count - from < CC_BLOCK_ROWS ? view->count - from : CC_BLOCK_ROWS;
        block_selection(view, mask, from, rows, selected);
        uint64_t seen = columnar_mask_count(selected, rows);
        aggregate->count += seen;
        if (!WANTS_MIN_MAX(wanted) || seen == 0) continue;
        cc_unpack_ints(view->values.data, view->values.width, from, rows, seconds);
        cc_unpack_ints(view->nanos.data, view->nanos.width, from, rows, nanos);
        int64_t min_seconds = INT64_MAX, max_seconds = INT64_MIN, min_nanos = INT64_MAX, max_nanos = INT64_MIN;
        for (uint64_t i = 0; i < rows; i++) {
            if (!selected[i]) continue;
            if (seconds[i] < min_seconds || (seconds[i] == min_seconds && nanos[i] < min_nanos)) {
                min_seconds = seconds[i];
                min_nanos = nanos[i];
            }
            if (seconds[i] > max_seconds || (seconds[i] == max_seconds && nanos[i] > max_nanos)) {
                max_seconds = seconds[i];
                max_nanos = nanos[i];
            }
        }
        merge_timestamp_min_max(aggregate, wanted, seen, min_seconds, (int32_t)min_nanos, max_seconds,
                                (int32_t)max_nanos);
    }
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Entry points                                                                                                 */
/* ---------------------------------------------------------------------------------------------------------- */

/* The number of masked rows (mask NULL: all). */
static uint64_t masked_rows(const uint8_t *mask, uint64_t rows) {
    return mask ? columnar_mask_count(mask, rows) : rows;
}

void columnar_kernel_aggregate_select(const columnar_column_view *view, const uint8_t *mask, uint32_t wanted,
                                      columnar_aggregate *aggregate) {
    uint64_t rows = view->count;
    bool is_int = view->type == COLUMNAR_TYPE_INT || view->type == COLUMNAR_TYPE_BOOL ||
                  view->type == COLUMNAR_TYPE_LINK;
    bool is_double = view->type == COLUMNAR_TYPE_FLOAT || view->type == COLUMNAR_TYPE_DOUBLE;
    bool is_timestamp = view->type == COLUMNAR_TYPE_TIMESTAMP;
    if (!(is_int || is_double || is_timestamp) || !cc_view_nulls_ok(view)) return;
    if (view->all_default) {
        /* Every row is null (skipped) or the zero value, which adds nothing to a sum. */
        if (view->nullable) return;
        uint64_t seen = masked_rows(mask, rows);
        aggregate->count += seen;
        if (is_int) merge_int_min_max(aggregate, wanted, seen, 0, 0);
        else if (is_double) merge_double_min_max(aggregate, wanted, seen, 0.0, 0.0);
        else merge_timestamp_min_max(aggregate, wanted, seen, 0, 0, 0, 0);
        return;
    }
    if (is_int) {
        if (cc_packed_array_ok(&view->values, rows) && cc_values_base_ok(view))
            aggregate_ints(view, mask, wanted, aggregate);
    } else if (is_double) {
        const columnar_array *values = &view->values;
        bool ok = ((values->encoding == COLUMNAR_ENCODING_FLOAT && values->width == 32) ||
                   (values->encoding == COLUMNAR_ENCODING_DOUBLE && values->width == 64)) &&
                  values->count >= rows && (rows == 0 || values->data);
        if (ok) aggregate_doubles(view, mask, wanted, aggregate);
    } else if (cc_packed_array_ok(&view->values, rows) && cc_packed_array_ok(&view->nanos, rows) &&
               cc_values_base_ok(view) && !view->nanos.base) {
        aggregate_timestamps(view, mask, wanted, aggregate);
    }
}

void columnar_kernel_aggregate(const columnar_column_view *view, const uint8_t *mask, columnar_aggregate *aggregate) {
    columnar_kernel_aggregate_select(view, mask, COLUMNAR_AGGREGATE_ALL, aggregate);
}
