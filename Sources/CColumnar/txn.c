/*
 * txn.c — transactions: pinning a version for readers (with the reader-table handshake that keeps a writer from
 * reusing space a new reader is about to read), taking the writer lock, loading table state lazily, and ending.
 */
#include "tree.h"

#include "durability.h"
#include "recovery.h"

#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cc_txn_check(columnar_txn *txn) {
    if (!txn) return CC_MISUSE("transaction is NULL");
    if (txn->poisoned)
        return cc_error(COLUMNAR_EPOISONED, 0, "", "the transaction failed earlier; only rollback is allowed");
    return 0;
}

int cc_txn_check_write(columnar_txn *txn) {
    int rc = cc_txn_check(txn);
    if (rc) return rc;
    if (!txn->is_write) return CC_MISUSE("this operation needs a write transaction");
    return 0;
}

int cc_db_schema_for(columnar_txn *txn, cc_schema **out) {
    cc_node top, schema_node;
    int rc = cc_node_read(txn, txn->top_ref, CF_ROLE_TOP, &top);
    if (rc) return rc;
    if (top.encoding != COLUMNAR_ENCODING_REFS || top.count != CF_TOP_CHILDREN)
        return CC_CORRUPT(top.ref, "top node at %llu has %u children, not %u", (unsigned long long)top.ref, top.count,
                          CF_TOP_CHILDREN);
    if ((rc = cc_node_child(txn, &top, CF_TOP_SCHEMA, CF_ROLE_SCHEMA, false, &schema_node))) return rc;
    if (schema_node.encoding != COLUMNAR_ENCODING_BYTES)
        return CC_CORRUPT(schema_node.ref, "schema at %llu is not a byte array", (unsigned long long)schema_node.ref);
    columnar_db *db = txn->db;
    /* Reuse the cached decoded schema when the bytes are identical (a ref alone could have been reused). */
    pthread_mutex_lock(&db->schema_cache_mutex);
    cc_schema *cached = db->schema_cache;
    if (cached) cc_schema_retain(cached);
    pthread_mutex_unlock(&db->schema_cache_mutex);
    if (cached) {
        uint8_t *bytes;
        uint64_t size;
        if (cc_schema_encode(cached, &bytes, &size) == 0) {
            bool same = size == schema_node.payload_bytes && memcmp(bytes, schema_node.payload, size) == 0;
            free(bytes);
            if (same) {
                *out = cached;
                return 0;
            }
        }
        cc_schema_release(cached);
    }
    cc_schema *decoded;
    if ((rc = cc_schema_decode(schema_node.payload, schema_node.payload_bytes, schema_node.ref, &decoded))) return rc;
    pthread_mutex_lock(&db->schema_cache_mutex);
    cc_schema *old = db->schema_cache;
    cc_schema_retain(decoded);
    db->schema_cache = decoded;
    pthread_mutex_unlock(&db->schema_cache_mutex);
    cc_schema_release(old);
    *out = decoded;
    return 0;
}

static void tables_reset(columnar_txn *txn) {
    for (uint32_t t = 0; t < txn->table_capacity; t++) {
        cc_tstate *ts = &txn->tables[t];
        cc_tree_discard(&ts->root);
        for (uint32_t c = 0; c < ts->index_count; c++) cc_tree_discard(&ts->indexes[c]);
        free(ts->indexes);
    }
    free(txn->tables);
    txn->tables = NULL;
    txn->table_capacity = 0;
    txn->cache_valid = false;
    txn->cluster_cache_valid = false;
    txn->recent_cluster.ref = 0;
    if (txn->leaf_cache) memset(txn->leaf_cache, 0, CC_LEAF_CACHE_SLOTS * sizeof *txn->leaf_cache);
}

int cc_txn_tables_fit(columnar_txn *txn) {
    uint32_t needed = txn->schema->table_count;
    if (needed <= txn->table_capacity) return 0;
    cc_tstate *grown = realloc(txn->tables, needed * sizeof *grown);
    if (!grown) return -ENOMEM;
    memset(grown + txn->table_capacity, 0, (needed - txn->table_capacity) * sizeof *grown);
    txn->tables = grown;
    txn->table_capacity = needed;
    return 0;
}

/* Pins the latest published version: register in the reader table, then check the version is still the latest
 * (a writer that started after our registration will see it; one that finished before would have changed the
 * latest). Each retry follows a publish, and publishes are at least one fdatasync (or one commit) apart, so the
 * loop ends after a try or two; it must not give up and pin a version a writer may not have seen pinned. */
static int pin_latest(columnar_txn *txn) {
    columnar_db *db = txn->db;
    for (;;) {
        cc_version_state latest;
        int rc = cc_db_latest(db, &latest);
        if (rc) return rc;
        if (db->lock) {
            if (!txn->has_slot) {
                if ((rc = cc_lock_reader_acquire(db->lock, latest.version, &txn->reader_slot))) return rc;
                txn->has_slot = true;
            } else {
                cc_lock_reader_update(db->lock, txn->reader_slot, latest.version);
            }
            cc_version_state again;
            if ((rc = cc_db_latest(db, &again))) return rc;
            if (again.version != latest.version) continue;
        }
        if ((rc = cc_map_refresh(&db->map, db->fd, latest.version, latest.used_size, cc_db_chain_epoch(db))))
            return rc;
        txn->version = latest.version;
        txn->top_ref = latest.top_ref;
        txn->used_size = latest.used_size;
        txn->file_size = latest.file_size;
        return 0;
    }
}

static void txn_free(columnar_txn *txn) {
    tables_reset(txn);
    free(txn->leaf_cache);
    if (txn->schema) cc_schema_release(txn->schema);
    cc_rangevec_free(&txn->to_free);
    cc_rangevec_free(&txn->free_list);
    while (txn->arena) {
        cc_arena_block *next = txn->arena->next;
        free(txn->arena);
        txn->arena = next;
    }
    free(txn);
}

int columnar_txn_begin_read(columnar_db *db, columnar_txn **out_txn) {
    *out_txn = NULL;
    columnar_txn *txn = calloc(1, sizeof *txn);
    if (!txn) return -ENOMEM;
    txn->db = db;
    int rc = pin_latest(txn);
    if (!rc) rc = cc_db_schema_for(txn, &txn->schema);
    if (rc) {
        columnar_txn_rollback(txn);
        return rc;
    }
    *out_txn = txn;
    return 0;
}

int columnar_txn_begin_read_at(columnar_txn *source, columnar_txn **out_txn) {
    *out_txn = NULL;
    int rc = cc_txn_check(source);
    if (rc) return rc;
    if (source->is_write) return CC_MISUSE("columnar_txn_begin_read_at needs a read transaction to read alongside");
    columnar_txn *txn = calloc(1, sizeof *txn);
    if (!txn) return -ENOMEM;
    txn->db = source->db;
    /* The source's reader slot pins its version, so no writer can reuse that version's space while this slot is
     * taken: the version can be pinned again without re-reading the latest one. */
    if (txn->db->lock) {
        if ((rc = cc_lock_reader_acquire(txn->db->lock, source->version, &txn->reader_slot))) {
            free(txn);
            return rc;
        }
        txn->has_slot = true;
    }
    txn->version = source->version;
    txn->top_ref = source->top_ref;
    txn->used_size = source->used_size;
    txn->file_size = source->file_size;
    if ((rc = cc_db_schema_for(txn, &txn->schema))) {
        columnar_txn_rollback(txn);
        return rc;
    }
    *out_txn = txn;
    return 0;
}

int columnar_txn_advance(columnar_txn *txn) {
    int rc = cc_txn_check(txn);
    if (rc) return rc;
    if (txn->is_write) return CC_MISUSE("columnar_txn_advance is for read transactions");
    tables_reset(txn);
    cc_schema_release(txn->schema);
    txn->schema = NULL;
    if ((rc = pin_latest(txn)) || (rc = cc_db_schema_for(txn, &txn->schema))) {
        txn->poisoned = true;
        return rc;
    }
    return 0;
}

/* Loads the base version's free list, checksums first, validating that it is sorted, in bounds and
 * non-overlapping: the commit hands this space out, so a damaged entry would let it overwrite live nodes. */
static int load_free_list(columnar_txn *txn) {
    cc_node top, pos, size, version;
    int rc = cc_node_read_verified(txn, txn->top_ref, CF_ROLE_TOP, &top);
    if (rc) return rc;
    if ((rc = cc_node_child_verified(txn, &top, CF_TOP_FREE_POS, CF_ROLE_FREE_POS, &pos)) ||
        (rc = cc_node_child_verified(txn, &top, CF_TOP_FREE_SIZE, CF_ROLE_FREE_SIZE, &size)) ||
        (rc = cc_node_child_verified(txn, &top, CF_TOP_FREE_VERSION, CF_ROLE_FREE_VERSION, &version)))
        return rc;
    if (pos.encoding != COLUMNAR_ENCODING_PACKED_INT || size.encoding != COLUMNAR_ENCODING_PACKED_INT ||
        version.encoding != COLUMNAR_ENCODING_PACKED_INT || pos.count != size.count || pos.count != version.count)
        return CC_CORRUPT(pos.ref, "free list at %llu has mismatched arrays", (unsigned long long)pos.ref);
    uint64_t previous_end = CF_HEADER_BYTES;
    for (uint32_t i = 0; i < pos.count; i++) {
        int64_t p = cc_node_int_at(&pos, i), s = cc_node_int_at(&size, i), v = cc_node_int_at(&version, i);
        if (p < (int64_t)previous_end || s <= 0 || (p & 7) || (s & 7) || (uint64_t)p + (uint64_t)s > txn->used_size ||
            v < 0 || (uint64_t)v > txn->version)
            return CC_CORRUPT(pos.ref, "free-list entry %u (%lld bytes at %lld, version %lld) is invalid", i,
                              (long long)s, (long long)p, (long long)v);
        previous_end = (uint64_t)(p + s);
        if ((rc = cc_rangevec_push(&txn->free_list, (uint64_t)p, (uint64_t)s, (uint64_t)v))) return rc;
    }
    return 0;
}

int columnar_txn_begin_write(columnar_db *db, columnar_txn **out_txn) {
    *out_txn = NULL;
    if (db->flags & COLUMNAR_OPEN_READ_ONLY)
        return cc_error(COLUMNAR_EREADONLY, 0, "", "%s was opened read-only", db->path);
    cc_repair_kind repair;
    int rc = cc_lock_writer_acquire(db->lock, &repair);
    if (rc) return rc;
    columnar_txn *txn = calloc(1, sizeof *txn);
    if (!txn) {
        cc_lock_writer_release(db->lock);
        return -ENOMEM;
    }
    txn->db = db;
    txn->is_write = true;
    txn->log_expected = columnar_write_log_enabled(db);
    cc_io_step(db->io, COLUMNAR_STEP_WRITER_LOCKED);
    /* A writer that died holding the lock, a dead sync leader or a failed sync: bring the chain back to a known
     * durable state before building on it. */
    cc_version_state base;
    uint64_t epoch, written;
    for (;;) {
        if (repair != CC_REPAIR_NONE && (rc = cc_recover(db, repair, cc_lock_durable(db->lock), true, &base)))
            goto fail;
        cc_lock_chain_read(db->lock, &epoch, &written);
        /* A sync that failed meanwhile asks for its repair before it moves the epoch: seeing the chain, we see the
         * request too, and must not build on versions it drops. */
        if ((repair = cc_lock_repair_pending(db->lock)) == CC_REPAIR_NONE) break;
    }
    if (!cc_lock_version_state(db->lock, written, &base)) {
        rc = CC_FAIL(COLUMNAR_ELOCKFILE, "the lock file of %s does not record the latest written version %llu",
                     db->path, (unsigned long long)written);
        goto fail;
    }
    if (db->max_active_versions) {
        /* After this commit the live versions are those readers pin plus the new one. */
        uint64_t after_commit = cc_lock_live_versions(db->lock, UINT64_MAX);
        if (after_commit > db->max_active_versions) {
            rc = cc_error(COLUMNAR_EVERSIONS, 0, "",
                          "beginning a write would make %llu versions live, more than the maximum of %llu: end or "
                          "advance old read transactions (or frozen objects) first",
                          (unsigned long long)after_commit, (unsigned long long)db->max_active_versions);
            goto fail;
        }
    }
    if ((rc = cc_map_refresh(&db->map, db->fd, base.version, base.used_size, epoch))) goto fail;
    txn->version = base.version;
    txn->top_ref = base.top_ref;
    txn->used_size = base.used_size;
    txn->file_size = base.file_size;
    txn->chain_epoch = epoch;
    /* Space freed by a version is reused once no reader can see the versions before it, and once no version a
     * crash may fall back to still lists it: recovery verifies the ranges a version's commit record lists, which
     * go back to the version's base, and may choose the durable version or any later one, whose bases are no
     * older than the durable version's. So the bound is the durable version's base: a node freed by a version up
     * to it was written before it, and is listed in no record recovery reads. */
    uint64_t pinned = cc_lock_oldest_pinned(db->lock, base.version);
    uint64_t reuse_bound = cc_lock_reuse_bound(db->lock);
    txn->oldest_pinned = pinned < reuse_bound ? pinned : reuse_bound;
    if ((rc = cc_db_schema_for(txn, &txn->schema)) || (rc = load_free_list(txn))) goto fail;
    *out_txn = txn;
    return 0;
fail:
    txn_free(txn);
    cc_lock_writer_release(db->lock);
    return rc;
}

int columnar_txn_commit(columnar_txn *txn) {
    if (!txn) return CC_MISUSE("transaction is NULL");
    if (!txn->is_write) {
        columnar_txn_rollback(txn);
        return 0;
    }
    columnar_db *db = txn->db;
    cc_written written = { 0 };
    int rc = cc_txn_check(txn);
    if (!rc) rc = cc_commit(txn, &written);
    /* The writer lock goes before the commit is durable, so the next writer builds on this version while this
     * one waits for its sync: that is what lets concurrent commits share one fdatasync. */
    columnar_txn_rollback(txn);
    if (!rc) rc = cc_durability_complete(db, &written);
    return rc;
}

void columnar_txn_rollback(columnar_txn *txn) {
    if (!txn) return;
    columnar_db *db = txn->db;
    if (txn->has_slot) cc_lock_reader_release(db->lock, txn->reader_slot);
    bool was_write = txn->is_write;
    txn_free(txn);
    if (was_write) {
        cc_lock_writer_release(db->lock);
        cc_io_step(db->io, COLUMNAR_STEP_WRITER_RELEASED);
    }
}

uint64_t columnar_txn_version(const columnar_txn *txn) { return txn->version; }
bool columnar_txn_is_write(const columnar_txn *txn) { return txn->is_write; }

const cc_table_schema *cc_table_schema_get(columnar_txn *txn, uint32_t table) {
    if (table >= txn->schema->table_count) return NULL;
    const cc_table_schema *schema = &txn->schema->tables[table];
    return (schema->flags & CF_TABLE_FLAG_REMOVED) ? NULL : schema;
}

int64_t cc_table_meta_keyed_by(const cc_node *meta) {
    return meta->count > CF_TABLE_META_KEYED_BY ? cc_node_int_at(meta, CF_TABLE_META_KEYED_BY) : 0;
}

bool cc_keyed_by_names_int_primary_key(const cc_table_schema *schema, int64_t keyed_by) {
    uint32_t pk = schema->primary_key;
    return keyed_by > 0 && pk < schema->column_count && (uint64_t)keyed_by - 1 == pk &&
           schema->columns[pk].type == COLUMNAR_TYPE_INT;
}

int cc_table_state(columnar_txn *txn, uint32_t table, cc_tstate **out) {
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    if (!schema) return cc_error(COLUMNAR_ENOTFOUND, 0, "", "no table with id %u", table);
    int rc = cc_txn_tables_fit(txn);
    if (rc) return rc;
    cc_tstate *ts = &txn->tables[table];
    if (!ts->loaded) {
        cc_node top, tables;
        if ((rc = cc_node_read(txn, txn->top_ref, CF_ROLE_TOP, &top)) ||
            (rc = cc_node_child(txn, &top, CF_TOP_TABLES, CF_ROLE_TABLES, false, &tables)))
            return rc;
        if (tables.encoding != COLUMNAR_ENCODING_REFS)
            return CC_CORRUPT(tables.ref, "table list at %llu does not hold refs", (unsigned long long)tables.ref);
        uint64_t table_ref = table < tables.count ? cc_node_ref_at(&tables, table) : 0;
        ts->table_ref = table_ref;
        if (table_ref) {
            cc_node node, meta, indexes;
            if ((rc = cc_node_read(txn, table_ref, CF_ROLE_TABLE, &node))) return rc;
            if (node.encoding != COLUMNAR_ENCODING_REFS || node.count != CF_TABLE_CHILDREN)
                return CC_CORRUPT(table_ref, "table node at %llu has %u children", (unsigned long long)table_ref,
                                  node.count);
            if ((rc = cc_node_child(txn, &node, CF_TABLE_META, CF_ROLE_META, false, &meta))) return rc;
            if (meta.encoding != COLUMNAR_ENCODING_PACKED_INT || meta.count < CF_TABLE_META_COUNT)
                return CC_CORRUPT(meta.ref, "table meta at %llu is too short", (unsigned long long)meta.ref);
            int64_t count = cc_node_int_at(&meta, CF_TABLE_META_OBJECT_COUNT);
            int64_t next_key = cc_node_int_at(&meta, CF_TABLE_META_NEXT_KEY);
            if (count < 0 || next_key < 0)
                return CC_CORRUPT(meta.ref, "table %s has object count %lld and next key %lld", schema->name,
                                  (long long)count, (long long)next_key);
            int64_t keyed_by = cc_table_meta_keyed_by(&meta);
            if (keyed_by < 0 || keyed_by > (int64_t)schema->column_count)
                return CC_CORRUPT(meta.ref, "table %s's meta names column %lld as its objects' keys, but the table has "
                                  "%u columns", schema->name, (long long)keyed_by - 1, schema->column_count);
            ts->keys_are_primary_keys = cc_keyed_by_names_int_primary_key(schema, keyed_by);
            ts->object_count = (uint64_t)count;
            ts->next_key = (uint64_t)next_key;
            ts->root.ref = cc_node_ref_at(&node, CF_TABLE_ROOT);
            ts->root.node = NULL;
            if ((rc = cc_node_child(txn, &node, CF_TABLE_INDEXES, CF_ROLE_INDEXES, true, &indexes))) return rc;
            if (indexes.ref) {
                if (indexes.encoding != COLUMNAR_ENCODING_REFS || indexes.count > schema->column_count)
                    return CC_CORRUPT(indexes.ref, "index list at %llu has %u entries for %u columns",
                                      (unsigned long long)indexes.ref, indexes.count, schema->column_count);
            }
            ts->indexes = calloc(schema->column_count ? schema->column_count : 1, sizeof *ts->indexes);
            if (!ts->indexes) return -ENOMEM;
            ts->index_count = schema->column_count;
            for (uint32_t c = 0; indexes.ref && c < indexes.count; c++) ts->indexes[c].ref = cc_node_ref_at(&indexes, c);
        } else {
            ts->indexes = calloc(schema->column_count ? schema->column_count : 1, sizeof *ts->indexes);
            if (!ts->indexes) return -ENOMEM;
            ts->index_count = schema->column_count;
        }
        ts->loaded = true;
    }
    if (ts->index_count < schema->column_count) {
        cc_child *grown = realloc(ts->indexes, schema->column_count * sizeof *grown);
        if (!grown) return -ENOMEM;
        memset(grown + ts->index_count, 0, (schema->column_count - ts->index_count) * sizeof *grown);
        ts->indexes = grown;
        ts->index_count = schema->column_count;
    }
    *out = ts;
    return 0;
}

int cc_schema_make_private(columnar_txn *txn) {
    if (txn->schema_private) return 0;
    cc_schema *copy;
    int rc = cc_schema_copy(txn->schema, &copy);
    if (rc) return rc;
    cc_schema_release(txn->schema);
    txn->schema = copy;
    txn->schema_private = true;
    return 0;
}

int cc_free_node(columnar_txn *txn, uint64_t ref) {
    /* A write frees each node of its base version at most once, so its frees cannot outnumber the nodes the
     * version can hold (one per CF_NODE_HEADER_BYTES of its used size). One more means that a damaged file's refs
     * reach some node twice: stopping here keeps the walks that copy or release committed nodes from costing time
     * in proportion to the number of paths through such a file rather than to its size. */
    if (txn->to_free.count >= txn->used_size / CF_NODE_HEADER_BYTES)
        return CC_CORRUPT(ref, "a write has reached %zu nodes to free in a version of %llu bytes: the node at %llu is "
                          "reached twice", txn->to_free.count + 1, (unsigned long long)txn->used_size,
                          (unsigned long long)ref);
    cc_node node;
    /* The size freed comes from the node's header: a damaged header would put live space on the free list. */
    int rc = cc_node_read_verified(txn, ref, 0, &node);
    if (rc) return rc;
    return cc_rangevec_push(&txn->to_free, ref, cc_node_span(node.payload_bytes), 0);
}
