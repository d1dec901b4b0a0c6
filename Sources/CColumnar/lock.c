/*
 * lock.c — the lock file beside a database: a small shared mapping that every thread and process with the
 * database open uses to take turns writing, to share syncs, to tell the writer which versions readers still see
 * and which are durable, and to give readers the latest version without parsing the data file's header.
 *
 * The mapping is host state, not a file format: it is written in host byte order and only meaningful to
 * processes of the same ABI on the same machine. The header fields exist to refuse a file left by another build
 * rather than misread it. Nothing in it is a process id (pids are per namespace): liveness comes from
 * open-file-description locks, which the kernel releases when the open file goes away (lock.h).
 *
 * LAYOUT (struct cc_lock_shared, 61040 bytes, then the write log at 64 KiB; the file is CC_LOCK_FILE_BYTES;
 * checked by _Static_assert below)
 *
 *   OFFSET SIZE DESCRIPTION
 *        0    8 magic "CLMNLCK2" (written last when initialising)
 *        8    4 layout version (CC_LOCK_LAYOUT_VERSION)
 *       12    4 size of this structure in bytes
 *       16    4 reader slot count (510)
 *       20    4 handle slot count (256)
 *       24    8 data file device  ┐ the file this lock file serves: another file with the same lock file
 *       32    8 data file inode   ┘ is refused while this one is open
 *       40    8 write log head: records ever appended (writelog.c)   ┐ written only by the writer lock's
 *       48    8 write log reservation: head once the append completes ┘ holder
 *       56    8 write log enabled: 0 = no; else every version above this value - 1 has its entry (never cleared;
 *               UINT64_MAX while being enabled)
 *       64    8 chain word: epoch (bits 48..63) and latest written version W (bits 0..47)
 *       72    8 durable version D: every version <= D is on stable storage
 *       80    8 published version P: what a new reader is given
 *       88    4 sync sequence: advanced after every sync a leader finishes (a futex word)
 *       92    4 writer active: set by the writer lock's holder, cleared on release (still set: its holder died)
 *       96    4 leader active: the same for the sync leadership
 *      100    4 repair: cc_repair_kind the next writer must run first
 *      104    4 storage failed: writes are refused until every handle closes
 *      108    4 the error that made it so
 *      112   16 reserved, zero
 *      128 1024 version ring, 16 x 64 bytes (seqlock per entry): sequence, version, top ref, used size, file size,
 *               base version, 16 reserved
 *     1152  512 failure ring, 16 x 32 bytes: epoch, lowest failed version - 1, highest failed version, error
 *     1664 2048 handle generations, 256 x 8 bytes
 *     3712 8160 reader slots, 510 x 16 bytes: owner (generation << 16 | handle slot + 1; 0 = free), pinned version
 *    11872    8 change head: change entries ever appended     ┐ written only by the writer lock's holder; the
 *    11880    8 change reservation: head once the append ends ┘ reservation first, as the write log's
 *    11888 49152 change ring, 2048 x 24 bytes: version, first sector, end sector of a run an encrypted file's commit
 *               wrote (mirror.c)
 *    65536   1M write log: 65,536 records of 16 bytes, a ring (writelog.c)
 *
 * WHO INITIALISES. Every opener holds a read lock on the lock file's init byte while it has it open. An opener
 * whose non-blocking write lock on that byte succeeds is alone: it (re)initialises everything, keeps the write
 * lock while its caller recovers the data file (cc_lock_fresh_done), then converts it to a read lock, which
 * fcntl does atomically (flock() does not: another opener could slip in between and initialise again). Openers
 * that find the write lock taken wait for a read lock and then validate the header. These locks belong to the
 * open file description, so two handles in one process behave like two processes, which is what we want.
 *
 * OFD LOCK BYTES. On the data file (far past any data; locks past the end of a file are allowed): the writer
 * lock, the sync leadership, and one alias byte per lock file in use (a hash of its device and inode), which
 * finds a second lock file for the same data file. On the lock file: one byte per handle slot, held by the
 * handle that claimed the slot for as long as it is open.
 */
#include "lock.h"

#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define CC_LOCK_MAGIC "CLMNLCK2"
#define CC_LOCK_MAGIC_BYTES 8
#define CC_LOCK_LAYOUT_VERSION 4u

/* OFD lock bytes of the data file: far past COLUMNAR_MAX_MAP_BYTES, so never in the way of data. */
#define CC_DATA_WRITER_BYTE (1ll << 50)
#define CC_DATA_SYNC_BYTE ((1ll << 50) + 1)
#define CC_DATA_CREATE_BYTE ((1ll << 50) + 2)
#define CC_DATA_ALIAS_BASE ((1ll << 50) + (1ll << 32))
#define CC_DATA_ALIAS_SPAN (1ll << 32)
/* OFD lock bytes of the lock file, past the structure: the init byte, then one per handle slot. */
#define CC_LOCK_INIT_BYTE ((1ll << 40) - 1)
#define CC_LOCK_HANDLE_BASE (1ll << 40)

#define CC_CHAIN_VERSION_BITS 48
#define CC_CHAIN_VERSION_MASK ((1ull << CC_CHAIN_VERSION_BITS) - 1)

/* The atomics below live in memory shared between processes. A lock-based fallback would use a lock table
 * private to each process and silently lose atomicity, so refuse to build without lock-free 32/64-bit atomics. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "lock-free 32-bit atomics are required for the shared lock file");
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "lock-free 64-bit atomics are required for the shared lock file");

/* One reader slot. It is owned by whoever set `owner` from 0 to its handle's owner word; only the owner (or a
 * reclaimer that first swapped a dead owner's word for its own) writes `version`. */
typedef struct cc_reader_slot {
    _Atomic uint64_t owner;
    _Atomic uint64_t version;
} cc_reader_slot;

/* One recent version's state, written only by the writer lock's holder, read under its sequence (odd while
 * being written). */
typedef struct cc_version_entry {
    _Atomic uint64_t sequence;
    _Atomic uint64_t version;
    _Atomic uint64_t top_ref;
    _Atomic uint64_t used_size;
    _Atomic uint64_t file_size;
    _Atomic uint64_t base_version;
    uint64_t reserved[2];
} cc_version_entry;

/* One failed sync: the versions in (low, high] of chain epoch `epoch` failed with `error`. */
typedef struct cc_failure_entry {
    _Atomic uint64_t epoch;
    _Atomic uint64_t low;
    _Atomic uint64_t high;
    _Atomic int64_t error;
} cc_failure_entry;

/* One run of sectors a commit to an encrypted file wrote. */
typedef struct cc_change_entry {
    _Atomic uint64_t version;
    _Atomic uint64_t first;
    _Atomic uint64_t end;
} cc_change_entry;

typedef struct cc_lock_shared {
    char magic[CC_LOCK_MAGIC_BYTES];
    uint32_t layout_version;
    uint32_t shared_size_bytes;
    uint32_t reader_slot_count;
    uint32_t handle_slot_count;
    uint64_t data_device;
    uint64_t data_inode;
    _Atomic uint64_t log_head;
    _Atomic uint64_t log_reserved;
    _Atomic uint64_t log_enabled_after;
    _Atomic uint64_t chain_word;
    _Atomic uint64_t durable_version;
    _Atomic uint64_t published_version;
    _Atomic uint32_t sync_sequence;
    _Atomic uint32_t writer_active;
    _Atomic uint32_t leader_active;
    _Atomic uint32_t repair;
    _Atomic uint32_t storage_failed;
    _Atomic int32_t storage_error;
    uint8_t reserved1[16];
    cc_version_entry versions[CC_LOCK_VERSION_RING];
    cc_failure_entry failures[CC_LOCK_FAILURE_RING];
    _Atomic uint64_t handle_generations[CC_LOCK_HANDLE_SLOTS];
    cc_reader_slot readers[CC_LOCK_READER_SLOTS];
    _Atomic uint64_t change_head;
    _Atomic uint64_t change_reserved;
    cc_change_entry changes[CC_LOCK_CHANGE_RING];
} cc_lock_shared;

_Static_assert(sizeof(cc_reader_slot) == 16, "reader slot layout");
_Static_assert(sizeof(cc_version_entry) == 64, "version entry layout");
_Static_assert(sizeof(cc_failure_entry) == 32, "failure entry layout");
_Static_assert(offsetof(cc_lock_shared, layout_version) == 8, "lock file layout");
_Static_assert(offsetof(cc_lock_shared, handle_slot_count) == 20, "lock file layout");
_Static_assert(offsetof(cc_lock_shared, data_device) == 24, "lock file layout");
_Static_assert(offsetof(cc_lock_shared, log_head) == 40, "lock file layout");
_Static_assert(offsetof(cc_lock_shared, log_enabled_after) == 56, "lock file layout");
_Static_assert(offsetof(cc_lock_shared, chain_word) == 64, "lock file layout");
_Static_assert(offsetof(cc_lock_shared, sync_sequence) == 88, "lock file layout");
_Static_assert(offsetof(cc_lock_shared, storage_error) == 108, "lock file layout");
_Static_assert(offsetof(cc_lock_shared, versions) == 128, "lock file layout");
_Static_assert(offsetof(cc_lock_shared, failures) == 1152, "lock file layout");
_Static_assert(offsetof(cc_lock_shared, handle_generations) == 1664, "lock file layout");
_Static_assert(offsetof(cc_lock_shared, readers) == 3712, "lock file layout");
_Static_assert(offsetof(cc_lock_shared, change_head) == 3712 + 16 * CC_LOCK_READER_SLOTS, "lock file layout");
_Static_assert(sizeof(cc_change_entry) == 24, "change entry layout");
_Static_assert(sizeof(cc_lock_shared) == 11888 + 24 * CC_LOCK_CHANGE_RING, "lock file layout");
_Static_assert(sizeof(cc_lock_shared) <= CC_LOCK_LOG_OFFSET, "the shared structure ends before the write log");
_Static_assert(sizeof(cc_log_record) == 16, "write log record layout");

struct cc_lock {
    cc_lock_shared *shared;   /* the mapping; NULL until mapped */
    int fd;                   /* the lock file, holding our init and handle bytes; -1 for anonymous memory */
    int data_fd;              /* the data file, for its OFD locks; -1 for in-memory databases */
    bool read_only;           /* the data file is open read-only: no writer or sync locks */
    bool fresh_exclusive;     /* still holding the init byte's write lock of a fresh open */
    uint32_t handle_slot;     /* the claimed handle slot, UINT32_MAX for anonymous memory */
    uint64_t owner_word;      /* what our reader slots carry */
    char *path;               /* for messages; NULL for anonymous memory */
    /* The local part of the writer and sync locks: OFD locks do not exclude threads sharing a descriptor, and
     * a pthread mutex belongs to the thread that took it, while a write may commit on another thread. */
    pthread_mutex_t local_mutex;
    pthread_cond_t writer_cond;    /* signalled when writer_held clears */
    pthread_cond_t sync_cond;      /* signalled when sync_held clears */
    bool writer_held;
    bool sync_held;
};

static const char *lock_name(const cc_lock *lock) {
    return lock->path ? lock->path : "(in-memory lock)";
}

/* ---------------------------------------------------------------------------------------------------------- */
/* OFD locks and futexes                                                                                        */
/* ---------------------------------------------------------------------------------------------------------- */

/* One OFD lock operation on the byte at `offset` (or `length` bytes), retrying when a signal interrupts a wait.
 * Returns 0 or -errno (-EAGAIN: a non-blocking lock is held elsewhere). */
static int ofd_lock(int fd, int command, short type, off_t offset, off_t length) {
    struct flock request;
    memset(&request, 0, sizeof request);
    request.l_type = type;
    request.l_whence = SEEK_SET;
    request.l_start = offset;
    request.l_len = length;
    for (;;) {
        if (fcntl(fd, command, &request) == 0) return 0;
        if (errno == EINTR) continue;
        return errno == EACCES ? -EAGAIN : -errno;
    }
}

/* Whether another open file description holds a lock on [offset, offset + length) that conflicts with a write
 * lock. Returns 1, 0, or -errno. */
static int ofd_held_elsewhere(int fd, off_t offset, off_t length) {
    struct flock request;
    memset(&request, 0, sizeof request);
    request.l_type = F_WRLCK;
    request.l_whence = SEEK_SET;
    request.l_start = offset;
    request.l_len = length;
    if (fcntl(fd, F_OFD_GETLK, &request) != 0) return -errno;
    return request.l_type != F_UNLCK;
}

static void futex_wait(_Atomic uint32_t *word, uint32_t seen, uint32_t timeout_microseconds) {
    struct timespec timeout = { timeout_microseconds / 1000000u, (long)(timeout_microseconds % 1000000u) * 1000 };
    /* Not FUTEX_PRIVATE_FLAG: the word is shared with other processes. Spurious returns are fine. */
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, seen, &timeout, NULL, 0);
}

static void futex_wake_all(_Atomic uint32_t *word) {
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Opening                                                                                                      */
/* ---------------------------------------------------------------------------------------------------------- */

static void initialise_shared(cc_lock_shared *shared, uint64_t data_device, uint64_t data_inode) {
    shared->layout_version = CC_LOCK_LAYOUT_VERSION;
    shared->shared_size_bytes = (uint32_t)sizeof(cc_lock_shared);
    shared->reader_slot_count = CC_LOCK_READER_SLOTS;
    shared->handle_slot_count = CC_LOCK_HANDLE_SLOTS;
    shared->data_device = data_device;
    shared->data_inode = data_inode;
    /* The fresh opener recovers the data file before anyone can read these; until then nothing is published. */
    atomic_store(&shared->repair, CC_REPAIR_VERIFY);
    atomic_thread_fence(memory_order_release);
    memcpy(shared->magic, CC_LOCK_MAGIC, CC_LOCK_MAGIC_BYTES);
}

/* We hold the only lock on the file: empty it, size it, map it and initialise it. */
static int create_fresh(cc_lock *lock, uint64_t data_device, uint64_t data_inode) {
    /* Truncating to zero first guarantees the new contents read as zeros, whatever was there before. */
    if (ftruncate(lock->fd, 0) != 0 || ftruncate(lock->fd, (off_t)CC_LOCK_FILE_BYTES) != 0)
        return cc_error(-errno, 0, "", "cannot size lock file %s: %s", lock_name(lock), strerror(errno));
    void *mapping = mmap(NULL, CC_LOCK_FILE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, lock->fd, 0);
    if (mapping == MAP_FAILED)
        return cc_error(-errno, 0, "", "cannot map lock file %s: %s", lock_name(lock), strerror(errno));
    lock->shared = mapping;
    initialise_shared(lock->shared, data_device, data_inode);
    return 0;
}

/* Someone else initialised the file: map it and check it is ours and serves this data file. Returns
 * COLUMNAR_ELOCKFILE when it is of another layout (or was left half-initialised by an initialiser that died). */
static int map_existing(cc_lock *lock, uint64_t data_device, uint64_t data_inode) {
    void *mapping = MAP_FAILED;
    int rc = 0;
    struct stat status;
    if (fstat(lock->fd, &status) != 0) {
        rc = cc_error(-errno, 0, "", "cannot stat lock file %s: %s", lock_name(lock), strerror(errno));
        goto fail;
    }
    /* Checked before mapping: touching a mapping beyond the end of a shorter file would raise SIGBUS. */
    if (status.st_size != (off_t)CC_LOCK_FILE_BYTES) {
        rc = CC_FAIL(COLUMNAR_ELOCKFILE, "lock file %s is %lld bytes, expected %zu: another version or damaged",
                     lock_name(lock), (long long)status.st_size, (size_t)CC_LOCK_FILE_BYTES);
        goto fail;
    }
    mapping = mmap(NULL, CC_LOCK_FILE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, lock->fd, 0);
    if (mapping == MAP_FAILED) {
        rc = cc_error(-errno, 0, "", "cannot map lock file %s: %s", lock_name(lock), strerror(errno));
        goto fail;
    }
    const cc_lock_shared *shared = mapping;
    if (memcmp(shared->magic, CC_LOCK_MAGIC, CC_LOCK_MAGIC_BYTES) != 0) {
        rc = CC_FAIL(COLUMNAR_ELOCKFILE, "lock file %s has no valid magic number: not a Columnar lock file of this "
                     "version, damaged, or its initialiser died", lock_name(lock));
        goto fail;
    }
    if (shared->layout_version != CC_LOCK_LAYOUT_VERSION || shared->shared_size_bytes != sizeof(cc_lock_shared) ||
        shared->reader_slot_count != CC_LOCK_READER_SLOTS || shared->handle_slot_count != CC_LOCK_HANDLE_SLOTS) {
        rc = CC_FAIL(COLUMNAR_ELOCKFILE, "lock file %s has layout version %u (size %u, %u reader and %u handle "
                     "slots); this build expects version %u (size %zu, %u and %u)", lock_name(lock),
                     shared->layout_version, shared->shared_size_bytes, shared->reader_slot_count,
                     shared->handle_slot_count, CC_LOCK_LAYOUT_VERSION, sizeof(cc_lock_shared),
                     CC_LOCK_READER_SLOTS, CC_LOCK_HANDLE_SLOTS);
        goto fail;
    }
    if (shared->data_device != data_device || shared->data_inode != data_inode) {
        rc = CC_FAIL(COLUMNAR_ELOCKFILE, "lock file %s is in use for another file (device %llu, inode %llu) than "
                     "the one opened (device %llu, inode %llu): the database file was replaced or moved while "
                     "open; close every handle of the old file first", lock_name(lock),
                     (unsigned long long)shared->data_device, (unsigned long long)shared->data_inode,
                     (unsigned long long)data_device, (unsigned long long)data_inode);
        goto fail;
    }
    lock->shared = mapping;
    return 0;

fail:
    if (mapping != MAP_FAILED) munmap(mapping, CC_LOCK_FILE_BYTES);
    return rc;
}

/* Opens the lock file and takes part in the who-initialises protocol described at the top of this file. */
static int open_file(cc_lock *lock, uint64_t data_device, uint64_t data_inode, bool *out_fresh) {
    bool fresh = false;
    int rc = 0;
    lock->fd = open(lock->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock->fd < 0)
        return cc_error(-errno, 0, "", "cannot open lock file %s: %s", lock_name(lock), strerror(errno));

    for (int attempt = 0;; attempt++) {
        rc = ofd_lock(lock->fd, F_OFD_SETLK, F_WRLCK, CC_LOCK_INIT_BYTE, 1);
        if (rc == 0) {
            fresh = true;
            break;
        }
        if (rc != -EAGAIN)
            return cc_error(rc, 0, "", "cannot lock lock file %s: %s (the file system must support open file "
                            "description locks)", lock_name(lock), strerror(-rc));
        /* Others have it open. This waits while an initialiser still holds the write lock. */
        if ((rc = ofd_lock(lock->fd, F_OFD_SETLKW, F_RDLCK, CC_LOCK_INIT_BYTE, 1)))
            return cc_error(rc, 0, "", "cannot lock lock file %s: %s", lock_name(lock), strerror(-rc));
        rc = map_existing(lock, data_device, data_inode);
        if (rc == 0) break;
        if (rc != COLUMNAR_ELOCKFILE) return rc;
        /* Not usable as it is. If nobody else is using it either (the others were waiting on an initialiser that
         * died, or on a compaction that replaced the data file), start it over. The conversion is atomic: failing,
         * it leaves our read lock as it was. It fails as well when another opener waited with us and holds its
         * read lock for the same reason; both step back and try again, and one of them becomes the initialiser.
         * Only a lock file still held for another file after that is reported. */
        if (ofd_lock(lock->fd, F_OFD_SETLK, F_WRLCK, CC_LOCK_INIT_BYTE, 1) == 0) {
            fresh = true;
            break;
        }
        if (attempt == 8) return rc;
        ofd_lock(lock->fd, F_OFD_SETLK, F_UNLCK, CC_LOCK_INIT_BYTE, 1);
        struct timespec pause = { 0, (long)(1 + attempt) * 1000000L };
        nanosleep(&pause, NULL);
    }
    if (fresh) {
        if ((rc = create_fresh(lock, data_device, data_inode))) return rc;
        lock->fresh_exclusive = true;
    }
    *out_fresh = fresh;
    return 0;
}

/* Claims a handle slot: the first whose byte no other open file description holds. Its generation goes up, so
 * reader slots left by the slot's previous holder no longer match. */
static int claim_handle_slot(cc_lock *lock) {
    for (uint32_t slot = 0; slot < CC_LOCK_HANDLE_SLOTS; slot++) {
        int rc = ofd_lock(lock->fd, F_OFD_SETLK, F_WRLCK, CC_LOCK_HANDLE_BASE + slot, 1);
        if (rc == -EAGAIN) continue;
        if (rc != 0)
            return cc_error(rc, 0, "", "cannot lock a handle slot of lock file %s: %s (the file system must "
                            "support open file description locks)", lock_name(lock), strerror(-rc));
        uint64_t generation = atomic_fetch_add(&lock->shared->handle_generations[slot], 1) + 1;
        lock->handle_slot = slot;
        lock->owner_word = ((generation & 0xFFFFFFFFFFFFull) << 16) | (slot + 1);
        return 0;
    }
    return CC_FAIL(COLUMNAR_EREADERS, "all %u handle slots of lock file %s are held by open handles",
                   CC_LOCK_HANDLE_SLOTS, lock_name(lock));
}

/* A 32-bit hash of the lock file's identity: its alias byte on the data file. */
static off_t alias_byte(int lock_fd) {
    struct stat status;
    if (fstat(lock_fd, &status) != 0) return CC_DATA_ALIAS_BASE;
    uint64_t h = (uint64_t)status.st_dev * 0x9E3779B97F4A7C15ull ^ (uint64_t)status.st_ino;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    return CC_DATA_ALIAS_BASE + (off_t)(h & (CC_DATA_ALIAS_SPAN - 1));
}

/* Holds this lock file's alias byte on the data file (shared) and checks that no other alias byte is held: a
 * second lock file for the same data file (a hard link or a bind-mounted file opened by another name) would keep
 * a reader table of its own, and a writer of one would overwrite what readers of the other still read. Two
 * openers that start at the same moment may both see the other; they back off and try again. */
static int claim_alias(cc_lock *lock) {
    off_t own = alias_byte(lock->fd);
    for (int attempt = 0;; attempt++) {
        int rc = ofd_lock(lock->data_fd, F_OFD_SETLK, F_RDLCK, own, 1);
        if (rc == -EAGAIN) rc = 0;  /* a write lock on an alias byte is never taken; treat as held */
        if (rc != 0)
            return cc_error(rc, 0, "", "cannot lock the data file of %s: %s (the file system must support open "
                            "file description locks)", lock_name(lock), strerror(-rc));
        int before = ofd_held_elsewhere(lock->data_fd, CC_DATA_ALIAS_BASE, own - CC_DATA_ALIAS_BASE);
        int after = ofd_held_elsewhere(lock->data_fd, own + 1, CC_DATA_ALIAS_BASE + CC_DATA_ALIAS_SPAN - own - 1);
        if (before < 0 || after < 0)
            return cc_error(before < 0 ? before : after, 0, "", "cannot test the locks of the data file of %s",
                            lock_name(lock));
        if (!before && !after) return 0;
        ofd_lock(lock->data_fd, F_OFD_SETLK, F_UNLCK, own, 1);
        if (attempt == 4)
            return CC_FAIL(COLUMNAR_ELOCKFILE, "the database of lock file %s is open through another path whose "
                           "lock file differs (a hard link, or a bind-mounted file, opened by another name); open "
                           "every handle of one file through the same path", lock_name(lock));
        struct timespec pause = { 0, (long)(1 + (unsigned)own % 7 + attempt * 3) * 1000000L };
        nanosleep(&pause, NULL);
    }
}

/* After the init byte is ours: the data file and this lock file must still be the ones their paths name. A deleter
 * (cc_lock_delete_files) unlinks both while it holds the init byte's write lock, so an opener that got either
 * before the deletion ends up with an unlinked file here, and starts over from the path (-ESTALE). */
static int check_still_linked(const cc_lock *lock, int data_fd) {
    struct stat data_status, lock_status, named;
    if (fstat(data_fd, &data_status) != 0 || fstat(lock->fd, &lock_status) != 0)
        return cc_error(-errno, 0, "", "cannot stat the files of %s: %s", lock_name(lock), strerror(errno));
    if (data_status.st_nlink == 0) return -ESTALE;
    if (stat(lock->path, &named) != 0) {
        if (errno == ENOENT) return -ESTALE;
        return cc_error(-errno, 0, "", "cannot stat %s: %s", lock_name(lock), strerror(errno));
    }
    if (named.st_dev != lock_status.st_dev || named.st_ino != lock_status.st_ino) return -ESTALE;
    return 0;
}

int cc_lock_exclusive_take(const char *data_path, const char *lock_path, const char *purpose, int *out_fd) {
    *out_fd = -1;
    /* Created if missing, so that an opener arriving meanwhile waits on this file's init byte like any other. */
    int fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return cc_error(-errno, 0, "", "cannot open lock file %s: %s", lock_path, strerror(errno));
    int rc = ofd_lock(fd, F_OFD_SETLK, F_WRLCK, CC_LOCK_INIT_BYTE, 1);
    if (rc == -EAGAIN) {
        close(fd);
        return cc_error(-EBUSY, 0, "", "%s is open (in this or another process); close every handle of it before "
                        "%s", data_path, purpose);
    }
    if (rc) {
        close(fd);
        return cc_error(rc, 0, "", "cannot lock lock file %s: %s", lock_path, strerror(-rc));
    }
    *out_fd = fd;
    return 0;
}

void cc_lock_exclusive_release(int fd) {
    if (fd >= 0) close(fd);
}

int cc_lock_delete_files(const char *data_path, const char *lock_path, bool *out_deleted) {
    *out_deleted = false;
    int fd;
    int rc = cc_lock_exclusive_take(data_path, lock_path, "deleting its files", &fd);
    if (rc) return rc;
    /* Nobody has the file open, and openers now wait for us. The data file goes first: an opener that reaches a
     * lock file after this finds its data file unlinked (check_still_linked) and starts over. */
    if (unlink(data_path) == 0) {
        *out_deleted = true;
    } else if (errno != ENOENT) {
        rc = cc_error(-errno, 0, "", "cannot delete %s: %s", data_path, strerror(errno));
    }
    /* The lock file goes even when the data file could not: nobody has it open, and an opener waiting for it
     * starts over and makes a new one. */
    if (unlink(lock_path) != 0 && errno != ENOENT && !rc)
        rc = cc_error(-errno, 0, "", "cannot delete lock file %s: %s", lock_path, strerror(errno));
    cc_lock_exclusive_release(fd);
    return rc;
}

int cc_lock_open(const char *path, int data_fd, bool read_only, cc_lock **out_lock, bool *out_fresh) {
    int rc = 0;
    bool fresh = false;
    cc_lock *lock = calloc(1, sizeof *lock);
    if (lock == NULL) return cc_error(-ENOMEM, 0, "", "out of memory opening lock file %s", path ? path : "");
    lock->fd = -1;
    lock->data_fd = data_fd;
    lock->read_only = read_only;
    lock->handle_slot = UINT32_MAX;
    pthread_mutex_init(&lock->local_mutex, NULL);
    pthread_cond_init(&lock->writer_cond, NULL);
    pthread_cond_init(&lock->sync_cond, NULL);

    if (path == NULL) {
        /* An in-memory database: the handles of this process share this cc_lock, so anonymous shared memory
         * (never copied on write) gives the same semantics as a file without touching the disk. */
        void *mapping = mmap(NULL, CC_LOCK_FILE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                             -1, 0);
        if (mapping == MAP_FAILED) {
            rc = cc_error(-errno, 0, "", "cannot map shared memory for an in-memory lock: %s", strerror(errno));
            goto fail;
        }
        lock->shared = mapping;
        initialise_shared(lock->shared, 0, 0);
        lock->owner_word = 1;
        fresh = true;
    } else {
        struct stat data_status;
        if (fstat(data_fd, &data_status) != 0) {
            rc = cc_error(-errno, 0, "", "cannot stat the data file of %s: %s", path, strerror(errno));
            goto fail;
        }
        lock->path = strdup(path);
        if (lock->path == NULL) {
            rc = cc_error(-ENOMEM, 0, "", "out of memory opening lock file %s", path);
            goto fail;
        }
        if ((rc = open_file(lock, (uint64_t)data_status.st_dev, (uint64_t)data_status.st_ino, &fresh))) goto fail;
        if ((rc = check_still_linked(lock, data_fd))) goto fail;
        if ((rc = claim_alias(lock)) || (rc = claim_handle_slot(lock))) goto fail;
    }
    *out_lock = lock;
    *out_fresh = fresh;
    return 0;

fail:
    cc_lock_close(lock);
    return rc;
}

int cc_lock_fresh_done(cc_lock *lock) {
    if (!lock->fresh_exclusive) return 0;
    lock->fresh_exclusive = false;
    if (lock->fd < 0) return 0;
    int rc = ofd_lock(lock->fd, F_OFD_SETLK, F_RDLCK, CC_LOCK_INIT_BYTE, 1);
    if (rc) return cc_error(rc, 0, "", "cannot lock lock file %s: %s", lock_name(lock), strerror(-rc));
    return 0;
}

int cc_lock_data_create(int data_fd, bool lock) {
    int rc = ofd_lock(data_fd, lock ? F_OFD_SETLKW : F_OFD_SETLK, lock ? F_WRLCK : F_UNLCK, CC_DATA_CREATE_BYTE, 1);
    if (rc) return cc_error(rc, 0, "", "cannot lock the empty database file to initialise it: %s", strerror(-rc));
    return 0;
}

void cc_lock_close(cc_lock *lock) {
    if (lock == NULL) return;
    if (lock->shared != NULL) munmap(lock->shared, CC_LOCK_FILE_BYTES);
    /* Closing the descriptor drops our init and handle bytes, so the last handle to close lets the next opener
     * reinitialise. The alias byte on the data file goes when the data file's descriptor is closed. */
    if (lock->fd >= 0) close(lock->fd);
    pthread_cond_destroy(&lock->writer_cond);
    pthread_cond_destroy(&lock->sync_cond);
    pthread_mutex_destroy(&lock->local_mutex);
    free(lock->path);
    free(lock);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The writer lock and the sync leadership                                                                     */
/* ---------------------------------------------------------------------------------------------------------- */

/* Takes the local part of a lock (a flag under the local mutex, so any thread may release it). Each flag has its
 * condition variable, and a release wakes one waiter: any of them may take the lock, and waking all of them at
 * every release would have them fight for the mutex only to sleep again. */
static void local_take(cc_lock *lock, bool *held, pthread_cond_t *released) {
    pthread_mutex_lock(&lock->local_mutex);
    while (*held) pthread_cond_wait(released, &lock->local_mutex);
    *held = true;
    pthread_mutex_unlock(&lock->local_mutex);
}

static bool local_try(cc_lock *lock, bool *held) {
    pthread_mutex_lock(&lock->local_mutex);
    bool taken = !*held;
    if (taken) *held = true;
    pthread_mutex_unlock(&lock->local_mutex);
    return taken;
}

static void local_give(cc_lock *lock, bool *held, pthread_cond_t *released) {
    pthread_mutex_lock(&lock->local_mutex);
    *held = false;
    pthread_cond_signal(released);
    pthread_mutex_unlock(&lock->local_mutex);
}

int cc_lock_writer_acquire(cc_lock *lock, cc_repair_kind *out_repair) {
    cc_lock_shared *shared = lock->shared;
    local_take(lock, &lock->writer_held, &lock->writer_cond);
    if (lock->data_fd >= 0) {
        int rc = ofd_lock(lock->data_fd, F_OFD_SETLKW, F_WRLCK, CC_DATA_WRITER_BYTE, 1);
        if (rc != 0) {
            local_give(lock, &lock->writer_held, &lock->writer_cond);
            return cc_error(rc, 0, "", "cannot take the writer lock of %s: %s", lock_name(lock), strerror(-rc));
        }
    }
    /* Set and still set: its holder died holding it, possibly halfway through a commit. */
    if (atomic_exchange(&shared->writer_active, 1) != 0) cc_lock_request_repair(lock, CC_REPAIR_VERIFY);
    if (atomic_load(&shared->storage_failed)) {
        int error = atomic_load(&shared->storage_error);
        cc_lock_writer_release(lock);
        return CC_FAIL(COLUMNAR_ESTORAGE, "%s refuses writes: an earlier write or sync failed (%s) and the file "
                       "could not be brought back to a known durable state; close every handle and open it again",
                       lock_name(lock), columnar_strerror(error));
    }
    *out_repair = (cc_repair_kind)atomic_load(&shared->repair);
    return 0;
}

void cc_lock_writer_release(cc_lock *lock) {
    atomic_store(&lock->shared->writer_active, 0);
    if (lock->data_fd >= 0) ofd_lock(lock->data_fd, F_OFD_SETLK, F_UNLCK, CC_DATA_WRITER_BYTE, 1);
    local_give(lock, &lock->writer_held, &lock->writer_cond);
}

/* The leadership was taken: find out whether the previous leader died while leading. */
static int sync_taken(cc_lock *lock, bool *out_leader_died) {
    *out_leader_died = false;
    if (atomic_exchange(&lock->shared->leader_active, 1) != 0) {
        *out_leader_died = true;
        cc_lock_request_repair(lock, CC_REPAIR_VERIFY);
        cc_lock_sync_release(lock);
        return -1;
    }
    return 1;
}

int cc_lock_sync_try_lead(cc_lock *lock, bool *out_leader_died) {
    *out_leader_died = false;
    if (!local_try(lock, &lock->sync_held)) return 0;
    if (lock->data_fd >= 0) {
        int rc = ofd_lock(lock->data_fd, F_OFD_SETLK, F_WRLCK, CC_DATA_SYNC_BYTE, 1);
        if (rc != 0) {
            local_give(lock, &lock->sync_held, &lock->sync_cond);
            return 0;
        }
    }
    return sync_taken(lock, out_leader_died);
}

int cc_lock_sync_lead(cc_lock *lock, bool *out_leader_died) {
    local_take(lock, &lock->sync_held, &lock->sync_cond);
    if (lock->data_fd >= 0) {
        int rc = ofd_lock(lock->data_fd, F_OFD_SETLKW, F_WRLCK, CC_DATA_SYNC_BYTE, 1);
        if (rc != 0) {
            /* Only an interrupted or refused wait gets here; the caller's next attempt tries again. */
            local_give(lock, &lock->sync_held, &lock->sync_cond);
            *out_leader_died = false;
            return 0;
        }
    }
    return sync_taken(lock, out_leader_died);
}

void cc_lock_sync_release(cc_lock *lock) {
    atomic_store(&lock->shared->leader_active, 0);
    if (lock->data_fd >= 0) ofd_lock(lock->data_fd, F_OFD_SETLK, F_UNLCK, CC_DATA_SYNC_BYTE, 1);
    local_give(lock, &lock->sync_held, &lock->sync_cond);
}

uint32_t cc_lock_sync_sequence(cc_lock *lock) { return atomic_load(&lock->shared->sync_sequence); }

void cc_lock_sync_wait(cc_lock *lock, uint32_t seen_sequence, uint32_t timeout_microseconds) {
    futex_wait(&lock->shared->sync_sequence, seen_sequence, timeout_microseconds);
}

void cc_lock_sync_wake(cc_lock *lock) {
    atomic_fetch_add(&lock->shared->sync_sequence, 1);
    futex_wake_all(&lock->shared->sync_sequence);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Versions                                                                                                     */
/* ---------------------------------------------------------------------------------------------------------- */

static uint64_t chain_word(uint64_t epoch, uint64_t written) {
    return (epoch << CC_CHAIN_VERSION_BITS) | (written & CC_CHAIN_VERSION_MASK);
}

void cc_lock_changes_append(cc_lock *lock, uint64_t version, const cc_sector_run *runs, size_t count) {
    cc_lock_shared *shared = lock->shared;
    uint64_t head = atomic_load_explicit(&shared->change_head, memory_order_relaxed);
    /* A seqlock's opening count: a reader that sees any of the entries below sees this too (cc_lock_change_get). */
    atomic_store_explicit(&shared->change_reserved, head + count, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    for (size_t i = 0; i < count; i++, head++) {
        cc_change_entry *entry = &shared->changes[head % CC_LOCK_CHANGE_RING];
        atomic_store_explicit(&entry->version, version, memory_order_relaxed);
        atomic_store_explicit(&entry->first, runs[i].first, memory_order_relaxed);
        atomic_store_explicit(&entry->end, runs[i].end, memory_order_relaxed);
    }
    atomic_store_explicit(&shared->change_head, head, memory_order_release);
}

uint64_t cc_lock_changes_head(cc_lock *lock) {
    return atomic_load_explicit(&lock->shared->change_head, memory_order_acquire);
}

bool cc_lock_change_get(cc_lock *lock, uint64_t position, uint64_t *out_version, uint64_t *out_first,
                        uint64_t *out_end) {
    cc_lock_shared *shared = lock->shared;
    if (atomic_load_explicit(&shared->change_head, memory_order_acquire) - position > CC_LOCK_CHANGE_RING) return false;
    const cc_change_entry *entry = &shared->changes[position % CC_LOCK_CHANGE_RING];
    *out_version = atomic_load_explicit(&entry->version, memory_order_relaxed);
    *out_first = atomic_load_explicit(&entry->first, memory_order_relaxed);
    *out_end = atomic_load_explicit(&entry->end, memory_order_relaxed);
    /* An append that reached this slot while the entry was read (its reservation passes position + ring) may have
     * changed it under us. */
    atomic_thread_fence(memory_order_acquire);
    return atomic_load_explicit(&shared->change_reserved, memory_order_relaxed) - position <= CC_LOCK_CHANGE_RING;
}

void cc_lock_chain_read(cc_lock *lock, uint64_t *out_epoch, uint64_t *out_written) {
    uint64_t word = atomic_load(&lock->shared->chain_word);
    *out_epoch = word >> CC_CHAIN_VERSION_BITS;
    *out_written = word & CC_CHAIN_VERSION_MASK;
}

bool cc_lock_chain_advance(cc_lock *lock, uint64_t epoch, uint64_t from, uint64_t to) {
    uint64_t expected = chain_word(epoch, from);
    return atomic_compare_exchange_strong(&lock->shared->chain_word, &expected, chain_word(epoch, to));
}

void cc_lock_chain_reset(cc_lock *lock, uint64_t written) {
    uint64_t word = atomic_load(&lock->shared->chain_word);
    while (!atomic_compare_exchange_weak(&lock->shared->chain_word, &word,
                                         chain_word(word >> CC_CHAIN_VERSION_BITS, written))) {
    }
}

void cc_lock_record_failure(cc_lock *lock, uint64_t low, int error, bool invalidate) {
    cc_lock_shared *shared = lock->shared;
    /* The request goes first: a writer that sees the new epoch must also see that the chain needs dropping, or it
     * could build on the failed versions in the new epoch, where nothing would fail it. */
    if (invalidate) cc_lock_request_repair(lock, CC_REPAIR_INVALIDATE);
    uint64_t word = atomic_load(&shared->chain_word), next;
    do {
        next = chain_word((word >> CC_CHAIN_VERSION_BITS) + 1, word & CC_CHAIN_VERSION_MASK);
    } while (!atomic_compare_exchange_weak(&shared->chain_word, &word, next));
    uint64_t epoch = (word >> CC_CHAIN_VERSION_BITS) & 0xFFFF;
    cc_failure_entry *entry = &shared->failures[epoch % CC_LOCK_FAILURE_RING];
    /* Written before the epoch could be looked up by a waiter? A waiter looks only after the sync sequence
     * moves, which the leader advances after this returns. */
    atomic_store(&entry->low, low);
    atomic_store(&entry->high, word & CC_CHAIN_VERSION_MASK);
    atomic_store(&entry->error, error);
    atomic_store(&entry->epoch, epoch + 1);   /* stored + 1 so that a zeroed entry matches no epoch */
}

bool cc_lock_version_failed(cc_lock *lock, uint64_t epoch, uint64_t version, int *out_error) {
    cc_lock_shared *shared = lock->shared;
    uint64_t current = atomic_load(&shared->chain_word) >> CC_CHAIN_VERSION_BITS;
    if ((current & 0xFFFF) == (epoch & 0xFFFF)) return false;
    const cc_failure_entry *entry = &shared->failures[(epoch & 0xFFFF) % CC_LOCK_FAILURE_RING];
    if (atomic_load(&entry->epoch) != (epoch & 0xFFFF) + 1) {
        /* Sixteen more syncs failed while this committer slept: what happened to its version is no longer known,
         * and failing is the answer that cannot lose an acknowledged commit. */
        *out_error = -EIO;
        return true;
    }
    if (version > atomic_load(&entry->low) && version <= atomic_load(&entry->high)) {
        *out_error = (int)atomic_load(&entry->error);
        return true;
    }
    return false;
}

uint64_t cc_lock_durable(cc_lock *lock) { return atomic_load(&lock->shared->durable_version); }

uint64_t cc_lock_reuse_bound(cc_lock *lock) {
    for (int attempt = 0; attempt < 64; attempt++) {
        uint64_t durable = atomic_load(&lock->shared->durable_version);
        cc_version_state state;
        if (cc_lock_version_state(lock, durable, &state)) return state.base_version;
        /* The durable version moved past the ring's entry while we looked: read it again. */
    }
    /* Nothing recovered yet, or the ring does not hold it: reusing nothing is always safe. */
    return 0;
}

static void atomic_raise(_Atomic uint64_t *word, uint64_t value) {
    uint64_t current = atomic_load(word);
    while (current < value && !atomic_compare_exchange_weak(word, &current, value)) {
    }
}

void cc_lock_set_durable(cc_lock *lock, uint64_t version) { atomic_raise(&lock->shared->durable_version, version); }

void cc_lock_publish(cc_lock *lock, uint64_t version) {
    atomic_raise(&lock->shared->published_version, version);
    /* Pairs with the fence in collect_live_versions: either a reader re-reading the published version sees the
     * new one, or the writer sees its slot. */
    atomic_thread_fence(memory_order_seq_cst);
}

uint64_t cc_lock_published_version(cc_lock *lock) { return atomic_load(&lock->shared->published_version); }

void cc_lock_record_version(cc_lock *lock, const cc_version_state *state) {
    cc_version_entry *entry = &lock->shared->versions[state->version % CC_LOCK_VERSION_RING];
    uint64_t sequence = atomic_load_explicit(&entry->sequence, memory_order_relaxed);
    if (sequence & 1u) sequence++;   /* a writer died halfway: step past it */
    atomic_store_explicit(&entry->sequence, sequence + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&entry->version, state->version, memory_order_relaxed);
    atomic_store_explicit(&entry->top_ref, state->top_ref, memory_order_relaxed);
    atomic_store_explicit(&entry->used_size, state->used_size, memory_order_relaxed);
    atomic_store_explicit(&entry->file_size, state->file_size, memory_order_relaxed);
    atomic_store_explicit(&entry->base_version, state->base_version, memory_order_relaxed);
    atomic_store_explicit(&entry->sequence, sequence + 2, memory_order_release);
}

bool cc_lock_version_state(cc_lock *lock, uint64_t version, cc_version_state *out) {
    const cc_version_entry *entry = &lock->shared->versions[version % CC_LOCK_VERSION_RING];
    for (;;) {
        uint64_t before = atomic_load_explicit(&entry->sequence, memory_order_acquire);
        if (before & 1u) {
            sched_yield();
            continue;
        }
        cc_version_state state;
        state.version = atomic_load_explicit(&entry->version, memory_order_relaxed);
        state.top_ref = atomic_load_explicit(&entry->top_ref, memory_order_relaxed);
        state.used_size = atomic_load_explicit(&entry->used_size, memory_order_relaxed);
        state.file_size = atomic_load_explicit(&entry->file_size, memory_order_relaxed);
        state.base_version = atomic_load_explicit(&entry->base_version, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&entry->sequence, memory_order_relaxed) != before) continue;
        if (state.version != version) return false;
        *out = state;
        return true;
    }
}

bool cc_lock_read_published(cc_lock *lock, cc_version_state *out_state) {
    /* Pairs with the fence in cc_lock_publish: a reader slot stored before this call is ordered before the loads
     * below. */
    atomic_thread_fence(memory_order_seq_cst);
    for (;;) {
        uint64_t version = atomic_load(&lock->shared->published_version);
        if (version == 0) return false;
        if (cc_lock_version_state(lock, version, out_state)) return true;
        /* The ring moved past it while we looked: read the published version again. */
    }
}

void cc_lock_request_repair(cc_lock *lock, cc_repair_kind kind) {
    uint32_t current = atomic_load(&lock->shared->repair);
    while (current < (uint32_t)kind && !atomic_compare_exchange_weak(&lock->shared->repair, &current, kind)) {
    }
}

cc_repair_kind cc_lock_repair_pending(cc_lock *lock) { return (cc_repair_kind)atomic_load(&lock->shared->repair); }

void cc_lock_repair_done(cc_lock *lock) { atomic_store(&lock->shared->repair, CC_REPAIR_NONE); }

void cc_lock_set_storage_failed(cc_lock *lock, int error) {
    atomic_store(&lock->shared->storage_error, error);
    atomic_store(&lock->shared->storage_failed, 1);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Reader slots                                                                                                 */
/* ---------------------------------------------------------------------------------------------------------- */

/* What the caller of collect_live_versions learned about handle slots, so each is looked at once per walk. */
typedef struct handle_verdicts {
    uint8_t known[CC_LOCK_HANDLE_SLOTS];   /* 0 unknown, 1 alive, 2 gone */
} handle_verdicts;

/* Whether the handle behind reader owner word `owner` is gone: its slot was claimed again (another generation)
 * or nobody holds its byte. A handle that is claiming a slot holds the byte before it raises the generation, so
 * a live handle never looks gone; one that just died may look alive until the next walk. */
static bool owner_is_gone(cc_lock *lock, uint64_t owner, handle_verdicts *verdicts) {
    if (owner == lock->owner_word || lock->fd < 0) return false;
    uint64_t slot = (owner & 0xFFFF) - 1;
    if (slot >= CC_LOCK_HANDLE_SLOTS) return true;   /* no handle ever writes this: a damaged slot */
    uint64_t generation = owner >> 16;
    if ((atomic_load(&lock->shared->handle_generations[slot]) & 0xFFFFFFFFFFFFull) != generation) return true;
    if (verdicts->known[slot]) return verdicts->known[slot] == 2;
    int held = ofd_held_elsewhere(lock->fd, CC_LOCK_HANDLE_BASE + (off_t)slot, 1);
    bool gone = held == 0;   /* an error leaves the slot alone: keeping space is the safe mistake */
    verdicts->known[slot] = gone ? 2 : 1;
    return gone;
}

/* Frees a slot whose owner is gone. Swapping the owner word for our own first means only one reclaimer touches
 * the version, and never after a new owner has taken the slot. */
static void reclaim_slot(cc_lock *lock, cc_reader_slot *slot, uint64_t dead_owner) {
    uint64_t expected = dead_owner;
    if (!atomic_compare_exchange_strong(&slot->owner, &expected, lock->owner_word)) return;
    atomic_store(&slot->version, 0);
    atomic_store(&slot->owner, 0);
}

/* Collects the versions pinned by live readers into `versions` (CC_LOCK_READER_SLOTS entries), reclaiming the
 * slots of handles that are gone on the way, and returns how many there are. Also counts reclaimed slots. */
static uint32_t collect_live_versions(cc_lock *lock, uint64_t *versions, uint32_t *out_reclaimed_count) {
    cc_lock_shared *shared = lock->shared;
    uint32_t version_count = 0, reclaimed_count = 0;
    handle_verdicts verdicts;
    memset(&verdicts, 0, sizeof verdicts);
    /* Pairs with the fence in cc_lock_publish and the reader's seq_cst slot store: either a reader re-reading the
     * published version sees a newer one, or we see its slot. */
    atomic_thread_fence(memory_order_seq_cst);
    for (uint32_t slot_index = 0; slot_index < CC_LOCK_READER_SLOTS; slot_index++) {
        cc_reader_slot *slot = &shared->readers[slot_index];
        uint64_t version = atomic_load(&slot->version);
        if (version == 0) continue;
        uint64_t owner = atomic_load(&slot->owner);
        /* Owner 0 here means the slot was released after we read its version; counting it is merely
         * conservative. */
        if (owner != 0 && owner_is_gone(lock, owner, &verdicts)) {
            reclaim_slot(lock, slot, owner);
            reclaimed_count++;
            continue;
        }
        versions[version_count++] = version;
    }
    if (out_reclaimed_count != NULL) *out_reclaimed_count = reclaimed_count;
    return version_count;
}

int cc_lock_reader_acquire(cc_lock *lock, uint64_t version, uint32_t *out_slot) {
    cc_lock_shared *shared = lock->shared;
    if (version == 0) return CC_MISUSE("a reader slot must pin a version >= 1 (lock file %s)", lock_name(lock));
    /* A second pass runs only when the first found the table full and reclaiming freed something. */
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t slot_index = 0; slot_index < CC_LOCK_READER_SLOTS; slot_index++) {
            cc_reader_slot *slot = &shared->readers[slot_index];
            if (atomic_load_explicit(&slot->owner, memory_order_relaxed) != 0) continue;
            uint64_t expected = 0;
            if (!atomic_compare_exchange_strong(&slot->owner, &expected, lock->owner_word)) continue;
            /* seq_cst so that the caller's following re-read of the published version cannot be ordered before
             * this store. */
            atomic_store(&slot->version, version);
            *out_slot = slot_index;
            return 0;
        }
        if (pass == 0) {
            uint64_t *unused_versions = malloc(CC_LOCK_READER_SLOTS * sizeof *unused_versions);
            if (!unused_versions) return -ENOMEM;
            uint32_t reclaimed_count = 0;
            collect_live_versions(lock, unused_versions, &reclaimed_count);
            free(unused_versions);
            if (reclaimed_count == 0) break;
        }
    }
    return CC_FAIL(COLUMNAR_EREADERS, "all %u reader slots of lock file %s are held by open handles",
                   CC_LOCK_READER_SLOTS, lock_name(lock));
}

void cc_lock_reader_update(cc_lock *lock, uint32_t slot, uint64_t version) {
    if (slot >= CC_LOCK_READER_SLOTS) return;
    atomic_store(&lock->shared->readers[slot].version, version);
}

void cc_lock_reader_release(cc_lock *lock, uint32_t slot) {
    if (slot >= CC_LOCK_READER_SLOTS) return;
    /* Version first: once the owner reads 0 the slot may be taken, and its new owner must find version 0. */
    atomic_store(&lock->shared->readers[slot].version, 0);
    atomic_store(&lock->shared->readers[slot].owner, 0);
}

uint64_t cc_lock_oldest_pinned(cc_lock *lock, uint64_t latest) {
    uint64_t versions[CC_LOCK_READER_SLOTS];
    uint32_t version_count = collect_live_versions(lock, versions, NULL);
    uint64_t oldest = latest;
    for (uint32_t index = 0; index < version_count; index++)
        if (versions[index] < oldest) oldest = versions[index];
    return oldest;
}

static int compare_versions(const void *left, const void *right) {
    uint64_t a = *(const uint64_t *)left, b = *(const uint64_t *)right;
    return (a > b) - (a < b);
}

uint64_t cc_lock_live_versions(cc_lock *lock, uint64_t latest) {
    uint64_t versions[CC_LOCK_READER_SLOTS];
    uint32_t version_count = collect_live_versions(lock, versions, NULL);
    qsort(versions, version_count, sizeof versions[0], compare_versions);
    uint64_t distinct_count = 0;
    bool latest_pinned = false;
    for (uint32_t index = 0; index < version_count; index++) {
        if (index == 0 || versions[index] != versions[index - 1]) distinct_count++;
        if (versions[index] == latest) latest_pinned = true;
    }
    return distinct_count + (latest_pinned ? 0 : 1);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Reading the lock file from outside (inspection)                                                              */
/* ---------------------------------------------------------------------------------------------------------- */

int cc_lock_file_read(const char *path, cc_lock_file_state *out, cc_lock_reader_visit visit, void *context) {
    memset(out, 0, sizeof *out);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    /* One read of the whole structure: the fields are then a snapshot (plain bytes, not atomics), which is what
     * an inspector wants even though a live writer may change the file a moment later. */
    cc_lock_shared *copy = calloc(1, sizeof *copy);
    if (!copy) {
        close(fd);
        return -ENOMEM;
    }
    struct stat status;
    ssize_t got = 0;
    int rc = 0;
    if (fstat(fd, &status) != 0) {
        rc = -errno;
        goto done;
    }
    for (size_t done = 0; done < sizeof *copy;) {
        ssize_t n = pread(fd, (uint8_t *)copy + done, sizeof *copy - done, (off_t)done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            rc = -errno;
            goto done;
        }
        if (n == 0) break;
        done += (size_t)n;
        got = (ssize_t)done;
    }
    if (status.st_size != (off_t)CC_LOCK_FILE_BYTES || got != (ssize_t)sizeof *copy) {
        snprintf(out->problem, sizeof out->problem, "the lock file is %lld bytes; this build's layout is %zu",
                 (long long)status.st_size, (size_t)CC_LOCK_FILE_BYTES);
        goto done;
    }
    out->layout_version = copy->layout_version;
    out->reader_slot_count = copy->reader_slot_count;
    if (memcmp(copy->magic, CC_LOCK_MAGIC, CC_LOCK_MAGIC_BYTES) != 0) {
        snprintf(out->problem, sizeof out->problem, "the lock file has no valid magic number (never initialised, "
                 "damaged, another version, or not a Columnar lock file)");
        goto done;
    }
    if (copy->layout_version != CC_LOCK_LAYOUT_VERSION || copy->shared_size_bytes != sizeof *copy ||
        copy->reader_slot_count != CC_LOCK_READER_SLOTS || copy->handle_slot_count != CC_LOCK_HANDLE_SLOTS) {
        snprintf(out->problem, sizeof out->problem, "the lock file has layout version %u (size %u, %u reader "
                 "slots); this build uses version %u", copy->layout_version, copy->shared_size_bytes,
                 copy->reader_slot_count, CC_LOCK_LAYOUT_VERSION);
        goto done;
    }
    out->valid = true;
    out->data_device = copy->data_device;
    out->data_inode = copy->data_inode;
    uint64_t word = atomic_load_explicit(&copy->chain_word, memory_order_relaxed);
    out->written_version = word & CC_CHAIN_VERSION_MASK;
    out->durable_version = atomic_load_explicit(&copy->durable_version, memory_order_relaxed);
    out->repair = atomic_load_explicit(&copy->repair, memory_order_relaxed);
    out->storage_failed = atomic_load_explicit(&copy->storage_failed, memory_order_relaxed) != 0;
    uint64_t published = atomic_load_explicit(&copy->published_version, memory_order_relaxed);
    const cc_version_entry *entry = &copy->versions[published % CC_LOCK_VERSION_RING];
    if (published && atomic_load_explicit(&entry->version, memory_order_relaxed) == published) {
        out->published = true;
        out->state.version = published;
        out->state.top_ref = atomic_load_explicit(&entry->top_ref, memory_order_relaxed);
        out->state.used_size = atomic_load_explicit(&entry->used_size, memory_order_relaxed);
        out->state.file_size = atomic_load_explicit(&entry->file_size, memory_order_relaxed);
        out->state.base_version = atomic_load_explicit(&entry->base_version, memory_order_relaxed);
    }
    for (uint32_t slot = 0; slot < CC_LOCK_READER_SLOTS && visit; slot++) {
        uint64_t version = atomic_load_explicit(&copy->readers[slot].version, memory_order_relaxed);
        uint64_t owner = atomic_load_explicit(&copy->readers[slot].owner, memory_order_relaxed);
        if (version == 0) continue;
        uint32_t handle = (uint32_t)(owner & 0xFFFF) - 1;
        bool alive = false;
        if (handle < CC_LOCK_HANDLE_SLOTS &&
            (atomic_load_explicit(&copy->handle_generations[handle], memory_order_relaxed) & 0xFFFFFFFFFFFFull) ==
                owner >> 16)
            alive = ofd_held_elsewhere(fd, CC_LOCK_HANDLE_BASE + handle, 1) == 1;
        visit(context, slot, handle, alive, version);
    }
done:
    free(copy);
    close(fd);
    return rc;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The write log's place in the mapping (its protocol is in writelog.c)                                          */
/* ---------------------------------------------------------------------------------------------------------- */

cc_log_view cc_lock_write_log(cc_lock *lock) {
    cc_log_view view = {
        .head = &lock->shared->log_head,
        .reserved = &lock->shared->log_reserved,
        .enabled_after = &lock->shared->log_enabled_after,
        .records = (cc_log_record *)((uint8_t *)lock->shared + CC_LOCK_LOG_OFFSET),
    };
    return view;
}
