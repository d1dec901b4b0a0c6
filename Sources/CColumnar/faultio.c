/*
 * faultio.c — the fault-injecting I/O layer for tests (columnar_faultio_*; in the spirit of SQLite's crash-test
 * VFS). It sits in front of a real layer it owns and, before forwarding, can fail writes with a chosen error or
 * simulate a power cut.
 *
 * For the power cut it keeps an undo log: before each write goes to the file, the bytes it overwrites are read
 * back and remembered until the next successful sync makes the write durable. After the database is closed,
 * columnar_faultio_apply_power_cut rolls the unsynced writes back as a disk losing power might: all of them, or
 * per write keeping it, losing it, or tearing it at 512-byte sector boundaries. File growth counts as durable
 * metadata and is never undone.
 */
#include "io.h"
#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The unit a disk writes atomically: a torn write keeps or loses whole sectors. */
#define CC_SECTOR_BYTES 512u

/* One write not yet made durable by a sync: where it went and the bytes it replaced (zeros past the old end of
 * the file). */
typedef struct undo_entry {
    uint64_t offset;
    size_t size_bytes;
    unsigned char *old_bytes;
} undo_entry;

struct columnar_faultio {
    /* Guards everything below. Writes are forwarded while holding it, so faults and the undo log always see
     * the writes in the order they reached the file. */
    pthread_mutex_t mutex;
    columnar_io io;               /* the table handed out; context points back here */

    cc_real_io real;              /* where the surviving operations go */
    bool real_ready;              /* `real` was initialised (by cc_faultio_attach or at first use) */
    bool real_wants_uring;        /* what `real` was initialised with */

    uint64_t random_state;        /* splitmix64 state, from the seed */
    uint64_t write_count;         /* writes (ranges) seen, including failed ones */
    uint64_t sync_count;          /* syncs seen, including failed ones */

    bool failure_armed;           /* fail_writes_after is in force */
    uint64_t writes_before_failure;
    int failure_error;

    bool power_cut_armed;         /* power_cut_after is in force and the power is still on */
    uint64_t writes_before_power_cut;
    bool power_is_cut;

    undo_entry *pending;          /* unsynced writes, oldest first */
    size_t pending_count;
    size_t pending_capacity;
};

/* splitmix64: tiny, seedable with any value, and good enough to pick among a few outcomes. */
static uint64_t next_random(columnar_faultio *faultio) {
    uint64_t z = (faultio->random_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The caller holds the mutex. */
static void ensure_real(columnar_faultio *faultio) {
    if (faultio->real_ready) return;
    cc_real_io_init(&faultio->real, false);
    faultio->real_ready = true;
    faultio->real_wants_uring = false;
}

static void clear_pending(columnar_faultio *faultio) {
    for (size_t entry_index = 0; entry_index < faultio->pending_count; entry_index++)
        free(faultio->pending[entry_index].old_bytes);
    faultio->pending_count = 0;
}

/* Reads the bytes `write` is about to replace into the undo log. The caller holds the mutex. */
static int remember_old_bytes(columnar_faultio *faultio, int fd, const columnar_io_write *write) {
    if (faultio->pending_count == faultio->pending_capacity) {
        size_t new_capacity = faultio->pending_capacity ? faultio->pending_capacity * 2 : 64;
        undo_entry *grown = realloc(faultio->pending, new_capacity * sizeof *grown);
        if (grown == NULL) return CC_FAIL(-ENOMEM, "out of memory for the fault layer's undo log");
        faultio->pending = grown;
        faultio->pending_capacity = new_capacity;
    }
    unsigned char *old_bytes = calloc(1, write->size ? write->size : 1);
    if (old_bytes == NULL) return CC_FAIL(-ENOMEM, "out of memory for the fault layer's undo log");

    size_t read_bytes = 0;
    while (read_bytes < write->size) {
        ssize_t result = pread(fd, old_bytes + read_bytes, write->size - read_bytes,
                               (off_t)(write->offset + read_bytes));
        if (result < 0) {
            if (errno == EINTR) continue;
            int error = -errno;
            free(old_bytes);
            return CC_FAIL(error, "fault layer could not read the %zu bytes at offset %llu before writing: %s",
                           write->size, (unsigned long long)write->offset, strerror(-error));
        }
        if (result == 0) break;  /* past the end of the file: the old content counts as zeros (calloc) */
        read_bytes += (size_t)result;
    }
    faultio->pending[faultio->pending_count++] =
        (undo_entry){ .offset = write->offset, .size_bytes = write->size, .old_bytes = old_bytes };
    return 0;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The columnar_io operations                                                                                   */
/* ---------------------------------------------------------------------------------------------------------- */

static int fault_write_batch(void *context, int fd, const columnar_io_write *writes, size_t write_count) {
    columnar_faultio *faultio = context;
    int result = 0;
    pthread_mutex_lock(&faultio->mutex);
    ensure_real(faultio);

    /* Decide how many leading ranges reach the file, and why the rest do not. Each range is one write. */
    size_t allowed_count = 0;
    int fault = 0;
    while (allowed_count < write_count) {
        if (faultio->power_is_cut) {
            fault = cc_error(-EIO, 0, "", "simulated power cut after %llu writes",
                             (unsigned long long)faultio->write_count);
            faultio->write_count++;
            break;
        }
        if (faultio->power_cut_armed && faultio->writes_before_power_cut == 0) {
            faultio->power_cut_armed = false;
            faultio->power_is_cut = true;
            continue;  /* reported by the check above */
        }
        if (faultio->failure_armed && faultio->writes_before_failure == 0) {
            fault = cc_error(faultio->failure_error, 0, "", "injected write failure after %llu writes",
                             (unsigned long long)faultio->write_count);
            faultio->write_count++;
            break;
        }
        result = remember_old_bytes(faultio, fd, &writes[allowed_count]);
        if (result != 0) goto done;
        faultio->write_count++;
        if (faultio->power_cut_armed) faultio->writes_before_power_cut--;
        if (faultio->failure_armed) faultio->writes_before_failure--;
        allowed_count++;
    }

    if (allowed_count > 0) {
        result = faultio->real.io.write_batch(faultio->real.io.context, fd, writes, allowed_count);
        if (result != 0) goto done;
    }
    result = fault;

done:
    pthread_mutex_unlock(&faultio->mutex);
    return result;
}

static int fault_sync(void *context, int fd) {
    columnar_faultio *faultio = context;
    int result = 0;
    pthread_mutex_lock(&faultio->mutex);
    ensure_real(faultio);
    faultio->sync_count++;
    if (faultio->power_is_cut) {
        result = cc_error(-EIO, 0, "", "simulated power cut: sync after the cut fails");
        goto done;
    }
    result = faultio->real.io.sync(faultio->real.io.context, fd);
    /* Only a sync that succeeded makes the writes before it durable. */
    if (result == 0) clear_pending(faultio);

done:
    pthread_mutex_unlock(&faultio->mutex);
    return result;
}

static int fault_grow(void *context, int fd, uint64_t size_bytes) {
    columnar_faultio *faultio = context;
    int result = 0;
    pthread_mutex_lock(&faultio->mutex);
    ensure_real(faultio);
    if (faultio->power_is_cut) {
        result = cc_error(-EIO, 0, "", "simulated power cut: growing the file after the cut fails");
        goto done;
    }
    result = faultio->real.io.grow(faultio->real.io.context, fd, size_bytes);

done:
    pthread_mutex_unlock(&faultio->mutex);
    return result;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Public functions                                                                                             */
/* ---------------------------------------------------------------------------------------------------------- */

columnar_faultio *columnar_faultio_create(uint64_t seed) {
    columnar_faultio *faultio = calloc(1, sizeof *faultio);
    if (faultio == NULL) return NULL;
    if (pthread_mutex_init(&faultio->mutex, NULL) != 0) {
        free(faultio);
        return NULL;
    }
    faultio->io.context = faultio;
    faultio->io.write_batch = fault_write_batch;
    faultio->io.sync = fault_sync;
    faultio->io.grow = fault_grow;
    faultio->random_state = seed;
    return faultio;
}

void columnar_faultio_destroy(columnar_faultio *faultio) {
    if (faultio == NULL) return;
    clear_pending(faultio);
    free(faultio->pending);
    if (faultio->real_ready) cc_real_io_destroy(&faultio->real);
    pthread_mutex_destroy(&faultio->mutex);
    free(faultio);
}

const columnar_io *columnar_faultio_io(columnar_faultio *faultio) { return &faultio->io; }

void columnar_faultio_fail_writes_after(columnar_faultio *faultio, uint64_t write_count, int error) {
    pthread_mutex_lock(&faultio->mutex);
    faultio->failure_armed = write_count != 0;
    faultio->writes_before_failure = write_count;
    faultio->failure_error = error;
    pthread_mutex_unlock(&faultio->mutex);
}

void columnar_faultio_power_cut_after(columnar_faultio *faultio, uint64_t write_count) {
    pthread_mutex_lock(&faultio->mutex);
    faultio->power_cut_armed = true;
    faultio->writes_before_power_cut = write_count;
    pthread_mutex_unlock(&faultio->mutex);
}

/* The counters are read under the mutex; the const is cast away because locking is not a change a caller
 * can observe. */
uint64_t columnar_faultio_write_count(const columnar_faultio *faultio) {
    columnar_faultio *mutable_faultio = (columnar_faultio *)faultio;
    pthread_mutex_lock(&mutable_faultio->mutex);
    uint64_t write_count = faultio->write_count;
    pthread_mutex_unlock(&mutable_faultio->mutex);
    return write_count;
}

uint64_t columnar_faultio_sync_count(const columnar_faultio *faultio) {
    columnar_faultio *mutable_faultio = (columnar_faultio *)faultio;
    pthread_mutex_lock(&mutable_faultio->mutex);
    uint64_t sync_count = faultio->sync_count;
    pthread_mutex_unlock(&mutable_faultio->mutex);
    return sync_count;
}

static int pwrite_all(int fd, const unsigned char *bytes, size_t size_bytes, uint64_t offset) {
    size_t written_bytes = 0;
    while (written_bytes < size_bytes) {
        ssize_t result = pwrite(fd, bytes + written_bytes, size_bytes - written_bytes,
                                (off_t)(offset + written_bytes));
        if (result < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        if (result == 0) return -EIO;
        written_bytes += (size_t)result;
    }
    return 0;
}

/* Restores the old bytes of a random subset of the sectors `entry` touches. Sectors are aligned to the file,
 * not to the write, as a disk's are. */
static int tear_write(columnar_faultio *faultio, int fd, const undo_entry *entry) {
    uint64_t end_offset = entry->offset + entry->size_bytes;
    uint64_t sector_start = entry->offset - entry->offset % CC_SECTOR_BYTES;
    for (; sector_start < end_offset; sector_start += CC_SECTOR_BYTES) {
        if ((next_random(faultio) & 1) == 0) continue;  /* this sector's new content reached the disk */
        uint64_t piece_start = sector_start > entry->offset ? sector_start : entry->offset;
        uint64_t sector_end = sector_start + CC_SECTOR_BYTES;
        uint64_t piece_end = sector_end < end_offset ? sector_end : end_offset;
        int result = pwrite_all(fd, entry->old_bytes + (piece_start - entry->offset),
                                (size_t)(piece_end - piece_start), piece_start);
        if (result != 0) return result;
    }
    return 0;
}

int columnar_faultio_apply_power_cut(columnar_faultio *faultio, const char *path, columnar_power_cut_mode mode) {
    int result = 0;
    int fd = -1;
    pthread_mutex_lock(&faultio->mutex);
    if (mode != COLUMNAR_POWER_CUT_DROP && mode != COLUMNAR_POWER_CUT_RANDOM) {
        result = CC_MISUSE("unknown power cut mode %d", (int)mode);
        goto done;
    }
    fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        result = -errno;
        CC_FAIL(result, "fault layer could not open %s to apply the power cut: %s", path, strerror(-result));
        goto done;
    }

    /* Newest first, so where unsynced writes overlap, the oldest one's old bytes are what a drop leaves. */
    for (size_t entry_index = faultio->pending_count; entry_index-- > 0;) {
        const undo_entry *entry = &faultio->pending[entry_index];
        uint64_t outcome = mode == COLUMNAR_POWER_CUT_DROP ? 1 : next_random(faultio) % 3;
        if (outcome == 0) continue;  /* kept: the write reached the disk whole */
        result = outcome == 1 ? pwrite_all(fd, entry->old_bytes, entry->size_bytes, entry->offset)
                              : tear_write(faultio, fd, entry);
        if (result != 0) {
            CC_FAIL(result, "fault layer could not roll back the write at offset %llu: %s",
                    (unsigned long long)entry->offset, strerror(-result));
            goto done;
        }
    }
    while (fsync(fd) != 0) {
        if (errno == EINTR) continue;
        result = -errno;
        CC_FAIL(result, "fault layer could not fsync %s after the power cut: %s", path, strerror(-result));
        goto done;
    }

    /* The machine is back up: the rolled-back writes are gone, and the layer can serve a reopened database. */
    clear_pending(faultio);
    faultio->power_is_cut = false;
    faultio->power_cut_armed = false;

done:
    if (fd >= 0) close(fd);
    pthread_mutex_unlock(&faultio->mutex);
    return result;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Engine-internal functions (io.h)                                                                             */
/* ---------------------------------------------------------------------------------------------------------- */

void cc_faultio_attach(columnar_faultio *faultio, bool want_uring) {
    pthread_mutex_lock(&faultio->mutex);
    /* Reopening through the same layer keeps its real layer unless the database wants a different path. */
    if (faultio->real_ready && faultio->real_wants_uring != want_uring) {
        cc_real_io_destroy(&faultio->real);
        faultio->real_ready = false;
    }
    if (!faultio->real_ready) {
        cc_real_io_init(&faultio->real, want_uring);
        faultio->real_ready = true;
        faultio->real_wants_uring = want_uring;
    }
    pthread_mutex_unlock(&faultio->mutex);
}

const cc_real_io *cc_faultio_real(const columnar_faultio *faultio) {
    columnar_faultio *mutable_faultio = (columnar_faultio *)faultio;
    pthread_mutex_lock(&mutable_faultio->mutex);
    ensure_real(mutable_faultio);
    pthread_mutex_unlock(&mutable_faultio->mutex);
    return &faultio->real;
}

bool cc_io_is_faultio(const columnar_io *io) {
    return io != NULL && io->write_batch == fault_write_batch && io->sync == fault_sync &&
           io->grow == fault_grow;
}

columnar_faultio *cc_faultio_from_io(const columnar_io *io) {
    return cc_io_is_faultio(io) ? (columnar_faultio *)io->context : NULL;
}
