/*
 * bench_baseline.c — plain loops over an int64_t array (see bench_baseline.h). Written the obvious way and left
 * for the compiler to vectorize, as it does the storage engine's kernels: no intrinsics, no unrolling by hand.
 */
#include "bench_baseline.h"

int64_t bench_baseline_count_greater(const int64_t *values, size_t count, int64_t threshold) {
    int64_t matches = 0;
    for (size_t index = 0; index < count; index++) matches += values[index] > threshold;
    return matches;
}

int64_t bench_baseline_sum(const int64_t *values, size_t count) {
    /* Unsigned arithmetic: wrapping is defined, and lets the compiler vectorize without overflow concerns. */
    uint64_t sum = 0;
    for (size_t index = 0; index < count; index++) sum += (uint64_t)values[index];
    return (int64_t)sum;
}

int64_t bench_baseline_min(const int64_t *values, size_t count) {
    int64_t minimum = INT64_MAX;
    for (size_t index = 0; index < count; index++) minimum = values[index] < minimum ? values[index] : minimum;
    return minimum;
}

int64_t bench_baseline_max(const int64_t *values, size_t count) {
    int64_t maximum = INT64_MIN;
    for (size_t index = 0; index < count; index++) maximum = values[index] > maximum ? values[index] : maximum;
    return maximum;
}
