/*
 * lock.h — the lock file beside a database ("<path>.lock"): the writer mutex, the reader table and the
 * published latest version, shared by every thread and process that has the database open.
 *
 * The lock file is a small shared mapping. It holds a process-shared robust writer mutex (a writer that dies
 * holding it does not wedge the database: the next locker is told and carries on, since an uncommitted write
 * never touched the data file's live nodes), a table of reader slots (pid + pinned version) from which a writer
 * learns the oldest version still visible, and a seqlock-protected copy of the latest committed version's
 * header slot so readers need not parse the data file's header on every begin_read.
 *
 * An in-memory database uses the same structure in anonymous shared memory (shared by the handles of one
 * process with the same identifier).
 */
#ifndef COLUMNAR_LOCK_H
#define COLUMNAR_LOCK_H

#include <stdbool.h>
#include <stdint.h>

#define CC_LOCK_READER_SLOTS 510u

typedef struct cc_lock cc_lock;

/* The latest committed version as the writer publishes it. */
typedef struct cc_published {
    uint64_t version;
    uint64_t top_ref;
    uint64_t used_size;
    uint64_t file_size;   /* bytes the data file has been grown to (readers map up to here) */
} cc_published;

/* Opens (creating if needed) the lock file at `path`, or anonymous shared memory when `path` is NULL.
 * `*out_fresh` is set when this call (re)initialised the shared state because no other process had it open;
 * the caller then publishes the data file's current version. Returns 0, -errno, or COLUMNAR_ELOCKFILE when the
 * file exists but is of another layout (it is then reinitialised if no other process uses it). */
int cc_lock_open(const char *path, cc_lock **out_lock, bool *out_fresh);
/* Releases this process's use of the lock file (its reader slots must all be released). */
void cc_lock_close(cc_lock *lock);

/* Takes the writer mutex, blocking. Returns 0, or COLUMNAR_ELOCKFILE when the mutex is unusable. When the previous
 * owner died holding it, the mutex is made consistent and 0 is returned. */
int cc_lock_writer_acquire(cc_lock *lock);
void cc_lock_writer_release(cc_lock *lock);

/* Registers a reader of `version`; the slot index is returned in *out_slot. COLUMNAR_EREADERS when full (after
 * reclaiming slots of dead processes). */
int cc_lock_reader_acquire(cc_lock *lock, uint64_t version, uint32_t *out_slot);
/* Changes the version a held slot pins. */
void cc_lock_reader_update(cc_lock *lock, uint32_t slot, uint64_t version);
void cc_lock_reader_release(cc_lock *lock, uint32_t slot);

/* The oldest version pinned by any live reader, or `latest` when none is older. Slots of dead processes are
 * reclaimed on the way. */
uint64_t cc_lock_oldest_pinned(cc_lock *lock, uint64_t latest);
/* Distinct versions pinned by live readers, counting `latest` once whether pinned or not. */
uint64_t cc_lock_live_versions(cc_lock *lock, uint64_t latest);

/* Publishes the latest version (writer only, holding the writer mutex). */
void cc_lock_publish(cc_lock *lock, const cc_published *state);
/* Reads the published state consistently. Returns false when nothing was ever published. */
bool cc_lock_read_published(cc_lock *lock, cc_published *out_state);

/* What the lock file says, read by an inspection tool without locking, mapping or writing it. */
typedef struct cc_lock_file_state {
    bool valid;                 /* magic, layout version, size, slot count and mutex size are this build's */
    char problem[160];          /* why not, when !valid */
    uint32_t layout_version;
    uint32_t reader_slot_count;
    bool published;             /* the sequence is non-zero */
    bool publishing;            /* the sequence was odd (a publish in progress, or a writer died in one) */
    cc_published state;
} cc_lock_file_state;

/* Called for each reader slot that pins a version. */
typedef void (*cc_lock_reader_visit)(void *context, uint32_t slot, uint32_t pid, uint64_t version);

/* Reads the lock file at `path` with one pread (no flock, no mapping, opened O_RDONLY) and decodes its header,
 * published version and reader slots. The slots are read as they are at that moment, without reclaiming dead
 * owners. Returns 0 (also for a file of another layout: out->valid says so), or -errno (-ENOENT: no lock file). */
int cc_lock_file_read(const char *path, cc_lock_file_state *out, cc_lock_reader_visit visit, void *context);

#endif /* COLUMNAR_LOCK_H */
