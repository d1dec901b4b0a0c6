/*
 * writelog.c — what each commit set, kept in a ring in the lock file's shared memory so that change observers in
 * any process can report a property set to the value it already held (columnar.h, "Write log").
 *
 * RECORDS. A commit's writes are appended as one group: its writes, one 16-byte record each (table << 32 |
 * column, key), then a trailer (TRAILER_TAG << 32 | flags | count, version). Trailers come last so that a reader
 * walks back from the head: the trailer at head - 1, its writes before it, the previous trailer before them.
 *
 * WHICH ENTRY IS A VERSION'S. Version numbers repeat: a commit that fails leaves its group behind, and the next
 * commit makes the same version (after a failed sync, the next commit may even make a lower one). Whatever is
 * appended later supersedes everything before it with the same or a higher version, since the chain it belongs
 * to was built after those were abandoned. Walking back from the head, a reader therefore accepts a trailer only
 * when its version is below every version accepted so far; the accepted trailers are the current chain.
 *
 * COMPLETENESS. A reader can vouch for a range (after, through] when it walked back to an entry of a version at or
 * below `after`, or to the start of a ring that never wrapped, past every version made since the log was enabled.
 * Every commit made while the log is enabled leaves an entry: the writes its writer logged, or an empty group
 * (the writer logged nothing, so it set nothing the log cares about), or an empty group marked incomplete when the
 * transaction began before the log was enabled (its writer did not know to log). Enabling first raises the flag,
 * then notes the latest written version W: every version above W was committed after the flag was up.
 *
 * CONCURRENCY. Only the writer lock's holder appends, so appends never race each other; readers never lock. An
 * append first raises `reserved` to the head it will reach (a seqlock's opening count), then writes the records
 * over the oldest ones, then publishes `head`. A reader loads `head`, copies what it wants, and then loads
 * `reserved`: whatever it copied from a position below reserved - capacity may have been overwritten while it
 * read, and is read again. `reserved` never goes down, so a writer that died mid-append leaves a conservative
 * bound behind, and its half-written records lie beyond `head`, where no reader looks.
 */
#include "writelog.h"

#include "error.h"
#include "lock.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define TRAILER_TAG 0xFFFFFFFFull
#define TRAILER_INCOMPLETE (1ull << 31)
#define TRAILER_COUNT_MASK (TRAILER_INCOMPLETE - 1)
/* A commit's writes are recorded only when they fill at most half of the ring, so one commit cannot push out
 * every commit a slow observer has still to read. */
#define MAX_GROUP_RECORDS (CC_LOCK_LOG_RECORDS / 2)
#define READ_ATTEMPTS 4

static cc_log_record *record_at(const cc_log_view *view, uint64_t position) {
    return &view->records[position % CC_LOCK_LOG_RECORDS];
}

static void store_record(const cc_log_view *view, uint64_t position, uint64_t first, uint64_t second) {
    cc_log_record *record = record_at(view, position);
    atomic_store_explicit(&record->words[0], first, memory_order_relaxed);
    atomic_store_explicit(&record->words[1], second, memory_order_relaxed);
}

/* Appends one group (the caller holds the writer lock). `writes` is NULL with count 0 for an empty group. */
static void append_group(cc_log_view view, uint64_t version, const columnar_logged_write *writes, size_t count,
                         bool incomplete) {
    if (count > MAX_GROUP_RECORDS - 1) incomplete = true;
    if (incomplete) count = 0;
    uint64_t head = atomic_load_explicit(view.head, memory_order_relaxed);
    uint64_t end = head + count + 1;
    uint64_t reserved = atomic_load_explicit(view.reserved, memory_order_relaxed);
    atomic_store_explicit(view.reserved, reserved > end ? reserved : end, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    for (size_t i = 0; i < count; i++)
        store_record(&view, head + i, (uint64_t)writes[i].table << 32 | writes[i].column, (uint64_t)writes[i].key);
    store_record(&view, head + count, TRAILER_TAG << 32 | (incomplete ? TRAILER_INCOMPLETE : 0) | (uint64_t)count,
                 version);
    atomic_store_explicit(view.head, end, memory_order_release);
}

int columnar_write_log_enable(columnar_db *db) {
    if (!db) return CC_MISUSE("database is NULL");
    if (!db->lock) return CC_MISUSE("%s is open without its lock file: it has no write log", db->path);
    cc_log_view view = cc_lock_write_log(db->lock);
    uint64_t expected = 0;
    if (atomic_compare_exchange_strong(view.enabled_after, &expected, UINT64_MAX)) {
        uint64_t epoch, written;
        cc_lock_chain_read(db->lock, &epoch, &written);
        atomic_store(view.enabled_after, written + 1);
    }
    return 0;
}

bool columnar_write_log_enabled(columnar_db *db) {
    return db && db->lock && atomic_load(cc_lock_write_log(db->lock).enabled_after) != 0;
}

int columnar_txn_log_writes(columnar_txn *txn, const columnar_logged_write *writes, size_t count) {
    if (!txn) return CC_MISUSE("transaction is NULL");
    if (!txn->is_write) return CC_MISUSE("only a write transaction logs writes");
    if (txn->poisoned) return CC_FAIL(COLUMNAR_EPOISONED, "the transaction failed earlier; roll it back");
    if (!txn->db->lock) return CC_MISUSE("%s is open without its lock file: it has no write log", txn->db->path);
    if (txn->logged_writes) return CC_MISUSE("the transaction's writes are logged already (once per transaction)");
    if (count && !writes) return CC_MISUSE("writes is NULL with a count of %zu", count);
    for (size_t i = 0; i < count; i++)
        if (writes[i].table == UINT32_MAX) return CC_MISUSE("logged write %zu names table id UINT32_MAX", i);
    append_group(cc_lock_write_log(txn->db->lock), txn->version + 1, writes, count, false);
    txn->logged_writes = true;
    return 0;
}

void cc_write_log_note_commit(columnar_txn *txn, uint64_t version) {
    if (txn->logged_writes || !columnar_write_log_enabled(txn->db)) return;
    append_group(cc_lock_write_log(txn->db->lock), version, NULL, 0, !txn->log_expected);
    txn->logged_writes = true;
}

/* Growing array of the writes a read collects. */
typedef struct write_buffer {
    columnar_logged_write *items;
    size_t count;
    size_t capacity;
} write_buffer;

static int buffer_reserve(write_buffer *buffer, size_t more) {
    if (buffer->count + more <= buffer->capacity) return 0;
    size_t capacity = buffer->capacity ? buffer->capacity : 64;
    while (capacity < buffer->count + more) capacity *= 2;
    columnar_logged_write *items = realloc(buffer->items, capacity * sizeof *items);
    if (!items) return -ENOMEM;
    buffer->items = items;
    buffer->capacity = capacity;
    return 0;
}

/* One attempt at reading (after, through]. Returns 0, -ENOMEM, or -EAGAIN when a writer overwrote records while
 * they were copied. */
static int read_once(cc_log_view view, uint64_t after, uint64_t through, write_buffer *buffer, bool *out_complete) {
    buffer->count = 0;
    bool complete = false, incomplete_group = false;
    uint64_t head = atomic_load_explicit(view.head, memory_order_acquire);
    /* A writer that died mid-append may have overwritten records up to its reservation, beyond the head. */
    uint64_t reach = atomic_load_explicit(view.reserved, memory_order_relaxed);
    if (reach < head) reach = head;
    uint64_t oldest = reach > CC_LOCK_LOG_RECORDS ? reach - CC_LOCK_LOG_RECORDS : 0;
    uint64_t position = head, lowest_read = head, accepted_below = UINT64_MAX;
    while (position > oldest) {
        cc_log_record *trailer = record_at(&view, position - 1);
        uint64_t first = atomic_load_explicit(&trailer->words[0], memory_order_relaxed);
        uint64_t version = atomic_load_explicit(&trailer->words[1], memory_order_relaxed);
        lowest_read = position - 1;
        /* Not a trailer: torn by a writer (checked below). */
        if (first >> 32 != TRAILER_TAG) break;
        bool accepted = version < accepted_below;
        if (accepted) {
            accepted_below = version;
            if (version <= after) {
                complete = true;
                break;
            }
        }
        uint64_t count = first & TRAILER_COUNT_MASK;
        if (count > position - 1 - oldest) break;   /* the group began in what the ring no longer holds */
        uint64_t start = position - 1 - count;
        if (accepted) {
            if (version <= through) {
                if (first & TRAILER_INCOMPLETE) incomplete_group = true;
                if (buffer_reserve(buffer, count)) return -ENOMEM;
                for (uint64_t p = start; p < position - 1; p++) {
                    cc_log_record *record = record_at(&view, p);
                    uint64_t ids = atomic_load_explicit(&record->words[0], memory_order_relaxed);
                    uint64_t key = atomic_load_explicit(&record->words[1], memory_order_relaxed);
                    buffer->items[buffer->count++] =
                        (columnar_logged_write){ (uint32_t)(ids >> 32), (uint32_t)ids, (columnar_key)key };
                }
                lowest_read = start;
            }
        }
        position = start;
    }
    /* Back at the start of a ring that never wrapped: every entry since the log was enabled was seen. */
    uint64_t enabled_after = atomic_load_explicit(view.enabled_after, memory_order_relaxed);
    if (!complete && position == 0 && enabled_after != 0 && enabled_after != UINT64_MAX && after + 1 >= enabled_after)
        complete = true;
    atomic_thread_fence(memory_order_acquire);
    uint64_t reserved = atomic_load_explicit(view.reserved, memory_order_relaxed);
    /* A writer appended meanwhile and reached what was read: it may have been overwritten while it was copied. */
    if (reserved > CC_LOCK_LOG_RECORDS && lowest_read < reserved - CC_LOCK_LOG_RECORDS) return -EAGAIN;
    *out_complete = complete && !incomplete_group;
    return 0;
}

int columnar_write_log_read(columnar_db *db, uint64_t after, uint64_t through,
                            void (*visit)(void *context, const columnar_logged_write *writes, size_t count),
                            void *context, bool *out_complete) {
    if (!db || !out_complete) return CC_MISUSE("database or out_complete is NULL");
    if (!db->lock) return CC_MISUSE("%s is open without its lock file: it has no write log", db->path);
    *out_complete = through <= after;
    if (through <= after) return 0;
    cc_log_view view = cc_lock_write_log(db->lock);
    write_buffer buffer = { 0 };
    int rc = -EAGAIN;
    for (int attempt = 0; attempt < READ_ATTEMPTS && rc == -EAGAIN; attempt++)
        rc = read_once(view, after, through, &buffer, out_complete);
    if (rc == -EAGAIN) {
        /* Writers kept overwriting what this read copied: report nothing rather than writes that may be wrong. */
        buffer.count = 0;
        *out_complete = false;
        rc = 0;
    }
    if (rc) {
        free(buffer.items);
        return cc_error(rc, 0, "", "out of memory reading the write log of %s", db->path);
    }
    if (buffer.count && visit) visit(context, buffer.items, buffer.count);
    free(buffer.items);
    return 0;
}
