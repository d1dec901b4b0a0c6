/*
 * kernels_aggregate.c — count, sum, min and max over the masked, non-null rows of one cluster, added to a running
 * columnar_aggregate so a query folds clusters one after another.
 *
 * Int sums are exact in 128 bits without a 128-bit add per row: each value is split into its high 32 bits
 * (signed) and low 32 bits (unsigned), which are summed in two int64 accumulators that cannot overflow within a
 * block of CC_BLOCK_ROWS rows, and the block's total is then added in 128 bits. The per-row loop is thus plain
 * int64 arithmetic with selects, which the compiler vectorizes. Double sums add in row order (like a plain loop
 * would), so a caller that folds clusters in key order gets the same result as summing the values in that order.
 */
#include "kernels.h"

#include <math.h>

/* Adds the 128-bit two's complement number (high, low) to the aggregate's int sum. */
static void add_128(columnar_aggregate *aggregate, int64_t high, uint64_t low) {
    uint64_t sum_low = aggregate->int_sum_low + low;
    uint64_t carry = sum_low < low;
    aggregate->int_sum_low = sum_low;
    /* Unsigned arithmetic wraps where signed would overflow (undefined); the bits are the same. */
    aggregate->int_sum_high = (int64_t)((uint64_t)aggregate->int_sum_high + (uint64_t)high + carry);
}

/* Selected rows of a block: masked in (mask NULL: all) and not null. */
static void block_selection(const columnar_column_view *view, const uint8_t *mask, uint64_t from, uint64_t rows,
                            uint8_t *selected) {
    if (view->nulls.encoding == COLUMNAR_ENCODING_PACKED_INT)
        cc_unpack_flags(view->nulls.data, view->nulls.width, from, rows, selected);
    else
        memset(selected, 0, rows);
    if (mask)
        for (uint64_t i = 0; i < rows; i++) selected[i] = (uint8_t)(!selected[i] & (mask[from + i] != 0));
    else
        for (uint64_t i = 0; i < rows; i++) selected[i] = !selected[i];
}

static uint64_t masked_rows(const uint8_t *mask, uint64_t rows) {
    if (!mask) return rows;
    uint64_t set = 0;
    for (uint64_t i = 0; i < rows; i++) set += mask[i] != 0;
    return set;
}

static void merge_int_min_max(columnar_aggregate *aggregate, uint64_t seen, int64_t min, int64_t max) {
    if (!seen) return;
    if (aggregate->minmax_count == 0 || min < aggregate->int_min) aggregate->int_min = min;
    if (aggregate->minmax_count == 0 || max > aggregate->int_max) aggregate->int_max = max;
    aggregate->minmax_count += seen;
}

static void merge_double_min_max(columnar_aggregate *aggregate, uint64_t seen, double min, double max) {
    if (!seen) return;
    if (aggregate->minmax_count == 0 || min < aggregate->double_min) aggregate->double_min = min;
    if (aggregate->minmax_count == 0 || max > aggregate->double_max) aggregate->double_max = max;
    aggregate->minmax_count += seen;
}

static bool timestamp_less(int64_t seconds_a, int32_t nanos_a, int64_t seconds_b, int32_t nanos_b) {
    return seconds_a < seconds_b || (seconds_a == seconds_b && nanos_a < nanos_b);
}

static void merge_timestamp_min_max(columnar_aggregate *aggregate, uint64_t seen, int64_t min_seconds,
                                    int32_t min_nanos, int64_t max_seconds, int32_t max_nanos) {
    if (!seen) return;
    if (aggregate->minmax_count == 0 ||
        timestamp_less(min_seconds, min_nanos, aggregate->seconds_min, aggregate->nanos_min)) {
        aggregate->seconds_min = min_seconds;
        aggregate->nanos_min = min_nanos;
    }
    if (aggregate->minmax_count == 0 ||
        timestamp_less(aggregate->seconds_max, aggregate->nanos_max, max_seconds, max_nanos)) {
        aggregate->seconds_max = max_seconds;
        aggregate->nanos_max = max_nanos;
    }
    aggregate->minmax_count += seen;
}

static void aggregate_ints(const columnar_column_view *view, const uint8_t *mask, columnar_aggregate *aggregate) {
    int64_t values[CC_BLOCK_ROWS];
    uint8_t selected[CC_BLOCK_ROWS];
    bool is_bool = view->type == COLUMNAR_TYPE_BOOL;
    for (uint64_t from = 0; from < view->count; from += CC_BLOCK_ROWS) {
        uint64_t rows = view->count - from < CC_BLOCK_ROWS ? view->count - from : CC_BLOCK_ROWS;
        cc_unpack_ints(view->values.data, view->values.width, from, rows, values);
        if (is_bool)
            for (uint64_t i = 0; i < rows; i++) values[i] = values[i] != 0;
        block_selection(view, mask, from, rows, selected);
        /* |high| <= 2^31 and low < 2^32 per row, so 1024 rows sum to at most 2^42 in magnitude: no overflow. */
        int64_t high_sum = 0, low_sum = 0, min = INT64_MAX, max = INT64_MIN;
        uint64_t seen = 0;
        for (uint64_t i = 0; i < rows; i++) {
            int64_t v = values[i];
            bool take = selected[i];
            high_sum += take ? (v >> 32) : 0;
            low_sum += take ? (int64_t)(uint32_t)v : 0;
            seen += take;
            min = take && v < min ? v : min;
            max = take && v > max ? v : max;
        }
        /* The block's total is high_sum * 2^32 + low_sum; high_sum * 2^32 spans two 64-bit halves. */
        int64_t total_high = high_sum >> 32;
        uint64_t total_low = (uint64_t)high_sum << 32;
        uint64_t with_low = total_low + (uint64_t)low_sum;
        total_high += with_low < total_low;
        add_128(aggregate, total_high, with_low);
        aggregate->count += seen;
        merge_int_min_max(aggregate, seen, min, max);
    }
}

static void aggregate_doubles(const columnar_column_view *view, const uint8_t *mask, columnar_aggregate *aggregate) {
    double values[CC_BLOCK_ROWS];
    uint8_t selected[CC_BLOCK_ROWS];
    bool is_float = view->values.encoding == COLUMNAR_ENCODING_FLOAT;
    const uint8_t *data = view->values.data;
    double sum = aggregate->double_sum;
    for (uint64_t from = 0; from < view->count; from += CC_BLOCK_ROWS) {
        uint64_t rows = view->count - from < CC_BLOCK_ROWS ? view->count - from : CC_BLOCK_ROWS;
        if (is_float) {
            for (uint64_t i = 0; i < rows; i++) {
                float f;
                memcpy(&f, data + (from + i) * 4, 4);
                values[i] = f;
            }
        } else {
            memcpy(values, data + from * 8, rows * 8);
        }
        block_selection(view, mask, from, rows, selected);
        double min = INFINITY, max = -INFINITY;
        uint64_t seen = 0, ordered = 0;
        for (uint64_t i = 0; i < rows; i++) {
            double v = values[i];
            bool take = selected[i];
            /* Adding +0.0 for a skipped row changes nothing: a sum that starts at +0.0 is never -0.0. */
            sum += take ? v : 0.0;
            seen += take;
            bool compare = take && !isnan(v);
            ordered += compare;
            min = compare && v < min ? v : min;
            max = compare && v > max ? v : max;
        }
        aggregate->count += seen;
        merge_double_min_max(aggregate, ordered, min, max);
    }
    aggregate->double_sum = sum;
}

static void aggregate_timestamps(const columnar_column_view *view, const uint8_t *mask,
                                 columnar_aggregate *aggregate) {
    int64_t seconds[CC_BLOCK_ROWS], nanos[CC_BLOCK_ROWS];
    uint8_t selected[CC_BLOCK_ROWS];
    for (uint64_t from = 0; from < view->count; from += CC_BLOCK_ROWS) {
        uint64_t rows = view->count - from < CC_BLOCK_ROWS ? view->count - from : CC_BLOCK_ROWS;
        cc_unpack_ints(view->values.data, view->values.width, from, rows, seconds);
        cc_unpack_ints(view->nanos.data, view->nanos.width, from, rows, nanos);
        block_selection(view, mask, from, rows, selected);
        int64_t min_seconds = INT64_MAX, max_seconds = INT64_MIN, min_nanos = INT64_MAX, max_nanos = INT64_MIN;
        uint64_t seen = 0;
        for (uint64_t i = 0; i < rows; i++) {
            if (!selected[i]) continue;
            seen++;
            if (seconds[i] < min_seconds || (seconds[i] == min_seconds && nanos[i] < min_nanos)) {
                min_seconds = seconds[i];
                min_nanos = nanos[i];
            }
            if (seconds[i] > max_seconds || (seconds[i] == max_seconds && nanos[i] > max_nanos)) {
                max_seconds = seconds[i];
                max_nanos = nanos[i];
            }
        }
        aggregate->count += seen;
        merge_timestamp_min_max(aggregate, seen, min_seconds, (int32_t)min_nanos, max_seconds, (int32_t)max_nanos);
    }
}

void columnar_kernel_aggregate(const columnar_column_view *view, const uint8_t *mask, columnar_aggregate *aggregate) {
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
        if (is_int) merge_int_min_max(aggregate, seen, 0, 0);
        else if (is_double) merge_double_min_max(aggregate, seen, 0.0, 0.0);
        else merge_timestamp_min_max(aggregate, seen, 0, 0, 0, 0);
        return;
    }
    if (is_int) {
        if (cc_packed_array_ok(&view->values, rows)) aggregate_ints(view, mask, aggregate);
    } else if (is_double) {
        const columnar_array *values = &view->values;
        bool ok = ((values->encoding == COLUMNAR_ENCODING_FLOAT && values->width == 32) ||
                   (values->encoding == COLUMNAR_ENCODING_DOUBLE && values->width == 64)) &&
                  values->count >= rows && (rows == 0 || values->data);
        if (ok) aggregate_doubles(view, mask, aggregate);
    } else if (cc_packed_array_ok(&view->values, rows) && cc_packed_array_ok(&view->nanos, rows)) {
        aggregate_timestamps(view, mask, aggregate);
    }
}
