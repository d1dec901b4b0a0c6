/*
 * fuzz_engine.c — a libFuzzer target of the storage engine (docs/Reliability.md, "Fuzzing"). The input is a whole
 * database file.
 *
 * Each input is written to a file in a private directory (on /dev/shm when there is one, so nothing reaches a
 * disk), and then used the way an application and the inspection tool use a file:
 *
 *   1. the inspector (columnar_inspector_*): header, status, version, tables, columns, the node walk, the usage
 *      per owner, the free list, node decoding, raw bytes and the integrity walk, on the current version and
 *      the newest other usable slot's;
 *   2. a read transaction: every table, column and object (up to the caps below), every value of every column
 *      type, every list, set and dictionary, backlinks, the search-index calls, reads of many objects at once,
 *      cluster iteration, a scan of every table with the kernels run on its views, and columnar_verify;
 *   3. a write transaction that changes an object of each table through every kind of column (values, links,
 *      indexed columns, lists, sets, dictionaries), creates and deletes objects and clears a collection, and
 *      commits; then columnar_verify of the new version;
 *   4. a write transaction that changes the schema (a column added with an index, an index added and dropped, a
 *      column and a table removed), which copies whole trees, builds and releases indexes, and commits; then
 *      columnar_verify again.
 *
 * Only the public header is used. The engine must answer every call with a result or an error code; a crash,
 * an out-of-bounds access (the target is built with AddressSanitizer), a leak or a hang is a finding. Loops over
 * what the file holds are capped (MAX_* below) so that an input costs little time however large the counts it
 * claims: the engine's own work per call is what the fuzzer measures, not the harness's.
 */
#include "columnar.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_TABLES 16u          /* tables looked at */
#define MAX_COLUMNS 48u         /* columns looked at per table */
#define MAX_KEYS 24u            /* objects read per table */
#define MAX_CLUSTERS 64u        /* clusters iterated or scanned per table */
#define MAX_KERNEL_ROWS 4096u   /* clusters larger than this are scanned but not run through the kernels */
#define MAX_ELEMENTS 12u        /* elements read per collection (the first and the last ones) */
#define MAX_ENTRIES 256u        /* keys asked for from an index call */
#define MAX_WALK_REFS 32u       /* nodes of the inspector's walk decoded again by ref */

static char directory[256];
static char database_path[300];
static char lock_path[310];

/* Reads pointed-to bytes so that AddressSanitizer sees a pointer that leads outside the mapping. */
static volatile uint8_t sink;

static void touch_bytes(const void *data, size_t size) {
    if (!size || !data) return;
    const uint8_t *bytes = data;
    sink ^= bytes[0];
    sink ^= bytes[size / 2];
    sink ^= bytes[size - 1];
}

static void touch_value(const columnar_value *value) {
    if (!value->is_null && (value->type == COLUMNAR_TYPE_STRING || value->type == COLUMNAR_TYPE_BINARY))
        touch_bytes(value->as.bytes.data, value->as.bytes.size);
}

static void on_finding(void *context, uint64_t ref, const char *what) {
    (void)context;
    (void)ref;
    touch_bytes(what, strlen(what));
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Values made up for writes and lookups                                                                        */
/* ---------------------------------------------------------------------------------------------------------- */

static const char *const sample_strings[] = {
    "", "a", "abc", "abcdef", "abcdefg",
    "a string longer than the thirty-one bytes a short-string slot holds",
};
#define SAMPLE_STRING_COUNT (sizeof sample_strings / sizeof *sample_strings)

/* A value of `type` that depends on `n`; LINK values are the key `n`. */
static columnar_value make_value(columnar_type type, uint64_t n) {
    columnar_value value;
    memset(&value, 0, sizeof value);
    value.type = type;
    switch (type) {
    case COLUMNAR_TYPE_INT: value.as.i = (int64_t)(n * 7) - 3; break;
    case COLUMNAR_TYPE_BOOL: value.as.b = (n & 1) != 0; break;
    case COLUMNAR_TYPE_FLOAT: value.as.f = (float)n * 0.5f; break;
    case COLUMNAR_TYPE_DOUBLE: value.as.d = (double)n * 0.25 - 1.0; break;
    case COLUMNAR_TYPE_STRING: case COLUMNAR_TYPE_BINARY: {
        const char *text = sample_strings[n % SAMPLE_STRING_COUNT];
        value.as.bytes.data = text;
        value.as.bytes.size = strlen(text);
        break;
    }
    case COLUMNAR_TYPE_TIMESTAMP:
        value.as.timestamp.seconds = (int64_t)n * 86400 - 1000;
        value.as.timestamp.nanoseconds = (int32_t)(n % 1000000000u);
        break;
    case COLUMNAR_TYPE_OBJECTID: memset(value.as.objectid, (int)(n & 0xFF), sizeof value.as.objectid); break;
    case COLUMNAR_TYPE_UUID: memset(value.as.uuid, (int)(n & 0xFF), sizeof value.as.uuid); break;
    case COLUMNAR_TYPE_DECIMAL128: memset(value.as.decimal128, (int)(n & 0xFF), sizeof value.as.decimal128); break;
    case COLUMNAR_TYPE_LINK: value.as.link = (int64_t)n; break;
    default: break;
    }
    return value;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The inspector                                                                                                */
/* ---------------------------------------------------------------------------------------------------------- */

typedef struct walk_refs {
    uint64_t refs[MAX_WALK_REFS];
    uint32_t count;
    uint64_t nodes;
} walk_refs;

static int remember_node(void *context, const columnar_inspect_node *node) {
    walk_refs *w = context;
    if (w->count < MAX_WALK_REFS) w->refs[w->count++] = node->ref;
    w->nodes++;
    touch_bytes(node->role_name, strlen(node->role_name));
    touch_bytes(node->what, strlen(node->what));
    return 0;
}

static int on_usage(void *context, const columnar_inspect_usage *usage) {
    (void)context;
    sink ^= (uint8_t)usage->node_count;
    return 0;
}

static int on_free_entry(void *context, const columnar_free_entry *entry) {
    (void)context;
    sink ^= (uint8_t)entry->size_bytes;
    return 0;
}

static void inspect_version(columnar_inspector *insp) {
    columnar_inspect_version version;
    columnar_inspect_version_get(insp, &version);
    uint32_t table_count = 0;
    if (columnar_inspect_table_count(insp, &table_count) == 0) {
        for (uint32_t t = 0; t < table_count && t < MAX_TABLES; t++) {
            columnar_inspect_table table;
            if (columnar_inspect_table_get(insp, t, &table) != 0) continue;
            for (uint32_t c = 0; c < table.column_count && c < MAX_COLUMNS; c++) {
                columnar_inspect_column column;
                columnar_inspect_column_get(insp, t, c, &column);
            }
        }
    }
    walk_refs walk = { .count = 0 };
    columnar_inspect_walk(insp, remember_node, on_finding, &walk);
    columnar_inspect_usage_get(insp, on_usage, on_finding, NULL);
    columnar_inspect_free_list(insp, on_free_entry, NULL);
    for (uint32_t i = 0; i < walk.count; i++) {
        columnar_inspect_node_detail detail;
        if (columnar_inspect_node_decode(insp, walk.refs[i], &detail) == 0 && detail.array.data) {
            const uint8_t *bytes;
            if (columnar_inspect_bytes(insp, walk.refs[i], 16, &bytes) == 0) touch_bytes(bytes, 16);
        }
        touch_bytes(detail.problem, strlen(detail.problem));
    }
    /* Refs no walk reaches: the header's neighbourhood and the end of the file. */
    columnar_inspect_node_detail detail;
    columnar_inspect_node_decode(insp, 4096, &detail);
    columnar_inspect_node_decode(insp, version.used_size_bytes, &detail);
    uint64_t findings;
    columnar_inspect_verify(insp, on_finding, NULL, &findings);
}

static void run_inspector(void) {
    columnar_inspector *insp;
    if (columnar_inspector_open(database_path, &insp) != 0) return;
    const columnar_header_info *header = columnar_inspector_header(insp);
    const char *message;
    uint64_t offset;
    columnar_inspector_status(insp, &message, &offset);
    touch_bytes(message, strlen(message));
    inspect_version(insp);
    /* The usable slot of the highest version other than the current one too (the version recovery falls back
     * to, or a newer one that is not whole): one more version, not all fifteen, keeps each input fast. */
    int other = -1;
    for (int slot = 0; slot < (int)COLUMNAR_HEADER_SLOTS; slot++) {
        const columnar_slot_info *info = &header->slots[slot];
        if (slot == header->current_slot || !info->usable) continue;
        if (other < 0 || info->version > header->slots[other].version) other = slot;
    }
    if (other >= 0 && columnar_inspector_select_slot(insp, other) == 0) inspect_version(insp);
    columnar_lock_file_info lock;
    columnar_inspect_lock_file(database_path, &lock, NULL, NULL);
    columnar_inspector_close(insp);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Reading everything                                                                                           */
/* ---------------------------------------------------------------------------------------------------------- */

/* The object keys read from each table: the first few the cluster iteration finds. */
typedef struct table_keys {
    bool live;
    columnar_table_info info;
    uint32_t key_count;
    columnar_key keys[MAX_KEYS];
} table_keys;

static table_keys tables[MAX_TABLES];
static uint32_t table_count;

static void collect_keys(columnar_txn *txn, columnar_table_id table, table_keys *out) {
    columnar_cluster_iter iter;
    if (columnar_cluster_iter_init(txn, table, &iter) != 0) return;
    columnar_cluster cluster;
    for (uint32_t n = 0; n < MAX_CLUSTERS && columnar_cluster_iter_next(&iter, &cluster) == 0; n++) {
        /* The first and last key of each cluster, until the table's share of keys is full. */
        uint64_t rows[2] = { 0, cluster.row_count ? cluster.row_count - 1 : 0 };
        for (int r = 0; r < 2 && cluster.row_count && out->key_count < MAX_KEYS; r++) {
            if (r == 1 && rows[1] == 0) break;
            out->keys[out->key_count++] = columnar_array_get_int(&cluster.keys, rows[r]);
        }
    }
}

static void read_collection(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                            const columnar_column_info *info) {
    uint64_t size;
    if (columnar_coll_size(txn, table, key, column, &size) != 0) return;
    for (uint64_t i = 0; i < size && i < MAX_ELEMENTS; i++) {
        /* The first half of the reads from the front, the rest from the back. */
        uint64_t index = i < MAX_ELEMENTS / 2 ? i : size - 1 - (i - MAX_ELEMENTS / 2);
        columnar_value value;
        if (columnar_coll_get(txn, table, key, column, index, &value) != 0) continue;
        touch_value(&value);
        bool contains;
        columnar_coll_contains(txn, table, key, column, &value, &contains);
        if (info->collection == COLUMNAR_COLLECTION_DICT) {
            const void *dict_key;
            size_t dict_key_size;
            if (columnar_dict_key_at(txn, table, key, column, index, &dict_key, &dict_key_size) == 0) {
                touch_bytes(dict_key, dict_key_size);
                columnar_value found;
                bool was_found;
                columnar_dict_get(txn, table, key, column, dict_key, dict_key_size, &found, &was_found);
            }
        }
    }
    columnar_value absent = make_value(info->type, 12345);
    bool contains;
    columnar_coll_contains(txn, table, key, column, &absent, &contains);
    if (info->collection == COLUMNAR_COLLECTION_DICT) {
        columnar_value found;
        bool was_found;
        columnar_dict_get(txn, table, key, column, "absent", 6, &found, &was_found);
    }
}

/* The calls of an indexed column, with `value` (read from an object) as the thing looked for. */
static void read_index(columnar_txn *txn, columnar_table_id table, columnar_col_id column,
                       const columnar_column_info *info, const columnar_value *value) {
    static columnar_key keys[MAX_ENTRIES];
    static int64_t index_keys[MAX_ENTRIES];
    size_t count;
    columnar_index_find_all(txn, table, column, value, keys, MAX_ENTRIES, &count);
    columnar_key first;
    columnar_obj_find_first(txn, table, column, value, &first);
    if (!info->ordered_index) return;
    columnar_index_ordered_entries(txn, table, column, index_keys, keys, MAX_ENTRIES, &count);
    if (info->type == COLUMNAR_TYPE_INT) {
        columnar_index_range range;
        memset(&range, 0, sizeof range);
        range.lower = make_value(COLUMNAR_TYPE_INT, 0);
        range.upper = value->is_null ? make_value(COLUMNAR_TYPE_INT, 1000) : *value;
        range.has_lower = range.has_upper = true;
        range.lower_inclusive = true;
        uint64_t total;
        columnar_index_count_range(txn, table, column, &range, &total);
        columnar_index_keys_in_range(txn, table, column, &range, keys, MAX_ENTRIES, &count);
        range.has_lower = false;
        columnar_index_count_range(txn, table, column, &range, &total);
    }
    if (info->type == COLUMNAR_TYPE_STRING) {
        uint64_t total;
        const void *prefix = value->is_null ? "a" : value->as.bytes.data;
        size_t size = value->is_null ? 1 : (value->as.bytes.size < 3 ? value->as.bytes.size : 3);
        columnar_index_count_prefix(txn, table, column, prefix, size, &total);
        columnar_index_keys_with_prefix(txn, table, column, prefix, size, keys, MAX_ENTRIES, &count);
        columnar_index_count_prefix(txn, table, column, "a longer prefix", 15, &total);
    }
    if (info->type == COLUMNAR_TYPE_INT || info->type == COLUMNAR_TYPE_TIMESTAMP) {
        columnar_value extreme;
        bool found;
        columnar_index_extreme(txn, table, column, false, &extreme, &found);
        columnar_index_extreme(txn, table, column, true, &extreme, &found);
    }
}

/* Every column of the collected objects of one table. */
static void read_table(columnar_txn *txn, columnar_table_id table, const table_keys *tk) {
    columnar_key pk_key;
    for (uint32_t c = 0; c < tk->info.column_count && c < MAX_COLUMNS; c++) {
        columnar_column_info info;
        if (columnar_column_info_get(txn, table, c, &info) != 0) continue;
        bool index_done = false;
        for (uint32_t k = 0; k < tk->key_count; k++) {
            columnar_key key = tk->keys[k];
            if (info.collection != COLUMNAR_COLLECTION_NONE) {
                read_collection(txn, table, key, c, &info);
                continue;
            }
            columnar_value value;
            if (columnar_obj_get(txn, table, key, c, &value) != 0) continue;
            touch_value(&value);
            if (info.type == COLUMNAR_TYPE_INT || info.type == COLUMNAR_TYPE_BOOL || info.type == COLUMNAR_TYPE_LINK) {
                int64_t number;
                bool is_null;
                columnar_obj_get_int(txn, table, key, c, &number, &is_null);
            }
            if (info.type == COLUMNAR_TYPE_LINK && !value.is_null && info.target_table < MAX_TABLES) {
                uint64_t backlinks;
                if (columnar_backlink_count(txn, info.target_table, value.as.link, table, c, &backlinks) == 0 &&
                    backlinks) {
                    columnar_key origin;
                    columnar_backlink_get(txn, info.target_table, value.as.link, table, c, 0, &origin);
                    columnar_backlink_get(txn, info.target_table, value.as.link, table, c, backlinks - 1, &origin);
                }
            }
            if (info.is_primary_key && (k == 0 || k + 1 == tk->key_count)) {
                columnar_obj_find_primary_key(txn, table, &value, &pk_key);
                if (info.type == COLUMNAR_TYPE_INT && !value.is_null) {
                    /* Usually absent: in a table keyed by its ids, the miss the table alone answers. */
                    columnar_value other = value;
                    other.as.i = (int64_t)((uint64_t)value.as.i + 1);
                    columnar_obj_find_primary_key(txn, table, &other, &pk_key);
                }
            }
            if (!index_done) {
                index_done = true;
                if (info.indexed) read_index(txn, table, c, &info, &value);
                else if (k == 0) {
                    columnar_key first;
                    columnar_obj_find_first(txn, table, c, &value, &first);
                }
            }
        }
        /* Many objects at once: the collected keys, then the same with a key that does not exist. */
        if (info.collection == COLUMNAR_COLLECTION_NONE && tk->key_count) {
            static columnar_value values[MAX_KEYS + 1];
            static int64_t ints[MAX_KEYS + 1];
            static bool nulls[MAX_KEYS + 1];
            static columnar_key keys[MAX_KEYS + 1];
            memcpy(keys, tk->keys, tk->key_count * sizeof *keys);
            uint64_t failed;
            if (columnar_obj_get_many(txn, table, c, keys, tk->key_count, values, &failed) == 0)
                for (uint32_t k = 0; k < tk->key_count; k++) touch_value(&values[k]);
            columnar_obj_get_many_int(txn, table, c, keys, tk->key_count, ints, nulls, &failed);
            keys[tk->key_count] = INT64_MAX - 1;
            columnar_obj_get_many(txn, table, c, keys, tk->key_count + 1, values, &failed);
        }
    }
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Scans and kernels                                                                                            */
/* ---------------------------------------------------------------------------------------------------------- */

static uint8_t *mask, *mask2;
static int64_t *decoded_ints;
static double *decoded_doubles;
static int32_t *decoded_nanos;
static uint8_t *decoded_nulls;

static void run_kernels(const columnar_column_view *view) {
    uint64_t rows = view->count;
    columnar_aggregate aggregate;
    memset(&aggregate, 0, sizeof aggregate);
    columnar_kernel_is_null(view, mask2);
    switch (view->type) {
    case COLUMNAR_TYPE_INT: case COLUMNAR_TYPE_BOOL: case COLUMNAR_TYPE_LINK: {
        columnar_kernel_compare_int(view, COLUMNAR_COMPARE_GE, 3, false, mask);
        columnar_kernel_compare_int(view, COLUMNAR_COMPARE_EQ, 0, true, mask2);
        static const int64_t constants[] = { -3, 0, 4, 11 };
        columnar_kernel_in_int(view, constants, 4, true, mask2);
        columnar_view_decode_int(view, decoded_ints, decoded_nulls);
        break;
    }
    case COLUMNAR_TYPE_FLOAT: case COLUMNAR_TYPE_DOUBLE:
        columnar_kernel_compare_double(view, COLUMNAR_COMPARE_LT, 2.5, false, mask);
        columnar_view_decode_double(view, decoded_doubles, decoded_nulls);
        break;
    case COLUMNAR_TYPE_TIMESTAMP:
        columnar_kernel_compare_timestamp(view, COLUMNAR_COMPARE_LE, 86400, 5, false, mask);
        columnar_view_decode_timestamp(view, decoded_ints, decoded_nanos, decoded_nulls);
        break;
    case COLUMNAR_TYPE_OBJECTID: case COLUMNAR_TYPE_UUID: case COLUMNAR_TYPE_DECIMAL128: {
        static const uint8_t constant[16] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
        columnar_kernel_compare_fixed(view, COLUMNAR_COMPARE_GT, constant, false, mask);
        break;
    }
    case COLUMNAR_TYPE_STRING: case COLUMNAR_TYPE_BINARY: {
        columnar_kernel_match_string(view, COLUMNAR_STRING_CONTAINS, "bc", 2, false, 0, mask);
        columnar_kernel_match_string(view, COLUMNAR_STRING_BEGINS_WITH, "AB", 2, false,
                                     COLUMNAR_STRING_FOLD_ASCII_CASE, mask2);
        columnar_kernel_match_string(view, COLUMNAR_STRING_LIKE, "a*c?", 4, false, 0, mask2);
        columnar_kernel_match_string(view, COLUMNAR_STRING_GE, "abc", 3, false, 0, mask2);
        for (uint64_t row = 0; row < rows && row < 8; row++) {
            const void *data;
            size_t size;
            bool is_null;
            if (columnar_view_get_bytes(view, row, &data, &size, &is_null) == 0 && !is_null) touch_bytes(data, size);
        }
        break;
    }
    default:
        columnar_kernel_compare_int(view, COLUMNAR_COMPARE_EQ, 1, false, mask);
        break;
    }
    columnar_mask_and(mask, mask2, rows);
    columnar_kernel_aggregate(view, mask, &aggregate);
    columnar_kernel_aggregate_select(view, NULL, COLUMNAR_AGGREGATE_MIN, &aggregate);
    sink ^= (uint8_t)columnar_mask_count(mask, rows);
}

static void scan_table(columnar_txn *txn, columnar_table_id table, uint32_t column_count) {
    columnar_scan *scan;
    if (columnar_scan_open(txn, table, &scan) != 0) return;
    columnar_cluster cluster;
    for (uint32_t n = 0; n < MAX_CLUSTERS && columnar_scan_next(scan, &cluster) == 0; n++) {
        for (uint32_t c = 0; c < column_count && c < MAX_COLUMNS; c++) {
            columnar_column_view view;
            if (columnar_scan_column(scan, c, &view) != 0) continue;
            if (view.count <= MAX_KERNEL_ROWS) run_kernels(&view);
        }
    }
    columnar_scan_close(scan);
}

static void read_everything(columnar_db *db) {
    columnar_db_stats stats;
    columnar_db_stats_get(db, &stats);
    columnar_txn *txn;
    if (columnar_txn_begin_read(db, &txn) != 0) return;
    memset(tables, 0, sizeof tables);
    table_count = 0;
    uint32_t count = 0;
    columnar_table_count(txn, &count);
    table_count = count < MAX_TABLES ? count : MAX_TABLES;
    for (uint32_t t = 0; t < table_count; t++) {
        table_keys *tk = &tables[t];
        if (columnar_table_info_get(txn, t, &tk->info) != 0) continue;
        tk->live = true;
        uint64_t objects;
        columnar_obj_count(txn, t, &objects);
        collect_keys(txn, t, tk);
        columnar_table_id found;
        columnar_table_find(txn, tk->info.name, &found);
    }
    for (uint32_t t = 0; t < table_count; t++) {
        if (!tables[t].live) continue;
        read_table(txn, t, &tables[t]);
        scan_table(txn, t, tables[t].info.column_count);
        bool exists;
        columnar_obj_exists(txn, t, 0, &exists);
    }
    uint64_t findings;
    columnar_verify(txn, on_finding, NULL, &findings);
    columnar_txn_rollback(txn);
}

static void verify_latest(columnar_db *db) {
    columnar_txn *txn;
    if (columnar_txn_begin_read(db, &txn) != 0) return;
    uint64_t findings;
    columnar_verify(txn, on_finding, NULL, &findings);
    /* A write may have made new clusters: scan them too. */
    for (uint32_t t = 0; t < table_count; t++)
        if (tables[t].live) scan_table(txn, t, tables[t].info.column_count);
    columnar_txn_rollback(txn);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Writing                                                                                                      */
/* ---------------------------------------------------------------------------------------------------------- */

/* A key of table `table` to link to (one the read found), or key 0. */
static columnar_key link_target(columnar_table_id table, uint64_t n) {
    if (table < table_count && tables[table].key_count) return tables[table].keys[n % tables[table].key_count];
    return 0;
}

/* Changes column `column` of object `key` once, whatever kind of column it is. */
static void change_column(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                          const columnar_column_info *info, uint64_t n) {
    columnar_value value = make_value(info->type, n);
    if (info->type == COLUMNAR_TYPE_LINK) value.as.link = link_target(info->target_table, n);
    switch (info->collection) {
    case COLUMNAR_COLLECTION_NONE:
        columnar_obj_set(txn, table, key, column, &value);
        break;
    case COLUMNAR_COLLECTION_LIST: {
        columnar_list_insert(txn, table, key, column, 0, &value);
        columnar_list_set(txn, table, key, column, 0, &value);
        uint64_t size;
        if (columnar_coll_size(txn, table, key, column, &size) == 0 && size > 1) {
            columnar_list_move(txn, table, key, column, 0, size - 1);
            columnar_list_remove(txn, table, key, column, size / 2);
        }
        break;
    }
    case COLUMNAR_COLLECTION_SET: {
        bool changed;
        columnar_set_insert(txn, table, key, column, &value, &changed);
        columnar_value other = make_value(info->type, n + 1);
        if (info->type == COLUMNAR_TYPE_LINK) other.as.link = link_target(info->target_table, n + 1);
        columnar_set_remove(txn, table, key, column, &other, &changed);
        break;
    }
    case COLUMNAR_COLLECTION_DICT: {
        bool removed;
        columnar_dict_set(txn, table, key, column, "key", 3, &value);
        columnar_dict_set(txn, table, key, column, "", 0, &value);
        columnar_dict_remove(txn, table, key, column, "abc", 3, &removed);
        break;
    }
    default: break;
    }
}

static void write_objects(columnar_db *db) {
    columnar_txn *txn;
    if (columnar_txn_begin_write(db, &txn) != 0) return;
    for (uint32_t t = 0; t < table_count && t < 8; t++) {
        const table_keys *tk = &tables[t];
        if (!tk->live) continue;
        uint32_t columns = tk->info.column_count < MAX_COLUMNS ? tk->info.column_count : MAX_COLUMNS;
        /* The first object and the last one read (the last cluster's, whose collections are often the largest). */
        for (uint32_t k = 0; k < tk->key_count && k < 2; k++) {
            columnar_key key = tk->keys[k == 0 ? 0 : tk->key_count - 1];
            for (uint32_t c = 0; c < columns; c++) {
                columnar_column_info info;
                if (columnar_column_info_get(txn, t, c, &info) != 0 || info.is_primary_key) continue;
                if (k == 1 && info.collection == COLUMNAR_COLLECTION_NONE) continue;
                change_column(txn, t, key, c, &info, t + c + k);
            }
        }
        columnar_key created;
        if (tk->info.primary_key != COLUMNAR_NO_COLUMN) {
            columnar_column_info pk;
            if (columnar_column_info_get(txn, t, tk->info.primary_key, &pk) == 0) {
                columnar_value value = make_value(pk.type, 977 + t);
                columnar_obj_create_with_primary_key(txn, t, &value, &created);
            }
        } else if (columnar_obj_create(txn, t, &created) == 0 && columns) {
            columnar_column_info info;
            if (columnar_column_info_get(txn, t, 0, &info) == 0) change_column(txn, t, created, 0, &info, 5);
        }
        if (tk->key_count > 1) columnar_obj_delete(txn, t, tk->keys[1]);
        if (tk->key_count > 2) {
            for (uint32_t c = 0; c < columns; c++) {
                columnar_column_info info;
                if (columnar_column_info_get(txn, t, c, &info) == 0 && info.collection != COLUMNAR_COLLECTION_NONE) {
                    columnar_coll_clear(txn, t, tk->keys[2], c);
                    break;
                }
            }
        }
        columnar_obj_create_with_key(txn, t, 1000003);
    }
    columnar_txn_commit(txn);
}

static void change_schema(columnar_db *db) {
    columnar_txn *txn;
    if (columnar_txn_begin_write(db, &txn) != 0) return;
    uint32_t count = 0;
    columnar_table_count(txn, &count);
    columnar_table_id first = COLUMNAR_NO_COLUMN, last = COLUMNAR_NO_COLUMN;
    for (uint32_t t = 0; t < count && t < MAX_TABLES; t++) {
        columnar_table_info info;
        if (columnar_table_info_get(txn, t, &info) != 0) continue;
        if (first == COLUMNAR_NO_COLUMN) first = t;
        last = t;
    }
    if (first != COLUMNAR_NO_COLUMN) {
        columnar_column_spec spec = { "fuzz added", COLUMNAR_TYPE_INT, COLUMNAR_COLLECTION_NONE, true, true, 0 };
        columnar_col_id added;
        columnar_column_add(txn, first, &spec, &added);
        columnar_table_info info;
        if (columnar_table_info_get(txn, first, &info) == 0) {
            /* An index added to the first column that can have one and is not indexed, and dropped from the first
             * indexed column that is not the primary key; the last plain column is removed. */
            bool indexed = false, dropped = false;
            columnar_col_id removable = COLUMNAR_NO_COLUMN;
            for (uint32_t c = 0; c < info.column_count && c < MAX_COLUMNS; c++) {
                columnar_column_info column;
                if (columnar_column_info_get(txn, first, c, &column) != 0) continue;
                if (!indexed && !column.indexed && column.collection == COLUMNAR_COLLECTION_NONE &&
                    column.type != COLUMNAR_TYPE_FLOAT && column.type != COLUMNAR_TYPE_DOUBLE &&
                    column.type != COLUMNAR_TYPE_BINARY && column.type != COLUMNAR_TYPE_DECIMAL128 &&
                    column.type != COLUMNAR_TYPE_LINK) {
                    indexed = columnar_column_set_indexed(txn, first, c, true) == 0;
                } else if (!dropped && column.indexed && !column.is_primary_key && c != added) {
                    dropped = columnar_column_set_indexed(txn, first, c, false) == 0;
                }
                if (!column.is_primary_key && c != added) removable = c;
            }
            if (removable != COLUMNAR_NO_COLUMN) columnar_column_remove(txn, first, removable);
        }
    }
    if (last != COLUMNAR_NO_COLUMN && last != first) columnar_table_remove(txn, last);
    columnar_table_id fresh;
    if (columnar_table_add(txn, "fuzz table", &fresh) == 0) {
        columnar_column_spec spec = { "name", COLUMNAR_TYPE_STRING, COLUMNAR_COLLECTION_NONE, false, true, 0 };
        columnar_col_id column;
        columnar_key key;
        if (columnar_column_add(txn, fresh, &spec, &column) == 0 && columnar_obj_create(txn, fresh, &key) == 0) {
            columnar_value value = make_value(COLUMNAR_TYPE_STRING, 3);
            columnar_obj_set(txn, fresh, key, column, &value);
        }
    }
    columnar_txn_commit(txn);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The target                                                                                                   */
/* ---------------------------------------------------------------------------------------------------------- */

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    snprintf(directory, sizeof directory, "%s/columnar-fuzz-XXXXXX", base);
    if (!mkdtemp(directory)) {
        perror("mkdtemp");
        abort();
    }
    snprintf(database_path, sizeof database_path, "%s/db", directory);
    snprintf(lock_path, sizeof lock_path, "%s/db.lock", directory);
    uint64_t max_rows = columnar_scan_max_rows();
    mask = malloc(max_rows);
    mask2 = malloc(max_rows);
    decoded_ints = malloc(max_rows * sizeof *decoded_ints);
    decoded_doubles = malloc(max_rows * sizeof *decoded_doubles);
    decoded_nanos = malloc(max_rows * sizeof *decoded_nanos);
    decoded_nulls = malloc(max_rows);
    if (!mask || !mask2 || !decoded_ints || !decoded_doubles || !decoded_nanos || !decoded_nulls) abort();
    return 0;
}

static bool write_input(const uint8_t *data, size_t size) {
    int fd = open(database_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    size_t written = 0;
    while (written < size) {
        ssize_t n = write(fd, data + written, size - written);
        if (n <= 0) break;
        written += (size_t)n;
    }
    close(fd);
    return written == size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* An empty file would be made a new database: nothing of the input would be read. */
    if (size == 0) return 0;
    if (!write_input(data, size)) abort();
    run_inspector();
    /* A lock file left by the input before would publish that input's version instead of reading this header. */
    unlink(lock_path);
    columnar_open_options options;
    memset(&options, 0, sizeof options);
    options.flags = COLUMNAR_OPEN_NO_IO_URING;
    options.durability = COLUMNAR_DURABILITY_UNSAFE;
    columnar_db *db;
    if (columnar_open(database_path, &options, &db) == 0) {
        read_everything(db);
        write_objects(db);
        verify_latest(db);
        change_schema(db);
        verify_latest(db);
        columnar_close(db);
    }
    unlink(lock_path);
    unlink(database_path);
    return 0;
}
