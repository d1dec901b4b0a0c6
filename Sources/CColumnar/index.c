/*
 * index.c — search indexes. An index is a tree like a table's whose rows hold the first object key filed under an
 * index key and a list of any further ones. Lookups compute the value's index key, then check each candidate's
 * actual value, so values that share a key cost time, never correctness; where a key stands for one value only
 * (key_is_exact) the check is that the object exists.
 *
 * Two kinds of index key (docs/FileFormat.md, "Search indexes"):
 * - hash keys, a 64-bit hash of the value: ObjectId and UUID columns, and every index of a file written before
 *   ordered indexes existed;
 * - ordered keys (the column has CF_COL_FLAG_ORDERED): a key that never decreases as the value grows, so the
 *   values in a range, or the strings with a prefix, are the entries of a key range, and the first and last
 *   entries hold the extremes. Ints are their own key; bools 0 and 1; timestamps (seconds << 30 | nanoseconds)
 *   within ±2^33 seconds of 1970 and saturated beyond; strings their first six bytes, big-endian, then 16 bits of
 *   a hash of the whole string, which keeps equal prefixes apart for equality lookups (so within one six-byte
 *   prefix keys follow the hash, not the value: ordered for prefixes, not for string extremes). Null is filed
 *   under INT64_MIN. An ordered index's rows have a third column, how many further keys the row lists, so a
 *   range is counted without opening its lists.
 */
#include "kernels.h"
#include "object.h"

#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>

bool cc_type_indexable(uint8_t type) {
    switch (type) {
    case COLUMNAR_TYPE_INT: case COLUMNAR_TYPE_BOOL: case COLUMNAR_TYPE_STRING: case COLUMNAR_TYPE_TIMESTAMP:
    case COLUMNAR_TYPE_OBJECTID: case COLUMNAR_TYPE_UUID:
        return true;
    default: return false;
    }
}

static uint64_t mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t hash_bytes(const uint8_t *data, uint64_t size) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ size;
    while (size >= 8) {
        uint64_t word;
        memcpy(&word, data, 8);
        h = mix(h ^ word);
        data += 8;
        size -= 8;
    }
    uint64_t tail = 0;
    if (size) memcpy(&tail, data, size);
    return mix(h ^ tail ^ (size << 56));
}

uint64_t cc_index_hash(uint8_t type, const void *cell, bool is_null) {
    if (is_null) return 0x6e756c6c00000001ull;
    switch (type) {
    /* Cells arrive in byte buffers of any alignment: they are copied out, not read through a struct pointer. */
    case COLUMNAR_TYPE_STRING: case COLUMNAR_TYPE_BINARY: case COLUMNAR_TYPE_MIXED: {
        cc_bytes b;
        memcpy(&b, cell, sizeof b);
        return hash_bytes(b.data, b.size);
    }
    case COLUMNAR_TYPE_TIMESTAMP: {
        cc_ts ts;
        memcpy(&ts, cell, sizeof ts);
        return mix((uint64_t)ts.seconds ^ mix((uint64_t)ts.nanoseconds));
    }
    case COLUMNAR_TYPE_OBJECTID: return hash_bytes(cell, 12);
    case COLUMNAR_TYPE_UUID: return hash_bytes(cell, 16);
    default: { uint64_t v; memcpy(&v, cell, 8); return mix(v); }
    }
}

static bool type_orderable(uint8_t type) {
    return type == COLUMNAR_TYPE_INT || type == COLUMNAR_TYPE_BOOL || type == COLUMNAR_TYPE_TIMESTAMP ||
           type == COLUMNAR_TYPE_STRING;
}

uint8_t cc_index_flags(uint8_t type) {
    return (uint8_t)(CF_COL_FLAG_INDEXED | (type_orderable(type) ? CF_COL_FLAG_ORDERED : 0));
}

#define ORDERED_NULL_KEY INT64_MIN
#define STRING_KEY_PREFIX_BYTES 6u
/* Timestamps with |seconds| below this get exact keys (seconds << 30 | nanoseconds fits in 63 bits). */
#define TIMESTAMP_KEY_SECONDS_LIMIT (INT64_C(1) << 33)

/* The ordered key of the string prefix `data[0 ..< size]` (size <= 6) followed by zero bytes, with `low16` as its
 * last 16 bits. Unsigned order of the big-endian bytes becomes signed order by flipping the top bit. */
static int64_t string_prefix_key(const uint8_t *data, uint64_t size, uint16_t low16) {
    uint64_t u = 0;
    for (uint32_t i = 0; i < STRING_KEY_PREFIX_BYTES; i++) u = (u << 8) | (i < size ? data[i] : 0);
    u = (u << 16) | low16;
    return (int64_t)(u ^ (UINT64_C(1) << 63));
}

int64_t cc_index_key(const cc_column *column, const void *cell, bool is_null) {
    if (!(column->flags & CF_COL_FLAG_ORDERED)) return (int64_t)cc_index_hash(column->type, cell, is_null);
    if (is_null) return ORDERED_NULL_KEY;
    switch (column->type) {
    case COLUMNAR_TYPE_STRING: {
        cc_bytes b;
        memcpy(&b, cell, sizeof b);
        return string_prefix_key(b.data, b.size, (uint16_t)hash_bytes(b.data, b.size));
    }
    case COLUMNAR_TYPE_TIMESTAMP: {
        cc_ts ts;
        memcpy(&ts, cell, sizeof ts);
        if (ts.seconds <= -TIMESTAMP_KEY_SECONDS_LIMIT) return ORDERED_NULL_KEY + 1;
        if (ts.seconds >= TIMESTAMP_KEY_SECONDS_LIMIT) return INT64_MAX;
        return (int64_t)(((uint64_t)ts.seconds << 30) | (uint32_t)ts.nanoseconds);
    }
    default: { int64_t v; memcpy(&v, cell, 8); return v; }   /* INT, BOOL (0 or 1) */
    }
}

static cc_elemtype more_keys_elem(void) {
    return (cc_elemtype){ COLUMNAR_TYPE_INT, COLUMNAR_COLLECTION_LIST, false };
}

int cc_index_insert(columnar_txn *txn, uint32_t table, uint32_t column, const void *cell, bool is_null, int64_t key) {
    cc_tstate *ts;
    int rc = cc_table_state(txn, table, &ts);
    if (rc) return rc;
    const cc_column *col = &cc_table_schema_get(txn, table)->columns[column];
    int64_t index_key = cc_index_key(col, cell, is_null);
    cc_tnode *leaf;
    uint32_t row;
    bool found;
    if ((rc = cc_tree_locate(txn, &ts->indexes[column], cc_index_schema_of(col), index_key, true, &leaf, &row,
                             &found)))
        return rc;
    ts->dirty = true;
    if (!found) {
        memcpy(cc_mvec_cell(&leaf->columns[0], row), &key, 8);
        return 0;
    }
    cc_collcell *more = cc_mvec_cell(&leaf->columns[1], row);
    if ((rc = cc_coll_materialize(txn, more, more_keys_elem()))) return rc;
    cc_mvec *keys = &more->dirty->values;
    if ((rc = cc_mvec_insert_default(keys, keys->count, 1))) return rc;
    memcpy(cc_mvec_cell(keys, keys->count - 1), &key, 8);
    if (col->flags & CF_COL_FLAG_ORDERED) {
        int64_t more_count = keys->count;
        memcpy(cc_mvec_cell(&leaf->columns[2], row), &more_count, 8);
    }
    return 0;
}

int cc_index_remove(columnar_txn *txn, uint32_t table, uint32_t column, const void *cell, bool is_null, int64_t key) {
    cc_tstate *ts;
    int rc = cc_table_state(txn, table, &ts);
    if (rc) return rc;
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    const cc_column *col = &schema->columns[column];
    int64_t index_key = cc_index_key(col, cell, is_null);
    cc_tnode *leaf;
    uint32_t row;
    bool found;
    if ((rc = cc_tree_locate(txn, &ts->indexes[column], cc_index_schema_of(col), index_key, false, &leaf, &row,
                             &found)))
        return rc;
    if (!found) goto missing;
    ts->dirty = true;
    cc_collcell *more = cc_mvec_cell(&leaf->columns[1], row);
    int64_t first;
    memcpy(&first, cc_mvec_cell(&leaf->columns[0], row), 8);
    uint64_t more_count;
    if ((rc = cc_collcell_count(txn, more, more_keys_elem(), &more_count))) return rc;
    if (first == key && more_count == 0) {
        if ((rc = cc_collcell_release(txn, more, more_keys_elem()))) return rc;
        cc_tree_remove_row(leaf, row);
        return 0;
    }
    if ((rc = cc_coll_materialize(txn, more, more_keys_elem()))) return rc;
    cc_mvec *keys = &more->dirty->values;
    bool removed = false;
    if (first == key) {
        /* Promote the last further key to first. */
        memcpy(cc_mvec_cell(&leaf->columns[0], row), cc_mvec_cell(keys, keys->count - 1), 8);
        keys->count--;
        removed = true;
    }
    for (uint32_t i = keys->count; !removed && i-- > 0;) {
        int64_t k;
        memcpy(&k, cc_mvec_cell(keys, i), 8);
        if (k == key) {
            cc_mvec_remove(keys, i);
            removed = true;
        }
    }
    if (removed) {
        if (col->flags & CF_COL_FLAG_ORDERED) {
            int64_t remaining = keys->count;
            memcpy(cc_mvec_cell(&leaf->columns[2], row), &remaining, 8);
        }
        return 0;
    }
missing:
    return CC_CORRUPT(0, "the index of %s.%s has no entry for object %lld", schema->name, col->name, (long long)key);
}

/* The row of object `key`, which an index lists: an object that does not exist is a damaged index. */
static int listed_object(columnar_txn *txn, uint32_t table, int64_t key, cc_rowpos *pos) {
    cc_tstate *ts;
    int rc = cc_obj_find(txn, table, key, &ts, pos);
    if (rc == COLUMNAR_ENOTFOUND)
        return CC_CORRUPT(0, "an index of table %u lists object %lld, which does not exist", table, (long long)key);
    return rc;
}

/* The column's value for object `key`, which an index lists. */
static int object_value(columnar_txn *txn, uint32_t table, uint32_t column, int64_t key, void *cell, bool *is_null) {
    cc_rowpos pos;
    int rc = listed_object(txn, table, key, &pos);
    return rc ? rc : cc_row_get(txn, cc_table_schema_get(txn, table), &pos, column, cell, is_null);
}

/* Whether an ordered key stands for exactly one value, so that every object filed under it holds `cell`: ints
 * other than INT64_MIN (which shares its key with null), bools, and timestamps inside the exact range. Such
 * entries are trusted as SQLite trusts its index entries; `verify` checks each entry against its object's value. */
static bool key_is_exact(const cc_column *column, const void *cell, bool is_null) {
    if (!(column->flags & CF_COL_FLAG_ORDERED) || is_null) return false;
    switch (column->type) {
    case COLUMNAR_TYPE_INT: { int64_t v; memcpy(&v, cell, 8); return v != INT64_MIN; }
    case COLUMNAR_TYPE_BOOL: return true;
    case COLUMNAR_TYPE_TIMESTAMP: {
        cc_ts ts;
        memcpy(&ts, cell, sizeof ts);
        /* Nanoseconds outside 0 ... 999,999,999 (a value no column holds, but one a lookup may be given) would
         * spill into the seconds' bits of the key and name another timestamp. */
        return ts.seconds > -TIMESTAMP_KEY_SECONDS_LIMIT && ts.seconds < TIMESTAMP_KEY_SECONDS_LIMIT &&
               ts.nanoseconds >= 0 && ts.nanoseconds <= 999999999;
    }
    default: return false;
    }
}

/* Whether object `key` of the table has `cell` in `column`. With an exact key only whether the object exists:
 * that finds its row, which the caller reads next anyway (cc_obj_find remembers it). */
static int candidate_matches(columnar_txn *txn, uint32_t table, uint32_t column, int64_t key, const void *cell,
                             bool is_null, bool exact, bool *matches) {
    if (exact) {
        cc_rowpos pos;
        int rc = listed_object(txn, table, key, &pos);
        *matches = rc == 0;
        return rc;
    }
    uint8_t value[16];
    bool value_null;
    int rc = object_value(txn, table, column, key, value, &value_null);
    if (rc) return rc;
    *matches = cc_cell_compare(cc_table_schema_get(txn, table)->columns[column].type, value, value_null, cell,
                               is_null) == 0 &&
               value_null == is_null;
    return 0;
}

/* Calls `visit` with each object key the index row at `pos` lists: the first, then the further ones in the order
 * they were filed. Stops at a non-zero return. */
typedef int (*index_key_visitor)(void *context, int64_t object_key);
static int visit_entry_keys(const columnar_txn *txn, const cc_table_schema *index_schema, const cc_rowpos *pos,
                            index_key_visitor visit, void *context) {
    int64_t first;
    cc_collcell more;
    bool null_flag;
    uint64_t more_count;
    int rc;
    if ((rc = cc_row_get(txn, index_schema, pos, 0, &first, &null_flag)) ||
        (rc = cc_row_get(txn, index_schema, pos, 1, &more, &null_flag)) ||
        (rc = cc_collcell_count(txn, &more, more_keys_elem(), &more_count)) || (rc = visit(context, first)))
        return rc;
    for (uint64_t i = 0; i < more_count; i++) {
        int64_t key;
        if ((rc = cc_collcell_get(txn, &more, more_keys_elem(), false, i, &key, &null_flag)) ||
            (rc = visit(context, key)))
            return rc;
    }
    return 0;
}

/* The objects of an index row whose value equals a given one: the smallest key (cc_index_find), or all of them
 * (columnar_index_find_all). */
typedef struct equal_sink {
    columnar_txn *txn;
    uint32_t table;
    uint32_t column;
    const void *cell;
    bool is_null;
    bool exact;             /* key_is_exact: the entry's objects hold the value if they exist */
    int64_t smallest;       /* INT64_MAX: none yet */
    int64_t *keys;          /* when collecting: every match (in `few` until more than fit there) */
    size_t count;
    size_t capacity;
    bool collect;
    int64_t few[8];         /* most values are held by one object or a few: no allocation for them */
} equal_sink;

static int sink_equal(void *context, int64_t key) {
    equal_sink *s = context;
    bool matches = false;
    int rc = candidate_matches(s->txn, s->table, s->column, key, s->cell, s->is_null, s->exact, &matches);
    if (rc || !matches) return rc;
    if (key < s->smallest) s->smallest = key;
    if (!s->collect) return 0;
    if (!s->keys) {
        s->keys = s->few;
        s->capacity = sizeof s->few / sizeof s->few[0];
    }
    if (s->count == s->capacity) {
        size_t capacity = s->capacity * 2;
        bool inline_keys = s->keys == s->few;
        int64_t *grown = capacity < SIZE_MAX / sizeof *grown
            ? realloc(inline_keys ? NULL : s->keys, capacity * sizeof *grown) : NULL;
        if (!grown) return -ENOMEM;
        if (inline_keys) memcpy(grown, s->few, sizeof s->few);
        s->keys = grown;
        s->capacity = capacity;
    }
    s->keys[s->count++] = key;
    return 0;
}

int cc_index_find(columnar_txn *txn, uint32_t table, uint32_t column, const void *cell, bool is_null, int64_t *out_key,
                  bool *found) {
    *found = false;
    cc_tstate *ts;
    int rc = cc_table_state(txn, table, &ts);
    if (rc) return rc;
    const cc_column *col = &cc_table_schema_get(txn, table)->columns[column];
    int64_t index_key = cc_index_key(col, cell, is_null);
    cc_rowpos pos;
    bool exists;
    if ((rc = cc_tree_find(txn, &ts->indexes[column], index_key, &pos, &exists)) || !exists) return rc;
    equal_sink sink = { txn, table, column, cell, is_null, key_is_exact(col, cell, is_null), INT64_MAX, NULL, 0, 0,
                        false, { 0 } };
    if ((rc = visit_entry_keys(txn, cc_index_schema_of(col), &pos, sink_equal, &sink))) return rc;
    if (sink.smallest != INT64_MAX) {
        *found = true;
        *out_key = sink.smallest;
    }
    return 0;
}

typedef struct build_context {
    columnar_txn *txn;
    uint32_t table;
    uint32_t column;
    const cc_table_schema *schema;
    int64_t *keys;
    size_t count;
    size_t capacity;
} build_context;

static int collect_key(void *context, int64_t key, const cc_rowpos *pos) {
    build_context *b = context;
    if (b->count == b->capacity) {
        size_t capacity = b->capacity ? b->capacity * 2 : 1024;
        int64_t *grown = realloc(b->keys, capacity * sizeof *grown);
        if (!grown) return -ENOMEM;
        b->keys = grown;
        b->capacity = capacity;
    }
    b->keys[b->count++] = key;
    return 0;
}

int cc_index_build(columnar_txn *txn, uint32_t table, uint32_t column) {
    cc_tstate *ts;
    int rc = cc_table_state(txn, table, &ts);
    if (rc) return rc;
    build_context b = { txn, table, column, cc_table_schema_get(txn, table), NULL, 0, 0 };
    /* Collect keys first: inserting into the index while walking the table would not disturb the walk, but
     * reading values by key keeps this independent of the table's private/committed mix. */
    if ((rc = cc_tree_each_row(txn, &ts->root, collect_key, &b))) goto done;
    for (size_t i = 0; i < b.count && !rc; i++) {
        cc_rowpos pos;
        cc_tstate *unused;
        uint8_t value[16];
        bool is_null;
        if ((rc = cc_obj_find(txn, table, b.keys[i], &unused, &pos))) break;
        if ((rc = cc_row_get(txn, b.schema, &pos, column, value, &is_null))) break;
        rc = cc_index_insert(txn, table, column, value, is_null, b.keys[i]);
    }
done:
    free(b.keys);
    return rc;
}

int cc_index_drop(columnar_txn *txn, uint32_t table, uint32_t column) {
    cc_tstate *ts;
    int rc = cc_table_state(txn, table, &ts);
    if (rc) return rc;
    ts->dirty = true;
    return cc_tree_release(txn, &ts->indexes[column], cc_index_schema_of(&cc_table_schema_get(txn, table)->columns[column]));
}

static int compare_keys(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int columnar_index_find_all(columnar_txn *txn, columnar_table_id table, columnar_col_id column,
                            const columnar_value *value, columnar_key *out_keys, size_t capacity,
                            size_t *out_count) {
    int rc = cc_txn_check(txn);
    if (rc) return rc;
    if (!value || !out_count || (capacity && !out_keys))
        return CC_MISUSE("columnar_index_find_all needs a value, a count and room for `capacity` keys");
    *out_count = 0;
    const cc_column *col;
    if ((rc = cc_visible_column(txn, table, column, &col))) return rc;
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    if (col->collection != COLUMNAR_COLLECTION_NONE || !(col->flags & CF_COL_FLAG_INDEXED))
        return CC_MISUSE("%s.%s has no search index", schema->name, col->name);
    uint8_t cell[16];
    bool is_null = value->is_null;
    memset(cell, 0, sizeof cell);
    if (!is_null) {
        if ((uint8_t)value->type != col->type)
            return cc_error(COLUMNAR_ETYPE, 0, "", "%s.%s holds values of type %u, not %u", schema->name, col->name,
                            col->type, (unsigned)value->type);
        cc_cell_from_value(col->type, value, cell);
    }
    cc_tstate *ts;
    if ((rc = cc_table_state(txn, table, &ts))) return rc;
    int64_t index_key = cc_index_key(col, cell, is_null);
    cc_rowpos pos;
    bool exists;
    if ((rc = cc_tree_find(txn, &ts->indexes[column], index_key, &pos, &exists)) || !exists) return rc;
    /* The entry lists every object whose value has this key: the first key, then the further ones. Each is
     * checked against its actual value (unless the key is exact), so objects whose different values share the key
     * are left out. */
    equal_sink sink = { txn, table, column, cell, is_null, key_is_exact(col, cell, is_null), INT64_MAX, NULL, 0, 0,
                        true, { 0 } };
    if ((rc = visit_entry_keys(txn, cc_index_schema_of(col), &pos, sink_equal, &sink))) goto done;
    if (sink.count > 1) qsort(sink.keys, sink.count, sizeof *sink.keys, compare_keys);
    /* An object listed twice (a damaged index) is reported once. */
    size_t unique = 0;
    for (size_t i = 0; i < sink.count; i++)
        if (unique == 0 || sink.keys[i] != sink.keys[unique - 1]) sink.keys[unique++] = sink.keys[i];
    for (size_t i = 0; i < unique && i < capacity; i++) out_keys[i] = sink.keys[i];
    *out_count = unique;
done:
    if (sink.keys != sink.few) free(sink.keys);
    return rc;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Ordered indexes: ranges, prefixes and extremes                                                               */
/* ---------------------------------------------------------------------------------------------------------- */

/* A walk over the rows of an index tree whose index keys lie in [low, high], cluster by cluster. Each cluster is
 * found by a descent from the root (cc_tree_seek_cluster), so a narrow range costs a few descents. */
typedef struct index_walk {
    const columnar_txn *txn;
    const cc_child *root;
    int64_t next;            /* the smallest index key not yet walked */
    int64_t high;
    bool done;
    cc_cluster_pos cluster;  /* the current cluster, and its rows [from, to) inside the range */
    uint32_t from, to;
} index_walk;

static uint32_t cluster_rows(const cc_cluster_pos *c) { return c->leaf ? c->leaf->count : c->keys.count; }

static int64_t cluster_key(const cc_cluster_pos *c, uint32_t row) {
    return c->leaf ? (int64_t)c->leaf->keys[row] : cc_node_int_at(&c->keys, row);
}

/* The first row of the cluster whose key is above `key` (or >= with `inclusive`). */
static uint32_t cluster_bound(const cc_cluster_pos *c, int64_t key, bool inclusive) {
    uint32_t low = 0, high = cluster_rows(c);
    while (low < high) {
        uint32_t mid = low + (high - low) / 2;
        int64_t k = cluster_key(c, mid);
        if (inclusive ? k < key : k <= key) low = mid + 1;
        else high = mid;
    }
    return low;
}

/* Moves to the next cluster with rows in range; false when there is none. */
static int index_walk_next(index_walk *w, bool *out_more) {
    *out_more = false;
    while (!w->done) {
        if (w->next > w->high) {
            w->done = true;
            break;
        }
        int rc = cc_tree_seek_cluster(w->txn, w->root, w->next, &w->cluster);
        if (rc) return rc;
        if (!w->cluster.found) {
            w->done = true;
            break;
        }
        uint32_t rows = cluster_rows(&w->cluster);
        int64_t last = cluster_key(&w->cluster, rows - 1);
        w->from = cluster_bound(&w->cluster, w->next, true);
        w->to = cluster_bound(&w->cluster, w->high, false);
        if (last >= w->high || last == INT64_MAX) w->done = true;
        else w->next = last + 1;
        if (w->from < w->to) {
            *out_more = true;
            return 0;
        }
    }
    return 0;
}

static cc_rowpos walk_pos(const index_walk *w, uint32_t row) {
    return (cc_rowpos){ w->cluster.leaf, w->cluster.leaf ? 0 : w->cluster.cluster_ref, row };
}

/* One int column of the walk's current cluster, read row by row: a private leaf's cells, a committed cluster's
 * leaf (packed ints read directly), or zeros when the committed cluster stores no leaf for the column (every row
 * holds the default). */
typedef struct cluster_ints {
    const cc_cluster_pos *cluster;
    uint32_t column;
    bool absent;
    bool packed;
    cc_leaf leaf;
} cluster_ints;

static int cluster_ints_open(const index_walk *w, uint32_t column, cluster_ints *out) {
    const cc_cluster_pos *c = &w->cluster;
    *out = (cluster_ints){ c, column, false, false, { 0 } };
    if (c->leaf) {
        out->absent = c->leaf->column_count <= column;
        return 0;
    }
    int rc = cc_cluster_leaf_open(w->txn, c->cluster_ref, column, COLUMNAR_TYPE_INT, COLUMNAR_COLLECTION_NONE,
                                  &out->leaf);
    if (rc) return rc;
    if (!out->leaf.values.ref) {
        out->absent = true;
        return 0;
    }
    if (out->leaf.count < w->to)
        return CC_CORRUPT(out->leaf.values.ref, "an index column's values at %llu are %u, fewer than its cluster's "
                          "rows", (unsigned long long)out->leaf.values.ref, out->leaf.count);
    out->packed = out->leaf.values.encoding == COLUMNAR_ENCODING_PACKED_INT && !out->leaf.nulls.ref;
    return 0;
}

static int cluster_ints_get(cluster_ints *c, uint32_t row, int64_t *out, bool *out_is_null) {
    *out_is_null = false;
    if (c->absent) {
        *out = 0;
        return 0;
    }
    if (c->cluster->leaf) {
        memcpy(out, cc_mvec_cell(&c->cluster->leaf->columns[c->column], row), 8);
        return 0;
    }
    if (c->packed) {
        *out = cc_node_int_at(&c->leaf.values, row);
        return 0;
    }
    return cc_leaf_get(&c->leaf, row, out, out_is_null);
}

/* The count column (2) of row `row`: how many object keys the row lists beyond its first. */
static int row_more_count(const index_walk *w, cluster_ints *counts, uint32_t row, uint64_t *out) {
    int64_t n;
    bool is_null;
    int rc = cluster_ints_get(counts, row, &n, &is_null);
    if (rc) return rc;
    if (n < 0 || is_null)
        return CC_CORRUPT(w->cluster.cluster_ref, "an ordered index row at %llu counts %lld further objects",
                          (unsigned long long)w->cluster.cluster_ref, (long long)n);
    *out = (uint64_t)n;
    return 0;
}

/* Adds the count column of rows [from, to) of the current cluster to *sum. */
static int add_more_counts(const index_walk *w, uint64_t *sum) {
    cluster_ints counts;
    int rc = cluster_ints_open(w, 2, &counts);
    if (rc || counts.absent) return rc;   /* no count column: every row lists no further key */
    for (uint32_t row = w->from; row < w->to; row++) {
        uint64_t n;
        if ((rc = row_more_count(w, &counts, row, &n))) return rc;
        *sum += n;
    }
    return 0;
}

/* Calls `visit` with every object key filed in row `row` of the walk's current cluster. */
static int visit_row_keys(const index_walk *w, uint32_t row, index_key_visitor visit, void *context) {
    cc_rowpos pos = walk_pos(w, row);
    return visit_entry_keys(w->txn, cc_ordered_index_schema(), &pos, visit, context);
}

/* What a range query works on: the column checked to have an ordered index, its tree, and the key range. */
typedef struct ordered_query {
    columnar_txn *txn;
    uint32_t table;
    uint32_t column;
    const cc_column *col;
    const cc_child *root;
} ordered_query;

/* type_a 0: any type an ordered index is kept for. */
static int ordered_query_open(columnar_txn *txn, columnar_table_id table, columnar_col_id column, uint8_t type_a,
                              uint8_t type_b, const char *what, ordered_query *out) {
    int rc = cc_txn_check(txn);
    if (rc) return rc;
    const cc_column *col;
    if ((rc = cc_visible_column(txn, table, column, &col))) return rc;
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    if (col->collection != COLUMNAR_COLLECTION_NONE || !(col->flags & CF_COL_FLAG_ORDERED))
        return CC_MISUSE("%s.%s has no ordered search index (%s needs one)", schema->name, col->name, what);
    if (type_a && col->type != type_a && col->type != type_b)
        return cc_error(COLUMNAR_ETYPE, 0, "", "%s.%s holds values of type %u; %s takes another type", schema->name,
                        col->name, col->type, what);
    cc_tstate *ts;
    if ((rc = cc_table_state(txn, table, &ts))) return rc;
    *out = (ordered_query){ txn, table, column, col, &ts->indexes[column] };
    return 0;
}

/* The index-key range of an int range; false when it is empty. Nulls share INT64_MIN with the value INT64_MIN,
 * so a range reaching it has that row's objects checked one by one (*check_lowest). */
static bool int_key_range(const columnar_index_range *range, int64_t *low, int64_t *high) {
    *low = INT64_MIN;
    *high = INT64_MAX;
    if (range->has_lower) {
        int64_t v = range->lower.as.i;
        if (!range->lower_inclusive) {
            if (v == INT64_MAX) return false;
            v++;
        }
        *low = v;
    }
    if (range->has_upper) {
        int64_t v = range->upper.as.i;
        if (!range->upper_inclusive) {
            if (v == INT64_MIN) return false;
            v--;
        }
        *high = v;
    }
    return *low <= *high;
}

static int check_range(const ordered_query *q, const columnar_index_range *range) {
    if (!range) return CC_MISUSE("an index range query needs a range");
    const columnar_value *bounds[2] = { range->has_lower ? &range->lower : NULL, range->has_upper ? &range->upper : NULL };
    for (int i = 0; i < 2; i++) {
        if (!bounds[i]) continue;
        if (bounds[i]->is_null) return CC_MISUSE("an index range's bounds are values, not null");
        if ((uint8_t)bounds[i]->type != COLUMNAR_TYPE_INT)
            return cc_error(COLUMNAR_ETYPE, 0, "", "an index range over %s takes int bounds, not type %u",
                            q->col->name, (unsigned)bounds[i]->type);
    }
    return 0;
}

typedef struct key_sink {
    ordered_query *q;
    bool check_null;        /* the row may list objects holding null: leave those out */
    const cc_bytes *prefix; /* when set, every object is checked to start with it */
    columnar_key *out;
    size_t capacity;
    size_t count;
    bool counting_only;
} key_sink;

static int sink_key(void *context, int64_t key) {
    key_sink *s = context;
    if (s->check_null || s->prefix) {
        uint8_t cell[16];
        bool is_null;
        int rc = object_value(s->q->txn, s->q->table, s->q->column, key, cell, &is_null);
        if (rc) return rc;
        if (is_null) return 0;
        if (s->prefix) {
            cc_bytes value;
            memcpy(&value, cell, sizeof value);
            if (value.size < s->prefix->size ||
                (s->prefix->size && memcmp(value.data, s->prefix->data, s->prefix->size) != 0))
                return 0;
        }
    }
    if (!s->counting_only && s->count < s->capacity) s->out[s->count] = key;
    s->count++;
    return 0;
}

/* Walks the rows of index keys [low, high]: counts (out == NULL) or lists the objects. With `prefix`, each
 * object is checked to start with it (the key range only narrows the search). */
static int walk_range(ordered_query *q, int64_t low, int64_t high, const cc_bytes *prefix, columnar_key *out,
                      size_t capacity, uint64_t *out_count) {
    index_walk w = { q->txn, q->root, low, high, false, { 0 }, 0, 0 };
    bool nullable = (q->col->flags & CF_COL_FLAG_NULLABLE) != 0;
    key_sink sink = { q, false, prefix, out, capacity, 0, out == NULL };
    uint64_t total = 0;
    bool more;
    int rc;
    while (!(rc = index_walk_next(&w, &more)) && more) {
        uint32_t from = w.from;
        /* The row under INT64_MIN may hold nulls: its objects are checked one by one. */
        if (nullable && cluster_key(&w.cluster, from) == ORDERED_NULL_KEY) {
            sink.check_null = true;
            if ((rc = visit_row_keys(&w, from, sink_key, &sink))) return rc;
            sink.check_null = false;
            w.from = ++from;
        }
        if (out == NULL && !prefix) {
            total += w.to - w.from;
            if ((rc = add_more_counts(&w, &total))) return rc;
        } else {
            for (uint32_t row = w.from; row < w.to; row++)
                if ((rc = visit_row_keys(&w, row, sink_key, &sink))) return rc;
        }
    }
    if (rc) return rc;
    *out_count = total + sink.count;
    return 0;
}

int columnar_index_count_range(columnar_txn *txn, columnar_table_id table, columnar_col_id column,
                               const columnar_index_range *range, uint64_t *out_count) {
    if (!out_count) return CC_MISUSE("columnar_index_count_range needs somewhere to put the count");
    *out_count = 0;
    ordered_query q;
    int rc = ordered_query_open(txn, table, column, COLUMNAR_TYPE_INT, COLUMNAR_TYPE_INT, "an int range", &q);
    if (rc || (rc = check_range(&q, range))) return rc;
    int64_t low, high;
    if (!int_key_range(range, &low, &high)) return 0;
    return walk_range(&q, low, high, NULL, NULL, 0, out_count);
}

int columnar_index_keys_in_range(columnar_txn *txn, columnar_table_id table, columnar_col_id column,
                                 const columnar_index_range *range, columnar_key *out_keys, size_t capacity,
                                 size_t *out_count) {
    if (!out_count || (capacity && !out_keys))
        return CC_MISUSE("columnar_index_keys_in_range needs a count and room for `capacity` keys");
    *out_count = 0;
    ordered_query q;
    int rc = ordered_query_open(txn, table, column, COLUMNAR_TYPE_INT, COLUMNAR_TYPE_INT, "an int range", &q);
    if (rc || (rc = check_range(&q, range))) return rc;
    int64_t low, high;
    if (!int_key_range(range, &low, &high)) return 0;
    uint64_t count;
    if ((rc = walk_range(&q, low, high, NULL, out_keys ? out_keys : (columnar_key[1]){ 0 }, capacity, &count)))
        return rc;
    *out_count = (size_t)count;
    /* Object keys come in value order; callers get them ascending, like columnar_index_find_all. */
    if (count <= capacity) qsort(out_keys, (size_t)count, sizeof *out_keys, compare_keys);
    return 0;
}

/* The index-key range of the strings starting with `prefix`. Exact (every object in it starts with the prefix)
 * when the prefix fits in the key's six bytes and has no zero byte, which padding would confuse with a shorter
 * string; otherwise *exact is false and each object is checked. */
static void prefix_key_range(const cc_bytes *prefix, int64_t *low, int64_t *high, bool *exact) {
    uint64_t lo = 0, hi = 0;
    for (uint32_t i = 0; i < STRING_KEY_PREFIX_BYTES; i++) {
        bool inside = i < prefix->size;
        lo = (lo << 8) | (inside ? prefix->data[i] : 0x00);
        hi = (hi << 8) | (inside ? prefix->data[i] : 0xFF);
    }
    *low = (int64_t)(((lo << 16) | 0x0000) ^ (UINT64_C(1) << 63));
    *high = (int64_t)(((hi << 16) | 0xFFFF) ^ (UINT64_C(1) << 63));
    /* An empty prefix may come without bytes (NULL), which memchr may not be given even for no bytes. */
    *exact = prefix->size <= STRING_KEY_PREFIX_BYTES && (prefix->size == 0 || !memchr(prefix->data, 0, prefix->size));
}

static int prefix_query(columnar_txn *txn, columnar_table_id table, columnar_col_id column, const void *prefix,
                        size_t size, columnar_key *out_keys, size_t capacity, uint64_t *out_count) {
    if (size && !prefix) return CC_MISUSE("a prefix query needs the prefix's bytes");
    ordered_query q;
    int rc = ordered_query_open(txn, table, column, COLUMNAR_TYPE_STRING, COLUMNAR_TYPE_STRING, "a string prefix",
                                &q);
    if (rc) return rc;
    cc_bytes bytes = { (const uint8_t *)prefix, size };
    int64_t low, high;
    bool exact;
    prefix_key_range(&bytes, &low, &high, &exact);
    return walk_range(&q, low, high, exact ? NULL : &bytes, out_keys, capacity, out_count);
}

int columnar_index_count_prefix(columnar_txn *txn, columnar_table_id table, columnar_col_id column,
                                const void *prefix, size_t size, uint64_t *out_count) {
    if (!out_count) return CC_MISUSE("columnar_index_count_prefix needs somewhere to put the count");
    *out_count = 0;
    return prefix_query(txn, table, column, prefix, size, NULL, 0, out_count);
}

int columnar_index_keys_with_prefix(columnar_txn *txn, columnar_table_id table, columnar_col_id column,
                                    const void *prefix, size_t size, columnar_key *out_keys, size_t capacity,
                                    size_t *out_count) {
    if (!out_count || (capacity && !out_keys))
        return CC_MISUSE("columnar_index_keys_with_prefix needs a count and room for `capacity` keys");
    *out_count = 0;
    uint64_t count;
    int rc = prefix_query(txn, table, column, prefix, size, out_keys ? out_keys : (columnar_key[1]){ 0 }, capacity,
                          &count);
    if (rc) return rc;
    *out_count = (size_t)count;
    if (count <= capacity) qsort(out_keys, (size_t)count, sizeof *out_keys, compare_keys);
    return 0;
}

/* The smallest (or largest) non-null value among the objects filed in one index row. */
typedef struct extreme_sink {
    ordered_query *q;
    bool maximum;
    bool found;
    uint8_t best[16];
} extreme_sink;

static int sink_extreme(void *context, int64_t key) {
    extreme_sink *s = context;
    uint8_t cell[16];
    bool is_null;
    int rc = object_value(s->q->txn, s->q->table, s->q->column, key, cell, &is_null);
    if (rc || is_null) return rc;
    int order = s->found ? cc_cell_compare(s->q->col->type, cell, false, s->best, false) : 0;
    if (!s->found || (s->maximum ? order > 0 : order < 0)) memcpy(s->best, cell, sizeof cell);
    s->found = true;
    return 0;
}

/* The extreme among the objects of row `row` of the walk's current cluster. An int column's index key is the value
 * itself, so a row not under INT64_MIN (which nulls share with the value INT64_MIN) answers without reading an
 * object; other rows, and timestamps (whose keys are clamped far from the epoch), read their objects' values. */
static int row_extreme(const index_walk *w, uint32_t row, extreme_sink *sink) {
    if (sink->q->col->type == COLUMNAR_TYPE_INT) {
        int64_t key = cluster_key(&w->cluster, row);
        if (key != ORDERED_NULL_KEY) {
            memcpy(sink->best, &key, sizeof key);
            sink->found = true;
            return 0;
        }
    }
    return visit_row_keys(w, row, sink_extreme, sink);
}

int columnar_index_extreme(columnar_txn *txn, columnar_table_id table, columnar_col_id column, bool maximum,
                           columnar_value *out_value, bool *out_found) {
    if (!out_value || !out_found) return CC_MISUSE("columnar_index_extreme needs a value and a found flag");
    *out_found = false;
    memset(out_value, 0, sizeof *out_value);
    out_value->is_null = true;
    ordered_query q;
    int rc = ordered_query_open(txn, table, column, COLUMNAR_TYPE_INT, COLUMNAR_TYPE_TIMESTAMP, "an extreme", &q);
    if (rc) return rc;
    /* Keys never decrease as values grow, so the extreme is among the objects of the first (last) row that holds
     * a non-null value. Only the row under INT64_MIN can hold nulls; if the last row is that one, it is the only
     * row. */
    extreme_sink sink = { &q, maximum, false, { 0 } };
    index_walk w = { q.txn, q.root, INT64_MIN, INT64_MAX, false, { 0 }, 0, 0 };
    if (maximum) {
        if ((rc = cc_tree_seek_last_cluster(q.txn, q.root, &w.cluster))) return rc;
        if (w.cluster.found) {
            w.from = cluster_rows(&w.cluster) - 1;
            w.to = w.from + 1;
            if ((rc = row_extreme(&w, w.from, &sink))) return rc;
        }
    } else {
        /* Most often the first row answers: look at it before setting up the walk, which bounds the cluster's
         * rows by two binary searches. */
        if ((rc = cc_tree_seek_cluster(q.txn, q.root, INT64_MIN, &w.cluster))) return rc;
        if (w.cluster.found && (rc = row_extreme(&w, 0, &sink))) return rc;
        bool more;
        while (!sink.found && !(rc = index_walk_next(&w, &more)) && more)
            for (uint32_t row = w.from; row < w.to && !sink.found; row++)
                if ((rc = row_extreme(&w, row, &sink))) return rc;
        if (rc) return rc;
    }
    if (sink.found) {
        cc_value_from_cell(q.col->type, sink.best, false, out_value);
        *out_found = true;
    }
    return 0;
}

/* Every (index key, object key) pair of an ordered index, in index-key order and, within a row, object-key order. */
typedef struct entry_sink {
    int64_t index_key;       /* of the row being visited */
    int64_t *index_keys;
    columnar_key *keys;
    size_t capacity;
    size_t count;
} entry_sink;

static int sink_entry(void *context, int64_t key) {
    entry_sink *s = context;
    if (s->count < s->capacity) {
        s->index_keys[s->count] = s->index_key;
        s->keys[s->count] = key;
    }
    s->count++;
    return 0;
}

/* Row `row` of the walk's current cluster when it lists several objects: all of them, in key order. */
static int several_entries(const index_walk *w, uint32_t row, entry_sink *sink) {
    size_t start = sink->count;
    int rc = visit_row_keys(w, row, sink_entry, sink);
    if (rc) return rc;
    /* Further keys are listed in the order they were filed: put the row's objects in key order. */
    if (sink->count <= sink->capacity)
        qsort(sink->keys + start, sink->count - start, sizeof *sink->keys, compare_keys);
    return 0;
}

/* The entries of the walk's current cluster, row by row (any cluster: private, or with nulls in its columns). */
static int ordered_entries_of_cluster(const index_walk *w, cluster_ints *firsts, cluster_ints *counts,
                                      entry_sink *sink) {
    int rc;
    for (uint32_t row = w->from; row < w->to; row++) {
        sink->index_key = cluster_key(&w->cluster, row);
        uint64_t further;
        if ((rc = row_more_count(w, counts, row, &further))) return rc;
        if (further) {
            if ((rc = several_entries(w, row, sink))) return rc;
            continue;
        }
        int64_t first;
        bool is_null;
        if ((rc = cluster_ints_get(firsts, row, &first, &is_null))) return rc;
        if (is_null)
            return CC_CORRUPT(w->cluster.cluster_ref, "an ordered index row at %llu has no object",
                              (unsigned long long)w->cluster.cluster_ref);
        sink_entry(sink, first);
    }
    return 0;
}

/* The same for a committed cluster whose first-key column is packed ints without nulls, and whose count column is
 * too or is absent (every count 0: a cluster of rows that each list one object stores no leaf for it): the index
 * keys and the columns are decoded a block of rows at a time, and a row that lists one object (almost every row)
 * costs a test of its count and two stores. */
static int ordered_entries_of_packed_cluster(const index_walk *w, const cluster_ints *firsts,
                                             const cluster_ints *counts, entry_sink *sink) {
    int64_t index_keys[CC_BLOCK_ROWS], first_keys[CC_BLOCK_ROWS], further[CC_BLOCK_ROWS];
    const cc_node *keys = &w->cluster.keys;
    for (uint32_t at = w->from; at < w->to; at += CC_BLOCK_ROWS) {
        uint32_t rows = w->to - at < CC_BLOCK_ROWS ? w->to - at : CC_BLOCK_ROWS;
        cc_unpack_ints(keys->payload, keys->width, at, rows, index_keys);
        cc_add_base(index_keys, rows, keys->base);
        cc_unpack_ints(firsts->leaf.values.payload, firsts->leaf.values.width, at, rows, first_keys);
        cc_add_base(first_keys, rows, firsts->leaf.values.base);
        if (counts->absent) {
            memset(further, 0, rows * sizeof further[0]);
        } else {
            cc_unpack_ints(counts->leaf.values.payload, counts->leaf.values.width, at, rows, further);
            cc_add_base(further, rows, counts->leaf.values.base);
        }
        for (uint32_t i = 0; i < rows; i++) {
            sink->index_key = index_keys[i];
            if (further[i] == 0) {
                sink_entry(sink, first_keys[i]);
                continue;
            }
            if (further[i] < 0)
                return CC_CORRUPT(w->cluster.cluster_ref, "an ordered index row at %llu counts %lld further objects",
                                  (unsigned long long)w->cluster.cluster_ref, (long long)further[i]);
            int rc = several_entries(w, at + i, sink);
            if (rc) return rc;
        }
    }
    return 0;
}

int columnar_index_ordered_entries(columnar_txn *txn, columnar_table_id table, columnar_col_id column,
                                   int64_t *out_index_keys, columnar_key *out_keys, size_t capacity,
                                   size_t *out_count) {
    if (!out_count || (capacity && (!out_index_keys || !out_keys)))
        return CC_MISUSE("columnar_index_ordered_entries needs a count and room for `capacity` entries");
    *out_count = 0;
    ordered_query q;
    int rc = ordered_query_open(txn, table, column, 0, 0, "an ordered walk", &q);
    if (rc) return rc;
    index_walk w = { q.txn, q.root, INT64_MIN, INT64_MAX, false, { 0 }, 0, 0 };
    entry_sink sink = { 0, out_index_keys, out_keys, capacity, 0 };
    bool more;
    /* Most rows list one object: the first-key column (0) gives it, and only rows whose count column (2) says
     * they list more are visited key by key. */
    while (!(rc = index_walk_next(&w, &more)) && more) {
        cluster_ints firsts, counts;
        if ((rc = cluster_ints_open(&w, 0, &firsts)) || (rc = cluster_ints_open(&w, 2, &counts))) return rc;
        /* `packed` is set for committed clusters only, whose keys the block path decodes. */
        if (firsts.packed && (counts.packed || counts.absent))
            rc = ordered_entries_of_packed_cluster(&w, &firsts, &counts, &sink);
        else rc = ordered_entries_of_cluster(&w, &firsts, &counts, &sink);
        if (rc) return rc;
    }
    if (rc) return rc;
    *out_count = sink.count;
    return 0;
}
