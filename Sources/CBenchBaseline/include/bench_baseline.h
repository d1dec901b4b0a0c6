/*
 * bench_baseline.h — the "plain C loop over a plain array" that columnar-bench measures Columnar's scans against.
 *
 * Each function is the loop a C programmer would write for the question, over a contiguous array of int64_t
 * values already in memory: no storage engine, no pages, no packing, no nulls. The target is compiled with the
 * same release flags as CColumnar (see Package.swift), so its figures are the ceiling a column scan can approach.
 * Used only by columnar-bench; not part of Columnar.
 */
#ifndef BENCH_BASELINE_H
#define BENCH_BASELINE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The number of elements of `values[0 ..< count]` greater than `threshold`. */
int64_t bench_baseline_count_greater(const int64_t *values, size_t count, int64_t threshold);

/** The sum of `values[0 ..< count]` (wrapping on overflow: callers keep the sum within int64_t); 0 when empty. */
int64_t bench_baseline_sum(const int64_t *values, size_t count);

/** The smallest of `values[0 ..< count]`; INT64_MAX when `count` is 0. */
int64_t bench_baseline_min(const int64_t *values, size_t count);

/** The largest of `values[0 ..< count]`; INT64_MIN when `count` is 0. */
int64_t bench_baseline_max(const int64_t *values, size_t count);

#ifdef __cplusplus
}
#endif

#endif /* BENCH_BASELINE_H */
