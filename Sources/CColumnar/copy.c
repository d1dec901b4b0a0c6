/*
 * copy.c — dense copies of a database. columnar_write_copy writes the version a read transaction sees into a new
 * file; columnar_compact replaces a file that no handle has open with such a copy of itself.
 *
 * A copy is rebuilt through the object API rather than by copying nodes: each table is filled in key order, so
 * its clusters are full, every collection is written once, and every search index is built as in a file written
 * in one go. Object keys are kept (links and backlinks stay as they were), and so is each table's next key, so
 * keys of deleted objects are still never handed out again. Table and column ids are not kept: removed tables and
 * columns leave no trace in the copy, and callers find tables and columns by name.
 *
 * Crash safety comes from names, not from the copy's contents: the copy is built and committed (durably) under a
 * temporary name beside its destination, then linked or renamed into place and the directory synced. A crash
 * leaves the destination absent or complete (compaction: the old file or the new one), plus at most the temporary
 * file, which the next copy or compaction to that destination, or columnar_delete_files, removes.
 */
#include "commit.h"

#include "lock.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How the source's ids map to the copy's. */
typedef struct copy_table {
    bool live;                     /* false: a removed table, not copied */
    columnar_table_id target;      /* the copy's id */
    uint32_t column_count;
    columnar_col_id *columns;      /* source column -> copy column, COLUMNAR_NO_COLUMN when not copied */
    columnar_column_info *infos;   /* source column descriptions */
    columnar_col_id primary_key;   /* source column, COLUMNAR_NO_COLUMN when none */
    bool keyed_by_primary_key;     /* every object copied so far has its int primary key as its key */
} copy_table;

typedef struct copy_map {
    uint32_t table_count;
    copy_table *tables;
} copy_map;

static void copy_map_free(copy_map *map) {
    for (uint32_t t = 0; t < map->table_count; t++) {
        free(map->tables[t].columns);
        free(map->tables[t].infos);
    }
    free(map->tables);
    map->tables = NULL;
}

/* Adds every live table, then every visible column (link columns need their targets to exist first). The primary
 * key is set after the objects are in: until then several new objects share the column's default value. */
static int copy_schema(columnar_txn *source, columnar_txn *copy, copy_map *map) {
    int rc = columnar_table_count(source, &map->table_count);
    if (rc) return rc;
    map->tables = calloc(map->table_count ? map->table_count : 1, sizeof *map->tables);
    if (!map->tables) return -ENOMEM;
    for (uint32_t t = 0; t < map->table_count; t++) {
        columnar_table_info info;
        rc = columnar_table_info_get(source, t, &info);
        if (rc == COLUMNAR_ENOTFOUND) continue;
        if (rc) return rc;
        copy_table *table = &map->tables[t];
        if ((rc = columnar_table_add(copy, info.name, &table->target))) return rc;
        table->live = true;
        table->column_count = info.column_count;
        table->primary_key = info.primary_key;
        table->keyed_by_primary_key = true;
        table->columns = malloc((info.column_count ? info.column_count : 1) * sizeof *table->columns);
        table->infos = calloc(info.column_count ? info.column_count : 1, sizeof *table->infos);
        if (!table->columns || !table->infos) return -ENOMEM;
    }
    for (uint32_t t = 0; t < map->table_count; t++) {
        copy_table *table = &map->tables[t];
        if (!table->live) continue;
        for (uint32_t c = 0; c < table->column_count; c++) {
            table->columns[c] = COLUMNAR_NO_COLUMN;
            columnar_column_info *info = &table->infos[c];
            rc = columnar_column_info_get(source, t, c, info);
            if (rc == COLUMNAR_ENOTFOUND) continue;   /* removed, or a backlink column (rebuilt by the links) */
            if (rc) return rc;
            columnar_column_spec spec = {
                .name = info->name, .type = info->type, .collection = info->collection,
                .nullable = info->nullable, .indexed = info->indexed,
            };
            if (info->type == COLUMNAR_TYPE_LINK) {
                if (info->target_table >= map->table_count || !map->tables[info->target_table].live)
                    return CC_CORRUPT(0, "column %s links to table %u, which does not exist", info->name,
                                      info->target_table);
                spec.target_table = map->tables[info->target_table].target;
            }
            if ((rc = columnar_column_add(copy, table->target, &spec, &table->columns[c]))) return rc;
        }
    }
    return 0;
}

/* Copies one column of one object; a single value is also handed to `out_value` when it is not NULL. Collections
 * are appended in their order (a set's and a dictionary's order is the engine's own, so inserting in it builds
 * them front to back). */
static int copy_cell(columnar_txn *source, columnar_txn *copy, columnar_table_id source_table,
                     columnar_table_id copy_table_id, columnar_key key, columnar_col_id source_column,
                     columnar_col_id copy_column, const columnar_column_info *info, columnar_value *out_value) {
    columnar_value value;
    int rc;
    if (info->collection == COLUMNAR_COLLECTION_NONE) {
        if ((rc = columnar_obj_get(source, source_table, key, source_column, &value))) return rc;
        if (out_value) *out_value = value;
        if (value.is_null) return 0;   /* every new object starts at null where null is allowed */
        return columnar_obj_set(copy, copy_table_id, key, copy_column, &value);
    }
    uint64_t size;
    if ((rc = columnar_coll_size(source, source_table, key, source_column, &size))) return rc;
    for (uint64_t i = 0; i < size; i++) {
        if ((rc = columnar_coll_get(source, source_table, key, source_column, i, &value))) return rc;
        switch (info->collection) {
        case COLUMNAR_COLLECTION_LIST:
            rc = columnar_list_insert(copy, copy_table_id, key, copy_column, i, &value);
            break;
        case COLUMNAR_COLLECTION_SET:
            rc = columnar_set_insert(copy, copy_table_id, key, copy_column, &value, NULL);
            break;
        default: {
            const void *dict_key;
            size_t dict_key_size;
            if ((rc = columnar_dict_key_at(source, source_table, key, source_column, i, &dict_key, &dict_key_size)))
                return rc;
            rc = columnar_dict_set(copy, copy_table_id, key, copy_column, dict_key, dict_key_size, &value);
            break;
        }
        }
        if (rc) return rc;
    }
    return 0;
}

/* One pass over every object of every table in key order: the first creates the objects and copies every column
 * that holds no links; the second, once every object exists, copies the links. */
static int copy_objects(columnar_txn *source, columnar_txn *copy, copy_map *map, bool links) {
    int64_t *keys = NULL;
    size_t key_capacity = 0;
    int rc = 0;
    for (uint32_t t = 0; t < map->table_count && !rc; t++) {
        copy_table *table = &map->tables[t];
        if (!table->live) continue;
        bool int_primary_key = table->primary_key < table->column_count &&
                               table->infos[table->primary_key].type == COLUMNAR_TYPE_INT &&
                               table->infos[table->primary_key].collection == COLUMNAR_COLLECTION_NONE;
        if (!int_primary_key) table->keyed_by_primary_key = false;
        columnar_cluster_iter iter;
        if ((rc = columnar_cluster_iter_init(source, t, &iter))) break;
        columnar_cluster cluster;
        while (!rc && (rc = columnar_cluster_iter_next(&iter, &cluster)) == 0) {
            if (cluster.row_count > key_capacity) {
                int64_t *grown = realloc(keys, cluster.row_count * sizeof *keys);
                if (!grown) { rc = -ENOMEM; break; }
                keys = grown;
                key_capacity = cluster.row_count;
            }
            columnar_array_decode_int(&cluster.keys, 0, cluster.row_count, keys);
            for (uint64_t row = 0; row < cluster.row_count && !rc; row++) {
                if (!links) rc = columnar_obj_create_with_key(copy, table->target, keys[row]);
                columnar_value id = { .is_null = true };   /* stays null where the primary key is not copied */
                for (uint32_t c = 0; c < table->column_count && !rc; c++) {
                    if (table->columns[c] == COLUMNAR_NO_COLUMN) continue;
                    if ((table->infos[c].type == COLUMNAR_TYPE_LINK) != links) continue;
                    rc = copy_cell(source, copy, t, table->target, keys[row], c, table->columns[c], &table->infos[c],
                                   c == table->primary_key ? &id : NULL);
                }
                if (!links && (id.is_null || id.as.i != keys[row])) table->keyed_by_primary_key = false;
            }
        }
        if (rc == COLUMNAR_ENOTFOUND) rc = 0;   /* the end of the table */
    }
    free(keys);
    return rc;
}

/* Primary keys (checked unique as they are set), and next keys no lower than the source's. */
static int copy_table_state(columnar_txn *source, columnar_txn *copy, const copy_map *map) {
    int rc = 0;
    for (uint32_t t = 0; t < map->table_count && !rc; t++) {
        const copy_table *table = &map->tables[t];
        if (!table->live) continue;
        if (table->primary_key != COLUMNAR_NO_COLUMN && table->primary_key < table->column_count &&
            (rc = columnar_table_set_primary_key(copy, table->target, table->columns[table->primary_key])))
            break;
        cc_tstate *from, *to;
        if ((rc = cc_table_state(source, t, &from)) || (rc = cc_table_state(copy, table->target, &to))) break;
        if (from->next_key > to->next_key) {
            to->next_key = from->next_key;
            to->dirty = true;
        }
        /* The copy holds the same keys and the same primary key values: where every object's key was its int
         * primary key (as the copy read them, whatever the source's mark said: a file written before the mark
         * existed, or a mark ended by an id that was changed back), the copy's table is marked (setting the
         * primary key above cleared the mark). */
        if (table->keyed_by_primary_key && table->columns[table->primary_key] != COLUMNAR_NO_COLUMN) {
            to->keys_are_primary_keys = true;
            to->dirty = true;
        }
    }
    return rc;
}

/* Builds the copy of `source`'s version as a new database at `path`, committed durably. */
static int build_copy(columnar_txn *source, const char *path, const columnar_open_options *options) {
    columnar_open_options copy_options = { 0 };
    if (options) copy_options = *options;
    copy_options.flags = COLUMNAR_OPEN_CREATE | (copy_options.flags & COLUMNAR_OPEN_NO_IO_URING);
    copy_options.durability = COLUMNAR_DURABILITY_FULL;
    copy_options.max_active_versions = 0;
    columnar_db *db = NULL;
    columnar_txn *copy = NULL;
    copy_map map = { 0 };
    int rc = columnar_open(path, &copy_options, &db);
    if (rc) return rc;
    if ((rc = columnar_txn_begin_write(db, &copy))) goto done;
    if ((rc = copy_schema(source, copy, &map)) || (rc = copy_objects(source, copy, &map, false)) ||
        (rc = copy_objects(source, copy, &map, true)) || (rc = copy_table_state(source, copy, &map)))
        goto done;
    rc = columnar_txn_commit(copy);
    copy = NULL;
done:
    if (copy) columnar_txn_rollback(copy);
    copy_map_free(&map);
    columnar_close(db);
    return rc;
}

/* Makes a rename or link in the directory of `path` durable. */
static int sync_directory_of(const char *path) {
    char *copy = strdup(path);
    if (!copy) return -ENOMEM;
    const char *directory = dirname(copy);
    int fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = 0;
    if (fd < 0 || fsync(fd) != 0)
        rc = cc_error(-errno, 0, "", "cannot sync the directory %s: %s", directory, strerror(errno));
    if (fd >= 0) close(fd);
    free(copy);
    return rc;
}

/* "<path><suffix>", or NULL when out of memory. */
static char *path_with_suffix(const char *path, const char *suffix) {
    size_t size = strlen(path) + strlen(suffix) + 1;
    char *joined = malloc(size);
    if (joined) snprintf(joined, size, "%s%s", path, suffix);
    return joined;
}

/* Removes a temporary copy left by a crash (its data and lock files). -EBUSY when another copy is being built
 * under that name right now. */
static int remove_temporary(const char *temporary) {
    return columnar_delete_files(temporary, NULL);
}

#define COPY_SUFFIX ".copying"
#define COMPACT_SUFFIX ".compacting"

int columnar_write_copy(columnar_txn *txn, const char *path, const columnar_open_options *options) {
    int rc = cc_txn_check(txn);
    if (rc) return rc;
    if (txn->is_write)
        return CC_MISUSE("columnar_write_copy copies what a read transaction sees; a write transaction's changes "
                         "are not committed yet");
    if (!path || !*path) return CC_MISUSE("columnar_write_copy needs a destination path");
    if (options && (options->flags & ~(uint32_t)COLUMNAR_OPEN_NO_IO_URING))
        return CC_MISUSE("columnar_write_copy takes only COLUMNAR_OPEN_NO_IO_URING among the open flags");
    struct stat status;
    if (lstat(path, &status) == 0)
        return cc_error(-EEXIST, 0, "", "cannot write a copy to %s: a file exists there", path);
    char *temporary = path_with_suffix(path, COPY_SUFFIX);
    if (!temporary) return -ENOMEM;
    if ((rc = remove_temporary(temporary))) {
        if (rc == -EBUSY)
            rc = cc_error(-EBUSY, 0, "", "another copy to %s is being written (%s is open)", path, temporary);
        goto done;
    }
    if ((rc = build_copy(txn, temporary, options))) goto fail;
    /* link() rather than rename(): it fails instead of replacing a file that appeared at `path` meanwhile. */
    if (link(temporary, path) != 0) {
        rc = cc_error(-errno, 0, "", "cannot put the copy in place at %s: %s", path, strerror(errno));
        goto fail;
    }
    if ((rc = sync_directory_of(path))) goto done;
    rc = remove_temporary(temporary);
    goto done;
fail:
    remove_temporary(temporary);
done:
    free(temporary);
    return rc;
}

int columnar_compact(const char *path, const columnar_open_options *options, columnar_compact_decision decide,
                     void *context, columnar_compact_result *out) {
    columnar_compact_result ignored;
    if (!out) out = &ignored;
    memset(out, 0, sizeof *out);
    if (!path || !*path) return CC_MISUSE("columnar_compact needs a path");
    if (options && (options->flags & ~(uint32_t)COLUMNAR_OPEN_NO_IO_URING))
        return CC_MISUSE("columnar_compact takes only COLUMNAR_OPEN_NO_IO_URING among the open flags");
    /* The real path: the file is replaced where it is, never a symlink to it by a regular file. */
    char *real = realpath(path, NULL);
    if (!real) return cc_error(-errno, 0, "", "cannot resolve the path %s: %s", path, strerror(errno));
    char *lock_path = cc_db_lock_path_beside(real);
    char *temporary = path_with_suffix(real, COMPACT_SUFFIX);
    int lock_fd = -1;
    columnar_db *db = NULL;
    columnar_txn *source = NULL;
    int rc = 0;
    if (!lock_path || !temporary) { rc = -ENOMEM; goto done; }
    /* Held to the end: nobody has the file open, and whoever tries waits until it has been replaced. */
    if ((rc = cc_lock_exclusive_take(real, lock_path, "compacting it", &lock_fd))) goto done;

    /* Read without the lock file (which this holds); the version is the one the next opener's recovery picks. */
    columnar_open_options read_options = { .flags = COLUMNAR_OPEN_READ_ONLY | COLUMNAR_OPEN_NO_LOCK |
                                                    (options ? options->flags & COLUMNAR_OPEN_NO_IO_URING : 0),
                                           .encryption_key = options ? options->encryption_key : NULL };
    if ((rc = columnar_open(real, &read_options, &db))) goto done;
    columnar_db_stats stats;
    if ((rc = columnar_db_stats_get(db, &stats))) goto done;
    out->size_before_bytes = stats.file_size_bytes;
    out->used_before_bytes = stats.used_size_bytes > stats.free_bytes ? stats.used_size_bytes - stats.free_bytes : 0;
    if (decide && !decide(out->size_before_bytes, out->used_before_bytes, context)) goto done;

    if ((rc = remove_temporary(temporary))) goto done;
    if ((rc = columnar_txn_begin_read(db, &source))) goto done;
    rc = build_copy(source, temporary, options);
    columnar_txn_rollback(source);
    source = NULL;
    if (rc) goto fail;
    struct stat status;
    if (stat(temporary, &status) != 0) {
        rc = cc_error(-errno, 0, "", "cannot stat the compacted copy %s: %s", temporary, strerror(errno));
        goto fail;
    }
    /* The one step that switches files: before it the old file is in place, after it the new one, complete. */
    if (rename(temporary, real) != 0) {
        rc = cc_error(-errno, 0, "", "cannot replace %s by its compacted copy: %s", real, strerror(errno));
        goto fail;
    }
    out->compacted = true;
    out->size_after_bytes = (uint64_t)status.st_size;
    if ((rc = sync_directory_of(real))) goto done;
    remove_temporary(temporary);   /* its lock file; nothing depends on it going */
    goto done;
fail:
    remove_temporary(temporary);
done:
    columnar_close(db);
    cc_lock_exclusive_release(lock_fd);
    free(temporary);
    free(lock_path);
    free(real);
    return rc;
}

int cc_copy_remove_leftovers(const char *data_path) {
    char *temporary = path_with_suffix(data_path, COMPACT_SUFFIX);
    if (!temporary) return -ENOMEM;
    int rc = remove_temporary(temporary);
    free(temporary);
    return rc;
}
