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
    bool bump_only;           /* allocate from [region_next, region_end) only: the free list's nodes and the top */
    uint64_t region_next;
    uint64_t region_end;
    size_t next_fit;          /* where the free-list scan resumes */
} cc_committer;

static uint64_t allocate(cc_emitter *emitter, uint64_t bytes, int *error) {
    cc_committer *c = (cc_committer *)emitter;
    columnar_txn *txn = emitter->txn;
    if (c->bump_only) {
        /* The free list and top go into the region reserved for them (write_free_list). */
        if (c->region_next + bytes > c->region_end) {
            *error = CC_CORRUPT(c->region_next, "internal error: the free list outgrew its reserved region");
            return 0;
        }
        uint64_t pos = c->region_next;
        c->region_next += bytes;
        return pos;
    }
    {
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
        const cc_table_schema *index_schema = col < schema->column_count ? cc_index_schema_of(&schema->columns[col])
                                                                          : cc_index_schema();
        if ((rc = cc_tree_write(e, &ts->indexes[col], index_schema, txn->db->cluster_size))) return rc;
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

/* Whether the table must be rewritten: it was changed, or any of its nodes was copied into private memory (and so
 * scheduled to be freed) — even by a lookup that then failed. Keeping the old TABLE node while its nodes go on
 * the free list would let a later commit overwrite live data. */
static bool table_changed(const cc_tstate *ts) {
    if (ts->dirty || ts->root.node) return true;
    for (uint32_t c = 0; c < ts->index_count; c++)
        if (ts->indexes[c].node) return true;
    return false;
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

/* Builds the header that makes `version` current: its slot (version % 2) filled and checksummed, the other slot as
 * it is on disk, the selector pointing at the new slot. */
static int build_header(columnar_txn *txn, uint64_t version, uint64_t top_ref, uint64_t used_size,
                        uint64_t free_bytes, cf_header *header) {
    columnar_db *db = txn->db;
    memset(header, 0, sizeof *header);
    if (txn->top_ref) {
        ssize_t got = pread(db->fd, header, sizeof *header, 0);
        if (got != (ssize_t)sizeof *header) return cc_error(got < 0 ? -errno : -EIO, 0, "", "cannot reread the header");
    }
    memcpy(header->magic, CF_MAGIC, CF_MAGIC_BYTES);
    header->format_version = CF_FORMAT_VERSION;
    header->header_bytes = CF_HEADER_BYTES;
    int slot_index = (int)(version % 2);
    cf_slot *slot = &header->slots[slot_index];
    memset(slot, 0, sizeof *slot);
    slot->top_ref = top_ref;
    slot->version = version;
    slot->used_size = used_size;
    slot->free_bytes = free_bytes;
    slot->checksum = cc_crc32c(0, slot, offsetof(cf_slot, checksum));
    header->selector = (uint8_t)slot_index;
    return 0;
}

static bool durable(const columnar_db *db) {
    return db->durability == COLUMNAR_DURABILITY_FULL && !(db->flags & COLUMNAR_OPEN_IN_MEMORY);
}

/* The emitter's nodes as a write batch, neighbours coalesced into single writes. */
static int build_batch(cc_emitter *e, columnar_io_write **out_batch, size_t *out_count) {
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
    *out_batch = batch;
    *out_count = n;
    return 0;
}

/* Nodes, sync, header, sync: as one submission when the I/O layer offers it, else step by step. */
static int write_durably(columnar_txn *txn, const columnar_io_write *batch, size_t count, const cf_header *header) {
    columnar_db *db = txn->db;
    const columnar_io *io = db->io;
    columnar_io_write header_write = { 0, header, sizeof *header };
    bool sync = durable(db);
    if (io->write_commit) {
        int rc = io->write_commit(io->context, db->fd, batch, count, &header_write, sync);
        if (rc) return cc_error(rc, 0, "", "committing to %s failed: %s", db->path, columnar_strerror(rc));
        return 0;
    }
    int rc = count ? io->write_batch(io->context, db->fd, batch, count) : 0;
    if (rc) return cc_error(rc, 0, "", "writing %zu node ranges to %s failed: %s", count, db->path, columnar_strerror(rc));
    if (sync && (rc = io->sync(io->context, db->fd)))
        return cc_error(rc, 0, "", "fdatasync of %s after writing nodes failed: %s", db->path, columnar_strerror(rc));
    if ((rc = io->write_batch(io->context, db->fd, &header_write, 1)))
        return cc_error(rc, 0, "", "writing the header of %s failed: %s", db->path, columnar_strerror(rc));
    if (sync && (rc = io->sync(io->context, db->fd)))
        return cc_error(rc, 0, "", "fdatasync of %s after writing the header failed: %s", db->path,
                        columnar_strerror(rc));
    return 0;
}

/* Writes zeros over [from, to): preallocated space must be written once, or every later commit that puts
 * nodes there pays for converting "unwritten" extents (a metadata journal commit inside its fdatasync, and
 * io_uring handing the write to a kernel worker because it cannot complete without allocating). */
static int zero_fill(columnar_db *db, uint64_t from, uint64_t to) {
    static const uint8_t zeros[1u << 20];
    enum { batch_ranges = 64 };
    columnar_io_write batch[batch_ranges];
    while (from < to) {
        size_t n = 0;
        for (; n < batch_ranges && from < to; n++) {
            uint64_t size = to - from < sizeof zeros ? to - from : sizeof zeros;
            batch[n] = (columnar_io_write){ from, zeros, (size_t)size };
            from += size;
        }
        int rc = db->io->write_batch(db->io->context, db->fd, batch, n);
        if (rc) return rc;
    }
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
    /* This commit's own nodes cover [used end, needed); only the slack after them needs zeros. */
    if (!rc) rc = zero_fill(db, needed > size ? needed : size, target);
    if (rc) return cc_error(rc, 0, "", "cannot grow %s to %llu bytes: %s", db->path, (unsigned long long)target,
                            columnar_strerror(rc));
    txn->file_size = target;
    return 0;
}

/* Bytes the free list's three arrays (fixed 64-bit width) and the top node take for `entries` entries. */
static uint64_t free_list_bytes(size_t entries) {
    return 3 * cc_node_span((uint64_t)entries * 8) + cc_node_span(CF_TOP_CHILDREN * 8);
}

/* Places and writes the free list and then (by the caller) the top node. Their own placement would change the
 * list they record, so the region is reserved first with room for two more entries than the list has now
 * (carving the region may split an entry; the unused rest of the region becomes one more entry), out of space
 * that is reusable now, or else at the end. The arrays use a fixed 64-bit width so their size depends only on
 * the number of entries. Without this the list and top would always go to the end and the file would grow by
 * their size on every commit. */
static int write_free_list(cc_committer *c, cc_rangevec *list, uint64_t top_children[CF_TOP_CHILDREN],
                           uint64_t *out_free_bytes) {
    columnar_txn *txn = c->emitter.txn;
    uint64_t reserved = free_list_bytes(list->count + 2) + 8;
    uint64_t region = 0, region_version = 0;
    for (size_t i = 0; i < list->count; i++) {
        cc_range *entry = &list->items[i];
        if (entry->size >= reserved && entry->version <= txn->oldest_pinned) {
            region = entry->pos;
            region_version = entry->version;
            entry->pos += reserved;
            entry->size -= reserved;
            if (entry->size == 0) memmove(entry, entry + 1, (list->count - i - 1) * sizeof *entry), list->count--;
            break;
        }
    }
    if (!region) {
        region = c->end;
        c->end += reserved;
    }
    uint64_t used = free_list_bytes(list->count + 1);
    /* The rest of the region (at least 32 bytes by construction) goes back on the list, sorted in place. */
    cc_range rest = { region + used, reserved - used, region_version };
    int rc = cc_rangevec_push(list, rest.pos, rest.size, rest.version);
    if (rc) return rc;
    size_t at = list->count - 1;
    while (at > 0 && list->items[at - 1].pos > rest.pos) {
        list->items[at] = list->items[at - 1];
        at--;
    }
    list->items[at] = rest;
    size_t n = list->count;
    int64_t *column = malloc((n ? n : 1) * sizeof *column);
    if (!column) return -ENOMEM;
    c->bump_only = true;
    c->region_next = region;
    c->region_end = region + used;
    uint8_t roles[3] = { CF_ROLE_FREE_POS, CF_ROLE_FREE_SIZE, CF_ROLE_FREE_VERSION };
    uint32_t slots[3] = { CF_TOP_FREE_POS, CF_TOP_FREE_SIZE, CF_TOP_FREE_VERSION };
    for (int array = 0; array < 3 && !rc; array++) {
        for (size_t i = 0; i < n; i++) {
            const cc_range *r = &list->items[i];
            column[i] = (int64_t)(array == 0 ? r->pos : array == 1 ? r->size : r->version);
        }
        uint8_t *payload = cc_emit_begin(&c->emitter, n * 8);
        if (!payload) { rc = -ENOMEM; break; }
        cc_packed_encode(column, n, 64, payload);
        rc = cc_emit_end(&c->emitter, COLUMNAR_ENCODING_PACKED_INT, 64, roles[array], 0, n, &top_children[slots[array]]);
    }
    free(column);
    for (size_t i = 0; i < n; i++) *out_free_bytes += list->items[i].size;
    return rc;
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
    columnar_io_write *batch = NULL;
    size_t batch_count = 0;
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
        if (ts && ts->loaded && table_changed(ts)) {
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
    uint64_t free_bytes = 0;
    if ((rc = write_free_list(&c, &free_list, top_children, &free_bytes))) goto done;
    uint64_t top_ref;
    if ((rc = cc_emit_refs(&c.emitter, CF_ROLE_TOP, 0, top_children, CF_TOP_CHILDREN, &top_ref))) goto done;

    cf_header header;
    if ((rc = build_header(txn, new_version, top_ref, c.end, free_bytes, &header))) goto done;
    if ((rc = build_batch(&c.emitter, &batch, &batch_count))) goto done;
    /* From here on the file is written: a failure poisons the transaction. */
    if ((rc = grow_file(txn, c.end)) || (rc = write_durably(txn, batch, batch_count, &header))) goto failed_io;
    if ((rc = cc_map_ensure(&db->map, db->fd, c.end))) goto failed_io;
    cc_published published = { new_version, top_ref, c.end, txn->file_size };
    cc_lock_publish(db->lock, &published);
    goto done;
failed_io:
    txn->poisoned = true;
done:
    free(batch);
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
    if (!rc) rc = zero_fill(db, CF_HEADER_BYTES, GROW_MIN_BYTES);
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
