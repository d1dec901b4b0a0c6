/*
 * coll_api.c — the public collection operations on list, set and dictionary columns, and backlink queries.
 * Reads go to the committed B+tree (or the private copy); the first write to a collection in a transaction copies
 * it into private memory. Links held in collections keep their targets' backlinks in step.
 */
#include "object.h"

#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>

/* The collection column, checked. */
static int coll_column(columnar_txn *txn, uint32_t table, uint32_t column, uint8_t kind, const cc_column **out) {
    int rc = cc_visible_column(txn, table, column, out);
    if (rc) return rc;
    const char *table_name = cc_table_schema_get(txn, table)->name;
    if ((*out)->collection == COLUMNAR_COLLECTION_NONE)
        return CC_MISUSE("%s.%s is not a collection", table_name, (*out)->name);
    if (kind != COLUMNAR_COLLECTION_NONE && (*out)->collection != kind)
        return CC_MISUSE("%s.%s is a %s, not a %s", table_name, (*out)->name,
                         (*out)->collection == COLUMNAR_COLLECTION_LIST ? "list"
                         : (*out)->collection == COLUMNAR_COLLECTION_SET ? "set" : "dictionary",
                         kind == COLUMNAR_COLLECTION_LIST ? "list" : kind == COLUMNAR_COLLECTION_SET ? "set" : "dictionary");
    return 0;
}

/* Reads the collection cell of an object (committed or private). */
static int read_cell(columnar_txn *txn, uint32_t table, int64_t key, uint32_t column, cc_collcell *out) {
    cc_tstate *ts;
    cc_rowpos pos;
    int rc = cc_obj_find(txn, table, key, &ts, &pos);
    if (rc) return rc;
    bool is_null;
    return cc_row_get(txn, cc_table_schema_get(txn, table), &pos, column, out, &is_null);
}

/* Makes an object's collection private for writing. */
static int write_cell(columnar_txn *txn, uint32_t table, int64_t key, uint32_t column, const cc_column *col,
                      cc_mcoll **out) {
    cc_tstate *ts;
    cc_tnode *leaf;
    uint32_t row;
    int rc = cc_obj_find_for_write(txn, table, key, &ts, &leaf, &row);
    if (rc) return rc;
    cc_collcell *cell = cc_mvec_cell(&leaf->columns[column], row);
    if ((rc = cc_coll_materialize(txn, cell, cc_column_elemtype(col)))) return rc;
    *out = cell->dirty;
    return 0;
}

static int range_error(columnar_txn *txn, uint32_t table, const cc_column *col, uint64_t index, uint64_t size) {
    return cc_error(COLUMNAR_ERANGE, 0, "", "index %llu is out of range for %s.%s, which has %llu elements",
                    (unsigned long long)index, cc_table_schema_get(txn, table)->name, col->name,
                    (unsigned long long)size);
}

static int fail(columnar_txn *txn, int rc) {
    if (rc == -ENOMEM || rc == COLUMNAR_ECORRUPT) txn->poisoned = true;
    return rc;
}

int columnar_coll_size(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                       uint64_t *out_size) {
    int rc = cc_txn_check(txn);
    const cc_column *col;
    if (rc || (rc = coll_column(txn, table, column, COLUMNAR_COLLECTION_NONE, &col))) return rc;
    cc_collcell cell;
    if ((rc = read_cell(txn, table, key, column, &cell))) return rc;
    return cc_collcell_count(txn, &cell, cc_column_elemtype(col), out_size);
}

int columnar_coll_get(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                      uint64_t index, columnar_value *out) {
    int rc = cc_txn_check(txn);
    const cc_column *col;
    if (rc || (rc = coll_column(txn, table, column, COLUMNAR_COLLECTION_NONE, &col))) return rc;
    cc_collcell cell;
    if ((rc = read_cell(txn, table, key, column, &cell))) return rc;
    uint64_t size;
    if ((rc = cc_collcell_count(txn, &cell, cc_column_elemtype(col), &size))) return rc;
    if (index >= size) return range_error(txn, table, col, index, size);
    uint8_t value[16];
    bool is_null;
    if ((rc = cc_collcell_get(txn, &cell, cc_column_elemtype(col), false, index, value, &is_null))) return rc;
    cc_value_from_cell(col->type, value, is_null, out);
    return 0;
}

/* Adds/removes the backlinks of every link element of a private collection. */
static int backlinks_of_elements(columnar_txn *txn, uint32_t table, uint32_t column, int64_t key, const cc_mvec *values,
                                 bool add) {
    for (uint32_t i = 0; i < values->count; i++) {
        if (cc_mvec_is_null(values, i)) continue;
        int64_t target;
        memcpy(&target, cc_mvec_cell(values, i), 8);
        int rc = add ? cc_backlink_add(txn, table, column, key, target)
                     : cc_backlink_remove(txn, table, column, key, target);
        if (rc) return rc;
    }
    return 0;
}

int columnar_coll_clear(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column) {
    int rc = cc_txn_check_write(txn);
    const cc_column *col;
    if (rc || (rc = coll_column(txn, table, column, COLUMNAR_COLLECTION_NONE, &col))) return rc;
    cc_mcoll *coll;
    if ((rc = write_cell(txn, table, key, column, col, &coll))) return fail(txn, rc);
    if (col->type == COLUMNAR_TYPE_LINK) {
        cc_mvec copy = coll->values;   /* backlink maintenance may move rows, not this private collection */
        if ((rc = backlinks_of_elements(txn, table, column, key, &copy, false))) return fail(txn, rc);
    }
    coll->values.count = 0;
    coll->keys.count = 0;
    return 0;
}

/* Converts a value for a collection element (element nullability is the column's). */
static int element_cell(columnar_txn *txn, uint32_t table, const cc_column *col, const columnar_value *value,
                        void *cell, bool *is_null) {
    cc_column element = *col;
    element.collection = COLUMNAR_COLLECTION_NONE;
    if (col->type == COLUMNAR_TYPE_LINK && !(col->flags & CF_COL_FLAG_NULLABLE) && value && value->is_null)
        return cc_error(COLUMNAR_ENULL, 0, "", "%s.%s does not hold null links", cc_table_schema_get(txn, table)->name,
                        col->name);
    if (col->type == COLUMNAR_TYPE_LINK) {
        /* cc_value_to_cell treats single links as nullable; elements follow the column's flag checked above. */
    }
    return cc_value_to_cell(txn, cc_table_schema_get(txn, table), &element, value, cell, is_null);
}

static void put_element(cc_mvec *vec, uint32_t index, const void *cell, bool is_null) {
    memcpy(cc_mvec_cell(vec, index), cell, vec->cell_bytes);
    if (vec->nulls) vec->nulls[index] = is_null;
}

int columnar_list_insert(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                         uint64_t index, const columnar_value *value) {
    int rc = cc_txn_check_write(txn);
    const cc_column *col;
    if (rc || (rc = coll_column(txn, table, column, COLUMNAR_COLLECTION_LIST, &col))) return rc;
    uint8_t cell[16];
    bool is_null;
    uint64_t size;
    if ((rc = columnar_coll_size(txn, table, key, column, &size))) return rc;
    if (index > size) return range_error(txn, table, col, index, size);
    if ((rc = element_cell(txn, table, col, value, cell, &is_null))) return rc;
    if (col->type == COLUMNAR_TYPE_LINK && !is_null) {
        int64_t target;
        memcpy(&target, cell, 8);
        if ((rc = cc_backlink_add(txn, table, column, key, target))) return fail(txn, rc);
    }
    cc_mcoll *coll;
    if ((rc = write_cell(txn, table, key, column, col, &coll))) return fail(txn, rc);
    if ((rc = cc_mvec_insert_default(&coll->values, (uint32_t)index, 1))) return fail(txn, rc);
    put_element(&coll->values, (uint32_t)index, cell, is_null);
    return 0;
}

int columnar_list_set(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                      uint64_t index, const columnar_value *value) {
    int rc = cc_txn_check_write(txn);
    const cc_column *col;
    if (rc || (rc = coll_column(txn, table, column, COLUMNAR_COLLECTION_LIST, &col))) return rc;
    uint64_t size;
    if ((rc = columnar_coll_size(txn, table, key, column, &size))) return rc;
    if (index >= size) return range_error(txn, table, col, index, size);
    uint8_t cell[16];
    bool is_null;
    if ((rc = element_cell(txn, table, col, value, cell, &is_null))) return rc;
    cc_mcoll *coll;
    if ((rc = write_cell(txn, table, key, column, col, &coll))) return fail(txn, rc);
    if (col->type == COLUMNAR_TYPE_LINK) {
        int64_t old;
        memcpy(&old, cc_mvec_cell(&coll->values, (uint32_t)index), 8);
        bool old_null = cc_mvec_is_null(&coll->values, (uint32_t)index);
        int64_t target;
        memcpy(&target, cell, 8);
        if ((!old_null && (rc = cc_backlink_remove(txn, table, column, key, old))) ||
            (!is_null && (rc = cc_backlink_add(txn, table, column, key, target))))
            return fail(txn, rc);
        if ((rc = write_cell(txn, table, key, column, col, &coll))) return fail(txn, rc);
    }
    put_element(&coll->values, (uint32_t)index, cell, is_null);
    return 0;
}

int columnar_list_remove(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                         uint64_t index) {
    int rc = cc_txn_check_write(txn);
    const cc_column *col;
    if (rc || (rc = coll_column(txn, table, column, COLUMNAR_COLLECTION_LIST, &col))) return rc;
    uint64_t size;
    if ((rc = columnar_coll_size(txn, table, key, column, &size))) return rc;
    if (index >= size) return range_error(txn, table, col, index, size);
    cc_mcoll *coll;
    if ((rc = write_cell(txn, table, key, column, col, &coll))) return fail(txn, rc);
    if (col->type == COLUMNAR_TYPE_LINK && !cc_mvec_is_null(&coll->values, (uint32_t)index)) {
        int64_t target;
        memcpy(&target, cc_mvec_cell(&coll->values, (uint32_t)index), 8);
        if ((rc = cc_backlink_remove(txn, table, column, key, target))) return fail(txn, rc);
        if ((rc = write_cell(txn, table, key, column, col, &coll))) return fail(txn, rc);
    }
    cc_mvec_remove(&coll->values, (uint32_t)index);
    return 0;
}

int columnar_list_move(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                       uint64_t from, uint64_t to) {
    int rc = cc_txn_check_write(txn);
    const cc_column *col;
    if (rc || (rc = coll_column(txn, table, column, COLUMNAR_COLLECTION_LIST, &col))) return rc;
    uint64_t size;
    if ((rc = columnar_coll_size(txn, table, key, column, &size))) return rc;
    if (from >= size) return range_error(txn, table, col, from, size);
    if (to >= size) return range_error(txn, table, col, to, size);
    cc_mcoll *coll;
    if ((rc = write_cell(txn, table, key, column, col, &coll))) return fail(txn, rc);
    cc_mvec *vec = &coll->values;
    uint8_t cell[16];
    memcpy(cell, cc_mvec_cell(vec, (uint32_t)from), vec->cell_bytes);
    bool is_null = cc_mvec_is_null(vec, (uint32_t)from);
    cc_mvec_remove(vec, (uint32_t)from);
    if ((rc = cc_mvec_insert_default(vec, (uint32_t)to, 1))) return fail(txn, rc);
    put_element(vec, (uint32_t)to, cell, is_null);
    return 0;
}

/* Binary search in a sorted private vector: first index whose element is >= the cell. */
static uint32_t sorted_position(const cc_mvec *vec, const void *cell, bool is_null, bool *equal) {
    uint32_t low = 0, high = vec->count;
    while (low < high) {
        uint32_t mid = low + (high - low) / 2;
        if (cc_cell_compare(vec->type, cc_mvec_cell(vec, mid), cc_mvec_is_null(vec, mid), cell, is_null) < 0)
            low = mid + 1;
        else
            high = mid;
    }
    *equal = low < vec->count &&
             cc_cell_compare(vec->type, cc_mvec_cell(vec, low), cc_mvec_is_null(vec, low), cell, is_null) == 0;
    return low;
}

int columnar_set_insert(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                        const columnar_value *value, bool *out_inserted) {
    int rc = cc_txn_check_write(txn);
    const cc_column *col;
    if (rc || (rc = coll_column(txn, table, column, COLUMNAR_COLLECTION_SET, &col))) return rc;
    uint8_t cell[16];
    bool is_null;
    if ((rc = element_cell(txn, table, col, value, cell, &is_null))) return rc;
    bool present;
    if ((rc = columnar_coll_contains(txn, table, key, column, value, &present))) return rc;
    if (out_inserted) *out_inserted = !present;
    if (present) return 0;
    if (col->type == COLUMNAR_TYPE_LINK && !is_null) {
        int64_t target;
        memcpy(&target, cell, 8);
        if ((rc = cc_backlink_add(txn, table, column, key, target))) return fail(txn, rc);
    }
    cc_mcoll *coll;
    if ((rc = write_cell(txn, table, key, column, col, &coll))) return fail(txn, rc);
    bool equal;
    uint32_t at = sorted_position(&coll->values, cell, is_null, &equal);
    if ((rc = cc_mvec_insert_default(&coll->values, at, 1))) return fail(txn, rc);
    put_element(&coll->values, at, cell, is_null);
    return 0;
}

int columnar_set_remove(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                        const columnar_value *value, bool *out_removed) {
    int rc = cc_txn_check_write(txn);
    const cc_column *col;
    if (rc || (rc = coll_column(txn, table, column, COLUMNAR_COLLECTION_SET, &col))) return rc;
    bool present;
    if ((rc = columnar_coll_contains(txn, table, key, column, value, &present))) return rc;
    if (out_removed) *out_removed = present;
    if (!present) return 0;
    uint8_t cell[16];
    bool is_null;
    if ((rc = element_cell(txn, table, col, value, cell, &is_null))) return rc;
    if (col->type == COLUMNAR_TYPE_LINK && !is_null) {
        int64_t target;
        memcpy(&target, cell, 8);
        if ((rc = cc_backlink_remove(txn, table, column, key, target))) return fail(txn, rc);
    }
    cc_mcoll *coll;
    if ((rc = write_cell(txn, table, key, column, col, &coll))) return fail(txn, rc);
    bool equal;
    uint32_t at = sorted_position(&coll->values, cell, is_null, &equal);
    if (equal) cc_mvec_remove(&coll->values, at);
    return 0;
}

int columnar_coll_contains(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                           const columnar_value *value, bool *out_contains) {
    int rc = cc_txn_check(txn);
    const cc_column *col;
    if (rc || (rc = coll_column(txn, table, column, COLUMNAR_COLLECTION_NONE, &col))) return rc;
    if (!value) return CC_MISUSE("value is NULL");
    *out_contains = false;
    uint8_t cell[16] = { 0 };
    bool is_null = value->is_null;
    if (!is_null) {
        if ((uint8_t)value->type != col->type)
            return cc_error(COLUMNAR_ETYPE, 0, "", "%s.%s holds elements of type %u, not %u",
                            cc_table_schema_get(txn, table)->name, col->name, col->type, value->type);
        if (col->type == COLUMNAR_TYPE_MIXED && (rc = cc_mixed_check(cc_table_schema_get(txn, table), col, value)))
            return rc;
        cc_cell_from_value(col->type, value, cell);
    }
    cc_collcell coll;
    if ((rc = read_cell(txn, table, key, column, &coll))) return rc;
    cc_elemtype elem = cc_column_elemtype(col);
    uint64_t size;
    if ((rc = cc_collcell_count(txn, &coll, elem, &size))) return rc;
    if (col->collection == COLUMNAR_COLLECTION_SET) {
        uint64_t low = 0, high = size;
        while (low < high) {
            uint64_t mid = low + (high - low) / 2;
            uint8_t element[16];
            bool element_null;
            if ((rc = cc_collcell_get(txn, &coll, elem, false, mid, element, &element_null))) return rc;
            int c = cc_cell_compare(col->type, element, element_null, cell, is_null);
            if (c == 0) {
                *out_contains = true;
                return 0;
            }
            if (c < 0) low = mid + 1;
            else high = mid;
        }
        return 0;
    }
    for (uint64_t i = 0; i < size; i++) {
        uint8_t element[16];
        bool element_null;
        if ((rc = cc_collcell_get(txn, &coll, elem, false, i, element, &element_null))) return rc;
        if (cc_cell_compare(col->type, element, element_null, cell, is_null) == 0) {
            *out_contains = true;
            return 0;
        }
    }
    return 0;
}

/* Position of a dictionary key (or where it would go), by binary search over keys sorted bytewise. */
static int dict_position(columnar_txn *txn, const cc_collcell *coll, cc_elemtype elem, const cc_bytes *wanted,
                         uint64_t *out_index, bool *found) {
    uint64_t size;
    int rc = cc_collcell_count(txn, coll, elem, &size);
    if (rc) return rc;
    uint64_t low = 0, high = size;
    while (low < high) {
        uint64_t mid = low + (high - low) / 2;
        cc_bytes key;
        bool is_null;
        if ((rc = cc_collcell_get(txn, coll, elem, true, mid, &key, &is_null))) return rc;
        if (cc_cell_compare(COLUMNAR_TYPE_STRING, &key, false, wanted, false) < 0) low = mid + 1;
        else high = mid;
    }
    *out_index = low;
    *found = false;
    if (low < size) {
        cc_bytes key;
        bool is_null;
        if ((rc = cc_collcell_get(txn, coll, elem, true, low, &key, &is_null))) return rc;
        *found = cc_cell_compare(COLUMNAR_TYPE_STRING, &key, false, wanted, false) == 0;
    }
    return 0;
}

static int dict_key_check(columnar_txn *txn, uint32_t table, const cc_column *col, const void *dict_key, size_t size) {
    if (size && !dict_key) return CC_MISUSE("dictionary key pointer is NULL");
    if (size > COLUMNAR_MAX_NAME_BYTES * 4)
        return cc_error(COLUMNAR_ETOOBIG, 0, "", "a %zu-byte key for %s.%s exceeds %u bytes", size,
                        cc_table_schema_get(txn, table)->name, col->name, COLUMNAR_MAX_NAME_BYTES * 4);
    return 0;
}

int columnar_dict_get(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                      const void *dict_key, size_t dict_key_size, columnar_value *out, bool *out_found) {
    int rc = cc_txn_check(txn);
    const cc_column *col;
    if (rc || (rc = coll_column(txn, table, column, COLUMNAR_COLLECTION_DICT, &col)) ||
        (rc = dict_key_check(txn, table, col, dict_key, dict_key_size)))
        return rc;
    cc_collcell coll;
    if ((rc = read_cell(txn, table, key, column, &coll))) return rc;
    cc_bytes wanted = { dict_key, dict_key_size };
    uint64_t index;
    if ((rc = dict_position(txn, &coll, cc_column_elemtype(col), &wanted, &index, out_found)) || !*out_found) return rc;
    uint8_t value[16];
    bool is_null;
    if ((rc = cc_collcell_get(txn, &coll, cc_column_elemtype(col), false, index, value, &is_null))) return rc;
    cc_value_from_cell(col->type, value, is_null, out);
    return 0;
}

int columnar_dict_set(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                      const void *dict_key, size_t dict_key_size, const columnar_value *value) {
    int rc = cc_txn_check_write(txn);
    const cc_column *col;
    if (rc || (rc = coll_column(txn, table, column, COLUMNAR_COLLECTION_DICT, &col)) ||
        (rc = dict_key_check(txn, table, col, dict_key, dict_key_size)))
        return rc;
    uint8_t cell[16];
    bool is_null;
    if ((rc = element_cell(txn, table, col, value, cell, &is_null))) return rc;
    cc_collcell current;
    if ((rc = read_cell(txn, table, key, column, &current))) return rc;
    cc_bytes wanted = { dict_key, dict_key_size };
    uint64_t index;
    bool found;
    if ((rc = dict_position(txn, &current, cc_column_elemtype(col), &wanted, &index, &found))) return rc;
    if (col->type == COLUMNAR_TYPE_LINK) {
        if (found) {
            uint8_t old[16];
            bool old_null;
            if ((rc = cc_collcell_get(txn, &current, cc_column_elemtype(col), false, index, old, &old_null))) return rc;
            int64_t old_target;
            memcpy(&old_target, old, 8);
            if (!old_null && (rc = cc_backlink_remove(txn, table, column, key, old_target))) return fail(txn, rc);
        }
        int64_t target;
        memcpy(&target, cell, 8);
        if (!is_null && (rc = cc_backlink_add(txn, table, column, key, target))) return fail(txn, rc);
    }
    cc_mcoll *coll;
    if ((rc = write_cell(txn, table, key, column, col, &coll))) return fail(txn, rc);
    if (!found) {
        cc_bytes stored = { cc_arena_copy(txn, dict_key, dict_key_size), dict_key_size };
        if (!stored.data) return fail(txn, -ENOMEM);
        if ((rc = cc_mvec_insert_default(&coll->keys, (uint32_t)index, 1)) ||
            (rc = cc_mvec_insert_default(&coll->values, (uint32_t)index, 1)))
            return fail(txn, rc);
        memcpy(cc_mvec_cell(&coll->keys, (uint32_t)index), &stored, sizeof stored);
    }
    put_element(&coll->values, (uint32_t)index, cell, is_null);
    return 0;
}

int columnar_dict_remove(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                         const void *dict_key, size_t dict_key_size, bool *out_removed) {
    int rc = cc_txn_check_write(txn);
    const cc_column *col;
    if (rc || (rc = coll_column(txn, table, column, COLUMNAR_COLLECTION_DICT, &col)) ||
        (rc = dict_key_check(txn, table, col, dict_key, dict_key_size)))
        return rc;
    cc_collcell current;
    if ((rc = read_cell(txn, table, key, column, &current))) return rc;
    cc_bytes wanted = { dict_key, dict_key_size };
    uint64_t index;
    bool found;
    if ((rc = dict_position(txn, &current, cc_column_elemtype(col), &wanted, &index, &found))) return rc;
    if (out_removed) *out_removed = found;
    if (!found) return 0;
    if (col->type == COLUMNAR_TYPE_LINK) {
        uint8_t old[16];
        bool old_null;
        if ((rc = cc_collcell_get(txn, &current, cc_column_elemtype(col), false, index, old, &old_null))) return rc;
        int64_t old_target;
        memcpy(&old_target, old, 8);
        if (!old_null && (rc = cc_backlink_remove(txn, table, column, key, old_target))) return fail(txn, rc);
    }
    cc_mcoll *coll;
    if ((rc = write_cell(txn, table, key, column, col, &coll))) return fail(txn, rc);
    cc_mvec_remove(&coll->keys, (uint32_t)index);
    cc_mvec_remove(&coll->values, (uint32_t)index);
    return 0;
}

int columnar_dict_key_at(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                         uint64_t index, const void **out_key, size_t *out_key_size) {
    int rc = cc_txn_check(txn);
    const cc_column *col;
    if (rc || (rc = coll_column(txn, table, column, COLUMNAR_COLLECTION_DICT, &col))) return rc;
    cc_collcell coll;
    if ((rc = read_cell(txn, table, key, column, &coll))) return rc;
    uint64_t size;
    if ((rc = cc_collcell_count(txn, &coll, cc_column_elemtype(col), &size))) return rc;
    if (index >= size) return range_error(txn, table, col, index, size);
    cc_bytes bytes;
    bool is_null;
    if ((rc = cc_collcell_get(txn, &coll, cc_column_elemtype(col), true, index, &bytes, &is_null))) return rc;
    *out_key = bytes.data;
    *out_key_size = bytes.size;
    return 0;
}

static int backlink_cell(columnar_txn *txn, uint32_t table, int64_t key, uint32_t origin_table, uint32_t origin_column,
                         cc_collcell *out) {
    int rc = cc_txn_check(txn);
    if (rc) return rc;
    const cc_column *link;
    if ((rc = cc_visible_column(txn, origin_table, origin_column, &link))) return rc;
    if (link->type != COLUMNAR_TYPE_LINK || link->target_table != table)
        return CC_MISUSE("%s.%s does not link to table id %u", cc_table_schema_get(txn, origin_table)->name, link->name,
                         table);
    uint32_t column;
    if ((rc = cc_backlink_column(txn->schema, table, origin_table, origin_column, &column))) return rc;
    return read_cell(txn, table, key, column, out);
}

static const cc_elemtype backlink_elem = { COLUMNAR_TYPE_LINK, COLUMNAR_COLLECTION_LIST, false };

int columnar_backlink_count(columnar_txn *txn, columnar_table_id table, columnar_key key,
                            columnar_table_id origin_table, columnar_col_id origin_column, uint64_t *out_count) {
    cc_collcell cell;
    int rc = backlink_cell(txn, table, key, origin_table, origin_column, &cell);
    if (rc) return rc;
    return cc_collcell_count(txn, &cell, backlink_elem, out_count);
}

int columnar_backlink_get(columnar_txn *txn, columnar_table_id table, columnar_key key,
                          columnar_table_id origin_table, columnar_col_id origin_column, uint64_t index,
                          columnar_key *out_origin_key) {
    cc_collcell cell;
    int rc = backlink_cell(txn, table, key, origin_table, origin_column, &cell);
    if (rc) return rc;
    uint64_t count;
    if ((rc = cc_collcell_count(txn, &cell, backlink_elem, &count))) return rc;
    if (index >= count)
        return cc_error(COLUMNAR_ERANGE, 0, "", "backlink index %llu is out of range (%llu backlinks)",
                        (unsigned long long)index, (unsigned long long)count);
    bool is_null;
    return cc_collcell_get(txn, &cell, backlink_elem, false, index, out_origin_key, &is_null);
}
