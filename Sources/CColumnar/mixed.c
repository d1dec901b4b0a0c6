/*
 * mixed.c — encoding and decoding mixed values (columnar.h, "Mixed values"; docs/FileFormat.md, "Mixed values").
 *
 * An encoding is a tag byte, the columnar_type of the value, followed by a payload whose size the tag fixes
 * (STRING and BINARY: any size up to COLUMNAR_MAX_VALUE_BYTES - 1). Multi-byte fields are little-endian, as
 * everything in the file is; the engine refuses to build on big-endian hosts (format.h), so they are copied as
 * they lie. Decoding checks everything a reader relies on: the tag, the payload size, a bool being 0 or 1,
 * nanoseconds in 0 ... 999,999,999 and a link key that is a possible object key (not negative). A nested list or
 * dictionary (tags COLUMNAR_MIXED_LIST and _DICTIONARY) is checked whole, element by element, to a bounded depth.
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

/* ---------------------------------------------------------------------------------------------------------- */
/* Nested collections                                                                                           */
/* ---------------------------------------------------------------------------------------------------------- */

static uint32_t read_u32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static const char *unpack_at_depth(const uint8_t *data, size_t size, columnar_value *out, unsigned depth);

/* Checks a sized field at payload[*pos ...]: a u32 size and that many bytes, all inside `size`. */
static const char *take_sized(const uint8_t *payload, size_t size, size_t *pos, const uint8_t **field,
                              uint32_t *field_size) {
    if (size - *pos < 4) return "a nested collection that ends inside a size field";
    *field_size = read_u32(payload + *pos);
    *pos += 4;
    if (size - *pos < *field_size) return "a nested element or key that runs past the end of its collection";
    *field = payload + *pos;
    *pos += *field_size;
    return NULL;
}

/* Checks a nested element: size 0 is null, anything else a mixed encoding one level deeper. */
static const char *check_element(const uint8_t *field, uint32_t field_size, unsigned depth) {
    return field_size ? unpack_at_depth(field, field_size, NULL, depth + 1) : NULL;
}

/* Checks the payload of a LIST or DICTIONARY encoding (columnar.h, "Nested collections"): every field inside the
 * payload, every element a valid encoding, the keys of a dictionary strictly ascending bytewise, nothing left
 * over. Each element or entry takes at least 4 bytes, so a damaged count cannot make this loop longer than the
 * payload allows. */
static const char *check_collection(uint8_t tag, const uint8_t *payload, size_t size, unsigned depth) {
    if (depth >= COLUMNAR_MIXED_MAX_DEPTH) return "collections nested deeper than COLUMNAR_MIXED_MAX_DEPTH";
    if (size < 4) return "a nested collection without its count";
    uint32_t count = read_u32(payload);
    size_t pos = 4;
    const uint8_t *previous_key = NULL;
    uint32_t previous_key_size = 0;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *field;
        uint32_t field_size;
        const char *problem;
        if (tag == COLUMNAR_MIXED_DICTIONARY) {
            if ((problem = take_sized(payload, size, &pos, &field, &field_size))) return problem;
            if (previous_key) {
                uint32_t common = previous_key_size < field_size ? previous_key_size : field_size;
                int c = common ? memcmp(previous_key, field, common) : 0;
                if (c > 0 || (c == 0 && previous_key_size >= field_size))
                    return "dictionary keys that are not in strictly ascending order";
            }
            previous_key = field;
            previous_key_size = field_size;
        }
        if ((problem = take_sized(payload, size, &pos, &field, &field_size))) return problem;
        if ((problem = check_element(field, field_size, depth))) return problem;
    }
    if (pos != size) return "bytes left over after the last element of a nested collection";
    return NULL;
}

static bool is_collection_tag(uint8_t tag) { return tag == COLUMNAR_MIXED_LIST || tag == COLUMNAR_MIXED_DICTIONARY; }

/* Decodes a non-collection value's payload (checked: its size for the tag, a bool, nanoseconds, a link key). */
static const char *unpack_scalar(uint8_t tag, const uint8_t *payload, size_t payload_bytes, columnar_value *out) {
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

static const char *unpack_at_depth(const uint8_t *data, size_t size, columnar_value *out, unsigned depth) {
    if (size == 0 || !data) return "an empty encoding (no tag byte)";
    uint8_t tag = data[0];
    const uint8_t *payload = data + 1;
    size_t payload_bytes = size - 1;
    if (!is_collection_tag(tag)) return unpack_scalar(tag, payload, payload_bytes, out);
    if (payload_bytes > COLUMNAR_MAX_VALUE_BYTES - 1) return "a nested collection larger than a value may be";
    const char *problem = check_collection(tag, payload, payload_bytes, depth);
    if (problem) return problem;
    if (out) {
        memset(out, 0, sizeof *out);
        out->type = (columnar_type)tag;
        out->as.bytes.data = payload;
        out->as.bytes.size = payload_bytes;
    }
    return NULL;
}

const char *cc_mixed_unpack(const uint8_t *data, size_t size, columnar_value *out) {
    /* Every scan row goes through here: a non-collection value goes straight to its payload's decoder, without
     * the frame of the recursive walk nested collections take. */
    if (size > 0 && data && !is_collection_tag(data[0])) return unpack_scalar(data[0], data + 1, size - 1, out);
    return unpack_at_depth(data, size, out, 0);
}

int columnar_mixed_decode(const void *data, size_t size, columnar_value *out) {
    if (!out || (size && !data)) return CC_MISUSE("columnar_mixed_decode: NULL argument");
    const char *problem = cc_mixed_unpack(data, size, out);
    if (problem)
        return CC_CORRUPT(0, "a %zu-byte mixed value (tag %u) does not decode: %s", size,
                          size ? ((const uint8_t *)data)[0] : 0u, problem);
    return 0;
}

int columnar_mixed_cursor_init(const columnar_value *collection, columnar_mixed_cursor *cursor, uint32_t *out_count) {
    if (!collection || !cursor) return CC_MISUSE("columnar_mixed_cursor_init: NULL argument");
    if (!is_collection_tag((uint8_t)collection->type) || collection->is_null || collection->as.bytes.size < 4)
        return CC_MISUSE("columnar_mixed_cursor_init: not a decoded nested list or dictionary");
    const uint8_t *payload = collection->as.bytes.data;
    cursor->remaining = read_u32(payload);
    cursor->next = payload + 4;
    cursor->end = payload + collection->as.bytes.size;
    cursor->dictionary = collection->type == (columnar_type)COLUMNAR_MIXED_DICTIONARY;
    if (out_count) *out_count = cursor->remaining;
    return 0;
}

/* The walk trusts the layout: columnar_mixed_decode checked it before handing the collection out. The bounds are
 * still compared, so a cursor made from bytes that were not decoded stops instead of reading past them. */
static bool cursor_field(columnar_mixed_cursor *cursor, const uint8_t **field, uint32_t *size) {
    if ((size_t)(cursor->end - cursor->next) < 4) return false;
    *size = read_u32(cursor->next);
    cursor->next += 4;
    if ((size_t)(cursor->end - cursor->next) < *size) return false;
    *field = cursor->next;
    cursor->next += *size;
    return true;
}

bool columnar_mixed_cursor_next(columnar_mixed_cursor *cursor, columnar_value *out_key, columnar_value *out_element) {
    if (!cursor || cursor->remaining == 0) return false;
    const uint8_t *field;
    uint32_t size;
    if (cursor->dictionary) {
        if (!cursor_field(cursor, &field, &size)) return false;
        if (out_key) {
            memset(out_key, 0, sizeof *out_key);
            out_key->type = COLUMNAR_TYPE_STRING;
            out_key->as.bytes.data = field;
            out_key->as.bytes.size = size;
        }
    }
    if (!cursor_field(cursor, &field, &size)) return false;
    cursor->remaining--;
    if (out_element) {
        memset(out_element, 0, sizeof *out_element);
        out_element->type = COLUMNAR_TYPE_MIXED;
        out_element->is_null = size == 0;
        out_element->as.bytes.data = size ? field : NULL;
        out_element->as.bytes.size = size;
    }
    return true;
}
