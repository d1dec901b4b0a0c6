/*
 * object.c — objects: create, delete, read and write values, find by value or primary key; plus the
 * maintenance every write implies (search indexes, backlinks) and the row lookup cache.
 */
#include "object.h"

#include "mixed.h"

#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>

void cc_txn_forget_cache(columnar_txn *txn) { txn->cache_valid = false; }

cc_elemtype cc_column_elemtype(const cc_column *column) {
    return (cc_elemtype){ column->type, column->collection, (column->flags & CF_COL_FLAG_NULLABLE) != 0 };
}

int cc_obj_locate(columnar_txn *txn, uint32_t table, int64_t key, cc_tstate **out_ts, cc_rowpos *out_pos,
                  bool *out_found) {
    int rc = cc_table_state(txn, table, out_ts);
    if (rc) return rc;
    if (txn->cache_valid && txn->cache_table == table && txn->cache_key == key) {
        *out_pos = txn->cache_pos;
        *out_found = true;
        return 0;
    }
    bool found;
    if (!txn->is_write && txn->cluster_cache_valid && txn->cluster_cache_table == table &&
        key >= txn->cluster_cache_first_key && key <= txn->cluster_cache_last_key) {
        /* Inside the cached cluster's key range: the key is in that cluster or nowhere. Reads in key order ask
         * for the row after the last one found, which a single comparison confirms. */
        uint64_t row = (uint64_t)txn->cluster_cache_row + 1;
        if (row >= txn->cluster_cache_keys.count || cc_node_int_at(&txn->cluster_cache_keys, row) != key)
            row = cc_packed_lower_bound(&txn->cluster_cache_keys, key);
        found = row < txn->cluster_cache_keys.count && cc_node_int_at(&txn->cluster_cache_keys, row) == key;
        if (found) txn->cluster_cache_row = (uint32_t)row;
        *out_pos = (cc_rowpos){ NULL, txn->cluster_cache_ref, (uint32_t)row };
    } else {
        if ((rc = cc_tree_find(txn, &(*out_ts)->root, key, out_pos, &found))) return rc;
        /* A read transaction's descent that ends in a committed cluster keeps its validated key array (at least
         * one key: cc_tree_node_read) in recent_cluster: the cache takes it from there. */
        if (!txn->is_write && out_pos->cluster_ref && txn->recent_cluster.ref == out_pos->cluster_ref) {
            const cc_node *keys = &txn->recent_cluster_keys;
            txn->cluster_cache_valid = true;
            txn->cluster_cache_table = table;
            txn->cluster_cache_ref = out_pos->cluster_ref;
            txn->cluster_cache_keys = *keys;
            txn->cluster_cache_first_key = cc_node_int_at(keys, 0);
            txn->cluster_cache_last_key = cc_node_int_at(keys, keys->count - 1);
            txn->cluster_cache_row = out_pos->row;
        }
    }
    *out_found = found;
    /* In a write transaction committed positions go stale when their cluster is copied: cache private ones only. */
    if (found && (!txn->is_write || out_pos->leaf)) {
        txn->cache_valid = true;
        txn->cache_table = table;
        txn->cache_key = key;
        txn->cache_pos = *out_pos;
    }
    return 0;
}

int cc_obj_find(columnar_txn *txn, uint32_t table, int64_t key, cc_tstate **out_ts, cc_rowpos *out_pos) {
    bool found;
    int rc = cc_obj_locate(txn, table, key, out_ts, out_pos, &found);
    if (rc || found) return rc;
    return cc_error(COLUMNAR_ENOTFOUND, 0, "", "table %s has no object with key %lld",
                    cc_table_schema_get(txn, table)->name, (long long)key);
}

int cc_obj_find_for_write(columnar_txn *txn, uint32_t table, int64_t key, cc_tstate **out_ts, cc_tnode **out_leaf,
                          uint32_t *out_row) {
    int rc = cc_table_state(txn, table, out_ts);
    if (rc) return rc;
    (*out_ts)->dirty = true;
    if (txn->cache_valid && txn->cache_table == table && txn->cache_key == key && txn->cache_pos.leaf) {
        /* A cached leaf may predate a column added since: give it the new columns before handing it out. */
        if ((rc = cc_tree_leaf_fit(txn->cache_pos.leaf, cc_table_schema_get(txn, table)))) return rc;
        *out_leaf = txn->cache_pos.leaf;
        *out_row = txn->cache_pos.row;
        return 0;
    }
    bool found;
    if ((rc = cc_tree_locate(txn, &(*out_ts)->root, cc_table_schema_get(txn, table), key, false, out_leaf, out_row,
                             &found)))
        return rc;
    if (!found)
        return cc_error(COLUMNAR_ENOTFOUND, 0, "", "table %s has no object with key %lld",
                        cc_table_schema_get(txn, table)->name, (long long)key);
    txn->cache_valid = true;
    txn->cache_table = table;
    txn->cache_key = key;
    txn->cache_pos = (cc_rowpos){ *out_leaf, 0, *out_row };
    return 0;
}

int cc_visible_column(columnar_txn *txn, uint32_t table, uint32_t column, const cc_column **out) {
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    if (!schema) return cc_error(COLUMNAR_ENOTFOUND, 0, "", "no table with id %u", table);
    if (column >= schema->column_count || !cc_column_is_visible(&schema->columns[column]))
        return cc_error(COLUMNAR_ENOTFOUND, 0, "", "table %s has no column with id %u", schema->name, column);
    *out = &schema->columns[column];
    return 0;
}

const char *cc_type_name(uint8_t type) {
    static const char *names[] = { "invalid", "int", "bool", "float", "double", "string", "binary", "timestamp",
                                   "objectId", "uuid", "decimal128", "link", "mixed" };
    return type <= COLUMNAR_TYPE_MIXED ? names[type] : "invalid";
}

int cc_mixed_check(const cc_table_schema *table, const cc_column *column, const columnar_value *value) {
    if (value->as.bytes.size && !value->as.bytes.data) return CC_MISUSE("bytes pointer is NULL");
    const char *problem = cc_mixed_unpack(value->as.bytes.data, value->as.bytes.size, NULL);
    if (problem)
        return cc_error(COLUMNAR_ETYPE, 0, "", "a %zu-byte value for %s.%s is not a mixed value's encoding: %s",
                        value->as.bytes.size, table->name, column->name, problem);
    return 0;
}

int cc_value_to_cell(columnar_txn *txn, const cc_table_schema *table, const cc_column *column,
                     const columnar_value *value, void *cell, bool *is_null) {
    if (!value) return CC_MISUSE("value is NULL");
    int rc;
    bool nullable = (column->flags & CF_COL_FLAG_NULLABLE) ||
                    (column->type == COLUMNAR_TYPE_LINK && column->collection == COLUMNAR_COLLECTION_NONE);
    if (value->is_null) {
        if (!nullable)
            return cc_error(COLUMNAR_ENULL, 0, "", "%s.%s is not nullable", table->name, column->name);
        memset(cell, 0, 16);
        *is_null = true;
        return 0;
    }
    if ((uint8_t)value->type != column->type)
        return cc_error(COLUMNAR_ETYPE, 0, "", "%s.%s holds %s values, not %s", table->name, column->name,
                        cc_type_name(column->type), cc_type_name((uint8_t)value->type));
    *is_null = false;
    columnar_value copy = *value;
    switch (column->type) {
    case COLUMNAR_TYPE_STRING: case COLUMNAR_TYPE_BINARY: case COLUMNAR_TYPE_MIXED:
        if (value->as.bytes.size > COLUMNAR_MAX_VALUE_BYTES)
            return cc_error(COLUMNAR_ETOOBIG, 0, "", "a %zu-byte value for %s.%s exceeds %u bytes",
                            value->as.bytes.size, table->name, column->name, COLUMNAR_MAX_VALUE_BYTES);
        if (value->as.bytes.size && !value->as.bytes.data) return CC_MISUSE("bytes pointer is NULL");
        if (column->type == COLUMNAR_TYPE_MIXED && (rc = cc_mixed_check(table, column, value))) return rc;
        copy.as.bytes.data = cc_arena_copy(txn, value->as.bytes.data, value->as.bytes.size);
        if (!copy.as.bytes.data) return -ENOMEM;
        break;
    case COLUMNAR_TYPE_TIMESTAMP:
        if (value->as.timestamp.nanoseconds < 0 || value->as.timestamp.nanoseconds > 999999999)
            return cc_error(COLUMNAR_ETYPE, 0, "", "timestamp for %s.%s has %d nanoseconds (0...999999999)",
                            table->name, column->name, value->as.timestamp.nanoseconds);
        break;
    case COLUMNAR_TYPE_LINK: {
        if (value->as.link < 0)
            return cc_error(COLUMNAR_ENOTFOUND, 0, "", "%s.%s cannot link to key %lld", table->name, column->name,
                            (long long)value->as.link);
        bool exists;
        rc = columnar_obj_exists(txn, column->target_table, value->as.link, &exists);
        if (rc) return rc;
        if (!exists)
            return cc_error(COLUMNAR_ENOTFOUND, 0, "", "%s.%s: target object %lld does not exist in %s", table->name,
                            column->name, (long long)value->as.link,
                            cc_table_schema_get(txn, column->target_table)->name);
        break;
    }
    default: break;
    }
    cc_cell_from_value(column->type, &copy, cell);
    return 0;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Backlinks                                                                                                    */
/* ---------------------------------------------------------------------------------------------------------- */

int cc_backlink_column(const cc_schema *schema, uint32_t target_table, uint32_t origin_table, uint32_t origin_column,
                       uint32_t *out_column) {
    const cc_table_schema *target = &schema->tables[target_table];
    for (uint32_t c = 0; c < target->column_count; c++) {
        const cc_column *col = &target->columns[c];
        if ((col->flags & CF_COL_FLAG_BACKLINK) && cc_column_is_live(col) && col->origin_table == origin_table &&
            col->origin_column == origin_column) {
            *out_column = c;
            return 0;
        }
    }
    return CC_CORRUPT(0, "table %s has no backlink column for %s.%s", target->name,
                      schema->tables[origin_table].name, schema->tables[origin_table].columns[origin_column].name);
}

static cc_elemtype backlink_elem(void) {
    return (cc_elemtype){ COLUMNAR_TYPE_LINK, COLUMNAR_COLLECTION_LIST, false };
}

static int backlink_list(columnar_txn *txn, uint32_t origin_table, uint32_t origin_column, int64_t target_key,
                         cc_mvec **out) {
    const cc_column *link = &cc_table_schema_get(txn, origin_table)->columns[origin_column];
    uint32_t target_table = link->target_table, column;
    int rc = cc_backlink_column(txn->schema, target_table, origin_table, origin_column, &column);
    if (rc) return rc;
    cc_tstate *ts;
    cc_tnode *leaf;
    uint32_t row;
    /* Link targets are checked when a link is made and links to an object go when it is deleted: a link to a
     * missing object is damage, not a key the caller got wrong. */
    if ((rc = cc_obj_find_for_write(txn, target_table, target_key, &ts, &leaf, &row)) == COLUMNAR_ENOTFOUND)
        return CC_CORRUPT(0, "%s.%s links to object %lld of %s, which does not exist",
                          cc_table_schema_get(txn, origin_table)->name, link->name, (long long)target_key,
                          cc_table_schema_get(txn, target_table)->name);
    if (rc) return rc;
    cc_collcell *cell = cc_mvec_cell(&leaf->columns[column], row);
    if ((rc = cc_coll_materialize(txn, cell, backlink_elem()))) return rc;
    *out = &cell->dirty->values;
    return 0;
}

int cc_backlink_add(columnar_txn *txn, uint32_t origin_table, uint32_t origin_column, int64_t origin_key,
                    int64_t target_key) {
    cc_mvec *list;
    int rc = backlink_list(txn, origin_table, origin_column, target_key, &list);
    if (rc) return rc;
    if ((rc = cc_mvec_insert_default(list, list->count, 1))) return rc;
    memcpy(cc_mvec_cell(list, list->count - 1), &origin_key, 8);
    return 0;
}

int cc_backlink_remove(columnar_txn *txn, uint32_t origin_table, uint32_t origin_column, int64_t origin_key,
                       int64_t target_key) {
    cc_mvec *list;
    int rc = backlink_list(txn, origin_table, origin_column, target_key, &list);
    if (rc) return rc;
    for (uint32_t i = list->count; i-- > 0;) {
        int64_t key;
        memcpy(&key, cc_mvec_cell(list, i), 8);
        if (key == origin_key) {
            cc_mvec_remove(list, i);
            return 0;
        }
    }
    return CC_CORRUPT(0, "object %lld of table %u has no backlink from object %lld", (long long)target_key,
                      cc_table_schema_get(txn, origin_table)->columns[origin_column].target_table,
                      (long long)origin_key);
}

/* Removes every link from (table, column) of object `key` to `target_key` (the target is being deleted). */
static int unlink_target(columnar_txn *txn, uint32_t table, uint32_t column, int64_t key, int64_t target_key) {
    cc_tstate *ts;
    cc_tnode *leaf;
    uint32_t row;
    int rc = cc_obj_find_for_write(txn, table, key, &ts, &leaf, &row);
    if (rc == COLUMNAR_ENOTFOUND)
        return CC_CORRUPT(0, "object %lld has a backlink from object %lld of %s, which does not exist",
                          (long long)target_key, (long long)key, cc_table_schema_get(txn, table)->name);
    if (rc) return rc;
    const cc_column *col = &cc_table_schema_get(txn, table)->columns[column];
    cc_mvec *vec = &leaf->columns[column];
    if (col->collection == COLUMNAR_COLLECTION_NONE) {
        int64_t current;
        memcpy(&current, cc_mvec_cell(vec, row), 8);
        if (!cc_mvec_is_null(vec, row) && current == target_key) {
            memset(cc_mvec_cell(vec, row), 0, 8);
            vec->nulls[row] = 1;
        }
        return 0;
    }
    cc_collcell *cell = cc_mvec_cell(vec, row);
    if ((rc = cc_coll_materialize(txn, cell, cc_column_elemtype(col)))) return rc;
    cc_mcoll *coll = cell->dirty;
    for (uint32_t i = coll->values.count; i-- > 0;) {
        int64_t element;
        memcpy(&element, cc_mvec_cell(&coll->values, i), 8);
        if (cc_mvec_is_null(&coll->values, i) || element != target_key) continue;
        if (col->collection == COLUMNAR_COLLECTION_DICT && coll->values.nulls) {
            /* A dictionary keeps the key with a null value, as a deleted link target reads as nil. */
            coll->values.nulls[i] = 1;
            memset(cc_mvec_cell(&coll->values, i), 0, 8);
        } else {
            cc_mvec_remove(&coll->values, i);
            if (col->collection == COLUMNAR_COLLECTION_DICT) cc_mvec_remove(&coll->keys, i);
        }
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Public object API                                                                                            */
/* ---------------------------------------------------------------------------------------------------------- */

/* Inserts a new row with default values and puts the defaults into every index; with a primary key cell
 * (`pk_cell`, from cc_value_to_cell), the row gets that value in the primary key column instead, and so does its
 * index: creating an object with its primary key descends the index once, not three times (insert the default,
 * remove it, insert the value). */
static int insert_row_with(columnar_txn *txn, uint32_t table, int64_t key, const uint8_t *pk_cell, bool pk_is_null) {
    cc_tstate *ts;
    int rc = cc_table_state(txn, table, &ts);
    if (rc) return rc;
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    cc_tnode *leaf;
    uint32_t row;
    bool found;
    cc_txn_forget_cache(txn);
    if ((rc = cc_tree_locate(txn, &ts->root, schema, key, true, &leaf, &row, &found))) return rc;
    if (found) return cc_error(COLUMNAR_EEXISTS, 0, "", "table %s already has an object with key %lld", schema->name,
                               (long long)key);
    ts->dirty = true;
    /* An object keyed by its own int primary key keeps the table's mark (or starts it, in an empty table); any
     * other object ends it. */
    int64_t pk_value = 0;
    if (pk_cell) memcpy(&pk_value, pk_cell, sizeof pk_value);
    bool keyed = pk_cell && !pk_is_null && schema->columns[schema->primary_key].type == COLUMNAR_TYPE_INT &&
                 pk_value == key;
    ts->keys_are_primary_keys = keyed && (ts->object_count == 0 || ts->keys_are_primary_keys);
    ts->object_count++;
    if ((uint64_t)key >= ts->next_key) ts->next_key = (uint64_t)key + 1;
    if (pk_cell) {
        /* Before the index inserts: they change index trees only, but the leaf is not looked at after them. */
        cc_mvec *vec = &leaf->columns[schema->primary_key];
        memcpy(cc_mvec_cell(vec, row), pk_cell, vec->cell_bytes);
        if (vec->nulls) vec->nulls[row] = pk_is_null;
    }
    for (uint32_t c = 0; c < schema->column_count; c++) {
        const cc_column *col = &schema->columns[c];
        if (!cc_column_is_live(col) || !(col->flags & CF_COL_FLAG_INDEXED)) continue;
        if (pk_cell && c == schema->primary_key) {
            if ((rc = cc_index_insert(txn, table, c, pk_cell, pk_is_null, key))) return rc;
            continue;
        }
        uint8_t cell[16] = { 0 };
        bool is_null = (col->flags & CF_COL_FLAG_NULLABLE) != 0;
        if ((rc = cc_index_insert(txn, table, c, cell, is_null, key))) return rc;
    }
    return 0;
}

static int insert_row(columnar_txn *txn, uint32_t table, int64_t key) {
    return insert_row_with(txn, table, key, NULL, false);
}

static int check_default_primary_key(columnar_txn *txn, uint32_t table) {
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    if (schema->primary_key == CF_NO_COLUMN) return 0;
    const cc_column *col = &schema->columns[schema->primary_key];
    uint8_t cell[16] = { 0 };
    int64_t existing;
    bool found;
    int rc = cc_index_find(txn, table, schema->primary_key, cell, (col->flags & CF_COL_FLAG_NULLABLE) != 0, &existing,
                           &found);
    if (rc) return rc;
    if (found)
        return cc_error(COLUMNAR_EEXISTS, 0, "", "table %s: object %lld already has the default primary key value; "
                        "create objects with columnar_obj_create_with_primary_key", schema->name, (long long)existing);
    return 0;
}

static int poison_on(columnar_txn *txn, int rc) {
    /* Failures that may have left private state half-changed make the transaction unusable. */
    if (rc == -ENOMEM || rc == COLUMNAR_ECORRUPT) txn->poisoned = true;
    return rc;
}

/* A new object takes the table's next key, which the file stores as a signed 64-bit number: once an object has
 * the largest key (CC_KEY_LIMIT - 1), no key is left above it. */
static int check_keys_left(columnar_txn *txn, uint32_t table, const cc_tstate *ts) {
    if (ts->next_key < (uint64_t)CC_KEY_LIMIT) return 0;
    return cc_error(COLUMNAR_ETOOBIG, 0, "", "table %s has no object key left above %lld: create objects with "
                    "columnar_obj_create_with_key", cc_table_schema_get(txn, table)->name, (long long)CC_KEY_LIMIT - 1);
}

int columnar_obj_create(columnar_txn *txn, columnar_table_id table, columnar_key *out_key) {
    int rc = cc_txn_check_write(txn);
    if (rc) return rc;
    cc_tstate *ts;
    if ((rc = cc_table_state(txn, table, &ts)) || (rc = check_default_primary_key(txn, table))) return rc;
    if ((rc = check_keys_left(txn, table, ts))) return rc;
    int64_t key = (int64_t)ts->next_key;
    if ((rc = poison_on(txn, insert_row(txn, table, key)))) return rc;
    *out_key = key;
    return 0;
}

int columnar_obj_create_with_key(columnar_txn *txn, columnar_table_id table, columnar_key key) {
    int rc = cc_txn_check_write(txn);
    if (rc) return rc;
    if (key < 0 || key == CC_KEY_LIMIT)
        return CC_MISUSE("object keys are 0 ... %lld, not %lld", (long long)CC_KEY_LIMIT - 1, (long long)key);
    bool exists;
    if ((rc = columnar_obj_exists(txn, table, key, &exists))) return rc;
    if (exists)
        return cc_error(COLUMNAR_EEXISTS, 0, "", "table %s already has an object with key %lld",
                        cc_table_schema_get(txn, table)->name, (long long)key);
    if ((rc = check_default_primary_key(txn, table))) return rc;
    return poison_on(txn, insert_row(txn, table, key));
}

/* Int primary keys as object keys.
 *
 * A lookup by primary key descends the index to the object's key, then the table to its row. Where the object's
 * key is its int primary key, the table alone can answer: one descent. So a new object whose int primary key lies
 * at or above the table's next key, and at most CC_PK_KEY_MAX_GAP above it, takes its primary key as its key; ids
 * created in ascending order (counters, imported rows) all do. Keys stay unique, are never reused (the next key
 * moves past the one taken) and still increase in creation order, so unsorted results keep creation order. The gap
 * bound keeps keys dense enough to pack narrowly and leaves the key space to sequential keys.
 *
 * Nothing relies on the rule holding: an object may have a sequential key (an id below the next key, one far
 * above it, an object made by columnar_obj_create and given its primary key later), or its primary key may have
 * been changed since. A lookup therefore tries key == value and takes that object only if its primary key holds
 * the value (unique, so it is then the only one); else the index answers. Where the try keeps failing in a
 * transaction, lookups go to the index directly.
 *
 * Where the rule has held for every object of a table, the table says so (cc_tstate.keys_are_primary_keys, kept in
 * its META): the object whose key is the value is then the answer without reading its primary key back, and no
 * object with that key means no object with that value, so misses and the uniqueness check of a new object skip
 * the index too. The mark starts when an object is created in an empty table and ends, until the table is emptied
 * or copied, with the first object keyed otherwise (an id created again after its object was deleted, an id below
 * the next key, a null id, columnar_obj_create) or the first change of an object's primary key to another value
 * than its key; setting the table's primary key clears it. A copy (columnar_write_copy, columnar_compact) marks
 * each table whose objects it found all keyed by their int ids, whatever the source's mark said (copy.c). */
#define CC_PK_KEY_MAX_GAP ((int64_t)1 << 32)

static int64_t key_for_primary_key(const cc_column *column, const columnar_value *pk, uint64_t next_key) {
    if (column->type != COLUMNAR_TYPE_INT || pk->is_null) return (int64_t)next_key;
    int64_t value = pk->as.i, next = (int64_t)next_key;
    if (value >= next && value - next <= CC_PK_KEY_MAX_GAP && value < CC_KEY_LIMIT) return value;
    return next;
}

/* In a table whose objects are all keyed by their int primary key: whether an object has `value` as its primary
 * key, which is whether an object has it as its key. No key lies outside 0 ..< next key, and there nothing is
 * read. */
static int find_keyed_table_object(columnar_txn *txn, uint32_t table, cc_tstate *ts, int64_t value,
                                   bool *out_found) {
    *out_found = false;
    if (value < 0 || (uint64_t)value >= ts->next_key) return 0;
    cc_rowpos pos;
    /* Through the object cache, so that the caller's next read of this object does not descend again. */
    return cc_obj_locate(txn, table, value, &ts, &pos, out_found);
}

/* Sets *out_found when the object whose key is `value` holds `value` as its primary key. */
static int find_object_keyed_by_primary_key(columnar_txn *txn, uint32_t table, const cc_table_schema *schema,
                                            cc_tstate *ts, int64_t value, bool *out_found) {
    *out_found = false;
    int rc;
    /* Keep trying while at least a third of the tries find the object (the first 16 misses are free). */
    if (value < 0 || ts->key_probe_misses > 2 * (uint64_t)ts->key_probe_hits + 16) return 0;
    cc_rowpos pos;
    bool exists;
    /* Through the object cache, so that the caller's next read of this object does not descend again. */
    if ((rc = cc_obj_locate(txn, table, value, &ts, &pos, &exists))) return rc;
    if (exists) {
        int64_t held;
        bool is_null;
        if ((rc = cc_row_get(txn, schema, &pos, schema->primary_key, &held, &is_null))) return rc;
        *out_found = !is_null && held == value;
    }
    if (*out_found) {
        if (ts->key_probe_hits < UINT32_MAX / 4) ts->key_probe_hits++;
    } else if (ts->key_probe_misses < UINT32_MAX / 4) {
        ts->key_probe_misses++;
    }
    return 0;
}

int columnar_obj_create_with_primary_key(columnar_txn *txn, columnar_table_id table, const columnar_value *pk,
                                         columnar_key *out_key) {
    int rc = cc_txn_check_write(txn);
    if (rc) return rc;
    cc_tstate *ts;
    if ((rc = cc_table_state(txn, table, &ts))) return rc;
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    if (schema->primary_key == CF_NO_COLUMN) return CC_MISUSE("table %s has no primary key", schema->name);
    int64_t existing;
    if (ts->keys_are_primary_keys && pk->type == COLUMNAR_TYPE_INT && !pk->is_null) {
        /* Ids above every key (ascending ids) need no read at all. */
        bool found;
        if ((rc = find_keyed_table_object(txn, table, ts, pk->as.i, &found))) return rc;
        rc = found ? 0 : COLUMNAR_ENOTFOUND;
        existing = pk->as.i;
    } else {
        /* The index, not columnar_obj_find_primary_key: a new value is usually absent, which only the index tells. */
        rc = columnar_obj_find_first(txn, table, schema->primary_key, pk, &existing);
    }
    if (rc == 0)
        return cc_error(COLUMNAR_EEXISTS, 0, "", "table %s already has an object (key %lld) with that primary key",
                        schema->name, (long long)existing);
    if (rc != COLUMNAR_ENOTFOUND) return rc;
    /* Validate the value before creating anything. */
    uint8_t cell[16];
    bool is_null;
    if ((rc = cc_value_to_cell(txn, schema, &schema->columns[schema->primary_key], pk, cell, &is_null))) return rc;
    if ((rc = check_keys_left(txn, table, ts))) return rc;
    int64_t key = key_for_primary_key(&schema->columns[schema->primary_key], pk, ts->next_key);
    /* The row and its index entry may be half made when this fails: the transaction is unusable then. */
    if ((rc = insert_row_with(txn, table, key, cell, is_null))) {
        txn->poisoned = true;
        return rc;
    }
    *out_key = key;
    return 0;
}

int columnar_obj_exists(columnar_txn *txn, columnar_table_id table, columnar_key key, bool *out_exists) {
    int rc = cc_txn_check(txn);
    if (rc) return rc;
    cc_tstate *ts;
    if ((rc = cc_table_state(txn, table, &ts))) return rc;
    cc_rowpos pos;
    return cc_tree_find(txn, &ts->root, key, &pos, out_exists);
}

int columnar_obj_count(columnar_txn *txn, columnar_table_id table, uint64_t *out_count) {
    int rc = cc_txn_check(txn);
    if (rc) return rc;
    cc_tstate *ts;
    if ((rc = cc_table_state(txn, table, &ts))) return rc;
    *out_count = ts->object_count;
    return 0;
}

static int delete_object(columnar_txn *txn, uint32_t table, int64_t key) {
    cc_tstate *ts;
    cc_tnode *leaf;
    uint32_t row;
    int rc = cc_obj_find_for_write(txn, table, key, &ts, &leaf, &row);
    if (rc) return rc;
    uint32_t column_count = cc_table_schema_get(txn, table)->column_count;
    /* Forward links first (this also drops a self-link from our own backlink lists), then the links into us. */
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t c = 0; c < column_count; c++) {
            const cc_column *col = &cc_table_schema_get(txn, table)->columns[c];
            if (!cc_column_is_live(col)) continue;
            bool backlink = (col->flags & CF_COL_FLAG_BACKLINK) != 0;
            if ((pass == 0) == backlink || col->type != COLUMNAR_TYPE_LINK) continue;
            if ((rc = cc_obj_find_for_write(txn, table, key, &ts, &leaf, &row))) return rc;
            cc_mvec *vec = &leaf->columns[c];
            if (col->collection == COLUMNAR_COLLECTION_NONE) {
                int64_t target;
                memcpy(&target, cc_mvec_cell(vec, row), 8);
                if (!cc_mvec_is_null(vec, row) && (rc = cc_backlink_remove(txn, table, c, key, target))) return rc;
                continue;
            }
            cc_collcell cell = *(cc_collcell *)cc_mvec_cell(vec, row);
            uint64_t count;
            if ((rc = cc_collcell_count(txn, &cell, cc_column_elemtype(col), &count))) return rc;
            /* The keys are copied before anything changes (unlinking changes rows of this table, perhaps this very
             * collection). The copy grows with the elements actually read: the count of a committed collection is
             * what its root claims, and reading stops at the first element the tree does not hold. */
            int64_t *keys = NULL;
            size_t n = 0, capacity = 0;
            for (uint64_t i = 0; i < count && !rc; i++) {
                int64_t element;
                bool is_null;
                if ((rc = cc_collcell_get(txn, &cell, cc_column_elemtype(col), false, i, &element, &is_null)) || is_null)
                    continue;
                if (n == capacity) {
                    capacity = capacity ? capacity * 2 : 16;
                    int64_t *grown = realloc(keys, capacity * sizeof *keys);
                    if (!grown) {
                        rc = -ENOMEM;
                        break;
                    }
                    keys = grown;
                }
                keys[n++] = element;
            }
            for (size_t i = 0; i < n && !rc; i++) {
                if (backlink) rc = unlink_target(txn, col->origin_table, col->origin_column, keys[i], key);
                else rc = cc_backlink_remove(txn, table, c, key, keys[i]);
            }
            free(keys);
            if (rc) return rc;
        }
    }
    if ((rc = cc_obj_find_for_write(txn, table, key, &ts, &leaf, &row))) return rc;
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    for (uint32_t c = 0; c < schema->column_count; c++) {
        const cc_column *col = &schema->columns[c];
        if (!cc_column_is_live(col)) continue;
        cc_mvec *vec = &leaf->columns[c];
        if (col->flags & CF_COL_FLAG_INDEXED) {
            if ((rc = cc_index_remove(txn, table, c, cc_mvec_cell(vec, row), cc_mvec_is_null(vec, row), key))) return rc;
            if ((rc = cc_obj_find_for_write(txn, table, key, &ts, &leaf, &row))) return rc;
            vec = &leaf->columns[c];
        }
        if (col->collection != COLUMNAR_COLLECTION_NONE &&
            (rc = cc_collcell_release(txn, cc_mvec_cell(vec, row), cc_column_elemtype(col))))
            return rc;
    }
    cc_tree_remove_row(leaf, row);
    cc_txn_forget_cache(txn);
    ts->object_count--;
    return 0;
}

int columnar_obj_delete(columnar_txn *txn, columnar_table_id table, columnar_key key) {
    int rc = cc_txn_check_write(txn);
    if (rc) return rc;
    bool exists;
    if ((rc = columnar_obj_exists(txn, table, key, &exists))) return rc;
    if (!exists)
        return cc_error(COLUMNAR_ENOTFOUND, 0, "", "table %s has no object with key %lld",
                        cc_table_schema_get(txn, table)->name, (long long)key);
    rc = delete_object(txn, table, key);
    if (rc) txn->poisoned = true;
    return rc;
}

int cc_readable_value_column(columnar_txn *txn, uint32_t table, uint32_t column, const cc_column **out) {
    int rc = cc_txn_check(txn);
    if (rc) return rc;
    if ((rc = cc_visible_column(txn, table, column, out))) return rc;
    if ((*out)->collection != COLUMNAR_COLLECTION_NONE)
        return CC_MISUSE("%s.%s is a collection: use the columnar_coll_* functions", cc_table_schema_get(txn, table)->name,
                         (*out)->name);
    return 0;
}

/* Reads one value of an object. With `key_is_primary_key`, the int primary key of a table marked as keyed by it
 * (cc_tstate.keys_are_primary_keys: every object's key is its primary key, and the mark ends in the transaction
 * that breaks that) is answered from the object's key once the object is found, without loading the column's leaf:
 * a lookup by an indexed value then reads the id as SQLite reads a rowid alias from its index entry. The generic
 * read does not trust the mark, so a copy (copy.c) reads the stored values and decides its own mark from them. */
static int obj_get(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                   bool key_is_primary_key, columnar_value *out) {
    const cc_column *col;
    int rc = cc_readable_value_column(txn, table, column, &col);
    if (rc) return rc;
    cc_tstate *ts;
    cc_rowpos pos;
    if ((rc = cc_obj_find(txn, table, key, &ts, &pos))) return rc;
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    if (key_is_primary_key && ts->keys_are_primary_keys && column == schema->primary_key &&
        col->type == COLUMNAR_TYPE_INT) {
        out->type = COLUMNAR_TYPE_INT;
        out->is_null = false;
        out->as.i = key;
        return 0;
    }
    uint8_t cell[16];
    bool is_null;
    if ((rc = cc_row_get(txn, schema, &pos, column, cell, &is_null))) return rc;
    cc_value_from_cell(col->type, cell, is_null, out);
    return 0;
}

int columnar_obj_get(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                     columnar_value *out) {
    return obj_get(txn, table, key, column, false, out);
}

int columnar_obj_get_int(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                         int64_t *out_value, bool *out_is_null) {
    columnar_value value;
    int rc = obj_get(txn, table, key, column, true, &value);
    if (rc) return rc;
    if (value.type != COLUMNAR_TYPE_INT && value.type != COLUMNAR_TYPE_BOOL && value.type != COLUMNAR_TYPE_LINK)
        return cc_error(COLUMNAR_ETYPE, 0, "", "column %u holds %s values, not integers", column, cc_type_name(value.type));
    *out_value = value.is_null ? 0 : value.type == COLUMNAR_TYPE_BOOL ? value.as.b : value.as.i;
    if (out_is_null) *out_is_null = value.is_null;
    return 0;
}

static int set_value(columnar_txn *txn, uint32_t table, int64_t key, uint32_t column, const void *cell, bool is_null) {
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    const cc_column *col = &schema->columns[column];
    cc_tstate *ts;
    cc_tnode *leaf;
    uint32_t row;
    int rc = cc_obj_find_for_write(txn, table, key, &ts, &leaf, &row);
    if (rc) return rc;
    if (column == schema->primary_key && ts->keys_are_primary_keys) {
        int64_t value;
        memcpy(&value, cell, sizeof value);
        if (is_null || value != key) ts->keys_are_primary_keys = false;
    }
    cc_mvec *vec = &leaf->columns[column];
    uint8_t old[16];
    memcpy(old, cc_mvec_cell(vec, row), vec->cell_bytes);
    bool old_null = cc_mvec_is_null(vec, row);
    if (col->flags & CF_COL_FLAG_INDEXED) {
        if ((rc = cc_index_remove(txn, table, column, old, old_null, key)) ||
            (rc = cc_index_insert(txn, table, column, cell, is_null, key)))
            return rc;
    }
    if (col->type == COLUMNAR_TYPE_LINK) {
        int64_t old_target, new_target;
        memcpy(&old_target, old, 8);
        memcpy(&new_target, cell, 8);
        if (!old_null && (rc = cc_backlink_remove(txn, table, column, key, old_target))) return rc;
        if (!is_null && (rc = cc_backlink_add(txn, table, column, key, new_target))) return rc;
    }
    /* Index and backlink maintenance may have moved rows of this table: find the row again. */
    if ((rc = cc_obj_find_for_write(txn, table, key, &ts, &leaf, &row))) return rc;
    vec = &leaf->columns[column];
    memcpy(cc_mvec_cell(vec, row), cell, vec->cell_bytes);
    if (vec->nulls) vec->nulls[row] = is_null;
    return 0;
}

int columnar_obj_set(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                     const columnar_value *value) {
    int rc = cc_txn_check_write(txn);
    if (rc) return rc;
    const cc_column *col;
    if ((rc = cc_visible_column(txn, table, column, &col))) return rc;
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    if (col->collection != COLUMNAR_COLLECTION_NONE)
        return CC_MISUSE("%s.%s is a collection: use the columnar_list/set/dict functions", schema->name, col->name);
    /* Finding the row (and making its leaf private) changes nothing the user can see, so it may come first. */
    cc_tstate *ts;
    cc_tnode *leaf;
    uint32_t row;
    if ((rc = cc_obj_find_for_write(txn, table, key, &ts, &leaf, &row))) return rc;
    uint8_t cell[16];
    bool is_null;
    if ((rc = cc_value_to_cell(txn, schema, col, value, cell, &is_null))) return rc;
    if (schema->primary_key == column) {
        int64_t existing;
        bool found;
        if ((rc = cc_index_find(txn, table, column, cell, is_null, &existing, &found))) return rc;
        if (found && existing != key)
            return cc_error(COLUMNAR_EEXISTS, 0, "", "table %s: object %lld already has that primary key value",
                            schema->name, (long long)existing);
    }
    rc = set_value(txn, table, key, column, cell, is_null);
    if (rc) txn->poisoned = true;
    return rc;
}

int columnar_obj_find_first(columnar_txn *txn, columnar_table_id table, columnar_col_id column,
                            const columnar_value *value, columnar_key *out_key) {
    int rc = cc_txn_check(txn);
    if (rc) return rc;
    const cc_column *col;
    if ((rc = cc_visible_column(txn, table, column, &col))) return rc;
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    if (col->collection != COLUMNAR_COLLECTION_NONE)
        return CC_MISUSE("%s.%s is a collection", schema->name, col->name);
    uint8_t cell[16];
    bool is_null;
    if (value->is_null) {
        memset(cell, 0, sizeof cell);
        is_null = true;
    } else {
        if ((uint8_t)value->type != col->type)
            return cc_error(COLUMNAR_ETYPE, 0, "", "%s.%s holds %s values, not %s", schema->name, col->name,
                            cc_type_name(col->type), cc_type_name((uint8_t)value->type));
        if (col->type == COLUMNAR_TYPE_MIXED && (rc = cc_mixed_check(schema, col, value))) return rc;
        cc_cell_from_value(col->type, value, cell);
        is_null = false;
    }
    if (col->flags & CF_COL_FLAG_INDEXED) {
        bool found;
        if ((rc = cc_index_find(txn, table, column, cell, is_null, out_key, &found))) return rc;
        return found ? 0 : cc_error(COLUMNAR_ENOTFOUND, 0, "", "no object of %s has that %s", schema->name, col->name);
    }
    cc_tstate *ts;
    if ((rc = cc_table_state(txn, table, &ts))) return rc;
    cc_cluster_pos cluster;
    int64_t next = 0;
    /* Without an index: scan cluster by cluster in key order. */
    for (;;) {
        if ((rc = cc_tree_seek_cluster(txn, &ts->root, next, &cluster))) return rc;
        if (!cluster.found) break;
        uint32_t rows = cluster.leaf ? cluster.leaf->count : cluster.keys.count;
        int64_t last = 0;
        for (uint32_t r = 0; r < rows; r++) {
            int64_t key = cluster.leaf ? (int64_t)cluster.leaf->keys[r] : cc_node_int_at(&cluster.keys, r);
            last = key;
            if (key < next) continue;
            cc_rowpos pos = { cluster.leaf, cluster.cluster_ref, r };
            uint8_t current[16];
            bool current_null;
            if ((rc = cc_row_get(txn, schema, &pos, column, current, &current_null))) return rc;
            if (current_null == is_null && cc_cell_compare(col->type, current, current_null, cell, is_null) == 0) {
                *out_key = key;
                return 0;
            }
        }
        if (last == INT64_MAX) break;
        next = last + 1;
    }
    return cc_error(COLUMNAR_ENOTFOUND, 0, "", "no object of %s has that %s", schema->name, col->name);
}

int columnar_obj_find_primary_key(columnar_txn *txn, columnar_table_id table, const columnar_value *value,
                                  columnar_key *out_key) {
    int rc = cc_txn_check(txn);
    if (rc) return rc;
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    if (!schema) return cc_error(COLUMNAR_ENOTFOUND, 0, "", "no table with id %u", table);
    if (schema->primary_key == CF_NO_COLUMN) return CC_MISUSE("table %s has no primary key", schema->name);
    if (schema->columns[schema->primary_key].type == COLUMNAR_TYPE_INT && value->type == COLUMNAR_TYPE_INT &&
        !value->is_null) {
        bool found;
        cc_tstate *ts;
        if ((rc = cc_table_state(txn, table, &ts))) return rc;
        if (ts->keys_are_primary_keys) {
            if ((rc = find_keyed_table_object(txn, table, ts, value->as.i, &found))) return rc;
            if (!found)
                return cc_error(COLUMNAR_ENOTFOUND, 0, "", "no object of %s has that %s", schema->name,
                                schema->columns[schema->primary_key].name);
            *out_key = value->as.i;
            return 0;
        }
        if ((rc = find_object_keyed_by_primary_key(txn, table, schema, ts, value->as.i, &found))) return rc;
        if (found) {
            *out_key = value->as.i;
            return 0;
        }
    }
    return columnar_obj_find_first(txn, table, schema->primary_key, value, out_key);
}

static int drop_in_node(columnar_txn *txn, cc_tnode *n, uint32_t column, const cc_column *col) {
    int rc;
    if (!n->is_leaf) {
        for (uint32_t i = 0; i < n->count; i++)
            if (n->children[i].node && (rc = drop_in_node(txn, n->children[i].node, column, col))) return rc;
        return 0;
    }
    if (column >= n->column_count || n->columns[column].removed) return 0;
    cc_mvec *vec = &n->columns[column];
    if (col->collection != COLUMNAR_COLLECTION_NONE)
        for (uint32_t r = 0; r < vec->count; r++)
            if ((rc = cc_collcell_release(txn, cc_mvec_cell(vec, r), cc_column_elemtype(col)))) return rc;
    cc_mvec_free(vec);
    vec->removed = true;
    return 0;
}

int cc_column_drop_data(columnar_txn *txn, uint32_t table, uint32_t column) {
    cc_tstate *ts;
    int rc = cc_table_state(txn, table, &ts);
    if (rc) return rc;
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    /* Every leaf is copied (freeing the old column leaves), then the column's values are released. */
    if ((rc = cc_tree_materialize_all(txn, &ts->root, schema))) return rc;
    ts->dirty = true;
    cc_txn_forget_cache(txn);
    return ts->root.node ? drop_in_node(txn, ts->root.node, column, &schema->columns[column]) : 0;
}
