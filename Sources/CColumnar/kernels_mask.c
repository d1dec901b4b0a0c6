/*
 * kernels_mask.c — combining and counting the byte masks the kernels write (one byte per row of a cluster).
 *
 * The inputs are 0/1 masks; the loops normalise to 0/1 as they go, so a non-zero byte of any value (such as the
 * string kernel's undecided 2, if a caller combines it without resolving it first) counts as set.
 */
#include "kernels.h"

void columnar_mask_and(uint8_t *dst, const uint8_t *src, uint64_t count) {
    for (uint64_t i = 0; i < count; i++) dst[i] = (uint8_t)((dst[i] != 0) & (src[i] != 0));
}

void columnar_mask_or(uint8_t *dst, const uint8_t *src, uint64_t count) {
    for (uint64_t i = 0; i < count; i++) dst[i] = (uint8_t)((dst[i] != 0) | (src[i] != 0));
}

void columnar_mask_not(uint8_t *dst, uint64_t count) {
    for (uint64_t i = 0; i < count; i++) dst[i] = dst[i] == 0;
}

uint64_t columnar_mask_count(const uint8_t *mask, uint64_t count) {
    /* Counting into a byte, 255 rows at a time, lets the loop run on byte lanes (16 or 32 rows per instruction);
     * a 64-bit counter would make the compiler widen every byte to 64 bits. */
    uint64_t set = 0;
    for (uint64_t from = 0; from < count; from += 255) {
        uint64_t rows = count - from < 255 ? count - from : 255;
        uint8_t block_set = 0;
        for (uint64_t i = 0; i < rows; i++) block_set += mask[from + i] != 0;
        set += block_set;
    }
    return set;
}
