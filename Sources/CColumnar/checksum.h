/*
 * checksum.h — CRC-32C (Castagnoli), the checksum of node headers+payloads and header slots.
 * Chosen because x86-64 computes it in hardware (SSE4.2), so checksumming every node a commit writes costs
 * little next to the write itself; a table-driven version covers other CPUs.
 */
#ifndef COLUMNAR_CHECKSUM_H
#define COLUMNAR_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32C of `size` bytes, continuing from `crc` (pass 0 to start). */
uint32_t cc_crc32c(uint32_t crc, const void *data, size_t size);

#endif
