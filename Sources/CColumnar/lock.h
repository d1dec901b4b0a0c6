/*
 * lock.h — the lock file beside a database ("<real path>.lock"): who may write, which versions readers still
 * see, which versions are written and which are durable, shared by every thread and process that has the
 * database open (docs/Architecture.md, docs/CommitPath.md).
 *
 * The lock file is a small shared mapping. Nothing in it depends on process ids, which are per pid namespace
 * (two containers sharing a volume may both have a process 7): liveness is proven by open-file-description
 * locks (fcntl F_OFD_*), which the kernel drops when the last descriptor of their open file goes away, whatever
 * the namespace, and which belong to an open file rather than to a thread or a process.
 *
 *   - The writer lock and the sync-leader lock are OFD locks on bytes of the data file itself (far past any
 *     data), so every path to the file (symlink, hard link, bind mount) meets the same locks; within a process
 *     a thread-agnostic local lock comes first, since OFD locks do not exclude threads sharing a descriptor.
 *   - Each handle claims a handle slot by an OFD lock on a byte of the lock file; reader slots name their
 *     handle slot and its generation, and a slot whose handle no longer holds its byte is reclaimed.
 *   - The chain state: the latest written version W (with an epoch that a failed sync advances), the durable
 *     version D, the version P readers are given, and a ring with each recent version's top ref and sizes.
 *   - A process that dies holding the writer lock or leading a sync leaves a flag behind; the next one repairs
 *     (docs/CommitPath.md, "Repair").
 *
 * An in-memory database uses the same structure in anonymous shared memory, shared by the handles of one
 * process with the same identifier, with only the local locks.
 */
#ifndef COLUMNAR_LOCK_H
#define COLUMNAR_LOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define CC_LOCK_READER_SLOTS 510u
#define CC_LOCK_HANDLE_SLOTS 256u
/* Recent versions whose top ref and sizes the lock file keeps: more than the versions that can be written and
 * not yet durable (CF_SLOT_COUNT - 1), so the durable and published versions are always among them. */
#define CC_LOCK_VERSION_RING 16u
/* Failed syncs remembered, so a committer that slept through several can still tell whether its own failed. */
#define CC_LOCK_FAILURE_RING 16u
/* Runs of sectors that commits to an encrypted file wrote, so other handles' images re-read only those (mirror.c);
 * a handle further behind than the ring reaches makes a pass over every sector instead. */
#define CC_LOCK_CHANGE_RING 2048u
/* The write log (writelog.c): a ring of records after the shared structure, and the lock file's whole size. */
#define CC_LOCK_LOG_OFFSET (64u * 1024u)
#define CC_LOCK_LOG_RECORDS (1u << 16)
#define CC_LOCK_FILE_BYTES (CC_LOCK_LOG_OFFSET + CC_LOCK_LOG_RECORDS * 16u)

typedef struct cc_lock cc_lock;

/* One version as the lock file records it. */
typedef struct cc_version_state {
    uint64_t version;
    uint64_t top_ref;
    uint64_t used_size;
    uint64_t file_size;     /* bytes the data file had been grown to (readers map up to here) */
    uint64_t base_version;  /* the durable version it was built after (its slot's base) */
} cc_version_state;

/* How the next writer must bring the chain back to a known state before building on it. */
typedef enum cc_repair_kind {
    CC_REPAIR_NONE = 0,
    CC_REPAIR_VERIFY = 1,      /* a writer or sync leader died, or the lock file is new: verify, rewrite, sync */
    CC_REPAIR_INVALIDATE = 2,  /* a sync failed: every version above the durable one is dropped */
} cc_repair_kind;

/* Opens (creating if needed) the lock file at `path` for the data file open as `data_fd` (-1 and `path` NULL
 * for anonymous shared memory). The lock file records the data file's device and inode: a lock file in use
 * for another file is refused (COLUMNAR_ELOCKFILE), and so is a data file already open through another path
 * whose lock file differs (a hard link or a bind-mounted file). `*out_fresh` is set when this call
 * (re)initialised the shared state because nobody else had it open; the caller then recovers the data file
 * and records its version (cc_lock_recovered). Returns 0, -errno or COLUMNAR_ELOCKFILE. */
int cc_lock_open(const char *path, int data_fd, bool read_only, cc_lock **out_lock, bool *out_fresh);
/* Releases this handle's use of the lock file (its reader slots must all be released). */
void cc_lock_close(cc_lock *lock);
/* Ends the exclusive hold a fresh open keeps while it recovers (cc_lock_open with *out_fresh). */
int cc_lock_fresh_done(cc_lock *lock);
/* Takes (waiting) or releases the creation lock of the data file open as `data_fd`: an OFD lock on a byte of the
 * file, held while an empty file is replaced by a new database. */
int cc_lock_data_create(int data_fd, bool lock);

/* ---------------------------------------------------------------------------------------------------------- */
/* The writer lock and the sync leadership                                                                     */
/* ---------------------------------------------------------------------------------------------------------- */

/* Takes the writer lock, blocking. Any thread may release it later. `*out_repair` says what the chain needs
 * first (a previous holder died holding it, a sync failed, or the file was just recovered read-only).
 * Returns 0, -errno, or COLUMNAR_ESTORAGE when an earlier failure left the file refusing writes. */
int cc_lock_writer_acquire(cc_lock *lock, cc_repair_kind *out_repair);
void cc_lock_writer_release(cc_lock *lock);

/* Tries to become the sync leader without waiting. Returns 1 when this caller leads, 0 when another does,
 * -1 with *out_leader_died when the lock was free but its previous holder died while leading (the caller must
 * repair before any sync counts; cc_lock_sync_release already ran). */
int cc_lock_sync_try_lead(cc_lock *lock, bool *out_leader_died);
/* Becomes the sync leader, waiting for the current one. Same results as cc_lock_sync_try_lead but never 0. */
int cc_lock_sync_lead(cc_lock *lock, bool *out_leader_died);
void cc_lock_sync_release(cc_lock *lock);
/* The sync sequence (advanced after every sync a leader finishes) and waiting for it to move on. */
uint32_t cc_lock_sync_sequence(cc_lock *lock);
void cc_lock_sync_wait(cc_lock *lock, uint32_t seen_sequence, uint32_t timeout_microseconds);
void cc_lock_sync_wake(cc_lock *lock);

/* ---------------------------------------------------------------------------------------------------------- */
/* Versions: written, durable, published                                                                       */
/* ---------------------------------------------------------------------------------------------------------- */

/* The chain: the latest written version and the epoch (advanced by every failed sync). */
void cc_lock_chain_read(cc_lock *lock, uint64_t *out_epoch, uint64_t *out_written);

/* A run of sectors of an encrypted file, [first, end). */
typedef struct cc_sector_run {
    uint64_t first, end;
} cc_sector_run;

/* The change ring (encrypted files). The writer lock's holder appends the runs of sectors its commit of `version`
 * is about to write, before it writes them, so that a reader that sees a version published finds every sector
 * written up to it among the entries. */
void cc_lock_changes_append(cc_lock *lock, uint64_t version, const cc_sector_run *runs, size_t count);
/* Entries ever appended (the next position). */
uint64_t cc_lock_changes_head(cc_lock *lock);
/* The entry at `position`; false when later appends have overwritten it (or may have, while it was read). */
bool cc_lock_change_get(cc_lock *lock, uint64_t position, uint64_t *out_version, uint64_t *out_first,
                        uint64_t *out_end);
/* Advances the chain from `from` to `to` unless its epoch moved on since `epoch` was read (a sync failed: the
 * chain `from` built on is gone). Returns whether it did. */
bool cc_lock_chain_advance(cc_lock *lock, uint64_t epoch, uint64_t from, uint64_t to);
/* Sets the chain to `written` (repair, holding the writer lock and the sync leadership). */
void cc_lock_chain_reset(cc_lock *lock, uint64_t written);
/* Records that every version in (`low`, latest written] failed with `error` (a failed sync, or a repair that
 * found them incomplete): the epoch advances so nothing more is built on them, and with `invalidate` the next
 * writer must drop them. The caller leads the sync or holds the writer lock. */
void cc_lock_record_failure(cc_lock *lock, uint64_t low, int error, bool invalidate);
/* Whether version `version`, written in chain epoch `epoch`, failed; *out_error receives the sync's error. */
bool cc_lock_version_failed(cc_lock *lock, uint64_t epoch, uint64_t version, int *out_error);

uint64_t cc_lock_durable(cc_lock *lock);
/* The newest version whose freed space no version recovery may choose still needs: the base of the durable
 * version (its commit record, and every later one's, lists only ranges written after it). */
uint64_t cc_lock_reuse_bound(cc_lock *lock);
/* Raises the durable version to at least `version`. */
void cc_lock_set_durable(cc_lock *lock, uint64_t version);
/* Raises the version readers are given to at least `version` (whose state must be recorded). */
void cc_lock_publish(cc_lock *lock, uint64_t version);
uint64_t cc_lock_published_version(cc_lock *lock);

/* Records a version's state in the ring (writer lock held; before the chain or the published version name it). */
void cc_lock_record_version(cc_lock *lock, const cc_version_state *state);
/* Reads a recorded version's state. Returns false when the ring no longer (or never) held it. */
bool cc_lock_version_state(cc_lock *lock, uint64_t version, cc_version_state *out);
/* Reads the published version's state consistently. Returns false when nothing was ever published. */
bool cc_lock_read_published(cc_lock *lock, cc_version_state *out_state);

/* Requests a repair of the kind given (the stronger of it and any pending request is kept). */
void cc_lock_request_repair(cc_lock *lock, cc_repair_kind kind);
/* The repair requested and not yet done. */
cc_repair_kind cc_lock_repair_pending(cc_lock *lock);
/* Clears the repair request (after a repair succeeded, holding the writer lock). */
void cc_lock_repair_done(cc_lock *lock);
/* Marks the file as refusing writes until every handle has closed it (a failure that cannot be undone). */
void cc_lock_set_storage_failed(cc_lock *lock, int error);

/* ---------------------------------------------------------------------------------------------------------- */
/* Reader slots                                                                                                 */
/* ---------------------------------------------------------------------------------------------------------- */

/* Registers a reader of `version`; the slot index is returned in *out_slot. COLUMNAR_EREADERS when full (after
 * reclaiming slots of handles that are gone). */
int cc_lock_reader_acquire(cc_lock *lock, uint64_t version, uint32_t *out_slot);
/* Changes the version a held slot pins. */
void cc_lock_reader_update(cc_lock *lock, uint32_t slot, uint64_t version);
void cc_lock_reader_release(cc_lock *lock, uint32_t slot);

/* The oldest version pinned by any live reader, or `latest` when none is older. Slots of handles that are gone
 * are reclaimed on the way. */
uint64_t cc_lock_oldest_pinned(cc_lock *lock, uint64_t latest);
/* Distinct versions pinned by live readers, counting `latest` once whether pinned or not. */
uint64_t cc_lock_live_versions(cc_lock *lock, uint64_t latest);

/* One record of the write log: two words, so that readers racing the writer load them atomically. */
typedef struct cc_log_record {
    _Atomic uint64_t words[2];
} cc_log_record;

/* Where the write log lives in the mapping (its protocol is in writelog.c). */
typedef struct cc_log_view {
    _Atomic uint64_t *head;      /* records ever appended, published after they are written */
    _Atomic uint64_t *reserved;  /* the head an append in progress will reach, stored before it writes */
    /* 0 until someone observes changes; then 1 + the latest version written before every writer knew (UINT64_MAX
     * while being set); never cleared while the file is open */
    _Atomic uint64_t *enabled_after;
    cc_log_record *records;      /* CC_LOCK_LOG_RECORDS of them */
} cc_log_view;

cc_log_view cc_lock_write_log(cc_lock *lock);

/* Takes the init byte's write lock on `lock_path` (creating the file if missing) without waiting: held, nobody has
 * the data file open and openers wait. -EBUSY, saying the file is open and must be closed before `purpose`,
 * when a handle has it. *out_fd is the descriptor holding the lock, for cc_lock_exclusive_release. */
int cc_lock_exclusive_take(const char *data_path, const char *lock_path, const char *purpose, int *out_fd);
void cc_lock_exclusive_release(int fd);

/* Deletes the data file and its lock file when no handle anywhere has the file open: holds the lock file's init
 * byte exclusively (so openers wait) while it unlinks both. -EBUSY (with a message) when the file is open. An
 * opener that had reached either file before the deletion sees it unlinked once it holds the init byte, and
 * cc_lock_open returns -ESTALE so that it starts over from the path. `*out_deleted`: the data file existed. */
int cc_lock_delete_files(const char *data_path, const char *lock_path, bool *out_deleted);

/* ---------------------------------------------------------------------------------------------------------- */
/* Reading the lock file from outside (inspection)                                                              */
/* ---------------------------------------------------------------------------------------------------------- */

/* What the lock file says, read by an inspection tool without locking, mapping or writing it. */
typedef struct cc_lock_file_state {
    bool valid;                 /* magic, layout version, size and slot counts are this build's */
    char problem[160];          /* why not, when !valid */
    uint32_t layout_version;
    uint32_t reader_slot_count;
    uint64_t data_device;
    uint64_t data_inode;
    bool published;             /* a version was published */
    cc_version_state state;     /* the published version's state */
    uint64_t written_version;
    uint64_t durable_version;
    uint32_t repair;            /* cc_repair_kind pending */
    bool storage_failed;
} cc_lock_file_state;

/* Called for each reader slot that pins a version; `handle_slot` and `handle_alive` say whose it is. */
typedef void (*cc_lock_reader_visit)(void *context, uint32_t slot, uint32_t handle_slot, bool handle_alive,
                                     uint64_t version);

/* Reads the lock file at `path` with one pread (no flock, no mapping, opened O_RDONLY) and decodes its header,
 * published version and reader slots. The slots are read as they are at that moment, without reclaiming; a
 * handle is alive when a lock is held on its byte (F_OFD_GETLK). Returns 0 (also for a file of another layout:
 * out->valid says so), or -errno (-ENOENT: no lock file). */
int cc_lock_file_read(const char *path, cc_lock_file_state *out, cc_lock_reader_visit visit, void *context);

#endif /* COLUMNAR_LOCK_H */
