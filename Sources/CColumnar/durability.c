/*
 * durability.c — group commit, failed syncs and repairs (durability.h; the argument for why this is safe is in
 * docs/CommitPath.md).
 */
#include "durability.h"

#include "recovery.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* How long a committer waiting for a sync sleeps before it looks again whether the leader is still alive. */
#define CC_SYNC_WAIT_MICROSECONDS 2000u

uint64_t cc_durable_version(columnar_db *db) { return cc_lock_durable(db->lock); }

/* What leading one sync came to. */
typedef enum lead_outcome { LEAD_DONE = 0, LEAD_FAILED = 1, LEAD_NEEDS_REPAIR = 2 } lead_outcome;

/* Holding the sync leadership: syncs once, so that every version written before the sync began is durable, and
 * publishes the latest of them; or, when a repair is pending, syncs nothing (a sync after a failed one would
 * report pages durable that never reached the disk). With `force` it syncs even when every named version is
 * durable already: a large commit's nodes are written before its version is named. Releases the leadership and
 * wakes the waiters. */
static lead_outcome lead_sync(columnar_db *db, bool force, int *out_error) {
    cc_lock *lock = db->lock;
    lead_outcome outcome = LEAD_DONE;
    *out_error = 0;
    if (cc_lock_repair_pending(lock) != CC_REPAIR_NONE) {
        outcome = LEAD_NEEDS_REPAIR;
        goto release;
    }
    uint64_t epoch, target;
    cc_lock_chain_read(lock, &epoch, &target);
    uint64_t durable = cc_lock_durable(lock);
    if (target <= durable && !force) goto release;
    cc_io_step(db->io, COLUMNAR_STEP_SYNC_STARTING);
    int rc = db->io->sync(db->io->context, db->fd);
    cc_io_step(db->io, COLUMNAR_STEP_SYNC_DONE);
    if (rc == 0) {
        cc_lock_set_durable(lock, target);
        cc_lock_publish(lock, target);
        cc_io_step(db->io, COLUMNAR_STEP_PUBLISHED);
    } else {
        /* Linux has marked the pages clean whether or not they reached the disk: every version this sync covered
         * fails, and no later sync may be taken as proof of them. */
        cc_lock_record_failure(lock, durable, rc, true);
        if (cc_lock_published_version(lock) > durable) cc_lock_set_storage_failed(lock, rc);
        *out_error = rc;
        outcome = LEAD_FAILED;
    }
release:
    cc_lock_sync_release(lock);
    cc_lock_sync_wake(lock);
    return outcome;
}

int cc_repair_now(columnar_db *db) {
    cc_repair_kind kind;
    int rc = cc_lock_writer_acquire(db->lock, &kind);
    if (rc) return rc;
    if (kind != CC_REPAIR_NONE) {
        cc_version_state state;
        rc = cc_recover(db, kind, cc_lock_durable(db->lock), true, &state);
    }
    cc_lock_writer_release(db->lock);
    return rc;
}

/* Runs the pending repair while the caller holds the writer lock. */
static int repair_held(columnar_db *db) {
    cc_repair_kind kind = cc_lock_repair_pending(db->lock);
    if (kind == CC_REPAIR_NONE) return 0;
    cc_version_state state;
    return cc_recover(db, kind, cc_lock_durable(db->lock), true, &state);
}

int cc_durability_sync_written(columnar_db *db, bool nodes_pending) {
    for (;;) {
        bool leader_died;
        int led = cc_lock_sync_lead(db->lock, &leader_died);
        if (led == 0) continue;                 /* an interrupted wait: try again */
        int error = 0;
        lead_outcome outcome = led == 1 ? lead_sync(db, true, &error) : LEAD_NEEDS_REPAIR;
        if (outcome == LEAD_DONE) return 0;
        int rc = repair_held(db);
        if (outcome == LEAD_FAILED)
            return cc_error(error, 0, "", "the fdatasync of %s failed: %s; the versions it was to make durable are "
                            "not in the database%s", db->path, columnar_strerror(error),
                            rc ? " (and the file could not be repaired: it refuses writes until reopened)" : "");
        if (rc) return rc;
        /* Another committer's sync failed, or a leader died, after this commit's nodes were written (the writer
         * lock kept any repair from running before): Linux may have marked their pages clean unwritten, and no
         * later sync would write them. Syncing again and writing the slot would name nodes the disk may lack. */
        if (nodes_pending)
            return cc_error(-EIO, 0, "", "a sync of %s failed (or its leader died) while the nodes of this commit "
                            "waited for theirs, so they may not have reached the disk; the commit is not in the "
                            "database", db->path);
    }
}

/* Waits until `written` is durable, leading a sync when none is under way. */
static int wait_durable(columnar_db *db, const cc_written *written) {
    cc_lock *lock = db->lock;
    for (;;) {
        uint32_t sequence = cc_lock_sync_sequence(lock);
        /* The durable version first: a failed version's number is used again once the chain is reset, and may be
         * durable under its new owner by the time we look; but then its failure was recorded before, and the
         * check below sees it. */
        uint64_t durable = cc_lock_durable(lock);
        int error = 0;
        if (cc_lock_version_failed(lock, written->epoch, written->version, &error)) {
            /* Report the failure only once the failed versions are gone from the file for good. */
            int rc = cc_repair_now(db);
            if (rc == COLUMNAR_ESTORAGE || (rc && rc != error))
                return cc_error(COLUMNAR_ESTORAGE, 0, "", "the fdatasync that was to make version %llu of %s durable "
                                "failed (%s), and the file could not be brought back to a known durable state: the "
                                "commit may or may not survive a crash; the file refuses writes until reopened",
                                (unsigned long long)written->version, db->path, columnar_strerror(error));
            return cc_error(error, 0, "", "the fdatasync that was to make version %llu of %s durable failed: %s; the "
                            "commit is not in the database", (unsigned long long)written->version, db->path,
                            columnar_strerror(error));
        }
        if (durable >= written->version) return 0;
        bool leader_died = false;
        int led = cc_lock_sync_try_lead(lock, &leader_died);
        if (led == 1) {
            if (lead_sync(db, false, &error) != LEAD_DONE) {
                int rc = cc_repair_now(db);
                if (rc && rc != error && !cc_lock_version_failed(lock, written->epoch, written->version, &error))
                    return rc;
            }
            continue;
        }
        if (led == -1) {
            int rc = cc_repair_now(db);
            if (rc) return rc;
            continue;
        }
        cc_lock_sync_wait(lock, sequence, CC_SYNC_WAIT_MICROSECONDS);
    }
}

int cc_durability_complete(columnar_db *db, const cc_written *written) {
    cc_lock *lock = db->lock;
    if (db->flags & COLUMNAR_OPEN_IN_MEMORY) {
        cc_lock_set_durable(lock, written->version);
        cc_lock_publish(lock, written->version);
        return 0;
    }
    if (db->durability == COLUMNAR_DURABILITY_UNSAFE) {
        cc_lock_publish(lock, written->version);
        return 0;
    }
    return wait_durable(db, written);
}

int columnar_db_sync(columnar_db *db) {
    if (!db) return CC_MISUSE("database is NULL");
    if (!db->lock || (db->flags & COLUMNAR_OPEN_READ_ONLY))
        return CC_MISUSE("columnar_db_sync needs a handle that may write (%s is read-only)", db->path);
    if (db->flags & COLUMNAR_OPEN_IN_MEMORY) return 0;
    cc_written written;
    cc_lock_chain_read(db->lock, &written.epoch, &written.version);
    return wait_durable(db, &written);
}
