/*
 * commit.c — encoding a write transaction into a new version and writing it (docs/CommitPath.md):
 *
 *   1. encode every private structure into new nodes, placed in space no reader can still see and that was
 *      freed before the last durable version (or at the end of the used part of the file);
 *   2. build the new free list (old entries, minus what was reused, plus this commit's freed nodes tagged with
 *      the new version), the commit record (every range written since the durable version, with a CRC each)
 *      and the new top node, together in a region reserved for them, so their own placement cannot change the
 *      list they record;
 *   3. write the nodes and the new version's header slot in one batch; a commit of more than
 *      CF_ONE_SYNC_MAX_BYTES syncs its nodes first and marks its slot NODES_SYNCED;
 *   4. name the version the latest written one in the lock file, unless a failed sync ended the chain it built on.
 *
 * Making it durable (one fdatasync, shared with concurrent committers) and publishing it to readers come after
 * the writer lock is released: durability.c.
 */
#include "commit.h"

#include "checksum.h"
#include "tree.h"
#include "durability.h"
#include "header.h"
#include "recovery.h"
#include "writelog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GROW_MIN_BYTES (1ull << 20)
#define GROW_MAX_STEP_BYTES (1ull << 30)
/* A commit record longer than this many entries is not worth its recovery-time reads: sync the nodes first. */
#define CC_RECORD_MAX_ENTRIES 4096u
/* A commit with more than this left to place takes scattered free space rather than growing the file (see
 * allocate). */
#define CC_RUN_MAX_GROWTH_BYTES (256u * 1024u)
/* Free space smaller than this is not worth a piece of a run: it would add a page to the sync for a few nodes. */
#define CC_RUN_MIN_PIECE_BYTES 4096u

typedef struct cc_committer {
    cc_emitter emitter;       /* first, so the allocator can recover the committer */
    uint64_t end;             /* end of the used part of the file */
    bool bump_only;           /* allocate from [region_next, region_end) only: the free list, record and top */
    uint64_t region_next;
    uint64_t region_end;
    size_t next_fit;          /* the free-list entry the current run of nodes goes through (SIZE_MAX: none) */
    uint64_t estimated_bytes; /* what the commit will place, estimated from the nodes it replaces */
    uint64_t placed_bytes;    /* what it has placed so far */
} cc_committer;

static uint64_t allocate(cc_emitter *emitter, uint64_t bytes, int *error) {
    cc_committer *c = (cc_committer *)emitter;
    columnar_txn *txn = emitter->txn;
    if (c->bump_only) {
        /* The free list, the commit record and the top go into the region reserved for them (write_tail). */
        if (c->region_next + bytes > c->region_end) {
            *error = CC_CORRUPT(c->region_next, "internal error: the free list or commit record outgrew its reserved "
                                "region");
            return 0;
        }
        uint64_t pos = c->region_next;
        c->region_next += bytes;
        return pos;
    }
    {
        /* Nodes go one after another through a run of free space, so that a commit's nodes share as few pages as
         * they can: every page a commit touches is one more page its fdatasync writes. The run goes on in the
         * entry last used; a new run starts in the smallest reusable entry that holds what the commit still has
         * to place (estimated from what it replaces), or else at the end of the used file; a large commit that
         * finds no such entry takes the first that fits, rather than growing the file. */
        cc_rangevec *list = &txn->free_list;
        size_t chosen = SIZE_MAX;
        if (c->next_fit < list->count) {
            cc_range *entry = &list->items[c->next_fit];
            if (entry->size >= bytes && entry->version <= txn->oldest_pinned) chosen = c->next_fit;
        }
        uint64_t wanted = c->placed_bytes < c->estimated_bytes ? c->estimated_bytes - c->placed_bytes : 0;
        if (wanted < bytes) wanted = bytes;
        if (chosen == SIZE_MAX) {
            for (size_t i = 0; i < list->count; i++) {
                const cc_range *entry = &list->items[i];
                if (entry->size >= wanted && entry->version <= txn->oldest_pinned &&
                    (chosen == SIZE_MAX || entry->size < list->items[chosen].size))
                    chosen = i;
            }
        }
        for (size_t i = 0; chosen == SIZE_MAX && wanted > CC_RUN_MAX_GROWTH_BYTES && i < list->count; i++)
            if (list->items[i].size >= bytes && list->items[i].version <= txn->oldest_pinned) chosen = i;
        /* No entry holds the rest of a small commit. While the file has room past the used end, the run goes
         * there: contiguous, the fewest pages. Growing the file, though, would leave for good every hole smaller
         * than a whole commit: a commit that changes one object frees its cluster's nodes and usually needs a little
         * more than them (a value that widens a column), so the file would grow by most of a commit every commit.
         * So where the node would not fit in the file, the run goes on in the largest reusable entry of at least a
         * page instead; each such piece costs the sync a page or two more than the same bytes in one run. (A size
         * of 0 is not known yet: the first commit of a handle learns it.) */
        uint64_t file_bytes = atomic_load_explicit(&txn->db->known_file_bytes, memory_order_relaxed);
        if (chosen == SIZE_MAX && file_bytes != 0 && c->end + bytes > file_bytes) {
            size_t largest = SIZE_MAX;
            for (size_t i = 0; i < list->count; i++) {
                const cc_range *entry = &list->items[i];
                if (entry->size >= bytes && entry->size >= CC_RUN_MIN_PIECE_BYTES &&
                    entry->version <= txn->oldest_pinned &&
                    (largest == SIZE_MAX || entry->size > list->items[largest].size))
                    largest = i;
            }
            chosen = largest;
        }
        if (chosen != SIZE_MAX) {
            cc_range *entry = &list->items[chosen];
            uint64_t pos = entry->pos;
            entry->pos += bytes;
            entry->size -= bytes;
            c->next_fit = chosen;
            c->placed_bytes += bytes;
            return pos;
        }
        c->next_fit = SIZE_MAX;
        c->placed_bytes += bytes;
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
    int64_t keyed_by = ts->keys_are_primary_keys && schema->primary_key != CF_NO_COLUMN ? schema->primary_key + 1 : 0;
    int64_t meta[CF_TABLE_META_WRITTEN] = { (int64_t)ts->object_count, (int64_t)ts->next_key, keyed_by };
    if ((rc = cc_emit_ints(e, CF_ROLE_META, 0, meta, CF_TABLE_META_WRITTEN, &children[CF_TABLE_META]))) return rc;
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
    int rc = cc_node_read_verified(txn, table_ref, CF_ROLE_TABLE, &node);
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

/* Writes zeros over [from, to): preallocated space must be written once, or every later commit that puts
 * nodes there pays for converting "unwritten" extents (a metadata journal commit inside its fdatasync, and
 * io_uring handing the write to a kernel worker because it cannot complete without allocating). */
static int zero_fill(const columnar_io *io, int fd, uint64_t from, uint64_t to) {
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
        int rc = io->write_batch(io->context, fd, batch, n);
        if (rc) return rc;
    }
    return 0;
}

/* Makes the file at least `needed` bytes long, growing in large steps (extending the file on every commit costs
 * a metadata sync each time) and writing zeros over the slack past [from, needed) once. Returns the new size in
 * *out_size. `known` is a size the file is known to have (0: unknown); it is asked for only when `needed` is
 * beyond it, and updated. */
static int grow_file(const columnar_io *io, int fd, const char *path, const cc_map *map, uint64_t needed,
                     _Atomic uint64_t *known, uint64_t *out_size) {
    uint64_t reserved_bytes = map->reserved_bytes;
    uint64_t known_size = atomic_load_explicit(known, memory_order_relaxed);
    if (needed <= known_size) {
        *out_size = known_size;
        return 0;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) return cc_error(-errno, 0, "", "cannot stat %s", path);
    uint64_t size = cc_map_logical_bytes(map, (uint64_t)st.st_size);
    if (needed <= size) {
        atomic_store_explicit(known, size, memory_order_relaxed);
        *out_size = size;
        return 0;
    }
    uint64_t step = size / 4;
    step = step < GROW_MIN_BYTES ? GROW_MIN_BYTES : step > GROW_MAX_STEP_BYTES ? GROW_MAX_STEP_BYTES : step;
    uint64_t target = (needed > size + step ? needed : size + step);
    target = (target + GROW_MIN_BYTES - 1) & ~(GROW_MIN_BYTES - 1);
    if (target > reserved_bytes) target = reserved_bytes;
    int rc = io->grow(io->context, fd, target);
    /* This commit's own nodes cover [used end, needed); only the slack after them needs zeros. */
    if (!rc) rc = zero_fill(io, fd, needed > size ? needed : size, target);
    if (rc) return cc_error(rc, 0, "", "cannot grow %s to %llu bytes: %s", path, (unsigned long long)target,
                            columnar_strerror(rc));
    atomic_store_explicit(known, target, memory_order_relaxed);
    *out_size = target;
    return 0;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The commit record                                                                                            */
/* ---------------------------------------------------------------------------------------------------------- */

typedef struct cc_record {
    int64_t *values;          /* CF_RECORD_FIELDS per entry */
    size_t entry_count;
    size_t capacity;          /* entries */
} cc_record;

static int record_push(cc_record *record, uint64_t pos, uint64_t size, uint32_t crc, uint64_t version) {
    if (record->entry_count == record->capacity) {
        size_t capacity = record->capacity ? record->capacity * 2 : 64;
        int64_t *grown = realloc(record->values, capacity * CF_RECORD_FIELDS * sizeof *grown);
        if (!grown) return -ENOMEM;
        record->values = grown;
        record->capacity = capacity;
    }
    int64_t *entry = record->values + record->entry_count++ * CF_RECORD_FIELDS;
    entry[CF_RECORD_POS] = (int64_t)pos;
    entry[CF_RECORD_SIZE] = (int64_t)size;
    entry[CF_RECORD_CRC] = crc;
    entry[CF_RECORD_VERSION] = (int64_t)version;
    return 0;
}

/* The entries of the base version's record that a version based on `base_version` must carry on: those written
 * after it, whose durability is not yet known. The record is read from the file, checksum first. */
static int record_carry(columnar_txn *txn, uint64_t base_version, cc_record *out) {
    if (!txn->top_ref || txn->version <= base_version) return 0;
    cc_node top, record;
    int rc = cc_node_read_verified(txn, txn->top_ref, CF_ROLE_TOP, &top);
    if (rc) return rc;
    if ((rc = cc_node_child_verified(txn, &top, CF_TOP_COMMIT_RECORD, CF_ROLE_COMMIT_RECORD, &record))) return rc;
    if (record.encoding != COLUMNAR_ENCODING_PACKED_INT || record.width != 64 || record.count % CF_RECORD_FIELDS)
        return CC_CORRUPT(record.ref, "commit record at %llu has the wrong shape", (unsigned long long)record.ref);
    for (uint32_t entry = 0; entry < record.count / CF_RECORD_FIELDS; entry++) {
        const int64_t *field = (const int64_t *)record.payload + (size_t)entry * CF_RECORD_FIELDS;
        if ((uint64_t)field[CF_RECORD_VERSION] <= base_version) continue;
        if ((rc = record_push(out, (uint64_t)field[CF_RECORD_POS], (uint64_t)field[CF_RECORD_SIZE],
                              (uint32_t)field[CF_RECORD_CRC], (uint64_t)field[CF_RECORD_VERSION])))
            return rc;
    }
    return 0;
}

static int compare_pending(const void *a, const void *b) {
    const cc_pending_write *x = a, *y = b;
    return x->ref < y->ref ? -1 : x->ref > y->ref;
}

/* Appends the emitter's writes so far, coalesced into contiguous file ranges with the CRC of each, tagged with
 * `version`. Returns the number of ranges in *out_range_count. */
static int record_ranges(const cc_emitter *e, uint64_t version, cc_record *out, size_t *out_range_count) {
    size_t count = e->write_count;
    *out_range_count = 0;
    if (!count) return 0;
    cc_pending_write *writes = malloc(count * sizeof *writes);
    if (!writes) return -ENOMEM;
    memcpy(writes, e->writes, count * sizeof *writes);
    qsort(writes, count, sizeof *writes, compare_pending);
    int rc = 0;
    uint64_t start = writes[0].ref, end = writes[0].ref;
    uint32_t crc = 0;
    for (size_t i = 0; i <= count && !rc; i++) {
        if (i == count || writes[i].ref != end) {
            rc = record_push(out, start, end - start, crc, version);
            (*out_range_count)++;
            if (i == count) break;
            start = end = writes[i].ref;
            crc = 0;
        }
        crc = cc_crc32c(crc, e->buffer + writes[i].buffer_offset, (size_t)writes[i].bytes);
        end += writes[i].bytes;
    }
    free(writes);
    return rc;
}

/* Whether one of the emitter's writes ends exactly at `pos` (a range starting there would join it). */
static bool a_write_ends_at(const cc_emitter *e, uint64_t pos) {
    for (size_t i = 0; i < e->write_count; i++)
        if (e->writes[i].ref + e->writes[i].bytes == pos) return true;
    return false;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The tail: free list, commit record, top                                                                      */
/* ---------------------------------------------------------------------------------------------------------- */

/* Bytes the free list's three arrays (fixed 64-bit width) take for `entries` entries. */
static uint64_t free_list_bytes(size_t entries) { return 3 * cc_node_span((uint64_t)entries * 8); }
static uint64_t record_bytes(size_t entries) { return cc_node_span((uint64_t)entries * CF_RECORD_FIELDS * 8); }
static uint64_t top_bytes(void) { return cc_node_span(CF_TOP_CHILDREN * 8); }

/* Emits one packed array of fixed 64-bit width (the free list's and the record's: their size must depend on
 * their count only, since it is reserved before their values are known). */
static int emit_wide(cc_emitter *e, const int64_t *values, size_t count, uint8_t role, uint64_t *out_ref) {
    uint8_t *payload = cc_emit_begin(e, count * 8);
    if (!payload) return -ENOMEM;
    if (count) cc_packed_encode(values, count, 64, 0, payload);
    return cc_emit_end(e, COLUMNAR_ENCODING_PACKED_INT, 64, role, 0, count, out_ref);
}

/* Places and writes the free list, the commit record and the top. Their own placement would change the list
 * they record, so one region is reserved first, with room for two more list entries than the list has now
 * (carving the region may split an entry; the unused rest of the region becomes one more entry) and for the
 * record's worst case, out of space reusable now, or else at the end. The arrays use a fixed 64-bit width so
 * their size depends only on their counts. `record` holds the carried-on entries; with `one_sync` this
 * commit's own ranges are added (the free list's included), else the record stays empty. `run_pos` is where
 * the nodes' run of free space goes on (0: none). */
static int write_tail(cc_committer *c, cc_rangevec *list, uint64_t run_pos, cc_record *record, bool one_sync,
                      uint64_t version, uint64_t top_children[CF_TOP_CHILDREN], uint64_t *out_top_ref,
                      uint64_t *out_free_bytes) {
    columnar_txn *txn = c->emitter.txn;
    int rc = 0;
    /* Ranges written so far; the free list will be one more unless it joins one of them. */
    cc_record own = { 0 };
    size_t own_ranges = 0;
    if (one_sync && (rc = record_ranges(&c->emitter, version, &own, &own_ranges))) goto done;
    size_t worst_entries = one_sync ? record->entry_count + own_ranges + 1 : 0;
    uint64_t reserved = free_list_bytes(list->count + 2) + record_bytes(worst_entries) + top_bytes() + 8;
    uint64_t region = 0, region_version = 0;
    /* The free space right after the nodes' run first, so the tail shares their pages; then the first that fits. */
    size_t at_run = list->count;
    for (size_t i = 0; run_pos && i < list->count; i++)
        if (list->items[i].pos == run_pos) at_run = i;
    for (size_t k = 0; k <= list->count; k++) {
        size_t i = k == 0 ? at_run : k - 1;
        if (i >= list->count) continue;
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
    size_t record_entries = one_sync ? record->entry_count + own_ranges + (a_write_ends_at(&c->emitter, region) ? 0 : 1)
                                     : 0;
    uint64_t list_used = free_list_bytes(list->count + 1);
    uint64_t used = list_used + record_bytes(record_entries) + top_bytes();
    /* The rest of the region (at least 8 bytes by construction) goes back on the list, sorted in place. */
    cc_range rest = { region + used, reserved - used, region_version };
    if ((rc = cc_rangevec_push(list, rest.pos, rest.size, rest.version))) goto done;
    size_t at = list->count - 1;
    while (at > 0 && list->items[at - 1].pos > rest.pos) {
        list->items[at] = list->items[at - 1];
        at--;
    }
    list->items[at] = rest;

    size_t n = list->count;
    int64_t *column = malloc((n ? n : 1) * sizeof *column);
    if (!column) {
        rc = -ENOMEM;
        goto done;
    }
    c->bump_only = true;
    c->region_next = region;
    c->region_end = region + used;
    static const uint8_t roles[3] = { CF_ROLE_FREE_POS, CF_ROLE_FREE_SIZE, CF_ROLE_FREE_VERSION };
    static const uint32_t slots[3] = { CF_TOP_FREE_POS, CF_TOP_FREE_SIZE, CF_TOP_FREE_VERSION };
    for (int array = 0; array < 3 && !rc; array++) {
        for (size_t i = 0; i < n; i++) {
            const cc_range *r = &list->items[i];
            column[i] = (int64_t)(array == 0 ? r->pos : array == 1 ? r->size : r->version);
        }
        rc = emit_wide(&c->emitter, column, n, roles[array], &top_children[slots[array]]);
    }
    free(column);
    for (size_t i = 0; i < n; i++) *out_free_bytes += list->items[i].size;
    if (rc) goto done;
    if (one_sync) {
        /* This version's ranges again, the free list's now among them. */
        own.entry_count = 0;
        if ((rc = record_ranges(&c->emitter, version, &own, &own_ranges))) goto done;
        if (record->entry_count + own_ranges != record_entries) {
            rc = CC_CORRUPT(region, "internal error: the commit record has %zu entries where %zu were reserved",
                            record->entry_count + own_ranges, record_entries);
            goto done;
        }
        for (size_t i = 0; i < own.entry_count && !rc; i++) {
            const int64_t *f = own.values + i * CF_RECORD_FIELDS;
            rc = record_push(record, (uint64_t)f[CF_RECORD_POS], (uint64_t)f[CF_RECORD_SIZE],
                             (uint32_t)f[CF_RECORD_CRC], (uint64_t)f[CF_RECORD_VERSION]);
        }
        if (rc) goto done;
    }
    if ((rc = emit_wide(&c->emitter, record->values, record_entries * CF_RECORD_FIELDS, CF_ROLE_COMMIT_RECORD,
                        &top_children[CF_TOP_COMMIT_RECORD])))
        goto done;
    rc = cc_emit_refs(&c->emitter, CF_ROLE_TOP, 0, top_children, CF_TOP_CHILDREN, out_top_ref);
done:
    free(own.values);
    return rc;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Encoding                                                                                                     */
/* ---------------------------------------------------------------------------------------------------------- */

/* The emitter's nodes as a write batch in file order, neighbours coalesced into single writes. */
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

void cc_image_free(cc_image *image) {
    free(image->batch);
    cc_emitter_free(&image->emitter);
    memset(image, 0, sizeof *image);
}

int cc_commit_encode(columnar_txn *txn, uint64_t base_version, bool allow_one_sync, cc_image *out) {
    columnar_db *db = txn->db;
    memset(out, 0, sizeof *out);
    uint64_t new_version = txn->version + 1;
    cc_committer c;
    memset(&c, 0, sizeof c);
    cc_emitter_init(&c.emitter, txn, allocate);
    c.end = txn->used_size;
    c.next_fit = SIZE_MAX;
    cc_rangevec free_list = { 0 };
    cc_record record = { 0 };
    uint64_t *table_refs = NULL;
    int rc = 0;

    /* The base version's top-level nodes are all replaced (the schema only when it changed). */
    cc_node top = { 0 }, tables_node = { 0 };
    if (txn->top_ref) {
        if ((rc = cc_node_read_verified(txn, txn->top_ref, CF_ROLE_TOP, &top)) ||
            (rc = cc_node_child_verified(txn, &top, CF_TOP_TABLES, CF_ROLE_TABLES, &tables_node)))
            goto done;
        if (top.count != CF_TOP_CHILDREN) {
            rc = CC_CORRUPT(top.ref, "top node at %llu has %u children", (unsigned long long)top.ref, top.count);
            goto done;
        }
        for (uint32_t i = 0; i < CF_TOP_CHILDREN; i++) {
            uint64_t child = cc_node_ref_at(&top, i);
            if (i == CF_TOP_SCHEMA && !txn->schema_dirty) continue;
            if ((rc = cc_free_node(txn, child))) goto done;
        }
        if ((rc = cc_free_node(txn, txn->top_ref))) goto done;
    }
    /* Copy-on-write replaces nodes one for one, so what was freed is a fair guess at what will be written. */
    for (size_t i = 0; i < txn->to_free.count; i++) c.estimated_bytes += txn->to_free.items[i].size;
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

    /* One sync suffices for a commit small enough that recovery may read it back to verify it. */
    bool one_sync = allow_one_sync && c.emitter.used <= CF_ONE_SYNC_MAX_BYTES;
    if (one_sync && (rc = record_carry(txn, base_version, &record))) goto done;
    if (record.entry_count + c.emitter.write_count > CC_RECORD_MAX_ENTRIES) {
        one_sync = false;
        record.entry_count = 0;
    }

    /* Free list, record and top go last, so placing them cannot change the list they record. */
    uint64_t run_pos = c.next_fit < txn->free_list.count ? txn->free_list.items[c.next_fit].pos : 0;
    if ((rc = build_free_list(txn, new_version, &free_list))) goto done;
    /* Reusable space at the very end is given back to the end of the used file instead of being listed. */
    while (free_list.count) {
        cc_range *last = &free_list.items[free_list.count - 1];
        if (last->pos + last->size != c.end || last->version > txn->oldest_pinned) break;
        c.end = last->pos;
        free_list.count--;
    }
    uint64_t free_bytes = 0, top_ref = 0;
    if ((rc = write_tail(&c, &free_list, run_pos, &record, one_sync, new_version, top_children, &top_ref,
                         &free_bytes)))
        goto done;

    out->version = new_version;
    out->top_ref = top_ref;
    out->used_size = c.end;
    out->free_bytes = free_bytes;
    out->base_version = base_version;
    out->slot_flags = one_sync ? 0 : CF_SLOT_NODES_SYNCED;
    if ((rc = build_batch(&c.emitter, &out->batch, &out->batch_count))) goto done;
    out->emitter = c.emitter;
    memset(&c.emitter, 0, sizeof c.emitter);
done:
    free(table_refs);
    free(record.values);
    cc_rangevec_free(&free_list);
    cc_emitter_free(&c.emitter);
    return rc;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Writing                                                                                                      */
/* ---------------------------------------------------------------------------------------------------------- */

/* Makes the file large enough for the image and readable through the mapping, before anything is written. */
int cc_image_make_room(columnar_db *db, int fd, const cc_image *image, uint64_t *out_file_size) {
    return grow_file(db->io, fd, db->path, &db->map, image->used_size, &db->known_file_bytes,
                     out_file_size);
}

int cc_commit(columnar_txn *txn, cc_written *out) {
    columnar_db *db = txn->db;
    cc_image image;
    memset(&image, 0, sizeof image);
    int rc = 0;
    memset(out, 0, sizeof *out);

    /* Writing slot V overwrites the slot of V - CF_SLOT_COUNT; the durable version's slot must survive until a
     * later one is durable, so at most CF_SLOT_COUNT - 1 versions may wait for a sync. */
    uint64_t durable = cc_durable_version(db);
    if (txn->version + 1 - durable >= CF_SLOT_COUNT) {
        if ((rc = cc_durability_sync_written(db, false))) goto done;
        durable = cc_durable_version(db);
    }
    /* Durable now or not, the record must reach back to the version durable when the base was read, at least:
     * space freed after it is not reused, and everything after it is listed. */
    if (durable > txn->version) durable = txn->version;
    if ((rc = cc_commit_encode(txn, durable, true, &image))) goto done;
    cc_map_note_writing(&db->map, image.version);
    uint64_t file_size = 0;
    if ((rc = cc_image_make_room(db, db->fd, &image, &file_size)) ||
        (rc = cc_map_ensure(&db->map, db->fd, image.used_size)))
        goto done;

    /* From here on the file is written: the nodes first, and the slot only once every node write succeeded, so
     * a failed node write leaves nothing that could name them. */
    cf_slot slot;
    cc_slot_build(&slot, db->file_id, image.version, image.top_ref, image.used_size, image.free_bytes,
                  image.base_version, image.slot_flags);
    rc = image.batch_count ? db->io->write_batch(db->io->context, db->fd, image.batch, image.batch_count) : 0;
    if (rc) {
        rc = cc_error(rc, 0, "", "writing version %llu of %s (%zu ranges) failed: %s",
                      (unsigned long long)image.version, db->path, image.batch_count, columnar_strerror(rc));
        goto failed_io;
    }
    cc_io_step(db->io, COLUMNAR_STEP_NODES_WRITTEN);
    /* A large commit makes its nodes durable before its slot exists, so recovery need not read them back. */
    if ((image.slot_flags & CF_SLOT_NODES_SYNCED) && (rc = cc_durability_sync_written(db, true))) goto failed_io;
    columnar_io_write slot_write = { cf_slot_offset(image.version), &slot, sizeof slot };
    if ((rc = db->io->write_batch(db->io->context, db->fd, &slot_write, 1))) {
        rc = cc_error(rc, 0, "", "writing the header slot of version %llu of %s failed: %s",
                      (unsigned long long)image.version, db->path, columnar_strerror(rc));
        goto failed_io;
    }
    cc_io_step(db->io, COLUMNAR_STEP_SLOT_WRITTEN);
    cc_map_note_written(&db->map, image.version, txn->chain_epoch);
    cc_write_log_note_commit(txn, image.version);
    cc_version_state state = { image.version, image.top_ref, image.used_size, file_size, image.base_version };
    cc_lock_record_version(db->lock, &state);
    if (!cc_lock_chain_advance(db->lock, txn->chain_epoch, txn->version, image.version)) {
        /* A sync failed since this transaction began: the versions it built on are being dropped. */
        rc = cc_error(-EIO, 0, "", "version %llu of %s was built on versions whose fdatasync failed meanwhile; the "
                      "commit is not in the database", (unsigned long long)image.version, db->path);
        goto failed_io;
    }
    cc_io_step(db->io, COLUMNAR_STEP_CHAIN_ADVANCED);
    out->version = image.version;
    out->epoch = txn->chain_epoch;
    goto done;

failed_io:
    txn->poisoned = true;
    /* A failed write copied nothing of its range into the page cache (or a torn prefix, whose CRC fails), so a
     * failed node write left nothing any slot names, and a failed slot write no slot. A slot written whole over a
     * chain a failed sync ended is another matter: the repair that failure asked for zeroes it (and every slot
     * above the durable version) and syncs, so that a commit reporting failure cannot turn up after a crash. It
     * runs now, while this writer holds the lock. */
    if (cc_lock_repair_pending(db->lock) != CC_REPAIR_NONE) {
        cc_version_state unused;
        cc_recover(db, cc_lock_repair_pending(db->lock), cc_lock_durable(db->lock), true, &unused);
    }
done:
    cc_image_free(&image);
    return rc;
}
