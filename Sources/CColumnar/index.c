/*
 * index.c — search indexes. An index is a tree like a table's, keyed by a 64-bit hash of the value, whose rows
 * hold the first object key with that hash and a list of any further ones. Lookups hash the value, then check
 * each candidate's actual value, so hash collisions cost time, never correctness.
 */
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
    case COLUMNAR_TYPE_STRING: case COLUMNAR_TYPE_BINARY: {
        const cc_bytes *b = cell;
        return hash_bytes(b->data, b->size);
    }
    case COLUMNAR_TYPE_TIMESTAMP: {
        const cc_ts *ts = cell;
        return mix((uint64_t)ts->seconds ^ mix((uint64_t)ts->nanoseconds));
    }
    case COLUMNAR_TYPE_OBJECTID: return hash_bytes(cell, 12);
    case COLUMNAR_TYPE_UUID: return hash_bytes(cell, 16);
    default: { uint64_t v; memcpy(&v, cell, 8); return mix(v); }
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
    int64_t hash = (int64_t)cc_index_hash(col->type, cell, is_null);
    cc_tnode *leaf;
    uint32_t row;
    bool found;
    if ((rc = cc_tree_locate(txn, &ts->indexes[column], cc_index_schema(), hash, true, &leaf, &row, &found))) return rc;
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
    return 0;
}

int cc_index_remove(columnar_txn *txn, uint32_t table, uint32_t column, const void *cell, bool is_null, int64_t key) {
    cc_tstate *ts;
    int rc = cc_table_state(txn, table, &ts);
    if (rc) return rc;
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    const cc_column *col = &schema->columns[column];
    int64_t hash = (int64_t)cc_index_hash(col->type, cell, is_null);
    cc_tnode *leaf;
    uint32_t row;
    bool found;
    if ((rc = cc_tree_locate(txn, &ts->indexes[column], cc_index_schema(), hash, false, &leaf, &row, &found))) return rc;
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
    if (first == key) {
        /* Promote the last further key to first. */
        memcpy(cc_mvec_cell(&leaf->columns[0], row), cc_mvec_cell(keys, keys->count - 1), 8);
        keys->count--;
        return 0;
    }
    for (uint32_t i = keys->count; i-- > 0;) {
        int64_t k;
        memcpy(&k, cc_mvec_cell(keys, i), 8);
        if (k == key) {
            cc_mvec_remove(keys, i);
            return 0;
        }
    }
missing:
    return CC_CORRUPT(0, "the index of %s.%s has no entry for object %lld", schema->name, col->name, (long long)key);
}

/* Whether object `key` of the table has `cell` in `column`. */
static int candidate_matches(columnar_txn *txn, uint32_t table, uint32_t column, int64_t key, const void *cell,
                             bool is_null, bool *matches) {
    cc_tstate *ts;
    cc_rowpos pos;
    int rc = cc_obj_find(txn, table, key, &ts, &pos);
    if (rc == COLUMNAR_ENOTFOUND)
        return CC_CORRUPT(0, "an index of table %u lists object %lld, which does not exist", table, (long long)key);
    if (rc) return rc;
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    uint8_t value[16];
    bool value_null;
    if ((rc = cc_row_get(txn, schema, &pos, column, value, &value_null))) return rc;
    *matches = cc_cell_compare(schema->columns[column].type, value, value_null, cell, is_null) == 0 &&
               value_null == is_null;
    return 0;
}

int cc_index_find(columnar_txn *txn, uint32_t table, uint32_t column, const void *cell, bool is_null, int64_t *out_key,
                  bool *found) {
    *found = false;
    cc_tstate *ts;
    int rc = cc_table_state(txn, table, &ts);
    if (rc) return rc;
    const cc_column *col = &cc_table_schema_get(txn, table)->columns[column];
    int64_t hash = (int64_t)cc_index_hash(col->type, cell, is_null);
    cc_rowpos pos;
    bool exists;
    if ((rc = cc_tree_find(txn, &ts->indexes[column], hash, &pos, &exists)) || !exists) return rc;
    const cc_table_schema *index_schema = cc_index_schema();
    int64_t first;
    bool null_flag;
    if ((rc = cc_row_get(txn, index_schema, &pos, 0, &first, &null_flag))) return rc;
    /* Candidates in key order of insertion: first, then the further keys. */
    cc_collcell more;
    if ((rc = cc_row_get(txn, index_schema, &pos, 1, &more, &null_flag))) return rc;
    uint64_t more_count;
    if ((rc = cc_collcell_count(txn, &more, more_keys_elem(), &more_count))) return rc;
    int64_t best = INT64_MAX;
    for (uint64_t i = 0; i <= more_count; i++) {
        int64_t candidate = first;
        if (i > 0 && (rc = cc_collcell_get(txn, &more, more_keys_elem(), false, i - 1, &candidate, &null_flag)))
            return rc;
        bool matches = false;
        if ((rc = candidate_matches(txn, table, column, candidate, cell, is_null, &matches))) return rc;
        if (matches && candidate < best) best = candidate;
    }
    if (best != INT64_MAX) {
        *found = true;
        *out_key = best;
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
    return cc_tree_release(txn, &ts->indexes[column], cc_index_schema());
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
    int64_t hash = (int64_t)cc_index_hash(col->type, cell, is_null);
    cc_rowpos pos;
    bool exists;
    if ((rc = cc_tree_find(txn, &ts->indexes[column], hash, &pos, &exists)) || !exists) return rc;
    /* The entry lists every object whose value has this hash: the first key, then the further ones. Each is
     * checked against its actual value, so objects whose different values share the hash are left out. */
    const cc_table_schema *index_schema = cc_index_schema();
    int64_t first;
    cc_collcell more;
    bool null_flag;
    uint64_t more_count;
    if ((rc = cc_row_get(txn, index_schema, &pos, 0, &first, &null_flag)) ||
        (rc = cc_row_get(txn, index_schema, &pos, 1, &more, &null_flag)) ||
        (rc = cc_collcell_count(txn, &more, more_keys_elem(), &more_count)))
        return rc;
    if (more_count >= SIZE_MAX / sizeof(int64_t))
        return CC_CORRUPT(0, "an index entry of %s.%s lists %llu objects", schema->name, col->name,
                          (unsigned long long)more_count);
    int64_t *matches = malloc((size_t)(more_count + 1) * sizeof *matches);
    if (!matches) return -ENOMEM;
    size_t match_count = 0;
    for (uint64_t i = 0; i <= more_count; i++) {
        int64_t candidate = first;
        if (i > 0 && (rc = cc_collcell_get(txn, &more, more_keys_elem(), false, i - 1, &candidate, &null_flag)))
            goto done;
        bool matches_value = false;
        if ((rc = candidate_matches(txn, table, column, candidate, cell, is_null, &matches_value))) goto done;
        if (matches_value) matches[match_count++] = candidate;
    }
    qsort(matches, match_count, sizeof *matches, compare_keys);
    /* An object listed twice (a damaged index) is reported once. */
    size_t unique = 0;
    for (size_t i = 0; i < match_count; i++)
        if (unique == 0 || matches[i] != matches[unique - 1]) matches[unique++] = matches[i];
    for (size_t i = 0; i < unique && i < capacity; i++) out_keys[i] = matches[i];
    *out_count = unique;
done:
    free(matches);
    return rc;
}
