/*
 * commit.c — the durable commit (docs/CommitPath.md):
 *
 *   1. encode every private structure into new nodes, placed in free space the oldest reader can no longer see
 *      (or at the end of the used part of the file);
 *   2. build the new free list (old entries, minus what was reused, plus this commit's freed nodes tagged with
 *      the new version) and the new top node, both at the end so their own placement cannot change the list;
 *   3. write all new nodes in one batch (one io_uring submission) and fdatasync;
 *   4. write the inactive header slot (checksummed) and flip the selector in one write, then fdatasync;
 *   5. publish the new version to readers through the lock file.
 *
 * A crash before step 4's write reaches the disk leaves the old version (the new nodes lie in space it does not
 * use); after it, the new one. A torn header write fails its slot checksum and the old slot is used.
 */
#include "tree.h"

#include "checksum.h"

#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define GROW_MIN_BYTES (1ull << 20)
#define GROW_MAX_STEP_BYTES (1ull << 30)

typedef struct cc_committer {
    cc_emitter emitter;       /* first, so the allocator can recover the committer */
    uint64_t end;             /* end of the used part of the file */
    bool bump_only;           /* allocate at the end only (the free list's own nodes and the top) */
    size_t next_fit;          /* where the free-list scan resumes */
} cc_committer;

static uint64_t allocate(cc_emitter *emitter, uint64_t bytes, int *error) {
    cc_committer *c = (cc_committer *)emitter;
    columnar_txn *txn = emitter->txn;
    if (!c->bump_only) {
        cc_rangevec *list = &txn->free_list;
        for (size_t scanned = 0; scanned < list->count; scanned++) {
            size_t i = (c->next_fit + scanned) % list->count;
            cc_range *entry = &list->items[i];
            if (entry->size >= bytes && entry->version <= txn->oldest_pinned) {
                uint64_t pos = entry->pos;
                entry->pos += bytes;
                entry->size -= bytes;
                c->next_fit = i;
                return pos;
            }
        }
    }
    if (c->end + bytes > txn->db->map.reserved_bytes) {
        *error = CC_FAIL(COLUMNAR_EMAPFULL, "the database would grow past %llu bytes",
                         (unsigned long long)txn->db->map.reserved_bytes);
        return 0;
    }
    uint64_t pos = c->end;
    c->end += bytes;
    return pos;
}

static int compare_ranges(const void *a, const void *b) {
    const cc_range *x = a, *y = b;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int compare_writes(const void *a, const void *b) {
    const cc_pending_write *x = a, *y = b;
    return x->ref < y->ref ? -1 : x->ref > y->ref;
}

/* Writes a private table: its tree, its indexes, its meta, its TABLE node. Returns the new TABLE ref. */
static int write_table(cc_committer *c, uint32_t table, uint64_t *out_ref) {
    columnar_txn *txn = c->emitter.txn;
    cc_tstate *ts = &txn->tables[table];
    const cc_table_schema *schema = &txn->schema->tables[table];
    cc_emitter *e = &c->emitter;
    int rc = cc_tree_write(e, &ts->root, schema, txn->db->cluster_size);
    if (rc) return rc;
    bool any_index = false;
    for (uint32_t col = 0; col < ts->index_count; col++) {
        if ((rc = cc_tree_write(e, &ts->indexes[col], cc_index_schema(), txn->db->cluster_size))) return rc;
        any_index = any_index || ts->indexes[col].ref;
    }
    uint64_t children[CF_TABLE_CHILDREN] = { 0, ts->root.ref, 0 };
    int64_t meta[CF_TABLE_META_COUNT] = { (int64_t)ts->object_count, (int64_t)ts->next_key };
    if ((rc = cc_emit_ints(e, CF_ROLE_META, 0, meta, CF_TABLE_META_COUNT, &children[CF_TABLE_META]))) return rc;
    if (any_index) {
        uint64_t *refs = malloc(ts->index_count * sizeof *refs);
        if (!refs) return -ENOMEM;
        for (uint32_t col = 0; col < ts->index_count; col++) refs[col] = ts->indexes[col].ref;
        rc = cc_emit_refs(e, CF_ROLE_INDEXES, 0, refs, ts->index_count, &children[CF_TABLE_INDEXES]);
        free(refs);
        if (rc) return rc;
    }
    return cc_emit_refs(e, CF_ROLE_TABLE, 0, children, CF_TABLE_CHILDREN, out_ref);
}

/* Frees the base version's TABLE node of a table being rewritten (its tree nodes were freed as they were copied). */
static int free_table_node(columnar_txn *txn, uint64_t table_ref) {
    cc_node node;
    int rc = cc_node_read(txn, table_ref, CF_ROLE_TABLE, &node);
    if (rc) return rc;
    uint64_t meta = cc_node_ref_at(&node, CF_TABLE_META), indexes = cc_node_ref_at(&node, CF_TABLE_INDEXES);
    if ((rc = cc_free_node(txn, meta))) return rc;
    if (indexes && (rc = cc_free_node(txn, indexes))) return rc;
    return cc_free_node(txn, table_ref);
}

/* The new free list: surviving old entries plus this commit's frees, sorted and merged. Detects double frees. */
static int build_free_list(columnar_txn *txn, uint64_t new_version, cc_rangevec *out) {
    cc_rangevec *all = out;
    int rc;
    for (size_t i = 0; i < txn->free_list.count; i++) {
        cc_range *r = &txn->free_list.items[i];
        if (r->size && (rc = cc_rangevec_push(all, r->pos, r->size, r->version))) return rc;
    }
    for (size_t i = 0; i < txn->to_free.count; i++) {
        cc_range *r = &txn->to_free.items[i];
        if ((rc = cc_rangevec_push(all, r->pos, r->size, new_version))) return rc;
    }
    if (all->count) qsort(all->items, all->count, sizeof *all->items, compare_ranges);
    size_t kept = 0;
    for (size_t i = 0; i < all->count; i++) {
        cc_range r = all->items[i];
        if (kept) {
            cc_range *last = &all->items[kept - 1];
            if (last->pos + last->size > r.pos)
                return CC_CORRUPT(r.pos, "internal error: space at %llu would be freed twice (commit refused)",
                                  (unsigned long long)r.pos);
            bool both_reusable = last->version <= txn->oldest_pinned && r.version <= txn->oldest_pinned;
            if (last->pos + last->size == r.pos && (both_reusable || last->version == r.version)) {
                last->size += r.size;
                last->version = last->version > r.version ? last->version : r.version;
                continue;
            }
        }
        all->items[kept++] = r;
    }
    all->count = kept;
    return 0;
}

static int write_header(columnar_txn *txn, uint64_t version, uint64_t top_ref, uint64_t used_size,
                        uint64_t free_bytes) {
    columnar_db *db = txn->db;
    cf_header header;
    memset(&header, 0, sizeof header);
    if (txn->top_ref) {
        ssize_t got = pread(db->fd, &header, sizeof header, 0);
        if (got != (ssize_t)sizeof header) return cc_error(got < 0 ? -errno : -EIO, 0, "", "cannot reread the header");
    }
    memcpy(header.magic, CF_MAGIC, CF_MAGIC_BYTES);
    header.format_version = CF_FORMAT_VERSION;
    header.header_bytes = CF_HEADER_BYTES;
    int slot_index = (int)(version % 2);
    cf_slot *slot = &header.slots[slot_index];
    memset(slot, 0, sizeof *slot);
    slot->top_ref = top_ref;
    slot->version = version;
    slot->used_size = used_size;
    slot->free_bytes = free_bytes;
    slot->checksum = cc_crc32c(0, slot, offsetof(cf_slot, checksum));
    header.selector = (uint8_t)slot_index;
    columnar_io_write write = { 0, &header, sizeof header };
    int rc = db->io->write_batch(db->io->context, db->fd, &write, 1);
    if (rc) return cc_error(rc, 0, "", "writing the header of %s failed: %s", db->path, columnar_strerror(rc));
    return 0;
}

static bool durable(const columnar_db *db) {
    return db->durability == COLUMNAR_DURABILITY_FULL && !(db->flags & COLUMNAR_OPEN_IN_MEMORY);
}

/* Writes the emitter's nodes, coalescing neighbours into single writes. */
static int write_nodes(columnar_txn *txn, cc_emitter *e) {
    columnar_db *db = txn->db;
    if (e->write_count) qsort(e->writes, e->write_count, sizeof *e->writes, compare_writes);
    columnar_io_write *batch = malloc((e->write_count ? e->write_count : 1) * sizeof *batch);
    if (!batch) return -ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < e->write_count; i++) {
        const cc_pending_write *w = &e->writes[i];
        const uint8_t *data = e->buffer + w->buffer_offset;
        if (n && batch[n - 1].offset + batch[n - 1].size == w->ref &&
            (const uint8_t *)batch[n - 1].data + batch[n - 1].size == data && batch[n - 1].size < (1u << 30)) {
            batch[n - 1].size += w->bytes;
            continue;
        }
        batch[n++] = (columnar_io_write){ w->ref, data, w->bytes };
    }
    int rc = n ? db->io->write_batch(db->io->context, db->fd, batch, n) : 0;
    free(batch);
    if (rc) return cc_error(rc, 0, "", "writing %zu new nodes to %s failed: %s", e->write_count, db->path,
                            columnar_strerror(rc));
    return 0;
}

static int grow_file(columnar_txn *txn, uint64_t needed) {
    columnar_db *db = txn->db;
    struct stat st;
    if (fstat(db->fd, &st) != 0) return cc_error(-errno, 0, "", "cannot stat %s", db->path);
    uint64_t size = (uint64_t)st.st_size;
    if (needed <= size) {
        txn->file_size = size;
        return 0;
    }
    /* Grow in large steps: extending the file on every commit costs a metadata sync each time. */
    uint64_t step = size / 4;
    step = step < GROW_MIN_BYTES ? GROW_MIN_BYTES : step > GROW_MAX_STEP_BYTES ? GROW_MAX_STEP_BYTES : step;
    uint64_t target = (needed > size + step ? needed : size + step);
    target = (target + GROW_MIN_BYTES - 1) & ~(GROW_MIN_BYTES - 1);
    if (target > db->map.reserved_bytes) target = db->map.reserved_bytes;
    int rc = db->io->grow(db->io->context, db->fd, target);
    if (rc) return cc_error(rc, 0, "", "cannot grow %s to %llu bytes: %s", db->path, (unsigned long long)target,
                            columnar_strerror(rc));
    txn->file_size = target;
    return 0;
}

int cc_commit(columnar_txn *txn) {
    columnar_db *db = txn->db;
    uint64_t new_version = txn->version + 1;
    cc_committer c;
    memset(&c, 0, sizeof c);
    cc_emitter_init(&c.emitter, txn, allocate);
    c.end = txn->used_size;
    cc_rangevec free_list = { 0 };
    uint64_t *table_refs = NULL;
    int rc = 0;

    /* The base version's top-level nodes are all replaced. */
    cc_node top = { 0 }, tables_node = { 0 };
    if (txn->top_ref) {
        if ((rc = cc_node_read(txn, txn->top_ref, CF_ROLE_TOP, &top)) ||
            (rc = cc_node_child(txn, &top, CF_TOP_TABLES, CF_ROLE_TABLES, false, &tables_node)))
            goto done;
        for (uint32_t i = 0; i < CF_TOP_CHILDREN; i++) {
            uint64_t child = cc_node_ref_at(&top, i);
            if (i == CF_TOP_SCHEMA && !txn->schema_dirty) continue;
            if ((rc = cc_free_node(txn, child))) goto done;
        }
        if ((rc = cc_free_node(txn, txn->top_ref))) goto done;
    }
    uint32_t table_count = txn->schema->table_count;
    table_refs = calloc(table_count ? table_count : 1, sizeof *table_refs);
    if (!table_refs) { rc = -ENOMEM; goto done; }
    for (uint32_t t = 0; t < table_count; t++) {
        cc_tstate *ts = t < txn->table_capacity ? &txn->tables[t] : NULL;
        bool removed = (txn->schema->tables[t].flags & CF_TABLE_FLAG_REMOVED) != 0;
        uint64_t base_ref = (tables_node.ref && t < tables_node.count) ? cc_node_ref_at(&tables_node, t) : 0;
        if (ts && ts->loaded && ts->dirty) {
            if (ts->table_ref && (rc = free_table_node(txn, ts->table_ref))) goto done;
            if (removed) table_refs[t] = 0;
            else if ((rc = write_table(&c, t, &table_refs[t]))) goto done;
        } else {
            table_refs[t] = removed ? 0 : base_ref;
        }
    }
    uint64_t top_children[CF_TOP_CHILDREN] = { 0 };
    if ((rc = cc_emit_refs(&c.emitter, CF_ROLE_TABLES, 0, table_refs, table_count, &top_children[CF_TOP_TABLES])))
        goto done;
    if (txn->schema_dirty || !txn->top_ref) {
        uint8_t *bytes;
        uint64_t size;
        if ((rc = cc_schema_encode(txn->schema, &bytes, &size))) goto done;
        rc = cc_emit_raw(&c.emitter, COLUMNAR_ENCODING_BYTES, 8, CF_ROLE_SCHEMA, 0, size, bytes, size,
                         &top_children[CF_TOP_SCHEMA]);
        free(bytes);
        if (rc) goto done;
    } else {
        top_children[CF_TOP_SCHEMA] = cc_node_ref_at(&top, CF_TOP_SCHEMA);
    }
    int64_t meta[CF_TOP_META_COUNT] = { (int64_t)new_version, db->cluster_size };
    if ((rc = cc_emit_ints(&c.emitter, CF_ROLE_META, 0, meta, CF_TOP_META_COUNT, &top_children[CF_TOP_META])))
        goto done;

    /* Free list and top go at the end, so placing them cannot change the list they record. */
    if ((rc = build_free_list(txn, new_version, &free_list))) goto done;
    /* Reusable space at the very end is given back to the end of the used file instead of being listed. */
    while (free_list.count) {
        cc_range *last = &free_list.items[free_list.count - 1];
        if (last->pos + last->size != c.end || last->version > txn->oldest_pinned) break;
        c.end = last->pos;
        free_list.count--;
    }
    c.bump_only = true;
    uint64_t free_bytes = 0;
    {
        size_t n = free_list.count;
        int64_t *column = malloc((n ? n : 1) * sizeof *column);
        if (!column) { rc = -ENOMEM; goto done; }
        for (size_t i = 0; i < n; i++) column[i] = (int64_t)free_list.items[i].pos;
        rc = cc_emit_ints(&c.emitter, CF_ROLE_FREE_POS, 0, column, n, &top_children[CF_TOP_FREE_POS]);
        for (size_t i = 0; i < n; i++) free_bytes += free_list.items[i].size;
        for (size_t i = 0; i < n && !rc; i++) column[i] = (int64_t)free_list.items[i].size;
        if (!rc) rc = cc_emit_ints(&c.emitter, CF_ROLE_FREE_SIZE, 0, column, n, &top_children[CF_TOP_FREE_SIZE]);
        for (size_t i = 0; i < n && !rc; i++) column[i] = (int64_t)free_list.items[i].version;
        if (!rc) rc = cc_emit_ints(&c.emitter, CF_ROLE_FREE_VERSION, 0, column, n, &top_children[CF_TOP_FREE_VERSION]);
        free(column);
        if (rc) goto done;
    }
    uint64_t top_ref;
    if ((rc = cc_emit_refs(&c.emitter, CF_ROLE_TOP, 0, top_children, CF_TOP_CHILDREN, &top_ref))) goto done;

    /* From here on the file is written: a failure poisons the transaction. */
    if ((rc = grow_file(txn, c.end)) || (rc = write_nodes(txn, &c.emitter))) goto failed_io;
    if (durable(db) && (rc = db->io->sync(db->io->context, db->fd))) {
        rc = cc_error(rc, 0, "", "fdatasync of %s after writing nodes failed: %s", db->path, columnar_strerror(rc));
        goto failed_io;
    }
    if ((rc = write_header(txn, new_version, top_ref, c.end, free_bytes))) goto failed_io;
    if (durable(db) && (rc = db->io->sync(db->io->context, db->fd))) {
        rc = cc_error(rc, 0, "", "fdatasync of %s after writing the header failed: %s", db->path,
                      columnar_strerror(rc));
        goto failed_io;
    }
    if ((rc = cc_map_ensure(&db->map, db->fd, c.end))) goto failed_io;
    cc_published published = { new_version, top_ref, c.end, txn->file_size };
    cc_lock_publish(db->lock, &published);
    goto done;
failed_io:
    txn->poisoned = true;
done:
    free(table_refs);
    cc_rangevec_free(&free_list);
    cc_emitter_free(&c.emitter);
    return rc;
}

int cc_create_initial_version(columnar_db *db) {
    /* The header page first (no valid slot yet), then version 1 through the ordinary commit. */
    static const uint8_t zero_page[CF_HEADER_BYTES];
    cf_header header;
    memset(&header, 0, sizeof header);
    memcpy(header.magic, CF_MAGIC, CF_MAGIC_BYTES);
    header.format_version = CF_FORMAT_VERSION;
    header.header_bytes = CF_HEADER_BYTES;
    uint8_t page[CF_HEADER_BYTES];
    memcpy(page, zero_page, sizeof page);
    memcpy(page, &header, sizeof header);
    int rc = db->io->grow(db->io->context, db->fd, GROW_MIN_BYTES);
    if (rc) return cc_error(rc, 0, "", "cannot size the new file %s: %s", db->path, columnar_strerror(rc));
    columnar_io_write write = { 0, page, sizeof page };
    if ((rc = db->io->write_batch(db->io->context, db->fd, &write, 1)))
        return cc_error(rc, 0, "", "cannot write the header of %s: %s", db->path, columnar_strerror(rc));
    if ((rc = cc_map_ensure(&db->map, db->fd, CF_HEADER_BYTES))) return rc;
    columnar_txn *txn = calloc(1, sizeof *txn);
    if (!txn) return -ENOMEM;
    txn->db = db;
    txn->is_write = true;
    txn->used_size = CF_HEADER_BYTES;
    txn->schema = cc_schema_empty();
    txn->schema_dirty = true;
    txn->oldest_pinned = 0;
    rc = txn->schema ? cc_commit(txn) : -ENOMEM;
    cc_schema_release(txn->schema);
    cc_rangevec_free(&txn->to_free);
    cc_rangevec_free(&txn->free_list);
    free(txn);
    return rc;
}
