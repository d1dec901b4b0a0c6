/*
 * recovery.c — which version a file opens at, and the repair that makes it durable again after a process died
 * or a sync failed (recovery.h; the argument for why this is safe is in docs/CommitPath.md).
 */
#include "recovery.h"

#include "checksum.h"
#include "node.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The reason of the last failed check, for a problem string. */
static void take_reason(char *problem, size_t problem_size, const char *what) {
    snprintf(problem, problem_size, "%s: %s", what, columnar_last_error()->message);
}

int cc_version_verify(const uint8_t *base, const cf_slot *slot, char *problem, size_t problem_size) {
    uint64_t limit = slot->used_size;
    cc_node top, meta, record;
    if (cc_node_view(base, limit, slot->top_ref, CF_ROLE_TOP, true, &top)) {
        take_reason(problem, problem_size, "its top node is damaged or incomplete");
        return COLUMNAR_ECORRUPT;
    }
    if (top.encoding != COLUMNAR_ENCODING_REFS || top.count != CF_TOP_CHILDREN) {
        snprintf(problem, problem_size, "its top node at %llu has %u children, not %u",
                 (unsigned long long)top.ref, top.count, CF_TOP_CHILDREN);
        return COLUMNAR_ECORRUPT;
    }
    if (cc_node_view(base, limit, cc_node_ref_at(&top, CF_TOP_META), CF_ROLE_META, true, &meta)) {
        take_reason(problem, problem_size, "its version meta is damaged or incomplete");
        return COLUMNAR_ECORRUPT;
    }
    if (meta.encoding != COLUMNAR_ENCODING_PACKED_INT || meta.count < CF_TOP_META_COUNT ||
        cc_node_int_at(&meta, CF_TOP_META_VERSION) != (int64_t)slot->version) {
        snprintf(problem, problem_size, "its version meta at %llu does not record version %llu",
                 (unsigned long long)meta.ref, (unsigned long long)slot->version);
        return COLUMNAR_ECORRUPT;
    }
    if (cc_node_view(base, limit, cc_node_ref_at(&top, CF_TOP_COMMIT_RECORD), CF_ROLE_COMMIT_RECORD, true,
                     &record)) {
        take_reason(problem, problem_size, "its commit record is damaged or incomplete");
        return COLUMNAR_ECORRUPT;
    }
    if (record.encoding != COLUMNAR_ENCODING_PACKED_INT || record.width != 64 || record.count % CF_RECORD_FIELDS ||
        ((slot->flags & CF_SLOT_NODES_SYNCED) && record.count != 0)) {
        snprintf(problem, problem_size, "its commit record at %llu has the wrong shape (width %u, %u values%s)",
                 (unsigned long long)record.ref, record.width, record.count,
                 (slot->flags & CF_SLOT_NODES_SYNCED) ? ", for a version whose nodes were synced first" : "");
        return COLUMNAR_ECORRUPT;
    }
    for (uint32_t entry = 0; entry < record.count / CF_RECORD_FIELDS; entry++) {
        uint64_t pos = (uint64_t)cc_node_int_at(&record, entry * CF_RECORD_FIELDS + CF_RECORD_POS);
        uint64_t size = (uint64_t)cc_node_int_at(&record, entry * CF_RECORD_FIELDS + CF_RECORD_SIZE);
        uint64_t crc = (uint64_t)cc_node_int_at(&record, entry * CF_RECORD_FIELDS + CF_RECORD_CRC);
        uint64_t version = (uint64_t)cc_node_int_at(&record, entry * CF_RECORD_FIELDS + CF_RECORD_VERSION);
        if (pos < CF_HEADER_BYTES || (pos & 7) || size == 0 || (size & 7) || size > limit || pos > limit - size ||
            version <= slot->base_version || version > slot->version || crc > UINT32_MAX) {
            snprintf(problem, problem_size, "entry %u of its commit record at %llu (%llu bytes at %llu, version %llu) "
                     "is invalid", entry, (unsigned long long)record.ref, (unsigned long long)size,
                     (unsigned long long)pos, (unsigned long long)version);
            return COLUMNAR_ECORRUPT;
        }
        uint32_t computed = cc_crc32c(0, base + pos, (size_t)size);
        if (computed != (uint32_t)crc) {
            snprintf(problem, problem_size, "the %llu bytes at %llu written by version %llu fail their checksum (a "
                     "write that did not reach the disk whole)", (unsigned long long)size, (unsigned long long)pos,
                     (unsigned long long)version);
            return COLUMNAR_ECORRUPT;
        }
    }
    return 0;
}

/* Adds one write to a growing batch. */
static int batch_add(columnar_io_write **batch, size_t *count, size_t *capacity, uint64_t offset, const void *data,
                     size_t size) {
    if (*count == *capacity) {
        size_t grown_capacity = *capacity ? *capacity * 2 : 32;
        columnar_io_write *grown = realloc(*batch, grown_capacity * sizeof *grown);
        if (!grown) return -ENOMEM;
        *batch = grown;
        *capacity = grown_capacity;
    }
    (*batch)[(*count)++] = (columnar_io_write){ offset, data, size };
    return 0;
}

static int compare_writes(const void *a, const void *b) {
    const columnar_io_write *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Rewrites everything `chosen` depends on that may not be durable and zeroes the slots above it (and the damaged
 * ones), then syncs. The bytes come from the mapping: they were just verified. */
static int repair_write(columnar_db *db, const cc_header *header, int chosen) {
    const cf_slot *slot = &header->slots[chosen].slot;
    const uint8_t *base = db->map.base;
    static const uint8_t zero_sector[CF_SECTOR_BYTES];
    columnar_io_write *batch = NULL;
    size_t count = 0, capacity = 0;
    int rc = 0;
    cc_node top, record;
    /* Verified just now, so these reads succeed. The record lists every range but the top and itself. */
    if ((rc = cc_node_view(base, slot->used_size, slot->top_ref, CF_ROLE_TOP, false, &top)) ||
        (rc = cc_node_view(base, slot->used_size, cc_node_ref_at(&top, CF_TOP_COMMIT_RECORD), CF_ROLE_COMMIT_RECORD,
                           false, &record)))
        goto done;
    const cc_node *own[] = { &top, &record };
    for (int i = 0; i < 2 && !rc; i++)
        rc = batch_add(&batch, &count, &capacity, own[i]->ref, base + own[i]->ref,
                       (size_t)cc_node_span(own[i]->payload_bytes));
    for (uint32_t entry = 0; entry < record.count / CF_RECORD_FIELDS && !rc; entry++) {
        uint64_t pos = (uint64_t)cc_node_int_at(&record, entry * CF_RECORD_FIELDS + CF_RECORD_POS);
        uint64_t size = (uint64_t)cc_node_int_at(&record, entry * CF_RECORD_FIELDS + CF_RECORD_SIZE);
        rc = batch_add(&batch, &count, &capacity, pos, base + pos, (size_t)size);
    }
    for (uint32_t index = 0; index < CF_SLOT_COUNT && !rc; index++) {
        const cc_slot_view *view = &header->slots[index];
        uint64_t offset = (uint64_t)CF_SECTOR_BYTES * (1 + index);
        if ((int)index == chosen) rc = batch_add(&batch, &count, &capacity, offset, &view->slot, sizeof view->slot);
        else if (!view->is_zero && (!view->usable || view->slot.version > slot->version))
            rc = batch_add(&batch, &count, &capacity, offset, zero_sector, sizeof zero_sector);
    }
    if (rc) goto done;
    /* write_batch wants disjoint ranges in order. Ranges of a whole version never overlap, but the same bytes
     * written twice would do no harm either: merge defensively. */
    qsort(batch, count, sizeof *batch, compare_writes);
    size_t kept = 0;
    for (size_t i = 0; i < count; i++) {
        if (kept && batch[kept - 1].offset + batch[kept - 1].size > batch[i].offset) {
            uint64_t end = batch[i].offset + batch[i].size;
            uint64_t kept_end = batch[kept - 1].offset + batch[kept - 1].size;
            if (end > kept_end) batch[kept - 1].size = (size_t)(end - batch[kept - 1].offset);
            continue;
        }
        batch[kept++] = batch[i];
    }
    count = kept;
    rc = db->io->write_batch(db->io->context, db->fd, batch, count);
    if (rc) {
        rc = cc_error(rc, 0, "", "repairing %s: rewriting version %llu failed: %s", db->path,
                      (unsigned long long)slot->version, columnar_strerror(rc));
        goto done;
    }
    cc_io_step(db->io, COLUMNAR_STEP_REPAIR_WRITTEN);
    if (db->lock) {
        bool died;
        while (cc_lock_sync_lead(db->lock, &died) != 1) {
        }
    }
    rc = db->io->sync(db->io->context, db->fd);
    if (db->lock) {
        cc_lock_sync_release(db->lock);
        cc_lock_sync_wake(db->lock);
    }
    if (rc)
        rc = cc_error(rc, 0, "", "repairing %s: the fdatasync that makes version %llu durable failed: %s", db->path,
                      (unsigned long long)slot->version, columnar_strerror(rc));
done:
    free(batch);
    return rc;
}

int cc_recover(columnar_db *db, cc_repair_kind kind, uint64_t durable, bool can_write, cc_version_state *out_state) {
    cc_header *header = malloc(sizeof *header);
    if (!header) return -ENOMEM;
    int rc = cc_header_read(db->fd, db->path, header);
    if (rc) goto done;
    if ((rc = cc_map_ensure(&db->map, db->fd, header->file_size))) goto done;

    /* Usable slots, highest version first. */
    int order[CF_SLOT_COUNT], usable_count = 0;
    for (int index = 0; index < (int)CF_SLOT_COUNT; index++) {
        if (!header->slots[index].usable) continue;
        int at = usable_count++;
        while (at > 0 && header->slots[order[at - 1]].slot.version < header->slots[index].slot.version) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = index;
    }
    char reasons[640] = "";
    size_t reasons_used = 0;
    int chosen = -1;
    for (int k = 0; k < usable_count && chosen < 0; k++) {
        const cf_slot *slot = &header->slots[order[k]].slot;
        if (slot->version < durable) break;
        /* A failed sync leaves pages the cache holds but the disk may not: versions above the durable one are
         * dropped unread, however whole they look from here. */
        if (kind == CC_REPAIR_INVALIDATE && slot->version > durable) continue;
        char problem[256];
        if (cc_version_verify(db->map.base, slot, problem, sizeof problem) == 0) {
            chosen = order[k];
            break;
        }
        if (reasons_used < sizeof reasons - 1)
            reasons_used += (size_t)snprintf(reasons + reasons_used, sizeof reasons - reasons_used, "%sversion %llu: %s",
                                             reasons_used ? "; " : "", (unsigned long long)slot->version, problem);
    }
    if (chosen < 0) {
        char floor[64] = "";
        if (durable) snprintf(floor, sizeof floor, " at or above the durable version %llu", (unsigned long long)durable);
        rc = CC_CORRUPT(CF_SECTOR_BYTES, "%s has no whole version%s (%d usable header slots%s%s)", db->path, floor,
                        usable_count, reasons_used ? "; " : "", reasons);
        goto done;
    }
    const cf_slot *slot = &header->slots[chosen].slot;
    if (can_write && (rc = repair_write(db, header, chosen))) {
        if (db->lock) cc_lock_set_storage_failed(db->lock, rc);
        goto done;
    }
    cc_version_state state = { slot->version, slot->top_ref, slot->used_size, header->file_size, slot->base_version };
    if (db->lock) {
        uint64_t epoch, written;
        cc_lock_chain_read(db->lock, &epoch, &written);
        /* Versions above the chosen one that were written and never made durable are gone: committers waiting
         * for them must learn they failed. (After a failed sync they have already, but a failure recorded twice
         * only gives the same answer twice.) */
        if (written > slot->version) cc_lock_record_failure(db->lock, slot->version, -EIO, false);
        cc_lock_record_version(db->lock, &state);
        cc_lock_chain_reset(db->lock, slot->version);
        if (can_write) {
            cc_lock_set_durable(db->lock, slot->version);
            cc_lock_repair_done(db->lock);
        }
        uint64_t published = cc_lock_published_version(db->lock);
        if (published > slot->version) {
            /* Readers were given a version (written without waiting for a sync) that is gone now. */
            cc_lock_set_storage_failed(db->lock, -EIO);
            rc = CC_FAIL(COLUMNAR_ESTORAGE, "%s: version %llu, which readers have seen, did not survive a failed "
                         "sync or a writer's death; the file refuses writes until every handle has closed it",
                         db->path, (unsigned long long)published);
            goto done;
        }
        cc_lock_publish(db->lock, slot->version);
    }
    *out_state = state;
done:
    free(header);
    return rc;
}
