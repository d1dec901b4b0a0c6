/*
 * mixed.c — encoding and decoding mixed values (columnar.h, "Mixed values"; docs/FileFormat.md, "Mixed values").
 *
 * An encoding is a tag byte, the columnar_type of the value, followed by a payload whose size the tag fixes
 * (STRING and BINARY: any size up to COLUMNAR_MAX_VALUE_BYTES - 1). Multi-byte fields are little-endian, as
 * everything in the file is; the engine refuses to build on big-endian hosts (format.h), so they are copied as
 * they lie. Decoding checks everything a reader relies on: the tag, the payload size, a bool being 0 or 1,
 * nanoseconds in 0 ... 999,999,999 and a link key that is a possible object key (not negative).
 */
#include "mixed.h"

#include "error.h"

#include <string.h>

/* The payload size of a fixed-size type, or -1 for STRING and BINARY (any size) and for an unknown tag. */
static int fixed_payload_bytes(uint8_t tag) {
    switch (tag) {
    case COLUMNAR_TYPE_INT: case COLUMNAR_TYPE_DOUBLE: return 8;
    case COLUMNAR_TYPE_BOOL: return 1;
    case COLUMNAR_TYPE_FLOAT: return 4;
    case COLUMNAR_TYPE_TIMESTAMP: case COLUMNAR_TYPE_OBJECTID: case COLUMNAR_TYPE_LINK: return 12;
    case COLUMNAR_TYPE_UUID: case COLUMNAR_TYPE_DECIMAL128: return 16;
    default: return -1;
    }
}

static bool is_bytes_tag(uint8_t tag) { return tag == COLUMNAR_TYPE_STRING || tag == COLUMNAR_TYPE_BINARY; }

int columnar_mixed_encode(const columnar_value *value, void *out, size_t capacity, size_t *out_size) {
    if (!value || !out_size || (!out && capacity)) return CC_MISUSE("columnar_mixed_encode: NULL argument");
    *out_size = 0;
    if (value->is_null) return CC_MISUSE("a null mixed value has no encoding (store null instead)");
    uint8_t tag = (uint8_t)value->type;
    if ((unsigned)value->type > COLUMNAR_TYPE_LINK || (!is_bytes_tag(tag) && fixed_payload_bytes(tag) < 0))
        return CC_MISUSE("columnar_mixed_encode: type %u is not a type a mixed value can hold", (unsigned)value->type);
    size_t payload_bytes;
    if (is_bytes_tag(tag)) {
        payload_bytes = value->as.bytes.size;
        if (payload_bytes && !value->as.bytes.data) return CC_MISUSE("columnar_mixed_encode: bytes pointer is NULL");
        if (payload_bytes > COLUMNAR_MAX_VALUE_BYTES - 1) {
            *out_size = payload_bytes + 1;
            return cc_error(COLUMNAR_ETOOBIG, 0, "", "a mixed %s of %zu bytes has an encoding larger than %u bytes",
                            tag == COLUMNAR_TYPE_STRING ? "string" : "binary value", payload_bytes,
                            COLUMNAR_MAX_VALUE_BYTES);
        }
    } else {
        payload_bytes = (size_t)fixed_payload_bytes(tag);
    }
    if (tag == COLUMNAR_TYPE_TIMESTAMP &&
        (value->as.timestamp.nanoseconds < 0 || value->as.timestamp.nanoseconds > 999999999))
        return CC_MISUSE("columnar_mixed_encode: a timestamp with %d nanoseconds (0 ... 999999999)",
                         value->as.timestamp.nanoseconds);
    if (tag == COLUMNAR_TYPE_LINK && value->as.typed_link.key < 0)
        return CC_MISUSE("columnar_mixed_encode: a link to key %lld (keys are not negative)",
                         (long long)value->as.typed_link.key);
    *out_size = 1 + payload_bytes;
    if (capacity < 1 + payload_bytes)
        return cc_error(COLUMNAR_ETOOBIG, 0, "", "the mixed encoding takes %zu bytes; the buffer has %zu",
                        1 + payload_bytes, capacity);
    uint8_t *bytes = out;
    uint8_t *payload = bytes + 1;
    bytes[0] = tag;
    switch (tag) {
    case COLUMNAR_TYPE_INT: memcpy(payload, &value->as.i, 8); break;
    case COLUMNAR_TYPE_BOOL: payload[0] = value->as.b ? 1 : 0; break;
    case COLUMNAR_TYPE_FLOAT: memcpy(payload, &value->as.f, 4); break;
    case COLUMNAR_TYPE_DOUBLE: memcpy(payload, &value->as.d, 8); break;
    case COLUMNAR_TYPE_STRING: case COLUMNAR_TYPE_BINARY:
        if (payload_bytes) memcpy(payload, value->as.bytes.data, payload_bytes);
        break;
    case COLUMNAR_TYPE_TIMESTAMP:
        memcpy(payload, &value->as.timestamp.seconds, 8);
        memcpy(payload + 8, &value->as.timestamp.nanoseconds, 4);
        break;
    case COLUMNAR_TYPE_OBJECTID: memcpy(payload, value->as.objectid, 12); break;
    case COLUMNAR_TYPE_UUID: memcpy(payload, value->as.uuid, 16); break;
    case COLUMNAR_TYPE_DECIMAL128: memcpy(payload, value->as.decimal128, 16); break;
    case COLUMNAR_TYPE_LINK:
        memcpy(payload, &value->as.typed_link.table, 4);
        memcpy(payload + 4, &value->as.typed_link.key, 8);
        break;
    }
    return 0;
}

const char *cc_mixed_unpack(const uint8_t *data, size_t size, columnar_value *out) {
    if (size == 0 || !data) return "an empty encoding (no tag byte)";
    uint8_t tag = data[0];
    const uint8_t *payload = data + 1;
    size_t payload_bytes = size - 1;
    if (!is_bytes_tag(tag)) {
        int expected = fixed_payload_bytes(tag);
        if (expected < 0) return "an unknown type tag";
        if (payload_bytes != (size_t)expected) return "a payload of the wrong size for its type tag";
    } else if (payload_bytes > COLUMNAR_MAX_VALUE_BYTES - 1) {
        return "a string or binary payload larger than a value may be";
    }
    columnar_value value;
    memset(&value, 0, sizeof value);
    value.type = (columnar_type)tag;
    switch (tag) {
    case COLUMNAR_TYPE_INT: memcpy(&value.as.i, payload, 8); break;
    case COLUMNAR_TYPE_BOOL:
        if (payload[0] > 1) return "a bool other than 0 or 1";
        value.as.b = payload[0] == 1;
        break;
    case COLUMNAR_TYPE_FLOAT: memcpy(&value.as.f, payload, 4); break;
    case COLUMNAR_TYPE_DOUBLE: memcpy(&value.as.d, payload, 8); break;
    case COLUMNAR_TYPE_STRING: case COLUMNAR_TYPE_BINARY:
        value.as.bytes.data = payload;
        value.as.bytes.size = payload_bytes;
        break;
    case COLUMNAR_TYPE_TIMESTAMP:
        memcpy(&value.as.timestamp.seconds, payload, 8);
        memcpy(&value.as.timestamp.nanoseconds, payload + 8, 4);
        if (value.as.timestamp.nanoseconds < 0 || value.as.timestamp.nanoseconds > 999999999)
            return "a timestamp whose nanoseconds are outside 0 ... 999999999";
        break;
    case COLUMNAR_TYPE_OBJECTID: memcpy(value.as.objectid, payload, 12); break;
    case COLUMNAR_TYPE_UUID: memcpy(value.as.uuid, payload, 16); break;
    case COLUMNAR_TYPE_DECIMAL128: memcpy(value.as.decimal128, payload, 16); break;
    case COLUMNAR_TYPE_LINK:
        memcpy(&value.as.typed_link.table, payload, 4);
        memcpy(&value.as.typed_link.key, payload + 4, 8);
        if (value.as.typed_link.key < 0) return "a link to a negative object key";
        break;
    }
    if (out) *out = value;
    return NULL;
}

int columnar_mixed_decode(const void *data, size_t size, columnar_value *out) {
    if (!out || (size && !data)) return CC_MISUSE("columnar_mixed_decode: NULL argument");
    const char *problem = cc_mixed_unpack(data, size, out);
    if (problem)
        return CC_CORRUPT(0, "a %zu-byte mixed value (tag %u) does not decode: %s", size,
                          size ? ((const uint8_t *)data)[0] : 0u, problem);
    return 0;
}
