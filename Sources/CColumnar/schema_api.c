/*
 * schema_api.c — the public schema operations: tables and columns added, renamed and removed, search indexes
 * and primary keys. Every change copies the transaction's schema first (copy-on-write) and marks it dirty.
 */
#include "object.h"

#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>

static int check_name(const char *name, const char *what) {
    if (!name) return CC_MISUSE("%s name is NULL", what);
    size_t length = strlen(name);
    if (length == 0 || length > COLUMNAR_MAX_NAME_BYTES)
        return CC_MISUSE("%s name \"%s\" must be 1 to %u bytes", what, name, COLUMNAR_MAX_NAME_BYTES);
    if (name[0] == '@') return CC_MISUSE("%s name \"%s\" may not start with '@' (reserved)", what, name);
    return 0;
}

static int begin_change(columnar_txn *txn) {
    int rc = cc_txn_check_write(txn);
    if (rc) return rc;
    if ((rc = cc_schema_make_private(txn))) return rc;
    txn->schema_dirty = true;
    cc_txn_forget_cache(txn);
    return cc_txn_tables_fit(txn);
}

int columnar_table_count(columnar_txn *txn, uint32_t *out_count) {
    int rc = cc_txn_check(txn);
    if (rc) return rc;
    *out_count = txn->schema->table_count;
    return 0;
}

int columnar_table_find(columnar_txn *txn, const char *name, columnar_table_id *out_table) {
    int rc = cc_txn_check(txn);
    if (rc) return rc;
    if (!name) return CC_MISUSE("table name is NULL");
    for (uint32_t t = 0; t < txn->schema->table_count; t++) {
        const cc_table_schema *table = &txn->schema->tables[t];
        if (!(table->flags & CF_TABLE_FLAG_REMOVED) && strcmp(table->name, name) == 0) {
            *out_table = t;
            return 0;
        }
    }
    return cc_error(COLUMNAR_ENOTFOUND, 0, "", "no table named \"%s\"", name);
}

int columnar_table_add(columnar_txn *txn, const char *name, columnar_table_id *out_table) {
    int rc = cc_txn_check_write(txn);
    if (rc || (rc = check_name(name, "table"))) return rc;
    columnar_table_id existing;
    if (columnar_table_find(txn, name, &existing) == 0)
        return cc_error(COLUMNAR_EEXISTS, 0, "", "a table named \"%s\" exists already", name);
    if ((rc = begin_change(txn))) return rc;
    cc_schema *schema = txn->schema;
    cc_table_schema *grown = realloc(schema->tables, (schema->table_count + 1) * sizeof *grown);
    if (!grown) return -ENOMEM;
    schema->tables = grown;
    cc_table_schema *table = &grown[schema->table_count];
    memset(table, 0, sizeof *table);
    snprintf(table->name, sizeof table->name, "%s", name);
    table->primary_key = CF_NO_COLUMN;
    table->columns = calloc(1, sizeof *table->columns);
    if (!table->columns) return -ENOMEM;
    uint32_t id = schema->table_count++;
    if ((rc = cc_txn_tables_fit(txn))) return rc;
    cc_tstate *ts = &txn->tables[id];
    memset(ts, 0, sizeof *ts);
    ts->loaded = true;
    ts->dirty = true;
    *out_table = id;
    return 0;
}

int columnar_table_info_get(columnar_txn *txn, columnar_table_id table, columnar_table_info *out) {
    int rc = cc_txn_check(txn);
    if (rc) return rc;
    cc_tstate *ts;
    if ((rc = cc_table_state(txn, table, &ts))) return rc;
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", schema->name);
    out->column_count = schema->column_count;
    out->primary_key = schema->primary_key;
    out->object_count = ts->object_count;
    out->next_key = (columnar_key)ts->next_key;
    out->keys_are_primary_keys = ts->keys_are_primary_keys;
    return 0;
}

int columnar_table_rename(columnar_txn *txn, columnar_table_id table, const char *new_name) {
    int rc = cc_txn_check_write(txn);
    if (rc || (rc = check_name(new_name, "table"))) return rc;
    if (!cc_table_schema_get(txn, table)) return cc_error(COLUMNAR_ENOTFOUND, 0, "", "no table with id %u", table);
    columnar_table_id existing;
    if (columnar_table_find(txn, new_name, &existing) == 0 && existing != table)
        return cc_error(COLUMNAR_EEXISTS, 0, "", "a table named \"%s\" exists already", new_name);
    if ((rc = begin_change(txn))) return rc;
    snprintf(txn->schema->tables[table].name, sizeof txn->schema->tables[table].name, "%s", new_name);
    return 0;
}

/* Drops the backlink column that a link column (table, column) keeps in its target. */
static int drop_backlink_of(columnar_txn *txn, uint32_t table, uint32_t column) {
    const cc_column *link = &txn->schema->tables[table].columns[column];
    uint32_t target = link->target_table, backlink;
    if (!cc_table_schema_get(txn, target)) return 0;
    int rc = cc_backlink_column(txn->schema, target, table, column, &backlink);
    if (rc) return rc;
    if ((rc = cc_column_drop_data(txn, target, backlink))) return rc;
    txn->schema->tables[target].columns[backlink].flags |= CF_COL_FLAG_REMOVED;
    return 0;
}

int columnar_table_remove(columnar_txn *txn, columnar_table_id table) {
    int rc = cc_txn_check_write(txn);
    if (rc) return rc;
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    if (!schema) return cc_error(COLUMNAR_ENOTFOUND, 0, "", "no table with id %u", table);
    for (uint32_t t = 0; t < txn->schema->table_count; t++) {
        const cc_table_schema *other = cc_table_schema_get(txn, t);
        if (!other || t == table) continue;
        for (uint32_t c = 0; c < other->column_count; c++)
            if (cc_column_is_visible(&other->columns[c]) && other->columns[c].type == COLUMNAR_TYPE_LINK &&
                other->columns[c].target_table == table)
                return CC_MISUSE("table %s cannot be removed: %s.%s links to it", schema->name, other->name,
                                 other->columns[c].name);
    }
    if ((rc = begin_change(txn))) return rc;
    cc_tstate *ts;
    if ((rc = cc_table_state(txn, table, &ts))) goto fail;
    cc_table_schema *mutable_schema = &txn->schema->tables[table];
    for (uint32_t c = 0; c < mutable_schema->column_count; c++) {
        cc_column *col = &mutable_schema->columns[c];
        if (cc_column_is_visible(col) && col->type == COLUMNAR_TYPE_LINK && col->target_table != table &&
            (rc = drop_backlink_of(txn, table, c)))
            goto fail;
    }
    if ((rc = cc_tree_release(txn, &ts->root, mutable_schema))) goto fail;
    for (uint32_t c = 0; c < ts->index_count; c++)
        if ((rc = cc_tree_release(txn, &ts->indexes[c],
                                  c < mutable_schema->column_count ? cc_index_schema_of(&mutable_schema->columns[c])
                                                                   : cc_index_schema())))
            goto fail;
    ts->dirty = true;
    ts->object_count = 0;
    mutable_schema->flags |= CF_TABLE_FLAG_REMOVED;
    mutable_schema->primary_key = CF_NO_COLUMN;
    return 0;
fail:
    txn->poisoned = true;
    return rc;
}

int columnar_column_find(columnar_txn *txn, columnar_table_id table, const char *name, columnar_col_id *out) {
    int rc = cc_txn_check(txn);
    if (rc) return rc;
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    if (!schema) return cc_error(COLUMNAR_ENOTFOUND, 0, "", "no table with id %u", table);
    if (!name) return CC_MISUSE("column name is NULL");
    for (uint32_t c = 0; c < schema->column_count; c++)
        if (cc_column_is_visible(&schema->columns[c]) && strcmp(schema->columns[c].name, name) == 0) {
            *out = c;
            return 0;
        }
    return cc_error(COLUMNAR_ENOTFOUND, 0, "", "table %s has no column named \"%s\"", schema->name, name);
}

int columnar_column_info_get(columnar_txn *txn, columnar_table_id table, columnar_col_id column,
                             columnar_column_info *out) {
    int rc = cc_txn_check(txn);
    if (rc) return rc;
    const cc_column *col;
    if ((rc = cc_visible_column(txn, table, column, &col))) return rc;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", col->name);
    out->type = (columnar_type)col->type;
    out->collection = (columnar_collection_kind)col->collection;
    out->nullable = (col->flags & CF_COL_FLAG_NULLABLE) != 0;
    out->indexed = (col->flags & CF_COL_FLAG_INDEXED) != 0;
    out->ordered_index = (col->flags & CF_COL_FLAG_ORDERED) != 0;
    out->is_primary_key = cc_table_schema_get(txn, table)->primary_key == column;
    out->target_table = col->target_table;
    return 0;
}

static int append_column(columnar_txn *txn, uint32_t table, const cc_column *column, uint32_t *out_column) {
    cc_table_schema *schema = &txn->schema->tables[table];
    cc_column *grown = realloc(schema->columns, (schema->column_count + 1) * sizeof *grown);
    if (!grown) return -ENOMEM;
    schema->columns = grown;
    grown[schema->column_count] = *column;
    *out_column = schema->column_count++;
    cc_tstate *ts;
    return cc_table_state(txn, table, &ts);   /* grows the index slots to the new column count */
}

int columnar_column_add(columnar_txn *txn, columnar_table_id table, const columnar_column_spec *spec,
                        columnar_col_id *out_column) {
    int rc = cc_txn_check_write(txn);
    if (rc) return rc;
    if (!spec) return CC_MISUSE("column spec is NULL");
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    if (!schema) return cc_error(COLUMNAR_ENOTFOUND, 0, "", "no table with id %u", table);
    if ((rc = check_name(spec->name, "column"))) return rc;
    columnar_col_id existing;
    if (columnar_column_find(txn, table, spec->name, &existing) == 0)
        return cc_error(COLUMNAR_EEXISTS, 0, "", "table %s already has a column named \"%s\"", schema->name, spec->name);
    if (spec->type < COLUMNAR_TYPE_INT || spec->type > COLUMNAR_TYPE_MIXED)
        return CC_MISUSE("column %s.%s has an invalid type %d", schema->name, spec->name, (int)spec->type);
    /* Null is a mixed value's "none", and a new row's default: a mixed column without nulls would have no
     * default to give the objects that exist when it is added. */
    if (spec->type == COLUMNAR_TYPE_MIXED && !spec->nullable)
        return CC_MISUSE("column %s.%s is mixed, and mixed columns (and their elements) are always nullable: "
                         "set nullable", schema->name, spec->name);
    if ((unsigned)spec->collection > COLUMNAR_COLLECTION_DICT)
        return CC_MISUSE("column %s.%s has an invalid collection kind %d", schema->name, spec->name,
                         (int)spec->collection);
    if (spec->indexed && (!cc_type_indexable(spec->type) || spec->collection != COLUMNAR_COLLECTION_NONE))
        return CC_MISUSE("column %s.%s cannot be indexed (only single int, bool, string, timestamp, objectId and uuid "
                         "values can; mixed values cannot)", schema->name, spec->name);
    if (spec->type == COLUMNAR_TYPE_LINK && !cc_table_schema_get(txn, spec->target_table))
        return cc_error(COLUMNAR_ENOTFOUND, 0, "", "column %s.%s links to table id %u, which does not exist",
                        schema->name, spec->name, spec->target_table);
    if ((rc = begin_change(txn))) return rc;
    cc_column column = { 0 };
    snprintf(column.name, sizeof column.name, "%s", spec->name);
    column.type = (uint8_t)spec->type;
    column.collection = (uint8_t)spec->collection;
    bool nullable = spec->nullable || (spec->type == COLUMNAR_TYPE_LINK && spec->collection == COLUMNAR_COLLECTION_NONE);
    column.flags = (uint8_t)((nullable ? CF_COL_FLAG_NULLABLE : 0) | (spec->indexed ? cc_index_flags(column.type) : 0));
    column.target_table = spec->type == COLUMNAR_TYPE_LINK ? spec->target_table : 0;
    uint32_t id;
    if ((rc = append_column(txn, table, &column, &id))) goto fail;
    if (spec->type == COLUMNAR_TYPE_LINK) {
        cc_column backlink = { 0 };
        snprintf(backlink.name, sizeof backlink.name, "@backlink.%u.%u", table, id);
        backlink.type = COLUMNAR_TYPE_LINK;
        backlink.collection = COLUMNAR_COLLECTION_LIST;
        backlink.flags = CF_COL_FLAG_BACKLINK;
        backlink.target_table = table;
        backlink.origin_table = table;
        backlink.origin_column = id;
        uint32_t backlink_id;
        if ((rc = append_column(txn, spec->target_table, &backlink, &backlink_id))) goto fail;
    }
    if (spec->indexed && (rc = cc_index_build(txn, table, id))) goto fail;
    *out_column = id;
    return 0;
fail:
    txn->poisoned = true;
    return rc;
}

int columnar_column_rename(columnar_txn *txn, columnar_table_id table, columnar_col_id column, const char *name) {
    int rc = cc_txn_check_write(txn);
    if (rc || (rc = check_name(name, "column"))) return rc;
    const cc_column *col;
    if ((rc = cc_visible_column(txn, table, column, &col))) return rc;
    columnar_col_id existing;
    if (columnar_column_find(txn, table, name, &existing) == 0 && existing != column)
        return cc_error(COLUMNAR_EEXISTS, 0, "", "table %s already has a column named \"%s\"",
                        cc_table_schema_get(txn, table)->name, name);
    if ((rc = begin_change(txn))) return rc;
    snprintf(txn->schema->tables[table].columns[column].name, COLUMNAR_MAX_NAME_BYTES + 1, "%s", name);
    return 0;
}

int columnar_column_remove(columnar_txn *txn, columnar_table_id table, columnar_col_id column) {
    int rc = cc_txn_check_write(txn);
    if (rc) return rc;
    const cc_column *col;
    if ((rc = cc_visible_column(txn, table, column, &col))) return rc;
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    if (schema->primary_key == column)
        return CC_MISUSE("%s.%s is the primary key; clear the primary key before removing it", schema->name, col->name);
    if ((rc = begin_change(txn))) return rc;
    cc_column *mutable_col = &txn->schema->tables[table].columns[column];
    if (mutable_col->type == COLUMNAR_TYPE_LINK && (rc = drop_backlink_of(txn, table, column))) goto fail;
    if ((mutable_col->flags & CF_COL_FLAG_INDEXED) && (rc = cc_index_drop(txn, table, column))) goto fail;
    if ((rc = cc_column_drop_data(txn, table, column))) goto fail;
    mutable_col->flags = (uint8_t)((mutable_col->flags & ~(CF_COL_FLAG_INDEXED | CF_COL_FLAG_ORDERED)) |
                                   CF_COL_FLAG_REMOVED);
    return 0;
fail:
    txn->poisoned = true;
    return rc;
}

int columnar_column_set_indexed(columnar_txn *txn, columnar_table_id table, columnar_col_id column, bool indexed) {
    int rc = cc_txn_check_write(txn);
    if (rc) return rc;
    const cc_column *col;
    if ((rc = cc_visible_column(txn, table, column, &col))) return rc;
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    bool has = (col->flags & CF_COL_FLAG_INDEXED) != 0;
    if (has == indexed) return 0;
    if (indexed && (!cc_type_indexable(col->type) || col->collection != COLUMNAR_COLLECTION_NONE))
        return CC_MISUSE("%s.%s cannot be indexed (only single int, bool, string, timestamp, objectId and uuid values "
                         "can)", schema->name, col->name);
    if (!indexed && schema->primary_key == column)
        return CC_MISUSE("%s.%s is the primary key and keeps its index", schema->name, col->name);
    if ((rc = begin_change(txn))) return rc;
    cc_column *mutable_col = &txn->schema->tables[table].columns[column];
    if (indexed) {
        mutable_col->flags |= cc_index_flags(mutable_col->type);
        rc = cc_index_build(txn, table, column);
    } else {
        /* The tree is released with the schema it was built with, so the flags change after the drop. */
        rc = cc_index_drop(txn, table, column);
        mutable_col->flags &= (uint8_t)~(CF_COL_FLAG_INDEXED | CF_COL_FLAG_ORDERED);
    }
    if (rc) txn->poisoned = true;
    return rc;
}

typedef struct unique_check {
    columnar_txn *txn;
    uint32_t table;
    uint32_t column;
    int64_t duplicate;
} unique_check;

static int check_unique(void *context, int64_t key, const cc_rowpos *pos) {
    unique_check *u = context;
    uint8_t cell[16];
    bool is_null;
    const cc_table_schema *schema = cc_table_schema_get(u->txn, u->table);
    int rc = cc_row_get(u->txn, schema, pos, u->column, cell, &is_null);
    if (rc) return rc;
    int64_t first;
    bool found;
    if ((rc = cc_index_find(u->txn, u->table, u->column, cell, is_null, &first, &found))) return rc;
    if (found && first != key) {
        u->duplicate = key;
        return 1;
    }
    return 0;
}

int columnar_table_set_primary_key(columnar_txn *txn, columnar_table_id table, columnar_col_id column) {
    int rc = cc_txn_check_write(txn);
    if (rc) return rc;
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    if (!schema) return cc_error(COLUMNAR_ENOTFOUND, 0, "", "no table with id %u", table);
    /* The objects' keys equal the values of the primary key only as long as it stays the same column. */
    cc_tstate *ts;
    if (column == COLUMNAR_NO_COLUMN) {
        if ((rc = begin_change(txn)) || (rc = cc_table_state(txn, table, &ts))) return rc;
        txn->schema->tables[table].primary_key = CF_NO_COLUMN;
        ts->keys_are_primary_keys = false;
        ts->dirty = true;
        return 0;
    }
    const cc_column *col;
    if ((rc = cc_visible_column(txn, table, column, &col))) return rc;
    if (!cc_type_indexable(col->type) || col->type == COLUMNAR_TYPE_BOOL || col->collection != COLUMNAR_COLLECTION_NONE)
        return CC_MISUSE("%s.%s cannot be a primary key (int, string, objectId or uuid, single-valued)", schema->name,
                         col->name);
    if (!(col->flags & CF_COL_FLAG_INDEXED) && (rc = columnar_column_set_indexed(txn, table, column, true))) return rc;
    if ((rc = cc_table_state(txn, table, &ts))) return rc;
    unique_check u = { txn, table, column, -1 };
    rc = cc_tree_each_row(txn, &ts->root, check_unique, &u);
    if (rc == 1)
        return cc_error(COLUMNAR_EEXISTS, 0, "", "%s.%s cannot be the primary key: object %lld repeats a value",
                        schema->name, col->name, (long long)u.duplicate);
    if (rc) return rc;
    if ((rc = begin_change(txn)) || (rc = cc_table_state(txn, table, &ts))) return rc;
    txn->schema->tables[table].primary_key = column;
    ts->keys_are_primary_keys = false;
    ts->dirty = true;
    return 0;
}
