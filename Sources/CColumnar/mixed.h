/*
 * mixed.h — the encoding of mixed values (columnar.h, "Mixed values"): one tag byte naming the value's type, then
 * its payload, little-endian. The engine stores an encoding as it stores a BINARY value; this is the one place
 * that knows what is inside it.
 */
#ifndef COLUMNAR_MIXED_H
#define COLUMNAR_MIXED_H

#include "columnar.h"

#include <stddef.h>
#include <stdint.h>

/* Decodes the encoding `data[0 ..< size]` into `out` (STRING and BINARY pointing into `data`, LINK with
 * `as.typed_link`, a nested collection with its payload in `as.bytes`, checked whole). Returns NULL on success, or
 * without touching the thread's last error a static phrase saying what is wrong ("an unknown type tag", ...),
 * which callers put into their own messages: an ETYPE for a value being set, a COLUMNAR_ECORRUPT for one read from
 * the file, a verify finding. `out` may be NULL to check only. */
const char *cc_mixed_unpack(const uint8_t *data, size_t size, columnar_value *out);

#endif /* COLUMNAR_MIXED_H */
