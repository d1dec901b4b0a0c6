/*
 * verify.c — columnar_verify: the integrity walk of one committed version of the file.
 *
 * The walk reads every node reachable from the version's top node itself rather than through the readers of
 * tree.c and coll.c, which stop at the first problem: here a node that fails validation is reported and skipped
 * while the walk goes on with its siblings, so that every node that can be reached is recorded even below damage.
 * Every node goes through cc_node_view with its checksum checked before anything looks inside it, every count is
 * checked against the payload it describes before an element is read, and recursion stops at CF_MAX_TREE_DEPTH,
 * so no damage can make the walk read outside the mapping or loop.
 *
 * On the way the walk decodes what the logical checks need: object keys, link targets, backlinks and search-index
 * entries. Afterwards it checks the recorded node ranges against each other and against the free list (space
 * must be either live or free, never both and never neither), and the logical records against each other (links
 * against backlinks, indexes against column values).
 *
 * Memory is proportional to the file: one bit per 8 bytes of the used file (nodes reached), one range per node,
 * one key per object, and one record per link, backlink and index entry.
 */
#include "object.h"

#include "checksum.h"
#include "mirror.h"
#include "mixed.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------------------- */
/* Records                                                                                                      */
/* ---------------------------------------------------------------------------------------------------------- */

/* A decoded value: room for any cell cc_leaf_get writes, aligned for each of them. */
typedef union vcell {
    uint8_t bytes[16];
    int64_t i;
    cc_bytes b;
    cc_ts ts;
    cc_collcell coll;
} vcell;
_Static_assert(sizeof(vcell) == 16, "cells are 16 bytes at most");

/* A growable array of fixed-size records. */
typedef struct vvec {
    void *items;
    size_t count;
    size_t capacity;
} vvec;

/* The bytes one node occupies: [pos, end). */
typedef struct vrange {
    uint64_t pos;
    uint64_t end;
    uint8_t role;           /* of the node; 0 for free-list entries */
    bool suspect;           /* the node failed its checksum, so its header (and with it its extent) may be wrong */
} vrange;

/* One link (or, from the other side, one backlink): origin (table, column, object) to target object. */
typedef struct vlink {
    uint32_t origin_table;
    uint32_t origin_column;
    int64_t origin_key;
    int64_t target_key;
    uint64_t cluster_ref;   /* the cluster holding the link (for a backlink: the target's cluster) */
    bool dangling;          /* the target object does not exist (reported on its own, not as a missing backlink) */
} vlink;

/* One search-index entry: an object key under the hash of a value. */
typedef struct ventry {
    int64_t hash;
    int64_t key;
    uint64_t ref;           /* the table's cluster holding the object, or the index's cluster holding the entry */
} ventry;

typedef struct verifier {
    columnar_txn *txn;
    const uint8_t *base;
    uint64_t used_size;
    columnar_finding_fn on_finding;
    void *context;
    int error;                   /* an allocation failed: the walk stops and returns it */
    uint64_t finding_count;
    uint64_t first_ref;
    char first_message[768];
    /* Where the walk is, for messages. */
    const char *table_name;
    const char *column_name;
    bool has_object;
    int64_t object_key;
    /* Parts the walk had to skip. Nodes below a skipped node went unrecorded, so unaccounted space is then no
     * evidence of a leak; values that were not read make the logical comparisons of their table meaningless. */
    uint64_t nodes_lost;
    uint64_t data_lost;
    /* Nodes that failed their checksum. Their structure is still checked, but what they hold is not fed to the
     * logical checks, whose findings would only be consequences of the one already reported. */
    uint64_t suspect_nodes;
    uint64_t *reached;           /* one bit per 8 bytes of the used file: a node starts there and was reached */
    uint64_t *shared_reported;   /* the same, for nodes already reported as reached twice */
    vvec nodes;                  /* vrange of every node reached */
    vvec free_ranges;            /* vrange of every usable free-list entry */
    uint64_t free_list_bytes;
    bool free_list_read;
    cc_schema *schema;           /* decoded from this version's SCHEMA node (never the write txn's private one) */
    vvec *table_keys;            /* per table: int64 object keys, sorted once the table is walked */
    bool *table_complete;        /* per table: every value of the table was read */
    vvec links;                  /* vlink from link columns */
    vvec backlinks;              /* vlink from backlink columns */
} verifier;

static const char *role_name(uint8_t role) {
    static const char *names[] = { "invalid", "TOP", "META", "SCHEMA", "TABLES", "FREE_POS", "FREE_SIZE",
                                   "FREE_VERSION", "TABLE", "INDEXES", "INNER", "CLUSTER", "KEYS", "COLUMN",
                                   "VALUES", "BLOB", "NULLS", "LIST_INNER", "DICT", "COMMIT_RECORD" };
    return role < CF_ROLE_COUNT_ ? names[role] : "invalid";
}

static const char *encoding_name(uint8_t encoding) {
    static const char *names[] = { "invalid", "packed int", "refs", "float", "double", "bytes", "fixed",
                                   "short strings" };
    return encoding <= COLUMNAR_ENCODING_SHORT_STRINGS ? names[encoding] : "invalid";
}

static const char *type_name(uint8_t type) {
    static const char *names[] = { "invalid", "int", "bool", "float", "double", "string", "binary", "timestamp",
                                   "objectId", "uuid", "decimal128", "link", "mixed" };
    return type <= COLUMNAR_TYPE_MIXED ? names[type] : "invalid";
}

/* Reports one finding, prefixed with where the walk is. */
__attribute__((format(printf, 3, 4)))
static void report(verifier *v, uint64_t ref, const char *format, ...) {
    char what[512];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    char message[768];
    if (v->table_name && v->column_name && v->has_object)
        snprintf(message, sizeof message, "table %s, column %s, object %lld: %s", v->table_name, v->column_name,
                 (long long)v->object_key, what);
    else if (v->table_name && v->column_name)
        snprintf(message, sizeof message, "table %s, column %s: %s", v->table_name, v->column_name, what);
    else if (v->table_name)
        snprintf(message, sizeof message, "table %s: %s", v->table_name, what);
    else
        snprintf(message, sizeof message, "%s", what);
    if (v->finding_count++ == 0) {
        v->first_ref = ref;
        snprintf(v->first_message, sizeof v->first_message, "%s", message);
    }
    if (v->on_finding) v->on_finding(v->context, ref, message);
}

/* A part of the structure could not be walked: nodes below it are unrecorded and its values unread. */
static void lose_nodes(verifier *v) {
    v->nodes_lost++;
    v->data_lost++;
}

/* Values could not be read, though every node was recorded. */
static void lose_data(verifier *v) { v->data_lost++; }

/* Appends a zeroed record of `item_bytes` and returns it, or NULL (with v->error set) when memory runs out. */
static void *vvec_push(verifier *v, vvec *vec, size_t item_bytes) {
    if (vec->count == vec->capacity) {
        size_t capacity = vec->capacity ? vec->capacity * 2 : 256;
        void *grown = realloc(vec->items, capacity * item_bytes);
        if (!grown) {
            v->error = -ENOMEM;
            return NULL;
        }
        vec->items = grown;
        vec->capacity = capacity;
    }
    void *item = (uint8_t *)vec->items + vec->count++ * item_bytes;
    memset(item, 0, item_bytes);
    return item;
}

static void vvec_free(vvec *vec) {
    free(vec->items);
    memset(vec, 0, sizeof *vec);
}

/* qsort of a vector; an empty one may have no items array at all, which qsort must not be given. */
static void vvec_sort(vvec *vec, size_t item_bytes, int (*compare)(const void *, const void *)) {
    if (vec->count > 1) qsort(vec->items, vec->count, item_bytes, compare);
}

static bool bit_test_and_set(uint64_t *bits, uint64_t index) {
    uint64_t mask = 1ull << (index & 63);
    bool was_set = (bits[index >> 6] & mask) != 0;
    bits[index >> 6] |= mask;
    return was_set;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Nodes                                                                                                        */
/* ---------------------------------------------------------------------------------------------------------- */

/* Validates the node at `ref` (reached from `parent`), records its range and checks its role (0: any role).
 * Returns whether the caller may look inside it. A checksum failure is reported but the node is still used (its
 * structure is validated like any other), so that the damage below it is found too. */
static bool visit(verifier *v, uint64_t ref, uint8_t expect_role, uint64_t parent, cc_node *out) {
    if (cc_node_view(v->base, v->used_size, ref, 0, false, out) != 0) {
        report(v, ref, "%s (referred to by the node at %llu)", columnar_last_error()->message,
               (unsigned long long)parent);
        lose_nodes(v);
        return false;
    }
    /* Subtrees are never shared in this format, so a second path to a node means one of the two refs is wrong.
     * It is reported once and not walked again: walking it again could take exponential time on a file whose
     * refs have been made to point at each other. */
    if (bit_test_and_set(v->reached, ref / 8)) {
        if (!bit_test_and_set(v->shared_reported, ref / 8))
            report(v, ref, "node at %llu (%s) is reached a second time, from the node at %llu; nodes may not be "
                   "shared", (unsigned long long)ref, role_name(out->role), (unsigned long long)parent);
        lose_data(v);
        return false;
    }
    bool suspect = cc_node_view(v->base, v->used_size, ref, 0, true, out) != 0 ||
                   cc_node_base_check(v->txn->db, out) != 0;
    if (suspect) {
        report(v, ref, "%s", columnar_last_error()->message);
        v->suspect_nodes++;
        lose_data(v);
    }
    vrange *range = vvec_push(v, &v->nodes, sizeof *range);
    if (!range) return false;
    range->pos = ref;
    range->end = ref + cc_node_span(out->payload_bytes);
    range->role = out->role;
    range->suspect = suspect;
    /* The writer zeroes the padding after a payload; anything else there is damage the checksum cannot see. */
    uint64_t padding_end = range->end < v->used_size ? range->end : v->used_size;
    for (uint64_t at = ref + CF_NODE_HEADER_BYTES + out->payload_bytes; !suspect && at < padding_end; at++) {
        if (!v->base[at]) continue;
        report(v, ref, "node at %llu (%s) has non-zero padding at %llu, after its payload",
               (unsigned long long)ref, role_name(out->role), (unsigned long long)at);
        break;
    }
    if (expect_role && out->role != expect_role) {
        report(v, ref, "node at %llu has role %s where %s was expected (referred to by the node at %llu)",
               (unsigned long long)ref, role_name(out->role), role_name(expect_role), (unsigned long long)parent);
        lose_nodes(v);
        return false;
    }
    return true;
}

/* Visits child `index` of a REFS node, which must not be 0. */
static bool visit_child(verifier *v, const cc_node *parent, uint32_t index, uint8_t expect_role, cc_node *out) {
    uint64_t ref = cc_node_ref_at(parent, index);
    if (!ref) {
        report(v, parent->ref, "node at %llu (%s) has a null ref in slot %u where a %s node belongs",
               (unsigned long long)parent->ref, role_name(parent->role), index, role_name(expect_role));
        lose_nodes(v);
        return false;
    }
    return visit(v, ref, expect_role, parent->ref, out);
}

/* Checks a node's encoding; reports a mismatch. */
static bool expect_encoding(verifier *v, const cc_node *node, uint8_t encoding) {
    if (node->encoding == encoding) return true;
    report(v, node->ref, "node at %llu (%s) has encoding %s where %s was expected", (unsigned long long)node->ref,
           role_name(node->role), encoding_name(node->encoding), encoding_name(encoding));
    return false;
}

/* Checks a node's role detail: `detail`, or with `or_zero` also 0. The writer stores the value type in the
 * BLOB, NULLS, LIST_INNER and DICT nodes of a column, where format.h only promises it for COLUMN and VALUES, so
 * those accept either. */
static void expect_detail(verifier *v, const cc_node *node, uint8_t detail, bool or_zero) {
    if (node->role_detail == detail || (or_zero && node->role_detail == 0)) return;
    report(v, node->ref, "node at %llu (%s) has role detail %u where %u was expected", (unsigned long long)node->ref,
           role_name(node->role), node->role_detail, detail);
}

/* A REFS node with a zero role detail and at least `min_count` children (exactly, with `exact`). */
static bool expect_refs(verifier *v, const cc_node *node, uint32_t min_count, bool exact) {
    if (!expect_encoding(v, node, COLUMNAR_ENCODING_REFS)) return false;
    expect_detail(v, node, 0, false);
    if (node->count < min_count || (exact && node->count != min_count)) {
        report(v, node->ref, "node at %llu (%s) has %u children where %s%u were expected",
               (unsigned long long)node->ref, role_name(node->role), node->count, exact ? "" : "at least ",
               min_count);
        return node->count >= min_count;
    }
    return true;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Column leaves                                                                                                */
/* ---------------------------------------------------------------------------------------------------------- */

/* Checks that a packed-int node holds only 0 and 1; returns the index of the first other value or UINT64_MAX. */
static uint64_t first_non_flag(const cc_node *node) {
    for (uint64_t i = 0; i < node->count; i++) {
        int64_t value = cc_node_int_at(node, i);
        if (value != 0 && value != 1) return i;
    }
    return UINT64_MAX;
}

/* Checks that every non-null value of a mixed leaf, whose bounds were checked, is an encoding that decodes, and
 * reports the first that is not. cc_leaf_get refuses such a value, so the leaf's values are then lost. */
static bool mixed_values_decode(verifier *v, const cc_leaf *leaf) {
    const cc_node *values = &leaf->values;
    int64_t start = 0;
    for (uint32_t i = 0; i < leaf->count; i++) {
        cc_bytes bytes;
        if (!leaf->long_strings) {
            const uint8_t *slot = values->payload + (size_t)i * values->width;
            bytes = (cc_bytes){ slot, values->width - 1u - slot[values->width - 1] };
        } else {
            int64_t end = cc_node_int_at(values, i);
            bytes = (cc_bytes){ leaf->second.payload + start, (uint64_t)(end - start) };
            start = end;
        }
        if (leaf->nulls.ref && cc_node_int_at(&leaf->nulls, i) != 0) continue;
        const char *problem = cc_mixed_unpack(bytes.data, bytes.size, NULL);
        if (!problem) continue;
        report(v, values->ref, "mixed value %u of the leaf at %llu (%llu bytes, tag %u) does not decode: %s", i,
               (unsigned long long)values->ref, (unsigned long long)bytes.size, bytes.size ? bytes.data[0] : 0u,
               problem);
        lose_data(v);
        return false;
    }
    return true;
}

/* Validates the parts and values of the COLUMN node `column` holding `type` values (collection cells when
 * `collection` is not NONE) and fills `out` for cc_leaf_get. `expected_count` < 0 accepts any count. Returns
 * whether the values can be read; every part was visited either way unless the COLUMN node itself is malformed. */
static bool open_leaf(verifier *v, const cc_node *column, uint8_t type, uint8_t collection, bool nullable,
                      int64_t expected_count, uint32_t *count_mismatches, cc_leaf *out) {
    memset(out, 0, sizeof *out);
    out->type = type;
    out->collection = collection;
    bool cells = collection != COLUMNAR_COLLECTION_NONE;
    bool is_string = !cells && cc_type_is_bytes(type);
    bool is_timestamp = !cells && type == COLUMNAR_TYPE_TIMESTAMP;
    uint32_t parts = (is_string || is_timestamp) ? 3 : 2;
    uint64_t ref = column->ref;
    if (column->encoding != COLUMNAR_ENCODING_REFS || column->count != parts) {
        report(v, ref, "column leaf at %llu has %u parts (encoding %s) where a %s%s leaf has %u refs",
               (unsigned long long)ref, column->count, encoding_name(column->encoding), type_name(type),
               cells ? " collection" : "", parts);
        lose_nodes(v);
        return false;
    }
    if (column->role_detail != type)
        report(v, ref, "column leaf at %llu is marked as holding %s values where the column holds %s",
               (unsigned long long)ref, type_name(column->role_detail), type_name(type));
    bool ok = true;

    /* [0] the values. */
    if (!visit_child(v, column, 0, CF_ROLE_VALUES, &out->values)) {
        ok = false;
    } else {
        cc_node *values = &out->values;
        expect_detail(v, values, type, false);
        uint8_t want = COLUMNAR_ENCODING_PACKED_INT;
        if (cells) want = COLUMNAR_ENCODING_REFS;
        else if (type == COLUMNAR_TYPE_FLOAT) want = COLUMNAR_ENCODING_FLOAT;
        else if (type == COLUMNAR_TYPE_DOUBLE) want = COLUMNAR_ENCODING_DOUBLE;
        else if (type == COLUMNAR_TYPE_OBJECTID || type == COLUMNAR_TYPE_UUID || type == COLUMNAR_TYPE_DECIMAL128)
            want = COLUMNAR_ENCODING_FIXED;
        else if (is_string && values->encoding == COLUMNAR_ENCODING_SHORT_STRINGS)
            want = COLUMNAR_ENCODING_SHORT_STRINGS;
        if (!expect_encoding(v, values, want)) {
            ok = false;
        } else if (want == COLUMNAR_ENCODING_FIXED && values->width != (type == COLUMNAR_TYPE_OBJECTID ? 12 : 16)) {
            report(v, values->ref, "fixed-width values at %llu are %u bytes wide; %s values are %u",
                   (unsigned long long)values->ref, values->width, type_name(type),
                   type == COLUMNAR_TYPE_OBJECTID ? 12 : 16);
            ok = false;
        }
        out->count = values->count;
        if (expected_count >= 0 && values->count != (uint64_t)expected_count) {
            /* A damaged key array makes every column of its cluster disagree: the first one is reported here and
             * the cluster sums up the rest. */
            if ((*count_mismatches)++ == 0)
                report(v, values->ref, "values node at %llu holds %u values for the cluster's %lld rows",
                       (unsigned long long)values->ref, values->count, (long long)expected_count);
            ok = false;
        }
    }

    /* [1] the blob of long strings or the nanoseconds of timestamps; for others the null bitmap or 0. */
    uint64_t second_ref = cc_node_ref_at(column, 1);
    if (is_string) {
        bool short_form = out->values.ref && out->values.encoding == COLUMNAR_ENCODING_SHORT_STRINGS;
        cc_node ignored;
        if (!ok && second_ref) {
            /* Without readable values the form is unknown: the part is only recorded. */
            visit(v, second_ref, 0, ref, &ignored);
        } else if (short_form && second_ref) {
            report(v, ref, "short-string leaf at %llu also has a blob at %llu", (unsigned long long)ref,
                   (unsigned long long)second_ref);
            visit(v, second_ref, 0, ref, &ignored);
        } else if (ok && !short_form) {
            if (!visit_child(v, column, 1, CF_ROLE_BLOB, &out->second)) {
                ok = false;
            } else {
                expect_detail(v, &out->second, type, true);
                if (!expect_encoding(v, &out->second, COLUMNAR_ENCODING_BYTES)) ok = false;
                out->long_strings = true;
            }
        }
    } else if (is_timestamp) {
        if (!visit_child(v, column, 1, CF_ROLE_VALUES, &out->second)) {
            ok = false;
        } else {
            expect_detail(v, &out->second, type, false);
            if (!expect_encoding(v, &out->second, COLUMNAR_ENCODING_PACKED_INT)) {
                ok = false;
            } else if (out->values.ref && out->second.count != out->values.count) {
                report(v, out->second.ref, "timestamp nanoseconds at %llu hold %u values for %u seconds",
                       (unsigned long long)out->second.ref, out->second.count, out->values.count);
                ok = false;
            }
        }
    } else if (cells && second_ref) {
        report(v, ref, "collection column leaf at %llu has a null bitmap at %llu; collection cells are never null",
               (unsigned long long)ref, (unsigned long long)second_ref);
        cc_node ignored;
        visit(v, second_ref, 0, ref, &ignored);
    }

    /* [parts-1] the null bitmap, or 0 when no value is null. */
    uint64_t nulls_ref = cells ? 0 : cc_node_ref_at(column, parts - 1);
    if (nulls_ref) {
        if (!visit(v, nulls_ref, CF_ROLE_NULLS, ref, &out->nulls)) {
            ok = false;
        } else {
            expect_detail(v, &out->nulls, type, true);
            if (!expect_encoding(v, &out->nulls, COLUMNAR_ENCODING_PACKED_INT)) {
                ok = false;
            } else if (out->values.ref && out->nulls.count != out->values.count) {
                report(v, nulls_ref, "null bitmap at %llu has %u entries for %u values", (unsigned long long)nulls_ref,
                       out->nulls.count, out->values.count);
                ok = false;
            }
        }
    }
    if (!ok) {
        lose_data(v);
        return false;
    }

    /* The values themselves, each problem reported once per node with its first position. */
    const cc_node *values = &out->values;
    if (out->nulls.ref) {
        uint64_t bad = first_non_flag(&out->nulls);
        if (bad != UINT64_MAX)
            report(v, out->nulls.ref, "null bitmap at %llu holds %lld at position %llu (only 0 and 1 are valid)",
                   (unsigned long long)out->nulls.ref, (long long)cc_node_int_at(&out->nulls, bad),
                   (unsigned long long)bad);
        if (!nullable) {
            for (uint64_t i = 0; i < out->nulls.count; i++) {
                if (cc_node_int_at(&out->nulls, i) == 0) continue;
                report(v, out->nulls.ref, "null bitmap at %llu marks position %llu null, but the values are not "
                       "nullable", (unsigned long long)out->nulls.ref, (unsigned long long)i);
                break;
            }
        }
    }
    if (cells) return true;
    switch (type) {
    case COLUMNAR_TYPE_BOOL: {
        uint64_t bad = first_non_flag(values);
        if (bad != UINT64_MAX)
            report(v, values->ref, "bool values at %llu hold %lld at position %llu (only 0 and 1 are valid)",
                   (unsigned long long)values->ref, (long long)cc_node_int_at(values, bad), (unsigned long long)bad);
        break;
    }
    case COLUMNAR_TYPE_TIMESTAMP:
        for (uint64_t i = 0; i < out->second.count; i++) {
            int64_t nanos = cc_node_int_at(&out->second, i);
            if (nanos >= 0 && nanos <= 999999999) continue;
            report(v, out->second.ref, "timestamp nanoseconds at %llu hold %lld at position %llu (0 ... 999999999)",
                   (unsigned long long)out->second.ref, (long long)nanos, (unsigned long long)i);
            /* cc_leaf_get refuses such a value, so the column cannot be read. */
            lose_data(v);
            return false;
        }
        break;
    case COLUMNAR_TYPE_STRING: case COLUMNAR_TYPE_BINARY: case COLUMNAR_TYPE_MIXED:
        if (!out->long_strings) {
            for (uint64_t i = 0; i < values->count; i++) {
                uint32_t unused = values->payload[(i + 1) * values->width - 1];
                if (unused <= values->width - 1u) continue;
                report(v, values->ref, "short string %llu at %llu has length byte %u, more than its %u-byte slot "
                       "allows", (unsigned long long)i, (unsigned long long)values->ref, unused, values->width);
                lose_data(v);
                return false;
            }
        } else {
            int64_t start = 0;
            for (uint64_t i = 0; i < values->count; i++) {
                int64_t end = cc_node_int_at(values, i);
                if (end >= start && (uint64_t)end <= out->second.count) {
                    start = end;
                    continue;
                }
                report(v, values->ref, "string %llu at %llu ends at offset %lld, %s", (unsigned long long)i,
                       (unsigned long long)values->ref, (long long)end,
                       end < start ? "before the string ahead of it ends (offsets must ascend)"
                                   : "past the end of its blob");
                lose_data(v);
                return false;
            }
        }
        if (type == COLUMNAR_TYPE_MIXED && !mixed_values_decode(v, out)) return false;
        break;
    default: break;
    }
    return true;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Collections                                                                                                  */
/* ---------------------------------------------------------------------------------------------------------- */

/* What to do with the elements of a collection beyond validating them. */
typedef enum elem_sink {
    SINK_NONE,
    SINK_LINK,      /* link targets: record (table, column, row key) -> element */
    SINK_BACKLINK,  /* origin keys: record (origin table, origin column, element) -> row key */
    SINK_INDEX,     /* further object keys of a search-index entry: record (row key = hash, element) */
} elem_sink;

typedef struct elem_walk {
    uint8_t type;
    bool nullable;
    bool ascending;          /* sets and dictionary keys: strictly ascending in cc_cell_compare order */
    const char *what;        /* "set elements", "dictionary keys", for messages */
    bool has_previous;
    bool previous_null;
    vcell previous;
    bool order_reported;
    uint64_t element_index;
    elem_sink sink;
    uint32_t table;
    uint32_t column;
    int64_t row_key;
    uint64_t cluster_ref;
    vvec *entries;           /* SINK_INDEX: the index's ventry records */
} elem_walk;

static void element(verifier *v, elem_walk *ew, uint64_t leaf_ref, const vcell *cell, bool is_null) {
    if (ew->ascending) {
        if (ew->has_previous && !ew->order_reported &&
            cc_cell_compare(ew->type, &ew->previous, ew->previous_null, cell, is_null) >= 0) {
            report(v, leaf_ref, "%s must be strictly ascending, but element %llu (in the leaf at %llu) is not above "
                   "the one before it", ew->what, (unsigned long long)ew->element_index, (unsigned long long)leaf_ref);
            ew->order_reported = true;
        }
        ew->previous = *cell;
        ew->previous_null = is_null;
        ew->has_previous = true;
    }
    ew->element_index++;
    if (is_null) return;
    if (ew->sink == SINK_LINK || ew->sink == SINK_BACKLINK) {
        vlink *link = vvec_push(v, ew->sink == SINK_LINK ? &v->links : &v->backlinks, sizeof *link);
        if (!link) return;
        link->origin_table = ew->table;
        link->origin_column = ew->column;
        link->origin_key = ew->sink == SINK_LINK ? ew->row_key : cell->i;
        link->target_key = ew->sink == SINK_LINK ? cell->i : ew->row_key;
        link->cluster_ref = ew->cluster_ref;
    } else if (ew->sink == SINK_INDEX) {
        ventry *entry = vvec_push(v, ew->entries, sizeof *entry);
        if (!entry) return;
        entry->hash = ew->row_key;
        entry->key = cell->i;
        entry->ref = ew->cluster_ref;
    }
}

/* Walks the list (or one half of a dictionary) rooted at `ref`: a COLUMN leaf or a LIST_INNER node whose
 * cumulative counts must match its children. Sets *out_count to the elements found. */
static void walk_list(verifier *v, uint64_t ref, uint64_t parent, elem_walk *ew, uint32_t depth,
                      uint64_t *out_count) {
    *out_count = 0;
    if (depth >= CF_MAX_TREE_DEPTH) {
        report(v, ref, "collection node at %llu is deeper than %u levels (a ref cycle?)", (unsigned long long)ref,
               CF_MAX_TREE_DEPTH);
        lose_nodes(v);
        return;
    }
    cc_node node;
    uint64_t suspect_before = v->suspect_nodes;
    if (!visit(v, ref, 0, parent, &node)) return;
    if (node.role == CF_ROLE_COLUMN) {
        cc_leaf leaf;
        if (!open_leaf(v, &node, ew->type, COLUMNAR_COLLECTION_NONE, ew->nullable, -1, NULL, &leaf)) return;
        *out_count = leaf.count;
        if (leaf.count > CF_COLL_LEAF_MAX) {
            /* Its elements are not read: see walk_cluster. */
            report(v, ref, "collection leaf at %llu holds %u elements, more than %u", (unsigned long long)ref,
                   leaf.count, CF_COLL_LEAF_MAX);
            lose_data(v);
            return;
        }
        if (v->suspect_nodes != suspect_before) return;
        for (uint32_t i = 0; i < leaf.count && !v->error; i++) {
            vcell cell;
            bool is_null;
            if (cc_leaf_get(&leaf, i, &cell, &is_null) != 0) {
                report(v, ref, "%s", columnar_last_error()->message);
                lose_data(v);
                return;
            }
            element(v, ew, ref, &cell, is_null);
        }
        return;
    }
    if (node.role != CF_ROLE_LIST_INNER) {
        report(v, ref, "collection node at %llu has role %s where COLUMN or LIST_INNER was expected",
               (unsigned long long)ref, role_name(node.role));
        lose_nodes(v);
        return;
    }
    if (!expect_encoding(v, &node, COLUMNAR_ENCODING_REFS)) {
        lose_nodes(v);
        return;
    }
    expect_detail(v, &node, ew->type, true);
    if (node.count < 2) {
        report(v, ref, "list node at %llu has no children", (unsigned long long)ref);
        if (node.count == 0) {
            lose_nodes(v);
            return;
        }
    }
    if (node.count - 1 > CF_INNER_FANOUT)
        report(v, ref, "list node at %llu has %u children, more than the %u a writer makes", (unsigned long long)ref,
               node.count - 1, CF_INNER_FANOUT);
    cc_node counts;
    bool counts_ok = visit_child(v, &node, 0, CF_ROLE_META, &counts);
    if (counts_ok) {
        expect_detail(v, &counts, 0, false);
        counts_ok = expect_encoding(v, &counts, COLUMNAR_ENCODING_PACKED_INT);
    }
    if (counts_ok && counts.count != node.count - 1) {
        report(v, counts.ref, "list node at %llu has %u children but %u cumulative counts", (unsigned long long)ref,
               node.count - 1, counts.count);
        counts_ok = false;
    }
    uint64_t total = 0;
    bool total_known = true, mismatch_reported = false;
    for (uint32_t i = 1; i < node.count && !v->error; i++) {
        uint64_t child = cc_node_ref_at(&node, i);
        if (!child) {
            report(v, ref, "list node at %llu has a null child in slot %u", (unsigned long long)ref, i);
            lose_nodes(v);
            total_known = false;
            continue;
        }
        uint64_t before = v->data_lost, child_count;
        walk_list(v, child, ref, ew, depth + 1, &child_count);
        if (v->data_lost != before) total_known = false;
        total += child_count;
        if (counts_ok && total_known && !mismatch_reported && cc_node_int_at(&counts, i - 1) != (int64_t)total) {
            report(v, counts.ref, "list node at %llu counts %lld elements up to child %u, but its children hold %llu",
                   (unsigned long long)ref, (long long)cc_node_int_at(&counts, i - 1), i - 1,
                   (unsigned long long)total);
            mismatch_reported = true;
        }
    }
    *out_count = total;
}

/* Walks the collection of one cell: a list or set, or a DICT node with its keys and values lists. */
static void walk_collection(verifier *v, uint64_t ref, uint64_t parent, uint8_t collection, elem_walk *ew) {
    if (collection != COLUMNAR_COLLECTION_DICT) {
        ew->ascending = collection == COLUMNAR_COLLECTION_SET;
        ew->what = "set elements";
        uint64_t count;
        walk_list(v, ref, parent, ew, 0, &count);
        return;
    }
    cc_node dict;
    if (!visit(v, ref, CF_ROLE_DICT, parent, &dict)) return;
    if (!expect_encoding(v, &dict, COLUMNAR_ENCODING_REFS)) {
        lose_nodes(v);
        return;
    }
    expect_detail(v, &dict, ew->type, true);
    if (dict.count != 2) {
        report(v, ref, "dictionary at %llu has %u parts where 2 (keys, values) were expected",
               (unsigned long long)ref, dict.count);
        if (dict.count < 2) {
            lose_nodes(v);
            return;
        }
    }
    uint64_t keys_ref = cc_node_ref_at(&dict, 0), values_ref = cc_node_ref_at(&dict, 1);
    if (!keys_ref || !values_ref) {
        report(v, ref, "dictionary at %llu has a null %s list", (unsigned long long)ref, keys_ref ? "values" : "keys");
        lose_nodes(v);
    }
    elem_walk keys = { .type = COLUMNAR_TYPE_STRING, .ascending = true, .what = "dictionary keys",
                       .sink = SINK_NONE };
    uint64_t before = v->data_lost, key_count = 0, value_count = 0;
    if (keys_ref) walk_list(v, keys_ref, ref, &keys, 0, &key_count);
    ew->ascending = false;
    if (values_ref) walk_list(v, values_ref, ref, ew, 0, &value_count);
    if (keys_ref && values_ref && v->data_lost == before && key_count != value_count)
        report(v, ref, "dictionary at %llu has %llu keys but %llu values", (unsigned long long)ref,
               (unsigned long long)key_count, (unsigned long long)value_count);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Trees (tables and search indexes)                                                                            */
/* ---------------------------------------------------------------------------------------------------------- */

typedef struct tree_walk {
    const cc_table_schema *schema;   /* the table's, or cc_index_schema() */
    uint32_t table;
    bool is_index;
    int64_t next_key;                /* table trees: every key must be below it */
    bool has_last;
    int64_t last_key;                /* the last key seen, in walk (in-order) order */
    bool keys_sorted;
    bool order_reported;
    uint64_t row_count;
    vvec *keys;                      /* table trees: the object keys, in walk order */
    vvec *index_values;              /* table trees: per column, ventry of indexed columns (count 0 otherwise) */
    const bool *index_wanted;        /* table trees: per column, whether to fill index_values */
    vvec *index_entries;             /* index trees: ventry of every entry */
    vvec *index_counts;              /* ordered index trees: per row, ventry { row key, its count column, cluster } */
    uint32_t keyed_column;           /* table trees: the column the meta says holds every object's key, or NO_COLUMN */
    bool keyed_reported;
} tree_walk;

/* Whether `column` of table `target` is a live backlink column whose origin is a live link column to `target`. */
static bool backlink_origin_valid(const cc_schema *schema, uint32_t target, const cc_column *column) {
    if (column->origin_table >= schema->table_count) return false;
    const cc_table_schema *origin = &schema->tables[column->origin_table];
    if ((origin->flags & CF_TABLE_FLAG_REMOVED) || column->origin_column >= origin->column_count) return false;
    const cc_column *link = &origin->columns[column->origin_column];
    return cc_column_is_visible(link) && link->type == COLUMNAR_TYPE_LINK && link->target_table == target;
}

/* Reads the values of one column of a cluster: validates its leaf (ref 0: every row has the default value) and
 * feeds links, backlinks, index values and collections to the logical checks. */
static void walk_column(verifier *v, tree_walk *tw, const cc_node *cluster, const cc_node *keys, uint32_t column,
                        uint64_t leaf_ref, uint32_t *count_mismatches) {
    const cc_column *col = &tw->schema->columns[column];
    bool cells = col->collection != COLUMNAR_COLLECTION_NONE;
    bool nullable = (col->flags & CF_COL_FLAG_NULLABLE) != 0;
    cc_leaf leaf;
    uint64_t suspect_before = v->suspect_nodes;
    if (leaf_ref) {
        cc_node node;
        if (!visit(v, leaf_ref, CF_ROLE_COLUMN, cluster->ref, &node)) return;
        if (!open_leaf(v, &node, col->type, col->collection, nullable && !cells, keys->count, count_mismatches, &leaf))
            return;
    }
    /* Values of a leaf that failed its checksum are not used: its collections are still walked, for their nodes. */
    bool trusted = v->suspect_nodes == suspect_before;
    bool index = trusted && !tw->is_index && tw->index_wanted[column];
    bool single_link = trusted && !cells && col->type == COLUMNAR_TYPE_LINK && !tw->is_index;
    bool index_first_keys = trusted && tw->is_index && column == 0;
    bool index_counts = trusted && tw->is_index && column == 2 && tw->index_counts;
    bool keyed = trusted && !tw->is_index && column == tw->keyed_column && !tw->keyed_reported;
    elem_walk ew = { .type = col->type, .nullable = nullable, .cluster_ref = cluster->ref };
    if (cells && trusted) {
        if (tw->is_index) {
            ew.sink = column == 1 ? SINK_INDEX : SINK_NONE;
            ew.entries = tw->index_entries;
        } else if (col->flags & CF_COL_FLAG_BACKLINK) {
            /* A backlink column whose origin is invalid was reported with the schema; its lists are only walked. */
            if (backlink_origin_valid(v->schema, tw->table, col)) {
                ew.sink = SINK_BACKLINK;
                ew.table = col->origin_table;
                ew.column = col->origin_column;
            }
        } else if (col->type == COLUMNAR_TYPE_LINK) {
            ew.sink = SINK_LINK;
            ew.table = tw->table;
            ew.column = column;
        }
    }
    if (!index && !single_link && !index_first_keys && !index_counts && !keyed && !(cells && leaf_ref)) return;
    for (uint32_t row = 0; row < keys->count && !v->error; row++) {
        int64_t key = cc_node_int_at(keys, row);
        vcell cell;
        bool is_null;
        if (leaf_ref) {
            if (cc_leaf_get(&leaf, row, &cell, &is_null) != 0) {
                report(v, leaf_ref, "%s", columnar_last_error()->message);
                lose_data(v);
                return;
            }
        } else {
            memset(&cell, 0, sizeof cell);
            is_null = !cells && nullable;
        }
        if (keyed && (is_null || cell.i != key)) {
            report(v, leaf_ref ? leaf_ref : cluster->ref, "object %lld has %s %s, but the table's meta says every "
                   "object's key is its primary key", (long long)key, col->name, is_null ? "null" : "another value");
            keyed = false;
            tw->keyed_reported = true;
        }
        if (index) {
            ventry *entry = vvec_push(v, &tw->index_values[column], sizeof *entry);
            if (!entry) return;
            entry->hash = cc_index_key(col, &cell, is_null);
            entry->key = key;
            entry->ref = cluster->ref;
        }
        if (single_link && !is_null) {
            vlink *link = vvec_push(v, &v->links, sizeof *link);
            if (!link) return;
            *link = (vlink){ tw->table, column, key, cell.i, cluster->ref, false };
        }
        if (index_first_keys) {
            ventry *entry = vvec_push(v, tw->index_entries, sizeof *entry);
            if (!entry) return;
            *entry = (ventry){ key, cell.i, cluster->ref };
        }
        if (index_counts) {
            ventry *entry = vvec_push(v, tw->index_counts, sizeof *entry);
            if (!entry) return;
            *entry = (ventry){ key, cell.i, cluster->ref };
        }
        if (cells && cell.coll.ref) {
            ew.row_key = key;
            ew.has_previous = false;
            ew.order_reported = false;
            ew.element_index = 0;
            v->has_object = !tw->is_index;
            v->object_key = key;
            walk_collection(v, cell.coll.ref, leaf_ref, col->collection, &ew);
            v->has_object = false;
        }
    }
}

static void walk_cluster(verifier *v, tree_walk *tw, const cc_node *cluster, int64_t *out_first, bool *out_has_first) {
    if (!expect_refs(v, cluster, 1, false)) {
        lose_nodes(v);
        return;
    }
    cc_node keys;
    uint64_t suspect_before = v->suspect_nodes;
    if (!visit_child(v, cluster, 0, CF_ROLE_KEYS, &keys)) return;
    /* Keys from a node that failed its checksum are collected (the table is already marked incomplete) but not
     * judged: their disorder would only repeat the checksum finding. */
    bool judge = v->suspect_nodes == suspect_before;
    expect_detail(v, &keys, 0, false);
    if (!expect_encoding(v, &keys, COLUMNAR_ENCODING_PACKED_INT)) {
        lose_nodes(v);
        return;
    }
    if (keys.count == 0) report(v, cluster->ref, "cluster at %llu has no rows", (unsigned long long)cluster->ref);
    /* The rows are collected (their keys, links and index values) only up to what a writer can make: a count
     * beyond it is the finding, and collecting it would take memory and time the file does not justify. */
    if (keys.count > CC_MAX_LEAF_ROWS) {
        report(v, keys.ref, "cluster at %llu has %u rows, more than the %u a writer makes; its rows are not read",
               (unsigned long long)cluster->ref, keys.count, CC_MAX_LEAF_ROWS);
        lose_nodes(v);
        return;
    }
    bool range_reported = false;
    for (uint32_t row = 0; row < keys.count && !v->error; row++) {
        int64_t key = cc_node_int_at(&keys, row);
        if (row == 0) {
            *out_first = key;
            *out_has_first = true;
        }
        if (tw->has_last && key <= tw->last_key) {
            tw->keys_sorted = false;
            if (!tw->order_reported && judge) {
                report(v, keys.ref, "%s %lld at row %u of the cluster at %llu does not follow %lld; keys must be "
                       "strictly ascending through the whole tree", tw->is_index ? "index key" : "key", (long long)key, row,
                       (unsigned long long)cluster->ref, (long long)tw->last_key);
                tw->order_reported = true;
            }
        }
        tw->has_last = true;
        tw->last_key = key;
        if (!tw->is_index) {
            if ((key < 0 || key >= tw->next_key) && !range_reported && judge) {
                report(v, keys.ref, "key %lld at row %u of the cluster at %llu is outside 0 ..< %lld (the table's "
                       "next key)", (long long)key, row, (unsigned long long)cluster->ref, (long long)tw->next_key);
                range_reported = true;
            }
            int64_t *slot = vvec_push(v, tw->keys, sizeof *slot);
            if (!slot) return;
            *slot = key;
        }
    }
    tw->row_count += keys.count;
    uint32_t slots = cluster->count - 1, columns = tw->schema->column_count;
    if (slots > columns) {
        report(v, cluster->ref, "cluster at %llu has %u column slots, but the table has %u columns",
               (unsigned long long)cluster->ref, slots, columns);
        for (uint32_t c = columns; c < slots; c++)
            if (cc_node_ref_at(cluster, c + 1)) lose_nodes(v);
    }
    uint32_t count_mismatches = 0;
    for (uint32_t c = 0; c < columns && !v->error; c++) {
        const cc_column *col = &tw->schema->columns[c];
        uint64_t leaf_ref = c < slots ? cc_node_ref_at(cluster, c + 1) : 0;
        const char *table_column = v->column_name;
        if (!tw->is_index) v->column_name = col->name;
        if (!cc_column_is_live(col)) {
            if (leaf_ref) {
                report(v, cluster->ref, "cluster at %llu holds a leaf at %llu for the removed column",
                       (unsigned long long)cluster->ref, (unsigned long long)leaf_ref);
                lose_nodes(v);
            }
        } else {
            walk_column(v, tw, cluster, &keys, c, leaf_ref, &count_mismatches);
        }
        v->column_name = table_column;
    }
    if (count_mismatches > 1)
        report(v, cluster->ref, "%u more column leaves of the cluster at %llu hold a number of values other than its %u "
               "keys", count_mismatches - 1, (unsigned long long)cluster->ref, keys.count);
}

/* Walks the subtree at `ref`: an INNER node (keys == children, all children INNER or all CLUSTER) or a CLUSTER.
 * Sets *out_role to the node's role (0 when unreadable) and *out_first to the first key found below it. */
static void walk_tree(verifier *v, tree_walk *tw, uint64_t ref, uint64_t parent, uint32_t depth, uint8_t *out_role,
                      int64_t *out_first, bool *out_has_first) {
    *out_role = 0;
    *out_has_first = false;
    if (depth >= CF_MAX_TREE_DEPTH) {
        report(v, ref, "tree node at %llu is deeper than %u levels (a ref cycle?)", (unsigned long long)ref,
               CF_MAX_TREE_DEPTH);
        lose_nodes(v);
        return;
    }
    cc_node node;
    if (!visit(v, ref, 0, parent, &node)) return;
    if (node.role == CF_ROLE_CLUSTER) {
        *out_role = CF_ROLE_CLUSTER;
        walk_cluster(v, tw, &node, out_first, out_has_first);
        return;
    }
    if (node.role != CF_ROLE_INNER) {
        report(v, ref, "tree node at %llu has role %s where INNER or CLUSTER was expected (referred to by the node "
               "at %llu)", (unsigned long long)ref, role_name(node.role), (unsigned long long)parent);
        lose_nodes(v);
        return;
    }
    *out_role = CF_ROLE_INNER;
    if (!expect_refs(v, &node, 2, false)) {
        if (node.encoding != COLUMNAR_ENCODING_REFS || node.count == 0) {
            lose_nodes(v);
            return;
        }
    }
    cc_node keys;
    bool keys_ok = visit_child(v, &node, 0, CF_ROLE_KEYS, &keys);
    if (keys_ok) {
        expect_detail(v, &keys, 0, false);
        keys_ok = expect_encoding(v, &keys, COLUMNAR_ENCODING_PACKED_INT);
    }
    if (keys_ok && keys.count != node.count - 1) {
        report(v, ref, "inner node at %llu has %u children but %u keys", (unsigned long long)ref, node.count - 1,
               keys.count);
        keys_ok = false;
    }
    if (node.count - 1 > CF_INNER_FANOUT)
        report(v, ref, "inner node at %llu has %u children, more than the %u a writer makes", (unsigned long long)ref,
               node.count - 1, CF_INNER_FANOUT);
    if (keys_ok) {
        for (uint32_t i = 1; i < keys.count; i++) {
            if (cc_node_int_at(&keys, i) > cc_node_int_at(&keys, i - 1)) continue;
            report(v, keys.ref, "inner node at %llu has keys that do not ascend at position %u",
                   (unsigned long long)ref, i);
            break;
        }
    }
    uint8_t child_role = 0;
    bool role_reported = false, key_reported = false;
    for (uint32_t i = 1; i < node.count && !v->error; i++) {
        uint64_t child = cc_node_ref_at(&node, i);
        if (!child) {
            report(v, ref, "inner node at %llu has a null child in slot %u", (unsigned long long)ref, i);
            lose_nodes(v);
            continue;
        }
        bool had_last = tw->has_last;
        int64_t last_before = tw->last_key;
        uint8_t role;
        int64_t first;
        bool has_first;
        walk_tree(v, tw, child, ref, depth + 1, &role, &first, &has_first);
        if (role && !child_role) child_role = role;
        if (role && role != child_role && !role_reported) {
            report(v, ref, "inner node at %llu mixes INNER and CLUSTER children", (unsigned long long)ref);
            role_reported = true;
        }
        if (has_first && !*out_has_first) {
            *out_first = first;
            *out_has_first = true;
        }
        if (!keys_ok || key_reported) continue;
        int64_t key = cc_node_int_at(&keys, i - 1);
        if (has_first && key > first) {
            report(v, keys.ref, "inner node at %llu routes key %lld to child %u, whose first key is %lld",
                   (unsigned long long)ref, (long long)key, i - 1, (long long)first);
            key_reported = true;
        } else if (i > 1 && had_last && key <= last_before) {
            report(v, keys.ref, "inner node at %llu routes key %lld to child %u, but the child before it holds "
                   "%lld", (unsigned long long)ref, (long long)key, i - 1, (long long)last_before);
            key_reported = true;
        }
    }
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Tables and their indexes                                                                                     */
/* ---------------------------------------------------------------------------------------------------------- */

static int compare_entries(const void *a, const void *b) {
    const ventry *x = a, *y = b;
    if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return 0;
}

static int compare_keys(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static bool key_exists(const vvec *keys, int64_t key) {
    return keys->count && bsearch(&key, keys->items, keys->count, sizeof key, compare_keys) != NULL;
}

/* Compares what the column's values say the index must hold (`expected`) with what it holds (`found`). */
static void compare_index(verifier *v, uint32_t table, uint64_t index_ref, vvec *expected, vvec *found) {
    vvec_sort(expected, sizeof(ventry), compare_entries);
    vvec_sort(found, sizeof(ventry), compare_entries);
    const ventry *want = expected->items, *have = found->items;
    size_t i = 0, j = 0;
    while ((i < expected->count || j < found->count) && !v->error) {
        int order = i == expected->count ? 1 : j == found->count ? -1 : compare_entries(&want[i], &have[j]);
        if (order == 0) {
            i++;
            j++;
        } else if (order < 0) {
            report(v, want[i].ref, "object %lld (in the cluster at %llu) is missing from the search index at %llu "
                   "(no entry under index key %016llx)", (long long)want[i].key, (unsigned long long)want[i].ref,
                   (unsigned long long)index_ref, (unsigned long long)want[i].hash);
            i++;
        } else {
            const ventry *entry = &have[j];
            if (j > 0 && compare_entries(&have[j - 1], entry) == 0)
                report(v, entry->ref, "the search index lists object %lld twice under index key %016llx (index cluster at "
                       "%llu)", (long long)entry->key, (unsigned long long)entry->hash, (unsigned long long)entry->ref);
            else if (!key_exists(&v->table_keys[table], entry->key))
                report(v, entry->ref, "stale index entry: the search index lists object %lld under index key %016llx "
                       "(index cluster at %llu), but no such object exists", (long long)entry->key,
                       (unsigned long long)entry->hash, (unsigned long long)entry->ref);
            else
                report(v, entry->ref, "stale index entry: the search index lists object %lld under index key %016llx "
                       "(index cluster at %llu), which is not the index key of its value", (long long)entry->key,
                       (unsigned long long)entry->hash, (unsigned long long)entry->ref);
            j++;
        }
    }
}

/* An ordered index's count column must say how many further keys each row lists: `found` (sorted by
 * compare_index) holds every key filed under each index key, `counts` each row's count column. */
static void compare_index_counts(verifier *v, const vvec *found, const vvec *counts) {
    const ventry *have = found->items, *rows = counts->items;
    size_t j = 0;
    for (size_t i = 0; i < counts->count && !v->error; i++) {
        const ventry *row = &rows[i];   /* hash: the row's index key; key: its count column */
        while (j < found->count && have[j].hash < row->hash) j++;
        size_t filed = 0;
        while (j + filed < found->count && have[j + filed].hash == row->hash) filed++;
        if (filed == 0 || row->key != (int64_t)filed - 1)
            report(v, row->ref, "the ordered index row under key %016llx (index cluster at %llu) says it lists %lld "
                   "further objects, but lists %llu", (unsigned long long)row->hash, (unsigned long long)row->ref,
                   (long long)row->key, (unsigned long long)(filed ? filed - 1 : 0));
    }
}

static void verify_table(verifier *v, uint32_t table, uint64_t ref, uint64_t parent) {
    const cc_table_schema *schema = &v->schema->tables[table];
    uint64_t data_lost_before = v->data_lost;
    cc_node node, meta = { 0 };
    if (!visit(v, ref, CF_ROLE_TABLE, parent, &node)) {
        v->table_complete[table] = false;
        return;
    }
    if (!expect_refs(v, &node, CF_TABLE_CHILDREN, true)) {
        lose_nodes(v);
        v->table_complete[table] = false;
        return;
    }
    int64_t object_count = -1, next_key = INT64_MAX;
    uint32_t keyed_column = CF_NO_COLUMN;
    if (visit_child(v, &node, CF_TABLE_META, CF_ROLE_META, &meta)) {
        expect_detail(v, &meta, 0, false);
        if (expect_encoding(v, &meta, COLUMNAR_ENCODING_PACKED_INT) && meta.count >= CF_TABLE_META_COUNT) {
            object_count = cc_node_int_at(&meta, CF_TABLE_META_OBJECT_COUNT);
            next_key = cc_node_int_at(&meta, CF_TABLE_META_NEXT_KEY);
            if (object_count < 0 || next_key < 0) {
                report(v, meta.ref, "table meta at %llu holds object count %lld and next key %lld",
                       (unsigned long long)meta.ref, (long long)object_count, (long long)next_key);
                object_count = -1;
                next_key = INT64_MAX;
            }
            int64_t keyed_by = cc_table_meta_keyed_by(&meta);
            /* Writers set it only to the int primary key, and clear it when the primary key changes. */
            if (cc_keyed_by_names_int_primary_key(schema, keyed_by))
                keyed_column = schema->primary_key;
            else if (keyed_by != 0)
                report(v, meta.ref, "table meta at %llu names column %lld as holding every object's key, but the "
                       "table's int primary key is %s", (unsigned long long)meta.ref, (long long)keyed_by - 1,
                       schema->primary_key == CF_NO_COLUMN ? "absent" : "another column");
        } else if (meta.encoding == COLUMNAR_ENCODING_PACKED_INT) {
            report(v, meta.ref, "table meta at %llu has %u elements where %u were expected",
                   (unsigned long long)meta.ref, meta.count, CF_TABLE_META_COUNT);
        }
    }

    /* The tree, collecting keys, links, backlinks and the values of indexed columns. */
    uint32_t columns = schema->column_count;
    vvec *index_values = calloc(columns ? columns : 1, sizeof *index_values);
    bool *index_wanted = calloc(columns ? columns : 1, sizeof *index_wanted);
    if (!index_values || !index_wanted) {
        free(index_values);
        free(index_wanted);
        v->error = -ENOMEM;
        return;
    }
    for (uint32_t c = 0; c < columns; c++) {
        const cc_column *col = &schema->columns[c];
        index_wanted[c] = cc_column_is_live(col) && (col->flags & CF_COL_FLAG_INDEXED) &&
                          col->collection == COLUMNAR_COLLECTION_NONE;
    }
    tree_walk tw = { .schema = schema, .table = table, .next_key = next_key, .keys_sorted = true,
                     .keys = &v->table_keys[table], .index_values = index_values, .index_wanted = index_wanted,
                     .keyed_column = keyed_column };
    uint64_t root = cc_node_ref_at(&node, CF_TABLE_ROOT);
    if (root) {
        uint8_t role;
        int64_t first;
        bool has_first;
        walk_tree(v, &tw, root, ref, 0, &role, &first, &has_first);
    }
    /* Whether every object and value was read decides which comparisons of this table mean anything. A tree
     * holding another number of objects than the table counts has lost or gained a part somewhere, and comparing
     * its indexes and backlinks would report every object of that part again. */
    bool tree_complete = v->data_lost == data_lost_before;
    if (tree_complete && object_count >= 0 && tw.row_count != (uint64_t)object_count) {
        report(v, meta.ref, "the table meta at %llu counts %lld objects, but its tree holds %llu",
               (unsigned long long)meta.ref, (long long)object_count, (unsigned long long)tw.row_count);
        tree_complete = false;
    }
    if (!tree_complete) v->table_complete[table] = false;
    if (!tw.keys_sorted) vvec_sort(tw.keys, sizeof(int64_t), compare_keys);

    /* The search indexes: one tree per indexed column, each compared with the column's values. */
    uint64_t indexes_ref = cc_node_ref_at(&node, CF_TABLE_INDEXES);
    cc_node indexes = { 0 };
    if (indexes_ref) {
        if (!visit(v, indexes_ref, CF_ROLE_INDEXES, ref, &indexes)) {
            indexes.ref = 0;
        } else if (!expect_encoding(v, &indexes, COLUMNAR_ENCODING_REFS)) {
            lose_nodes(v);
            indexes.ref = 0;
        } else {
            expect_detail(v, &indexes, 0, false);
            if (indexes.count > columns)
                report(v, indexes_ref, "index list at %llu has %u entries for %u columns",
                       (unsigned long long)indexes_ref, indexes.count, columns);
        }
    }
    uint32_t slots = indexes.ref ? indexes.count : 0;
    for (uint32_t c = 0; c < (slots > columns ? slots : columns) && !v->error; c++) {
        uint64_t index_ref = c < slots ? cc_node_ref_at(&indexes, c) : 0;
        const cc_column *col = c < columns ? &schema->columns[c] : NULL;
        bool wanted = c < columns && index_wanted[c];
        char label[COLUMNAR_MAX_NAME_BYTES + 32];
        snprintf(label, sizeof label, "%s (search index)", col ? col->name : "?");
        v->column_name = label;
        if (index_ref && !wanted)
            report(v, index_ref, "an index tree at %llu exists for column %u, which is %s", (unsigned long long)index_ref,
                   c, !col ? "not in the schema" : !cc_column_is_live(col) ? "removed" : "not indexed");
        if (!index_ref && wanted && (tw.row_count > 0 || object_count > 0))
            report(v, indexes.ref ? indexes.ref : ref, "the column is indexed and the table has objects, but it has "
                   "no index tree");
        if (index_ref) {
            vvec found = { 0 }, counts = { 0 };
            uint64_t index_lost_before = v->data_lost;
            bool ordered = col && (col->flags & CF_COL_FLAG_ORDERED);
            tree_walk iw = { .schema = col ? cc_index_schema_of(col) : cc_index_schema(), .table = table,
                             .is_index = true, .keys_sorted = true, .index_entries = &found,
                             .index_counts = ordered ? &counts : NULL };
            uint8_t role;
            int64_t first;
            bool has_first;
            walk_tree(v, &iw, index_ref, indexes.ref, 0, &role, &first, &has_first);
            if (wanted && tree_complete && v->data_lost == index_lost_before && !v->error) {
                compare_index(v, table, index_ref, &index_values[c], &found);
                if (ordered) compare_index_counts(v, &found, &counts);
            }
            vvec_free(&found);
            vvec_free(&counts);
        }
        v->column_name = NULL;
    }
    for (uint32_t c = 0; c < columns; c++) vvec_free(&index_values[c]);
    free(index_values);
    free(index_wanted);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Schema, links and backlinks                                                                                  */
/* ---------------------------------------------------------------------------------------------------------- */

/* How many live backlink columns of `target` record the link column (origin_table, origin_column). */
static uint32_t backlink_columns(const cc_schema *schema, uint32_t target, uint32_t origin_table,
                                 uint32_t origin_column) {
    const cc_table_schema *table = &schema->tables[target];
    uint32_t found = 0;
    for (uint32_t c = 0; c < table->column_count; c++) {
        const cc_column *col = &table->columns[c];
        found += cc_column_is_live(col) && (col->flags & CF_COL_FLAG_BACKLINK) && col->origin_table == origin_table &&
                 col->origin_column == origin_column;
    }
    return found;
}

/* What cc_schema_decode does not check: indexes only where they can exist, primary keys, and that link columns
 * and backlink columns come in pairs. */
static void check_schema(verifier *v, uint64_t schema_ref) {
    const cc_schema *schema = v->schema;
    for (uint32_t t = 0; t < schema->table_count; t++) {
        const cc_table_schema *table = &schema->tables[t];
        if (table->flags & CF_TABLE_FLAG_REMOVED) continue;
        v->table_name = table->name;
        if (table->primary_key != CF_NO_COLUMN) {
            const cc_column *pk = &table->columns[table->primary_key];
            if (!cc_column_is_visible(pk) || !(pk->flags & CF_COL_FLAG_INDEXED))
                report(v, schema_ref, "primary key column %s is %s", pk->name,
                       !cc_column_is_visible(pk) ? "removed or hidden" : "not indexed");
        }
        for (uint32_t c = 0; c < table->column_count; c++) {
            const cc_column *col = &table->columns[c];
            if (!cc_column_is_live(col)) continue;
            v->column_name = col->name;
            if ((col->flags & CF_COL_FLAG_INDEXED) &&
                (!cc_type_indexable(col->type) || col->collection != COLUMNAR_COLLECTION_NONE ||
                 (col->flags & CF_COL_FLAG_BACKLINK)))
                report(v, schema_ref, "the schema at %llu marks the column indexed, but %s %s values cannot be "
                       "indexed", (unsigned long long)schema_ref,
                       col->collection != COLUMNAR_COLLECTION_NONE ? "collections of" : "single", type_name(col->type));
            if (col->flags & CF_COL_FLAG_BACKLINK) {
                if (col->type != COLUMNAR_TYPE_LINK || col->collection != COLUMNAR_COLLECTION_LIST)
                    report(v, schema_ref, "backlink column is not a list of links (type %s, collection %u)",
                           type_name(col->type), col->collection);
                if (!backlink_origin_valid(schema, t, col))
                    report(v, schema_ref, "backlink column names table %u, column %u as the origin, which is not a "
                           "live link column to this table", col->origin_table, col->origin_column);
            } else if (col->type == COLUMNAR_TYPE_LINK) {
                uint32_t count = backlink_columns(schema, col->target_table, t, c);
                if (count != 1)
                    report(v, schema_ref, "link column to table %s has %u backlink columns there (1 expected)",
                           schema->tables[col->target_table].name, count);
            }
        }
        v->column_name = NULL;
    }
    v->table_name = NULL;
}

static int compare_links(const void *a, const void *b) {
    const vlink *x = a, *y = b;
    if (x->origin_table != y->origin_table) return x->origin_table < y->origin_table ? -1 : 1;
    if (x->origin_column != y->origin_column) return x->origin_column < y->origin_column ? -1 : 1;
    if (x->target_key != y->target_key) return x->target_key < y->target_key ? -1 : 1;
    if (x->origin_key != y->origin_key) return x->origin_key < y->origin_key ? -1 : 1;
    return 0;
}

/* Every link's target exists, and the links equal the backlinks as multisets of (origin table, origin column,
 * origin key, target key). Mismatches are reported only where both sides were read completely: a link in a
 * table whose backlinks could not all be read may well have its backlink in the part that was lost. */
static void check_links(verifier *v) {
    const cc_schema *schema = v->schema;
    vlink *links = v->links.items, *backlinks = v->backlinks.items;
    for (size_t i = 0; i < v->links.count; i++) {
        vlink *link = &links[i];
        const cc_table_schema *origin = &schema->tables[link->origin_table];
        const cc_column *col = &origin->columns[link->origin_column];
        uint32_t target = col->target_table;
        if (key_exists(&v->table_keys[target], link->target_key)) continue;
        link->dangling = true;
        if (!v->table_complete[target]) continue;
        v->table_name = origin->name;
        v->column_name = col->name;
        report(v, link->cluster_ref, "object %lld (in the cluster at %llu) links to object %lld of table %s, which "
               "does not exist", (long long)link->origin_key, (unsigned long long)link->cluster_ref,
               (long long)link->target_key, schema->tables[target].name);
    }
    v->table_name = v->column_name = NULL;
    vvec_sort(&v->links, sizeof(vlink), compare_links);
    vvec_sort(&v->backlinks, sizeof(vlink), compare_links);
    size_t i = 0, j = 0;
    while ((i < v->links.count || j < v->backlinks.count) && !v->error) {
        if (i < v->links.count && links[i].dangling) {
            i++;
            continue;
        }
        int order = i == v->links.count ? 1 : j == v->backlinks.count ? -1 : compare_links(&links[i], &backlinks[j]);
        if (order == 0) {
            i++;
            j++;
            continue;
        }
        const vlink *l = order < 0 ? &links[i] : &backlinks[j];
        const cc_table_schema *origin = &schema->tables[l->origin_table];
        const cc_column *col = &origin->columns[l->origin_column];
        const cc_table_schema *target = &schema->tables[col->target_table];
        if (order < 0) {
            i++;
            if (!v->table_complete[col->target_table] ||
                backlink_columns(schema, col->target_table, l->origin_table, l->origin_column) != 1)
                continue;
            v->table_name = origin->name;
            v->column_name = col->name;
            report(v, l->cluster_ref, "missing backlink: object %lld (in the cluster at %llu) links to object %lld "
                   "of table %s, whose backlinks do not record it", (long long)l->origin_key,
                   (unsigned long long)l->cluster_ref, (long long)l->target_key, target->name);
        } else {
            j++;
            if (!v->table_complete[l->origin_table]) continue;
            v->table_name = target->name;
            v->column_name = NULL;
            report(v, l->cluster_ref, "stale backlink: object %lld (in the cluster at %llu) records a link from "
                   "object %lld of table %s through column %s, but %s", (long long)l->target_key,
                   (unsigned long long)l->cluster_ref, (long long)l->origin_key, origin->name, col->name,
                   key_exists(&v->table_keys[l->origin_table], l->origin_key) ? "that object holds no such link"
                                                                              : "that object does not exist");
        }
        v->table_name = v->column_name = NULL;
    }
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The top node, the free list and the space                                                                    */
/* ---------------------------------------------------------------------------------------------------------- */

static int compare_ranges(const void *a, const void *b) {
    const vrange *x = a, *y = b;
    if (x->pos != y->pos) return x->pos < y->pos ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* Reads the free list (TOP children 3, 4, 5): sorted, non-overlapping, 8-byte multiples inside the used file. */
static void check_free_list(verifier *v, const cc_node *top) {
    static const uint8_t roles[3] = { CF_ROLE_FREE_POS, CF_ROLE_FREE_SIZE, CF_ROLE_FREE_VERSION };
    cc_node arrays[3];
    bool ok = true;
    for (int a = 0; a < 3; a++) {
        if (!visit_child(v, top, CF_TOP_FREE_POS + a, roles[a], &arrays[a])) {
            ok = false;
            continue;
        }
        expect_detail(v, &arrays[a], 0, false);
        if (!expect_encoding(v, &arrays[a], COLUMNAR_ENCODING_PACKED_INT)) ok = false;
    }
    if (!ok) {
        lose_nodes(v);
        return;
    }
    uint32_t count = arrays[0].count;
    if (arrays[1].count != count || arrays[2].count != count) {
        report(v, arrays[0].ref, "free list at %llu has %u positions, %u sizes and %u versions",
               (unsigned long long)arrays[0].ref, arrays[0].count, arrays[1].count, arrays[2].count);
        /* Entries past the shortest array are unknown, so unaccounted space proves nothing. */
        lose_nodes(v);
        count = count < arrays[1].count ? count : arrays[1].count;
        count = count < arrays[2].count ? count : arrays[2].count;
    }
    uint64_t previous_end = CF_HEADER_BYTES;
    for (uint32_t i = 0; i < count && !v->error; i++) {
        int64_t pos = cc_node_int_at(&arrays[0], i), size = cc_node_int_at(&arrays[1], i);
        int64_t version = cc_node_int_at(&arrays[2], i);
        const char *problem = NULL;
        if (pos < (int64_t)CF_HEADER_BYTES) problem = "starts inside the file header";
        else if (pos & 7) problem = "is not 8-byte aligned";
        else if (size <= 0) problem = "is empty or negative";
        else if (size & 7) problem = "is not a multiple of 8 bytes";
        else if ((uint64_t)size > v->used_size || (uint64_t)pos > v->used_size - (uint64_t)size)
            problem = "extends past the end of the used file";
        else if (version < 0 || (uint64_t)version > v->txn->version)
            problem = "was freed by a version later than this one";
        else if ((uint64_t)pos < previous_end) problem = "overlaps or precedes the entry before it (the list is "
                                                         "sorted and its entries are disjoint)";
        if (problem)
            report(v, (uint64_t)(pos > 0 ? pos : 0), "free-list entry %u (%lld bytes at %lld, freed by version %lld) "
                   "%s", i, (long long)size, (long long)pos, (long long)version, problem);
        if (pos < (int64_t)CF_HEADER_BYTES || size <= 0 || (uint64_t)size > v->used_size ||
            (uint64_t)pos > v->used_size - (uint64_t)size)
            continue;
        v->free_list_bytes += (uint64_t)size;
        vrange *range = vvec_push(v, &v->free_ranges, sizeof *range);
        if (!range) return;
        *range = (vrange){ (uint64_t)pos, (uint64_t)(pos + size), 0, false };
        /* Each entry is compared with the one before it only, so that one misplaced entry is one finding rather
         * than one for every entry after it. */
        previous_end = (uint64_t)(pos + size);
    }
    v->free_list_read = true;
}

/* The header slot of this version, when it is still in the header, must agree with the version's used size and
 * free list. A later commit may have overwritten it (or be writing it now), so a slot that does not describe this
 * version or fails its checksum is not a finding. */
static void check_slot(verifier *v) {
    uint64_t offset = cf_slot_offset(v->txn->version);
    cf_slot slot;
    memcpy(&slot, v->base + offset, sizeof slot);
    if (slot.version != v->txn->version || slot.top_ref != v->txn->top_ref ||
        cc_crc32c(0, &slot, offsetof(cf_slot, checksum)) != slot.checksum)
        return;
    if (slot.used_size != v->used_size)
        report(v, offset, "header slot at %llu says version %llu uses %llu bytes, but the version in use has %llu",
               (unsigned long long)offset, (unsigned long long)slot.version, (unsigned long long)slot.used_size,
               (unsigned long long)v->used_size);
    if (v->free_list_read && !v->nodes_lost && slot.free_bytes != v->free_list_bytes)
        report(v, offset, "header slot at %llu says the free list holds %llu bytes, but it holds %llu",
               (unsigned long long)offset, (unsigned long long)slot.free_bytes,
               (unsigned long long)v->free_list_bytes);
}

/* The commit record (TOP child 6): entries of four fields, each a range inside the used file written by a version
 * no later than this one. Ranges this version wrote must still match their CRC (ranges earlier versions wrote may
 * since have been freed and reused, which is no finding). */
static void check_record(verifier *v, const cc_node *top) {
    cc_node record;
    if (!visit_child(v, top, CF_TOP_COMMIT_RECORD, CF_ROLE_COMMIT_RECORD, &record)) return;
    expect_detail(v, &record, 0, false);
    if (!expect_encoding(v, &record, COLUMNAR_ENCODING_PACKED_INT)) return;
    if (record.width != 64 || record.count % CF_RECORD_FIELDS) {
        report(v, record.ref, "commit record at %llu has width %u and %u values (64 bits, a multiple of %u "
               "expected)", (unsigned long long)record.ref, record.width, record.count, CF_RECORD_FIELDS);
        return;
    }
    uint64_t version = v->txn->version;
    for (uint32_t entry = 0; entry < record.count / CF_RECORD_FIELDS && !v->error; entry++) {
        uint64_t pos = (uint64_t)cc_node_int_at(&record, entry * CF_RECORD_FIELDS + CF_RECORD_POS);
        uint64_t size = (uint64_t)cc_node_int_at(&record, entry * CF_RECORD_FIELDS + CF_RECORD_SIZE);
        uint64_t crc = (uint64_t)cc_node_int_at(&record, entry * CF_RECORD_FIELDS + CF_RECORD_CRC);
        uint64_t written_by = (uint64_t)cc_node_int_at(&record, entry * CF_RECORD_FIELDS + CF_RECORD_VERSION);
        if (pos < CF_HEADER_BYTES || (pos & 7) || size == 0 || (size & 7) || size > v->used_size ||
            pos > v->used_size - size || written_by == 0 || written_by > version || crc > UINT32_MAX) {
            report(v, record.ref, "commit record at %llu: entry %u (%llu bytes at %llu, version %llu) is invalid",
                   (unsigned long long)record.ref, entry, (unsigned long long)size, (unsigned long long)pos,
                   (unsigned long long)written_by);
            continue;
        }
        if (written_by == version && cc_crc32c(0, v->base + pos, (size_t)size) != (uint32_t)crc)
            report(v, pos, "the %llu bytes at %llu that this version wrote no longer match the CRC its commit record "
                   "holds", (unsigned long long)size, (unsigned long long)pos);
    }
}

/* Live nodes must not overlap each other or the free list, and every byte of [header, used size) must be one or
 * the other. */
static void check_space(verifier *v) {
    vvec_sort(&v->nodes, sizeof(vrange), compare_ranges);
    vvec_sort(&v->free_ranges, sizeof(vrange), compare_ranges);
    const vrange *nodes = v->nodes.items, *free_ranges = v->free_ranges.items;
    size_t node_count = v->nodes.count, free_count = v->free_ranges.count;
    /* Overlaps are reported per node that reaches over others: one finding names the first node it covers and
     * counts the rest, so that one damaged size does not yield a finding for every node after it. Nodes that failed
     * their checksum take no part, as their extent comes from a header that may be wrong. */
    const vrange *holder = NULL, *first_covered = NULL;
    uint64_t covered_count = 0, last_covered = 0;
    for (size_t i = 0; i <= node_count; i++) {
        const vrange *node = i < node_count ? &nodes[i] : NULL;
        if (node && node->suspect) continue;
        if (node && (node->pos < CF_HEADER_BYTES || node->end > v->used_size))
            /* cc_node_view refuses nodes that start in the header or end past the used size; a used size that is
             * not a multiple of 8 can still leave a node's padding past it. */
            report(v, node->pos, "node at %llu (%llu bytes) lies outside [%u, %llu), the used part of the file",
                   (unsigned long long)node->pos, (unsigned long long)(node->end - node->pos), CF_HEADER_BYTES,
                   (unsigned long long)v->used_size);
        if (node && holder && node->pos < holder->end) {
            if (!covered_count++) first_covered = node;
            last_covered = node->pos;
            if (node->end <= holder->end) continue;
        }
        if (covered_count) {
            char more[96] = "";
            if (covered_count > 1)
                snprintf(more, sizeof more, " (as do %llu more nodes, up to the one at %llu)",
                         (unsigned long long)(covered_count - 1), (unsigned long long)last_covered);
            report(v, first_covered->pos, "node at %llu (%s, %llu bytes) overlaps the node at %llu (%s, %llu bytes)%s",
                   (unsigned long long)first_covered->pos, role_name(first_covered->role),
                   (unsigned long long)(first_covered->end - first_covered->pos), (unsigned long long)holder->pos,
                   role_name(holder->role), (unsigned long long)(holder->end - holder->pos), more);
            covered_count = 0;
        }
        if (node && (!holder || node->end > holder->end)) holder = node;
    }
    /* Each free entry against the live nodes: the last node starting before it and those starting inside it. */
    for (size_t f = 0; f < free_count; f++) {
        size_t low = 0, high = node_count;
        while (low < high) {
            size_t mid = low + (high - low) / 2;
            if (nodes[mid].pos < free_ranges[f].pos) low = mid + 1;
            else high = mid;
        }
        const vrange *hit = NULL;
        if (low > 0 && nodes[low - 1].end > free_ranges[f].pos) hit = &nodes[low - 1];
        else if (low < node_count && nodes[low].pos < free_ranges[f].end) hit = &nodes[low];
        if (hit && !hit->suspect)
            report(v, free_ranges[f].pos, "free-list entry of %llu bytes at %llu overlaps the live node at %llu "
                   "(%s, %llu bytes)", (unsigned long long)(free_ranges[f].end - free_ranges[f].pos),
                   (unsigned long long)free_ranges[f].pos, (unsigned long long)hit->pos, role_name(hit->role),
                   (unsigned long long)(hit->end - hit->pos));
    }
    /* The space of a node the walk had to skip, or of one whose extent is unsure, would look leaked: leaks are only
     * judged when neither happened. */
    if (v->nodes_lost || v->suspect_nodes || !v->free_list_read) return;
    uint64_t covered = CF_HEADER_BYTES, leaked_bytes = 0, leaked_ranges = 0, first_pos = 0, first_bytes = 0;
    size_t i = 0, f = 0;
    while (i < node_count || f < free_count) {
        const vrange *next = (f == free_count || (i < node_count && nodes[i].pos <= free_ranges[f].pos))
                             ? &nodes[i++] : &free_ranges[f++];
        if (next->pos > covered) {
            if (!leaked_ranges++) {
                first_pos = covered;
                first_bytes = next->pos - covered;
            }
            leaked_bytes += next->pos - covered;
        }
        if (next->end > covered) covered = next->end;
    }
    if (covered < v->used_size) {
        if (!leaked_ranges++) {
            first_pos = covered;
            first_bytes = v->used_size - covered;
        }
        leaked_bytes += v->used_size - covered;
    }
    if (leaked_bytes)
        report(v, first_pos, "%llu bytes in %llu ranges of the used file are neither live nodes nor on the free list "
               "(leaked space); the first is %llu bytes at %llu", (unsigned long long)leaked_bytes,
               (unsigned long long)leaked_ranges, (unsigned long long)first_bytes, (unsigned long long)first_pos);
}

/* Walks everything below the top node. */
static void walk_top(verifier *v) {
    columnar_txn *txn = v->txn;
    if (v->used_size < CF_HEADER_BYTES || (v->used_size & 7))
        report(v, 0, "the version's used size %llu is not a multiple of 8 bytes past the %u-byte header",
               (unsigned long long)v->used_size, CF_HEADER_BYTES);
    cc_node top;
    if (!visit(v, txn->top_ref, CF_ROLE_TOP, 0, &top)) return;
    if (!expect_refs(v, &top, CF_TOP_CHILDREN, true)) {
        lose_nodes(v);
        return;
    }
    cc_node meta;
    if (visit_child(v, &top, CF_TOP_META, CF_ROLE_META, &meta)) {
        expect_detail(v, &meta, 0, false);
        if (expect_encoding(v, &meta, COLUMNAR_ENCODING_PACKED_INT)) {
            if (meta.count < CF_TOP_META_COUNT)
                report(v, meta.ref, "top meta at %llu has %u elements where %u were expected",
                       (unsigned long long)meta.ref, meta.count, CF_TOP_META_COUNT);
            else if (cc_node_int_at(&meta, CF_TOP_META_VERSION) != (int64_t)txn->version)
                report(v, meta.ref, "top meta at %llu records version %lld, but the header slot says %llu",
                       (unsigned long long)meta.ref, (long long)cc_node_int_at(&meta, CF_TOP_META_VERSION),
                       (unsigned long long)txn->version);
            else if (cc_node_int_at(&meta, CF_TOP_META_CLUSTER_SIZE) <= 0)
                report(v, meta.ref, "top meta at %llu records cluster size %lld", (unsigned long long)meta.ref,
                       (long long)cc_node_int_at(&meta, CF_TOP_META_CLUSTER_SIZE));
        }
    }
    check_free_list(v, &top);
    if (v->error) return;
    check_record(v, &top);
    if (v->error) return;

    cc_node schema_node, tables;
    bool have_schema = visit_child(v, &top, CF_TOP_SCHEMA, CF_ROLE_SCHEMA, &schema_node);
    if (have_schema) {
        expect_detail(v, &schema_node, 0, false);
        have_schema = expect_encoding(v, &schema_node, COLUMNAR_ENCODING_BYTES);
    }
    if (have_schema) {
        int rc = cc_schema_decode(schema_node.payload, schema_node.payload_bytes, schema_node.ref, &v->schema);
        if (rc == -ENOMEM) {
            v->error = rc;
            return;
        }
        if (rc) {
            report(v, schema_node.ref, "%s", columnar_last_error()->message);
            v->schema = NULL;
        }
    }
    bool have_tables = visit_child(v, &top, CF_TOP_TABLES, CF_ROLE_TABLES, &tables);
    if (have_tables && !expect_refs(v, &tables, 0, false)) have_tables = false;
    if (!v->schema || !have_tables) {
        /* Without the schema the clusters cannot be read, and without the table list they cannot be found. */
        lose_nodes(v);
        return;
    }
    uint32_t table_count = v->schema->table_count;
    v->table_keys = calloc(table_count ? table_count : 1, sizeof *v->table_keys);
    v->table_complete = malloc((table_count ? table_count : 1) * sizeof *v->table_complete);
    if (!v->table_keys || !v->table_complete) {
        v->error = -ENOMEM;
        return;
    }
    for (uint32_t t = 0; t < table_count; t++) v->table_complete[t] = true;
    check_schema(v, schema_node.ref);
    if (tables.count != table_count)
        report(v, tables.ref, "table list at %llu has %u entries, but the schema has %u tables",
               (unsigned long long)tables.ref, tables.count, table_count);
    for (uint32_t t = table_count; t < tables.count; t++)
        if (cc_node_ref_at(&tables, t)) lose_nodes(v);
    for (uint32_t t = 0; t < table_count && !v->error; t++) {
        const cc_table_schema *schema = &v->schema->tables[t];
        uint64_t ref = t < tables.count ? cc_node_ref_at(&tables, t) : 0;
        v->table_name = schema->name;
        if (schema->flags & CF_TABLE_FLAG_REMOVED) {
            if (ref) {
                report(v, tables.ref, "the removed table still has a table node at %llu", (unsigned long long)ref);
                lose_nodes(v);
            }
        } else if (!ref) {
            report(v, tables.ref, "table list at %llu has no table node for the live table",
                   (unsigned long long)tables.ref);
            v->table_complete[t] = false;
        } else {
            verify_table(v, t, ref, tables.ref);
        }
        v->table_name = NULL;
        v->column_name = NULL;
    }
    if (!v->error) check_links(v);
}

/* An encrypted file's sectors that failed authentication below the used size (mirror.h). Their bytes were
 * replaced, so the walk may have found the nodes in them damaged too; this names the cause. */
static void check_sectors(verifier *v) {
    cc_mirror *mirror = v->txn->db->map.mirror;
    if (!mirror) return;
    /* Every sector the image has read, also those past the used size (preallocated space no version uses yet:
     * damage there harms nothing now, but a file that was changed is reported). */
    uint64_t sectors[16];
    size_t count = cc_mirror_damage(mirror, UINT64_MAX, sectors, 16);
    for (size_t i = 0; i < count && i < 16; i++)
        report(v, cc_crypt_sector_logical(sectors[i]),
               "encrypted sector %llu (logical bytes %llu .. %llu, file offset %llu%s) fails authentication: the "
               "file was damaged or changed there", (unsigned long long)sectors[i],
               (unsigned long long)cc_crypt_sector_logical(sectors[i]),
               (unsigned long long)cc_crypt_sector_logical(sectors[i] + 1) - 1,
               (unsigned long long)cc_crypt_sector_physical(sectors[i]),
               cc_crypt_sector_logical(sectors[i]) >= v->used_size ? ", in space no version uses" : "");
    if (count > 16)
        report(v, cc_crypt_sector_logical(sectors[15]), "%llu more encrypted sectors fail authentication",
               (unsigned long long)(count - 16));
}

int columnar_verify(columnar_txn *txn, columnar_finding_fn on_finding, void *context, uint64_t *out_findings) {
    if (out_findings) *out_findings = 0;
    int rc = cc_txn_check(txn);
    if (rc) return rc;
    verifier v;
    memset(&v, 0, sizeof v);
    v.txn = txn;
    v.base = txn->db->map.base;
    v.used_size = txn->used_size;
    v.on_finding = on_finding;
    v.context = context;
    /* One bit per possible node start (nodes are 8-byte aligned) below the used size. */
    size_t words = (size_t)(v.used_size / 8 / 64 + 1);
    v.reached = calloc(words, sizeof *v.reached);
    v.shared_reported = calloc(words, sizeof *v.shared_reported);
    if (!v.reached || !v.shared_reported) {
        v.error = -ENOMEM;
    } else {
        walk_top(&v);
        if (!v.error) check_sectors(&v);
        if (!v.error) check_slot(&v);
        if (!v.error) check_space(&v);
    }
    free(v.reached);
    free(v.shared_reported);
    vvec_free(&v.nodes);
    vvec_free(&v.free_ranges);
    vvec_free(&v.links);
    vvec_free(&v.backlinks);
    if (v.table_keys)
        for (uint32_t t = 0; t < v.schema->table_count; t++) vvec_free(&v.table_keys[t]);
    free(v.table_keys);
    free(v.table_complete);
    if (v.schema) cc_schema_release(v.schema);
    if (v.error) return cc_error(v.error, 0, "", "columnar_verify ran out of memory");
    if (out_findings) *out_findings = v.finding_count;
    if (v.finding_count == 0) return COLUMNAR_OK;
    if (v.finding_count == 1) return CC_CORRUPT(v.first_ref, "%s", v.first_message);
    return CC_CORRUPT(v.first_ref, "%s (and %llu more findings)", v.first_message,
                      (unsigned long long)(v.finding_count - 1));
}
