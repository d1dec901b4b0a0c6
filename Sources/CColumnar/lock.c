/*
 * lock.c — the lock file beside a database: a small shared mapping that every thread and process with the
 * database open uses to take turns writing, to tell the writer which versions readers still see, and to learn
 * the latest committed version without parsing the data file's header.
 *
 * The mapping is host state, not a file format: it is written in host byte order and holds a pthread mutex,
 * so it is only meaningful to processes of the same ABI on the same machine. The header fields below exist to
 * refuse a file left by another build (another layout, another pthread ABI) rather than misread it.
 *
 * LAYOUT (struct cc_lock_shared, 8352 bytes; checked by _Static_assert below)
 *
 *   OFFSET SIZE DESCRIPTION
 *        0    8 magic "CLMNLCK1" (written last when initialising)
 *        8    4 layout version (CC_LOCK_LAYOUT_VERSION)
 *       12    4 size of this structure in bytes (8352)
 *       16    4 reader slot count (CC_LOCK_READER_SLOTS, 510)
 *       20    4 sizeof(pthread_mutex_t) of the process that initialised the file
 *       24   40 reserved, zero
 *       64   64 writer mutex: pthread_mutex_t (process-shared, robust, error-checking), zero-padded to 64
 *      128    8 seqlock sequence: 0 = never published, odd while the writer is publishing
 *      136    8 published version
 *      144    8 published top ref
 *      152    8 published used size in bytes
 *      160    8 published file size in bytes
 *      168   24 reserved, zero
 *      192 8160 reader slots, 510 x 16 bytes:
 *                 0 4 owner pid (0 = slot free)
 *                 4 4 reserved, zero
 *                 8 8 pinned version (0 = nothing pinned yet)
 *
 * WHO INITIALISES. Every opener holds a shared flock() on the file for as long as it has it open. An opener
 * whose non-blocking exclusive flock() succeeds is therefore alone: it (re)initialises everything and then
 * downgrades to shared. Openers that find the exclusive lock taken wait for a shared lock (which they get once
 * the initialiser has downgraded) and then validate the header. flock() locks belong to the open file
 * description, so two handles in one process behave like two processes, which is what we want.
 */
#include "lock.h"

#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define CC_LOCK_MAGIC "CLMNLCK1"
#define CC_LOCK_MAGIC_BYTES 8
#define CC_LOCK_LAYOUT_VERSION 1u
#define CC_LOCK_MUTEX_AREA_BYTES 64

/* How many times a reader re-reads an odd (mid-publish) sequence before yielding the CPU and checking whether
 * the publishing writer died. A publish is a handful of stores, so reaching this means the writer was
 * descheduled or killed. */
#define CC_LOCK_PUBLISH_SPINS 256u

/* The atomics below live in memory shared between processes. A lock-based fallback would use a lock table
 * private to each process and silently lose atomicity, so refuse to build without lock-free 32/64-bit atomics. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "lock-free 32-bit atomics are required for the shared lock file");
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "lock-free 64-bit atomics are required for the shared lock file");

/* One reader slot. A slot is owned by whoever set `pid` from 0 to its own pid; only the owner (or the process
 * reclaiming a dead owner's slot, see reclaim_slot) writes `version`. Ownership goes by pid rather than by
 * version so that reclaiming cannot race with a new owner that pins the very same version (an ABA problem a
 * compare-and-swap on the version could not see). */
typedef struct cc_reader_slot {
    _Atomic uint32_t pid;
    uint32_t reserved;
    _Atomic uint64_t version;
} cc_reader_slot;

typedef struct cc_lock_shared {
    char magic[CC_LOCK_MAGIC_BYTES];
    uint32_t layout_version;
    uint32_t shared_size_bytes;
    uint32_t reader_slot_count;
    uint32_t mutex_size_bytes;
    uint8_t reserved0[40];
    union {
        pthread_mutex_t mutex;
        uint8_t area[CC_LOCK_MUTEX_AREA_BYTES];
    } writer;
    /* The published state is a seqlock: the writer makes `sequence` odd, stores the fields, makes it even. */
    _Atomic uint64_t sequence;
    _Atomic uint64_t published_version;
    _Atomic uint64_t published_top_ref;
    _Atomic uint64_t published_used_size_bytes;
    _Atomic uint64_t published_file_size_bytes;
    uint8_t reserved1[24];
    cc_reader_slot readers[CC_LOCK_READER_SLOTS];
} cc_lock_shared;

_Static_assert(sizeof(cc_reader_slot) == 16, "reader slot layout");
_Static_assert(offsetof(cc_reader_slot, version) == 8, "reader slot layout");
_Static_assert(sizeof(pthread_mutex_t) <= CC_LOCK_MUTEX_AREA_BYTES, "pthread_mutex_t must fit its 64-byte area");
_Static_assert(offsetof(cc_lock_shared, layout_version) == 8, "lock file layout");
_Static_assert(offsetof(cc_lock_shared, shared_size_bytes) == 12, "lock file layout");
_Static_assert(offsetof(cc_lock_shared, reader_slot_count) == 16, "lock file layout");
_Static_assert(offsetof(cc_lock_shared, mutex_size_bytes) == 20, "lock file layout");
_Static_assert(offsetof(cc_lock_shared, writer) == 64, "lock file layout");
_Static_assert(offsetof(cc_lock_shared, sequence) == 128, "lock file layout");
_Static_assert(offsetof(cc_lock_shared, published_version) == 136, "lock file layout");
_Static_assert(offsetof(cc_lock_shared, published_top_ref) == 144, "lock file layout");
_Static_assert(offsetof(cc_lock_shared, published_used_size_bytes) == 152, "lock file layout");
_Static_assert(offsetof(cc_lock_shared, published_file_size_bytes) == 160, "lock file layout");
_Static_assert(offsetof(cc_lock_shared, readers) == 192, "lock file layout");
_Static_assert(sizeof(cc_lock_shared) == 192 + 16 * CC_LOCK_READER_SLOTS, "lock file layout");
_Static_assert(sizeof(cc_lock_shared) < 64 * 1024, "the lock file should stay small");

struct cc_lock {
    cc_lock_shared *shared;   /* the mapping; NULL until mapped */
    int fd;                   /* the lock file, holding our shared flock(); -1 for anonymous memory */
    uint32_t own_pid;         /* getpid() at open: what our reader slots carry */
    char *path;               /* for messages; NULL for anonymous memory */
};

static const char *lock_name(const cc_lock *lock) {
    return lock->path ? lock->path : "(in-memory lock)";
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Opening                                                                                                      */
/* ---------------------------------------------------------------------------------------------------------- */

/* flock() that retries when a signal interrupts a blocking wait. Returns 0 or -1 with errno set. */
static int flock_retrying(int fd, int operation) {
    int result;
    do {
        result = flock(fd, operation);
    } while (result == -1 && errno == EINTR);
    return result;
}

/* Fills a zeroed mapping: the writer mutex, then the header, magic last so a half-initialised file never
 * validates. */
static int initialise_shared(cc_lock *lock) {
    cc_lock_shared *shared = lock->shared;
    pthread_mutexattr_t attributes;
    bool attributes_made = false;
    const char *step = "pthread_mutexattr_init";
    int err = pthread_mutexattr_init(&attributes);
    if (err != 0) goto fail;
    attributes_made = true;

    /* Process-shared because every process with the database open locks it; robust so a writer that dies
     * holding it does not wedge the database; error-checking so a thread that locks it twice is told instead of
     * deadlocking. */
    step = "pthread_mutexattr_setpshared";
    if ((err = pthread_mutexattr_setpshared(&attributes, PTHREAD_PROCESS_SHARED)) != 0) goto fail;
    step = "pthread_mutexattr_setrobust";
    if ((err = pthread_mutexattr_setrobust(&attributes, PTHREAD_MUTEX_ROBUST)) != 0) goto fail;
    step = "pthread_mutexattr_settype";
    if ((err = pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_ERRORCHECK)) != 0) goto fail;
    step = "pthread_mutex_init";
    if ((err = pthread_mutex_init(&shared->writer.mutex, &attributes)) != 0) goto fail;

    shared->layout_version = CC_LOCK_LAYOUT_VERSION;
    shared->shared_size_bytes = (uint32_t)sizeof(cc_lock_shared);
    shared->reader_slot_count = CC_LOCK_READER_SLOTS;
    shared->mutex_size_bytes = (uint32_t)sizeof(pthread_mutex_t);
    atomic_store(&shared->sequence, 0);
    memcpy(shared->magic, CC_LOCK_MAGIC, CC_LOCK_MAGIC_BYTES);

fail:
    if (attributes_made) pthread_mutexattr_destroy(&attributes);
    if (err != 0) {
        return cc_error(-err, 0, "", "cannot set up the writer mutex of lock file %s: %s failed: %s",
                        lock_name(lock), step, strerror(err));
    }
    return 0;
}

/* We hold the only lock on the file: empty it, size it, map it and initialise it. */
static int create_fresh(cc_lock *lock) {
    void *mapping = MAP_FAILED;
    int rc = 0;
    /* Truncating to zero first guarantees the new contents read as zeros, whatever was there before. */
    if (ftruncate(lock->fd, 0) != 0 || ftruncate(lock->fd, (off_t)sizeof(cc_lock_shared)) != 0) {
        rc = cc_error(-errno, 0, "", "cannot size lock file %s: %s", lock_name(lock), strerror(errno));
        goto fail;
    }
    mapping = mmap(NULL, sizeof(cc_lock_shared), PROT_READ | PROT_WRITE, MAP_SHARED, lock->fd, 0);
    if (mapping == MAP_FAILED) {
        rc = cc_error(-errno, 0, "", "cannot map lock file %s: %s", lock_name(lock), strerror(errno));
        goto fail;
    }
    lock->shared = mapping;
    rc = initialise_shared(lock);
    if (rc != 0) goto fail;
    return 0;

fail:
    if (mapping != MAP_FAILED) munmap(mapping, sizeof(cc_lock_shared));
    lock->shared = NULL;
    return rc;
}

/* Someone else initialised the file: map it and check it is ours. Returns COLUMNAR_ELOCKFILE when it is of
 * another layout (or was left half-initialised by an initialiser that died). */
static int map_existing(cc_lock *lock) {
    void *mapping = MAP_FAILED;
    int rc = 0;
    struct stat status;
    if (fstat(lock->fd, &status) != 0) {
        rc = cc_error(-errno, 0, "", "cannot stat lock file %s: %s", lock_name(lock), strerror(errno));
        goto fail;
    }
    /* Checked before mapping: touching a mapping beyond the end of a shorter file would raise SIGBUS. */
    if (status.st_size != (off_t)sizeof(cc_lock_shared)) {
        rc = CC_FAIL(COLUMNAR_ELOCKFILE, "lock file %s is %lld bytes, expected %zu: another version or damaged",
                     lock_name(lock), (long long)status.st_size, sizeof(cc_lock_shared));
        goto fail;
    }
    mapping = mmap(NULL, sizeof(cc_lock_shared), PROT_READ | PROT_WRITE, MAP_SHARED, lock->fd, 0);
    if (mapping == MAP_FAILED) {
        rc = cc_error(-errno, 0, "", "cannot map lock file %s: %s", lock_name(lock), strerror(errno));
        goto fail;
    }
    const cc_lock_shared *shared = mapping;
    if (memcmp(shared->magic, CC_LOCK_MAGIC, CC_LOCK_MAGIC_BYTES) != 0) {
        rc = CC_FAIL(COLUMNAR_ELOCKFILE, "lock file %s has no valid magic number: not a Columnar lock file, "
                     "damaged, or its initialiser died", lock_name(lock));
        goto fail;
    }
    if (shared->layout_version != CC_LOCK_LAYOUT_VERSION || shared->shared_size_bytes != sizeof(cc_lock_shared) ||
        shared->reader_slot_count != CC_LOCK_READER_SLOTS || shared->mutex_size_bytes != sizeof(pthread_mutex_t)) {
        rc = CC_FAIL(COLUMNAR_ELOCKFILE, "lock file %s has layout version %u (size %u, %u reader slots, mutex %u "
                     "bytes); this build expects version %u (size %zu, %u slots, mutex %zu bytes)",
                     lock_name(lock), shared->layout_version, shared->shared_size_bytes, shared->reader_slot_count,
                     shared->mutex_size_bytes, CC_LOCK_LAYOUT_VERSION, sizeof(cc_lock_shared),
                     CC_LOCK_READER_SLOTS, sizeof(pthread_mutex_t));
        goto fail;
    }
    lock->shared = mapping;
    return 0;

fail:
    if (mapping != MAP_FAILED) munmap(mapping, sizeof(cc_lock_shared));
    return rc;
}

/* Opens the lock file and takes part in the who-initialises protocol described at the top of this file. */
static int open_file(cc_lock *lock, bool *out_fresh) {
    bool fresh = false;
    int rc = 0;
    lock->fd = open(lock->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock->fd < 0) {
        return cc_error(-errno, 0, "", "cannot open lock file %s: %s", lock_name(lock), strerror(errno));
    }

    if (flock_retrying(lock->fd, LOCK_EX | LOCK_NB) == 0) {
        fresh = true;
    } else if (errno == EWOULDBLOCK) {
        /* Others have it open. This waits while an initialiser still holds it exclusively. */
        if (flock_retrying(lock->fd, LOCK_SH) != 0) {
            return cc_error(-errno, 0, "", "cannot lock lock file %s: %s", lock_name(lock), strerror(errno));
        }
        rc = map_existing(lock);
        if (rc == COLUMNAR_ELOCKFILE) {
            /* The file is not usable as it is. If nobody else is using it either (say, the others were
             * waiting on an initialiser that died, or all gave up), start it over; otherwise report it. A failed
             * conversion may drop our shared lock, which does not matter since we are giving up. */
            if (flock_retrying(lock->fd, LOCK_EX | LOCK_NB) != 0) return rc;
            fresh = true;
        } else if (rc != 0) {
            return rc;
        }
    } else {
        return cc_error(-errno, 0, "", "cannot lock lock file %s: %s", lock_name(lock), strerror(errno));
    }

    if (fresh) {
        rc = create_fresh(lock);
        if (rc != 0) return rc;
        /* flock() does not promise that converting exclusive to shared is atomic: another opener may briefly
         * win the exclusive lock in between and initialise again. That is harmless: nobody has used the state
         * yet (we have not returned), the other opener waits for our shared lock as we wait for its, and both
         * of us report a fresh start, so both callers publish the data file's current version. */
        if (flock_retrying(lock->fd, LOCK_SH) != 0) {
            return cc_error(-errno, 0, "", "cannot lock lock file %s: %s", lock_name(lock), strerror(errno));
        }
    }
    *out_fresh = fresh;
    return 0;
}

int cc_lock_open(const char *path, cc_lock **out_lock, bool *out_fresh) {
    int rc = 0;
    bool fresh = false;
    cc_lock *lock = calloc(1, sizeof *lock);
    if (lock == NULL) return cc_error(-ENOMEM, 0, "", "out of memory opening lock file %s", path ? path : "");
    lock->fd = -1;
    lock->own_pid = (uint32_t)getpid();

    if (path == NULL) {
        /* An in-memory database: the handles of this process share this cc_lock, so anonymous shared memory
         * (never copied on write) gives the same semantics as a file without touching the disk. */
        void *mapping = mmap(NULL, sizeof(cc_lock_shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                             -1, 0);
        if (mapping == MAP_FAILED) {
            rc = cc_error(-errno, 0, "", "cannot map shared memory for an in-memory lock: %s", strerror(errno));
            goto fail;
        }
        lock->shared = mapping;
        rc = initialise_shared(lock);
        if (rc != 0) goto fail;
        fresh = true;
    } else {
        lock->path = strdup(path);
        if (lock->path == NULL) {
            rc = cc_error(-ENOMEM, 0, "", "out of memory opening lock file %s", path);
            goto fail;
        }
        rc = open_file(lock, &fresh);
        if (rc != 0) goto fail;
    }

    *out_lock = lock;
    *out_fresh = fresh;
    return 0;

fail:
    cc_lock_close(lock);
    return rc;
}

void cc_lock_close(cc_lock *lock) {
    if (lock == NULL) return;
    if (lock->shared != NULL) munmap(lock->shared, sizeof(cc_lock_shared));
    /* Closing the descriptor drops our shared flock(), so the last process to close lets the next opener
     * reinitialise. */
    if (lock->fd >= 0) close(lock->fd);
    free(lock->path);
    free(lock);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The writer mutex                                                                                             */
/* ---------------------------------------------------------------------------------------------------------- */

/* Called holding the mutex after its previous owner died with it. The data file needs no repair (an unfinished
 * commit never touched live nodes), but the owner may have died halfway through a publish, leaving the sequence
 * odd and the fields torn. Mark the state unpublished: readers then fall back to the data file's header until
 * the next commit publishes again. */
static int recover_abandoned_mutex(cc_lock *lock) {
    cc_lock_shared *shared = lock->shared;
    if (atomic_load(&shared->sequence) & 1u) atomic_store(&shared->sequence, 0);
    int err = pthread_mutex_consistent(&shared->writer.mutex);
    if (err != 0) {
        pthread_mutex_unlock(&shared->writer.mutex);
        return CC_FAIL(COLUMNAR_ELOCKFILE, "cannot recover the writer mutex of lock file %s after its owner died: "
                       "%s", lock_name(lock), strerror(err));
    }
    return 0;
}

int cc_lock_writer_acquire(cc_lock *lock) {
    int err = pthread_mutex_lock(&lock->shared->writer.mutex);
    switch (err) {
    case 0:
        return 0;
    case EOWNERDEAD:
        return recover_abandoned_mutex(lock);
    case EDEADLK:
        return CC_MISUSE("this thread already holds the write lock of %s (a write transaction is already open "
                         "on this thread)", lock_name(lock));
    case ENOTRECOVERABLE:
        return CC_FAIL(COLUMNAR_ELOCKFILE, "the writer mutex of lock file %s is unrecoverable (a previous owner "
                       "died and recovery failed); close every handle so the lock file is reinitialised",
                       lock_name(lock));
    default:
        return cc_error(-err, 0, "", "cannot take the writer mutex of lock file %s: %s", lock_name(lock),
                        strerror(err));
    }
}

void cc_lock_writer_release(cc_lock *lock) {
    /* An error-checking mutex returns EPERM when this thread does not hold it; there is nobody to tell here
     * (the caller tracks ownership through its transaction), so the result is deliberately ignored. */
    (void)pthread_mutex_unlock(&lock->shared->writer.mutex);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Reader slots                                                                                                 */
/* ---------------------------------------------------------------------------------------------------------- */

/* Whether the process is known to be gone. A pid we may not signal (EPERM) belongs to a live process. A zombie
 * still counts as alive until its parent reaps it. */
static bool process_is_gone(uint32_t pid) {
    return kill((pid_t)pid, 0) == -1 && errno == ESRCH;
}

/* Frees a slot whose owner `dead_pid` has died. Claiming the slot by swapping the pid to our own first means
 * only one reclaimer touches the version, and never after a new owner has taken the slot. */
static void reclaim_slot(cc_lock *lock, cc_reader_slot *slot, uint32_t dead_pid) {
    uint32_t expected_pid = dead_pid;
    if (!atomic_compare_exchange_strong(&slot->pid, &expected_pid, lock->own_pid)) return;
    atomic_store(&slot->version, 0);
    atomic_store(&slot->pid, 0);
}

/* Collects the versions pinned by live readers into `versions` (CC_LOCK_READER_SLOTS entries), reclaiming the
 * slots of dead processes on the way, and returns how many there are. Also counts reclaimed slots. */
static uint32_t collect_live_versions(cc_lock *lock, uint64_t *versions, uint32_t *out_reclaimed_count) {
    cc_lock_shared *shared = lock->shared;
    uint32_t version_count = 0, reclaimed_count = 0;
    uint32_t last_live_pid = lock->own_pid;   /* saves a kill() per slot when one process holds many slots */

    /* Pairs with the fence at the end of cc_lock_publish and the reader's seq_cst slot store: either a reader
     * re-reading the published version sees a newer one, or we see its slot. */
    atomic_thread_fence(memory_order_seq_cst);
    for (uint32_t slot_index = 0; slot_index < CC_LOCK_READER_SLOTS; slot_index++) {
        cc_reader_slot *slot = &shared->readers[slot_index];
        uint64_t version = atomic_load(&slot->version);
        if (version == 0) continue;
        uint32_t pid = atomic_load(&slot->pid);
        /* pid 0 here means the slot was released after we read its version; counting it is merely
         * conservative, and kill(0, ...) would address our whole process group. */
        if (pid != 0 && pid != lock->own_pid && pid != last_live_pid) {
            if (process_is_gone(pid)) {
                reclaim_slot(lock, slot, pid);
                reclaimed_count++;
                continue;
            }
            last_live_pid = pid;
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
            if (atomic_load_explicit(&slot->pid, memory_order_relaxed) != 0) continue;
            uint32_t expected_pid = 0;
            if (!atomic_compare_exchange_strong(&slot->pid, &expected_pid, lock->own_pid)) continue;
            /* seq_cst so that the caller's following re-read of the published version cannot be ordered
             * before this store. */
            atomic_store(&slot->version, version);
            *out_slot = slot_index;
            return 0;
        }
        if (pass == 0) {
            uint64_t unused_versions[CC_LOCK_READER_SLOTS];
            uint32_t reclaimed_count = 0;
            collect_live_versions(lock, unused_versions, &reclaimed_count);
            if (reclaimed_count == 0) break;
        }
    }
    return CC_FAIL(COLUMNAR_EREADERS, "all %u reader slots of lock file %s are held by live processes",
                   CC_LOCK_READER_SLOTS, lock_name(lock));
}

void cc_lock_reader_update(cc_lock *lock, uint32_t slot, uint64_t version) {
    if (slot >= CC_LOCK_READER_SLOTS) return;
    atomic_store(&lock->shared->readers[slot].version, version);
}

void cc_lock_reader_release(cc_lock *lock, uint32_t slot) {
    if (slot >= CC_LOCK_READER_SLOTS) return;
    /* Version first: once the pid reads 0 the slot may be taken, and its new owner must find version 0. */
    atomic_store(&lock->shared->readers[slot].version, 0);
    atomic_store(&lock->shared->readers[slot].pid, 0);
}

uint64_t cc_lock_oldest_pinned(cc_lock *lock, uint64_t latest) {
    uint64_t versions[CC_LOCK_READER_SLOTS];
    uint32_t version_count = collect_live_versions(lock, versions, NULL);
    uint64_t oldest = latest;
    for (uint32_t index = 0; index < version_count; index++) {
        if (versions[index] < oldest) oldest = versions[index];
    }
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
/* The published version (seqlock)                                                                              */
/* ---------------------------------------------------------------------------------------------------------- */

void cc_lock_publish(cc_lock *lock, const cc_published *state) {
    cc_lock_shared *shared = lock->shared;
    /* Only the mutex holder writes the sequence, so a relaxed read of our own last value is enough. */
    uint64_t sequence = atomic_load_explicit(&shared->sequence, memory_order_relaxed);
    /* Odd here would mean an abandoned publish that escaped recovery; stepping past it keeps the parity right. */
    if (sequence & 1u) sequence++;
    atomic_store_explicit(&shared->sequence, sequence + 1, memory_order_relaxed);
    /* Orders the odd sequence before the field stores: a reader that sees any new field sees the odd value. */
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&shared->published_version, state->version, memory_order_relaxed);
    atomic_store_explicit(&shared->published_top_ref, state->top_ref, memory_order_relaxed);
    atomic_store_explicit(&shared->published_used_size_bytes, state->used_size, memory_order_relaxed);
    atomic_store_explicit(&shared->published_file_size_bytes, state->file_size, memory_order_relaxed);
    atomic_store_explicit(&shared->sequence, sequence + 2, memory_order_release);
    /* Pairs with the fence in cc_lock_read_published (see collect_live_versions). */
    atomic_thread_fence(memory_order_seq_cst);
}

/* A reader has seen the sequence odd for a long time: the writer may have died mid-publish. If the writer mutex
 * is free or abandoned, nobody is publishing; take it for a moment so the usual recovery runs. This never
 * waits: a live writer makes the try fail at once. */
static void recover_stalled_publish(cc_lock *lock) {
    int err = pthread_mutex_trylock(&lock->shared->writer.mutex);
    if (err == EOWNERDEAD) {
        if (recover_abandoned_mutex(lock) != 0) return;   /* recovery failed and already unlocked */
    } else if (err != 0) {
        return;
    }
    pthread_mutex_unlock(&lock->shared->writer.mutex);
}

bool cc_lock_read_published(cc_lock *lock, cc_published *out_state) {
    cc_lock_shared *shared = lock->shared;
    /* Pairs with the fence at the end of cc_lock_publish: a reader slot stored before this call is ordered
     * before the loads below. */
    atomic_thread_fence(memory_order_seq_cst);
    for (uint32_t odd_count = 0;;) {
        uint64_t before = atomic_load_explicit(&shared->sequence, memory_order_acquire);
        if (before == 0) return false;
        if (before & 1u) {
            if (++odd_count % CC_LOCK_PUBLISH_SPINS == 0) {
                sched_yield();
                recover_stalled_publish(lock);
            }
            continue;
        }
        cc_published state;
        state.version = atomic_load_explicit(&shared->published_version, memory_order_relaxed);
        state.top_ref = atomic_load_explicit(&shared->published_top_ref, memory_order_relaxed);
        state.used_size = atomic_load_explicit(&shared->published_used_size_bytes, memory_order_relaxed);
        state.file_size = atomic_load_explicit(&shared->published_file_size_bytes, memory_order_relaxed);
        /* Orders the field loads before the re-read of the sequence. */
        atomic_thread_fence(memory_order_acquire);
        uint64_t after = atomic_load_explicit(&shared->sequence, memory_order_relaxed);
        if (before == after) {
            *out_state = state;
            return true;
        }
    }
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
    if (status.st_size != (off_t)sizeof *copy || got != (ssize_t)sizeof *copy) {
        snprintf(out->problem, sizeof out->problem, "the lock file is %lld bytes; this build's layout is %zu",
                 (long long)status.st_size, sizeof *copy);
        goto done;
    }
    out->layout_version = copy->layout_version;
    out->reader_slot_count = copy->reader_slot_count;
    if (memcmp(copy->magic, CC_LOCK_MAGIC, CC_LOCK_MAGIC_BYTES) != 0) {
        snprintf(out->problem, sizeof out->problem, "the lock file has no valid magic number (never initialised, "
                 "damaged, or not a Columnar lock file)");
        goto done;
    }
    if (copy->layout_version != CC_LOCK_LAYOUT_VERSION || copy->shared_size_bytes != sizeof *copy ||
        copy->reader_slot_count != CC_LOCK_READER_SLOTS || copy->mutex_size_bytes != sizeof(pthread_mutex_t)) {
        snprintf(out->problem, sizeof out->problem, "the lock file has layout version %u (size %u, %u reader slots, "
                 "mutex %u bytes); this build uses version %u", copy->layout_version, copy->shared_size_bytes,
                 copy->reader_slot_count, copy->mutex_size_bytes, CC_LOCK_LAYOUT_VERSION);
        goto done;
    }
    out->valid = true;
    uint64_t sequence = atomic_load_explicit(&copy->sequence, memory_order_relaxed);
    out->published = sequence != 0;
    out->publishing = (sequence & 1u) != 0;
    out->state.version = atomic_load_explicit(&copy->published_version, memory_order_relaxed);
    out->state.top_ref = atomic_load_explicit(&copy->published_top_ref, memory_order_relaxed);
    out->state.used_size = atomic_load_explicit(&copy->published_used_size_bytes, memory_order_relaxed);
    out->state.file_size = atomic_load_explicit(&copy->published_file_size_bytes, memory_order_relaxed);
    for (uint32_t slot = 0; slot < CC_LOCK_READER_SLOTS && visit; slot++) {
        uint64_t version = atomic_load_explicit(&copy->readers[slot].version, memory_order_relaxed);
        uint32_t pid = atomic_load_explicit(&copy->readers[slot].pid, memory_order_relaxed);
        if (version != 0) visit(context, slot, pid, version);
    }
done:
    free(copy);
    close(fd);
    return rc;
}
