/*
 * schema.c — the schema stored in the file (format.h "SCHEMA"): decoding with full validation, encoding, and
 * the copy-on-write discipline (read transactions share one decoded schema; a write copies it before changing).
 */
#include "internal.h"

#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cc_column_is_live(const cc_column *column) { return !(column->flags & CF_COL_FLAG_REMOVED); }
bool cc_column_is_visible(const cc_column *column) {
    return !(column->flags & (CF_COL_FLAG_REMOVED | CF_COL_FLAG_BACKLINK));
}

const cc_table_schema *cc_index_schema(void) {
    static cc_column columns[2] = {
        { "first_key", COLUMNAR_TYPE_INT, COLUMNAR_COLLECTION_NONE, 0, 0, 0, 0 },
        { "more_keys", COLUMNAR_TYPE_INT, COLUMNAR_COLLECTION_LIST, 0, 0, 0, 0 },
    };
    static cc_table_schema schema = { "index", 0, CF_NO_COLUMN, 2, columns };
    return &schema;
}

const cc_table_schema *cc_ordered_index_schema(void) {
    static cc_column columns[3] = {
        { "first_key", COLUMNAR_TYPE_INT, COLUMNAR_COLLECTION_NONE, 0, 0, 0, 0 },
        { "more_keys", COLUMNAR_TYPE_INT, COLUMNAR_COLLECTION_LIST, 0, 0, 0, 0 },
        { "more_count", COLUMNAR_TYPE_INT, COLUMNAR_COLLECTION_NONE, 0, 0, 0, 0 },
    };
    static cc_table_schema schema = { "ordered index", 0, CF_NO_COLUMN, 3, columns };
    return &schema;
}

const cc_table_schema *cc_index_schema_of(const cc_column *column) {
    return (column->flags & CF_COL_FLAG_ORDERED) ? cc_ordered_index_schema() : cc_index_schema();
}

cc_schema *cc_schema_empty(void) {
    cc_schema *schema = calloc(1, sizeof *schema);
    if (schema) atomic_store(&schema->refcount, 1);
    return schema;
}

static void schema_free(cc_schema *schema) {
    for (uint32_t t = 0; t < schema->table_count; t++) free(schema->tables[t].columns);
    free(schema->tables);
    free(schema);
}

void cc_schema_retain(cc_schema *schema) { atomic_fetch_add(&schema->refcount, 1); }
void cc_schema_release(cc_schema *schema) {
    if (schema && atomic_fetch_sub(&schema->refcount, 1) == 1) schema_free(schema);
}

int cc_schema_copy(const cc_schema *schema, cc_schema **out) {
    cc_schema *copy = cc_schema_empty();
    if (!copy) return -ENOMEM;
    copy->table_count = schema->table_count;
    copy->tables = calloc(schema->table_count ? schema->table_count : 1, sizeof *copy->tables);
    if (!copy->tables) { schema_free(copy); return -ENOMEM; }
    for (uint32_t t = 0; t < schema->table_count; t++) {
        copy->tables[t] = schema->tables[t];
        uint32_t n = schema->tables[t].column_count;
        copy->tables[t].columns = malloc((n ? n : 1) * sizeof(cc_column));
        if (!copy->tables[t].columns) { copy->table_count = t; schema_free(copy); return -ENOMEM; }
        memcpy(copy->tables[t].columns, schema->tables[t].columns, n * sizeof(cc_column));
    }
    *out = copy;
    return 0;
}

/* A reader over the SCHEMA bytes that never reads past the end. */
typedef struct cursor {
    const uint8_t *bytes;
    uint64_t size;
    uint64_t at;
    uint64_t ref;
} cursor;

static int take(cursor *c, void *out, uint64_t n) {
    if (c->size - c->at < n)
        return CC_CORRUPT(c->ref, "schema at %llu ends early (byte %llu of %llu)", (unsigned long long)c->ref,
                          (unsigned long long)c->at, (unsigned long long)c->size);
    memcpy(out, c->bytes + c->at, n);
    c->at += n;
    return 0;
}

static int take_name(cursor *c, char name[COLUMNAR_MAX_NAME_BYTES + 1]) {
    uint8_t length;
    int rc = take(c, &length, 1);
    if (rc) return rc;
    if (length == 0 || length > COLUMNAR_MAX_NAME_BYTES)
        return CC_CORRUPT(c->ref, "schema at %llu has a name of %u bytes at byte %llu", (unsigned long long)c->ref,
                          length, (unsigned long long)c->at);
    if ((rc = take(c, name, length))) return rc;
    name[length] = 0;
    if (memchr(name, 0, length))
        return CC_CORRUPT(c->ref, "schema at %llu has a name with a NUL byte", (unsigned long long)c->ref);
    return 0;
}

/* What the engine relies on of a live column's flags, beyond their being known bits. The writer gives a search
 * index only to a single value of an indexable type (an ordered one only to the types with ordered keys, index.c),
 * makes single links nullable (a deleted target leaves null) and mixed values nullable (a new row's default is
 * null; an empty cell is no mixed value's encoding), and makes backlink columns lists of links; the
 * index, delete and backlink code read cells in those shapes and would read another shape's cells wrongly. */
static bool column_shape_valid(const cc_column *col) {
    if (col->flags & CF_COL_FLAG_REMOVED) return true;
    bool single = col->collection == COLUMNAR_COLLECTION_NONE;
    if (col->flags & CF_COL_FLAG_INDEXED) {
        bool indexable = col->type == COLUMNAR_TYPE_INT || col->type == COLUMNAR_TYPE_BOOL ||
                         col->type == COLUMNAR_TYPE_STRING || col->type == COLUMNAR_TYPE_TIMESTAMP ||
                         col->type == COLUMNAR_TYPE_OBJECTID || col->type == COLUMNAR_TYPE_UUID;
        bool orderable = col->type == COLUMNAR_TYPE_INT || col->type == COLUMNAR_TYPE_BOOL ||
                         col->type == COLUMNAR_TYPE_STRING || col->type == COLUMNAR_TYPE_TIMESTAMP;
        if (!single || !indexable || (col->flags & CF_COL_FLAG_BACKLINK)) return false;
        if ((col->flags & CF_COL_FLAG_ORDERED) && !orderable) return false;
    }
    if (col->type == COLUMNAR_TYPE_LINK && single && !(col->flags & CF_COL_FLAG_NULLABLE)) return false;
    if (col->type == COLUMNAR_TYPE_MIXED && !(col->flags & CF_COL_FLAG_NULLABLE)) return false;
    if ((col->flags & CF_COL_FLAG_BACKLINK) &&
        (col->type != COLUMNAR_TYPE_LINK || col->collection != COLUMNAR_COLLECTION_LIST))
        return false;
    return true;
}

/* A live backlink column of table `target` must record a live link column (of a live table) that links to
 * `target`: deleting an object follows it there and unlinks the object. */
static bool backlink_origin_valid(const cc_schema *schema, uint32_t target, const cc_column *col) {
    if (col->origin_table >= schema->table_count) return false;
    const cc_table_schema *origin = &schema->tables[col->origin_table];
    if ((origin->flags & CF_TABLE_FLAG_REMOVED) || col->origin_column >= origin->column_count) return false;
    const cc_column *link = &origin->columns[col->origin_column];
    return cc_column_is_visible(link) && link->type == COLUMNAR_TYPE_LINK && link->target_table == target;
}

int cc_schema_decode(const uint8_t *bytes, uint64_t size, uint64_t ref, cc_schema **out) {
    cursor c = { bytes, size, 0, ref };
    cc_schema *schema = cc_schema_empty();
    if (!schema) return -ENOMEM;
    schema->ref = ref;
    uint32_t table_count;
    int rc = take(&c, &table_count, 4);
    if (rc) goto fail;
    /* Each table takes at least 10 bytes: bound the allocation by the bytes present. */
    if ((uint64_t)table_count * 10 > size) {
        rc = CC_CORRUPT(ref, "schema at %llu claims %u tables in %llu bytes", (unsigned long long)ref, table_count,
                        (unsigned long long)size);
        goto fail;
    }
    schema->tables = calloc(table_count ? table_count : 1, sizeof *schema->tables);
    if (!schema->tables) { rc = -ENOMEM; goto fail; }
    for (uint32_t t = 0; t < table_count; t++) {
        cc_table_schema *table = &schema->tables[t];
        schema->table_count = t + 1;
        uint32_t column_count;
        if ((rc = take_name(&c, table->name)) || (rc = take(&c, &table->flags, 1)) ||
            (rc = take(&c, &table->primary_key, 4)) || (rc = take(&c, &column_count, 4)))
            goto fail;
        if ((uint64_t)column_count * 17 > size - c.at) {
            rc = CC_CORRUPT(ref, "schema at %llu: table %s claims %u columns", (unsigned long long)ref, table->name,
                            column_count);
            goto fail;
        }
        table->columns = calloc(column_count ? column_count : 1, sizeof *table->columns);
        if (!table->columns) { rc = -ENOMEM; goto fail; }
        table->column_count = column_count;
        for (uint32_t k = 0; k < column_count; k++) {
            cc_column *col = &table->columns[k];
            if ((rc = take_name(&c, col->name)) || (rc = take(&c, &col->type, 1)) ||
                (rc = take(&c, &col->collection, 1)) || (rc = take(&c, &col->flags, 1)) ||
                (rc = take(&c, &col->target_table, 4)) || (rc = take(&c, &col->origin_table, 4)) ||
                (rc = take(&c, &col->origin_column, 4)))
                goto fail;
            if (col->type < COLUMNAR_TYPE_INT || col->type > COLUMNAR_TYPE_MIXED ||
                col->collection > COLUMNAR_COLLECTION_DICT || col->flags > CF_COL_FLAGS_KNOWN ||
                ((col->flags & CF_COL_FLAG_ORDERED) && !(col->flags & CF_COL_FLAG_INDEXED)) || !column_shape_valid(col)) {
                rc = CC_CORRUPT(ref, "schema at %llu: column %s.%s has type %u, collection %u, flags %u",
                                (unsigned long long)ref, table->name, col->name, col->type, col->collection, col->flags);
                goto fail;
            }
        }
        /* The engine writes the primary key's value into its column's cell when it creates an object, so the
         * column must be one whose cells hold a single value. */
        if (table->primary_key != CF_NO_COLUMN &&
            (table->primary_key >= column_count || !cc_column_is_visible(&table->columns[table->primary_key]) ||
             table->columns[table->primary_key].collection != COLUMNAR_COLLECTION_NONE)) {
            rc = CC_CORRUPT(ref, "schema at %llu: table %s has primary key column %u of %u, which is not a live "
                            "single-valued column", (unsigned long long)ref, table->name, table->primary_key,
                            column_count);
            goto fail;
        }
    }
    if (c.at != size) {
        rc = CC_CORRUPT(ref, "schema at %llu has %llu trailing bytes", (unsigned long long)ref,
                        (unsigned long long)(size - c.at));
        goto fail;
    }
    /* Cross-references: link targets and backlink origins must name live tables and columns. */
    for (uint32_t t = 0; t < schema->table_count; t++) {
        cc_table_schema *table = &schema->tables[t];
        if (table->flags & CF_TABLE_FLAG_REMOVED) continue;
        for (uint32_t k = 0; k < table->column_count; k++) {
            cc_column *col = &table->columns[k];
            if (!cc_column_is_live(col)) continue;
            bool bad = false;
            if (col->type == COLUMNAR_TYPE_LINK)
                bad = col->target_table >= schema->table_count ||
                      (schema->tables[col->target_table].flags & CF_TABLE_FLAG_REMOVED);
            if (col->flags & CF_COL_FLAG_BACKLINK)
                bad = bad || !backlink_origin_valid(schema, t, col);
            if (bad) {
                rc = CC_CORRUPT(ref, "schema at %llu: column %s.%s refers to a missing table or column",
                                (unsigned long long)ref, table->name, col->name);
                goto fail;
            }
        }
    }
    *out = schema;
    return 0;
fail:
    schema_free(schema);
    return rc;
}

typedef struct writer {
    uint8_t *bytes;
    uint64_t size;
    uint64_t capacity;
    bool failed;
} writer;

static void put(writer *w, const void *data, uint64_t n) {
    if (w->failed) return;
    if (w->size + n > w->capacity) {
        uint64_t capacity = w->capacity ? w->capacity * 2 : 256;
        while (capacity < w->size + n) capacity *= 2;
        uint8_t *grown = realloc(w->bytes, capacity);
        if (!grown) { w->failed = true; return; }
        w->bytes = grown;
        w->capacity = capacity;
    }
    memcpy(w->bytes + w->size, data, n);
    w->size += n;
}

static void put_name(writer *w, const char *name) {
    uint8_t length = (uint8_t)strlen(name);
    put(w, &length, 1);
    put(w, name, length);
}

int cc_schema_encode(const cc_schema *schema, uint8_t **out_bytes, uint64_t *out_size) {
    writer w = { 0 };
    put(&w, &schema->table_count, 4);
    for (uint32_t t = 0; t < schema->table_count; t++) {
        const cc_table_schema *table = &schema->tables[t];
        put_name(&w, table->name);
        put(&w, &table->flags, 1);
        put(&w, &table->primary_key, 4);
        put(&w, &table->column_count, 4);
        for (uint32_t k = 0; k < table->column_count; k++) {
            const cc_column *col = &table->columns[k];
            put_name(&w, col->name);
            put(&w, &col->type, 1);
            put(&w, &col->collection, 1);
            put(&w, &col->flags, 1);
            put(&w, &col->target_table, 4);
            put(&w, &col->origin_table, 4);
            put(&w, &col->origin_column, 4);
        }
    }
    if (w.failed) { free(w.bytes); return -ENOMEM; }
    *out_bytes = w.bytes;
    *out_size = w.size;
    return 0;
}
