/*
 * checksum.c — CRC-32C with a hardware path (SSE4.2 crc32 instruction, chosen at run time) and a
 * byte-at-a-time table fallback. Both produce the standard CRC-32C (reflected, polynomial 0x82F63B78).
 */
#include "checksum.h"

#include <stdbool.h>
#include <string.h>

static uint32_t crc_table[256];
static int crc_table_ready;

static void build_table(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        crc_table[n] = c;
    }
    __atomic_store_n(&crc_table_ready, 1, __ATOMIC_RELEASE);
}

static uint32_t crc32c_table(uint32_t crc, const uint8_t *bytes, size_t size) {
    if (!__atomic_load_n(&crc_table_ready, __ATOMIC_ACQUIRE)) build_table();
    for (size_t i = 0; i < size; i++) crc = crc_table[(crc ^ bytes[i]) & 0xFF] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc32c_hw(uint32_t crc, const uint8_t *bytes, size_t size) {
    uint64_t c = crc;
    while (size >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        c = __builtin_ia32_crc32di(c, word);
        bytes += 8;
        size -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (size--) c32 = __builtin_ia32_crc32qi(c32, *bytes++);
    return c32;
}
#endif

uint32_t cc_crc32c(uint32_t crc, const void *data, size_t size) {
    crc = ~crc;
#if defined(__x86_64__)
    static int has_sse42 = -1;
    if (has_sse42 < 0) {
        __builtin_cpu_init();
        has_sse42 = __builtin_cpu_supports("sse4.2") ? 1 : 0;
    }
    if (has_sse42) return ~crc32c_hw(crc, data, size);
#endif
    return ~crc32c_table(crc, data, size);
}
