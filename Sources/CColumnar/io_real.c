/*
 * io_real.c — the real I/O layer behind struct columnar_io: how the commit path's node batches, header writes,
 * syncs and file growth reach the file system.
 *
 * A large batch (CC_URING_MIN_RANGES ranges or CC_URING_MIN_BYTES bytes) may go to the kernel through io_uring
 * (one IORING_OP_WRITE per range, a window of up to CC_URING_ENTRIES in flight, all submitted with one
 * io_uring_enter where the ring has room) when the kernel and any sandbox allow it and the ring has written large
 * batches faster than pwritev in this process ("Choosing the way" below); a small batch, and every batch where
 * io_uring is refused or slower, goes through pwritev, coalescing ranges that touch. Buffered writes submitted to
 * io_uring run on kernel worker threads, and for the few ranges of an ordinary commit that hand-off costs more
 * than the writes themselves (docs/CommitPath.md, "io_uring"). Syncs are fdatasync (an IORING_OP_FSYNC is
 * executed by a worker too); growth preallocates with fallocate and falls back to ftruncate where the file system
 * cannot.
 *
 * Thread safety: a database's ring is used only by write batches, which come from the holder of the writer lock
 * (commits and repairs), so at most one thread uses a given ring. Syncs may run at the same time (a sync leader
 * of group commit does not hold the writer lock); they touch no shared state here. The cost figures of "Choosing
 * the way" are shared by the process's handles and updated without a lock: a lost update only delays the choice.
 */
#include "io.h"
#include "error.h"

#include <errno.h>
#include <liburing.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

/* Submission queue entries per ring: the most writes in flight at once. */
#define CC_URING_ENTRIES 64u
/* The smallest batch that goes through the ring (either bound suffices); smaller ones are written inline. */
#define CC_URING_MIN_RANGES 16u
#define CC_URING_MIN_BYTES (1u << 20)
/* Every how many large batches the way not chosen is measured, so the choice follows the machine. */
#define CC_WAY_RETRY_INTERVAL 64u
/* The most bytes one write (one SQE, or one pwritev call) asks for. IORING_OP_WRITE takes an unsigned length,
 * and Linux never transfers more than about 2 GiB per call anyway; longer ranges are written in pieces. */
#define CC_MAX_WRITE_BYTES ((size_t)1 << 30)
/* The most ranges one pwritev call gathers (well under IOV_MAX, and small enough for the stack). */
#define CC_MAX_RUN_RANGES 64u

/* Whether this process has already said on stderr that it commits without io_uring. */
static atomic_flag uring_refusal_reported = ATOMIC_FLAG_INIT;

/* "EPERM" for EPERM; a number where the C library has no name. */
static const char *errno_name(int error_number, char *buffer, size_t buffer_size) {
    const char *name = strerrorname_np(error_number);
    if (name != NULL) return name;
    snprintf(buffer, buffer_size, "errno %d", error_number);
    return buffer;
}

/* Says once per process why commits do not use io_uring, so a slow commit path is never a silent surprise. */
static void report_uring_refusal(const char *what, int error_number) {
    if (atomic_flag_test_and_set(&uring_refusal_reported)) return;
    char name_buffer[24];
    fprintf(stderr, "columnar: io_uring %s (%s: %s); committing with pwrite + fdatasync\n", what,
            errno_name(error_number, name_buffer, sizeof name_buffer), strerror(error_number));
}

/* Stops using the ring for good: every later batch goes through pwritev. */
static void abandon_uring(cc_real_io *real_io, const char *what, int error_number) {
    char name_buffer[24];
    struct io_uring *ring = real_io->uring;
    report_uring_refusal(what, error_number);
    snprintf(real_io->description, sizeof real_io->description, "pwrite (io_uring: %s)",
             errno_name(error_number, name_buffer, sizeof name_buffer));
    if (ring != NULL) {
        io_uring_queue_exit(ring);
        free(ring);
    }
    real_io->uring = NULL;
    real_io->uring_active = false;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Writes with pwritev                                                                                          */
/* ---------------------------------------------------------------------------------------------------------- */

/* Writes `range_count` ranges that follow one another without gaps, starting at `offset`, resuming after short
 * writes and interrupted calls. */
static int pwrite_run(int fd, uint64_t offset, const columnar_io_write *ranges, size_t range_count) {
    struct iovec vectors[CC_MAX_RUN_RANGES];
    size_t vector_count = 0;
    size_t remaining_bytes = 0;
    for (size_t range_index = 0; range_index < range_count; range_index++) {
        if (ranges[range_index].size == 0) continue;
        vectors[vector_count].iov_base = (void *)ranges[range_index].data;
        vectors[vector_count].iov_len = ranges[range_index].size;
        remaining_bytes += ranges[range_index].size;
        vector_count++;
    }

    struct iovec *next_vector = vectors;
    uint64_t next_offset = offset;
    while (remaining_bytes > 0) {
        if (next_offset > (uint64_t)INT64_MAX - remaining_bytes)
            return CC_FAIL(-EFBIG, "write of %zu bytes at offset %llu lies past the largest file offset",
                           remaining_bytes, (unsigned long long)next_offset);
        ssize_t written_bytes = pwritev(fd, next_vector, (int)vector_count, (off_t)next_offset);
        if (written_bytes < 0) {
            if (errno == EINTR) continue;
            int error = -errno;
            return CC_FAIL(error, "pwritev of %zu bytes at offset %llu failed: %s", remaining_bytes,
                           (unsigned long long)next_offset, strerror(-error));
        }
        if (written_bytes == 0)
            return CC_FAIL(-EIO, "pwritev of %zu bytes at offset %llu wrote nothing", remaining_bytes,
                           (unsigned long long)next_offset);
        /* A short write: skip the vectors it finished and trim the one it stopped inside. */
        size_t advance_bytes = (size_t)written_bytes;
        remaining_bytes -= advance_bytes;
        next_offset += advance_bytes;
        while (advance_bytes > 0 && advance_bytes >= next_vector->iov_len) {
            advance_bytes -= next_vector->iov_len;
            next_vector++;
            vector_count--;
        }
        if (advance_bytes > 0) {
            next_vector->iov_base = (char *)next_vector->iov_base + advance_bytes;
            next_vector->iov_len -= advance_bytes;
        }
    }
    return 0;
}

/* Writes the batch with as few pwritev calls as the ranges allow: ranges that touch (the commit path allocates
 * a batch's nodes next to each other where it can) go out in one call. */
static int pwrite_batch(int fd, const columnar_io_write *writes, size_t write_count) {
    size_t run_start = 0;
    while (run_start < write_count) {
        size_t run_end = run_start + 1;
        size_t run_bytes = writes[run_start].size;
        while (run_end < write_count && run_end - run_start < CC_MAX_RUN_RANGES &&
               writes[run_end].offset == writes[run_end - 1].offset + writes[run_end - 1].size &&
               run_bytes + writes[run_end].size <= CC_MAX_WRITE_BYTES) {
            run_bytes += writes[run_end].size;
            run_end++;
        }
        int result = pwrite_run(fd, writes[run_start].offset, writes + run_start, run_end - run_start);
        if (result != 0) return result;
        run_start = run_end;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Writes with io_uring                                                                                         */
/* ---------------------------------------------------------------------------------------------------------- */

/* One write in flight: which range, how much of it was written before this SQE, and how much the SQE asks for.
 * A range has at most one SQE in flight; after a short write the rest goes out as a new SQE in the same slot. */
typedef struct uring_slot {
    size_t range_index;
    uint64_t done_bytes;
    size_t requested_bytes;
} uring_slot;

static void queue_slot(struct io_uring *ring, int fd, const columnar_io_write *writes, uring_slot *slots,
                       unsigned slot_index) {
    uring_slot *slot = &slots[slot_index];
    const columnar_io_write *range = &writes[slot->range_index];
    size_t remaining_bytes = range->size - (size_t)slot->done_bytes;
    slot->requested_bytes = remaining_bytes < CC_MAX_WRITE_BYTES ? remaining_bytes : CC_MAX_WRITE_BYTES;
    /* The ring never holds more SQEs than there are slots, so an SQE is always free here. */
    struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
    io_uring_prep_write(sqe, fd, (const char *)range->data + slot->done_bytes, (unsigned)slot->requested_bytes,
                        range->offset + slot->done_bytes);
    io_uring_sqe_set_data64(sqe, slot_index);
}

/* Writes the batch through the ring. Returns 0, the first write's -errno, or 1 when the ring itself refused a
 * submission: the caller then abandons it and rewrites the batch with pwritev. Every SQE submitted is reaped
 * before returning, whatever happened, so the ring is clean for the next batch and no write still reads the
 * caller's buffers once this returns. */
static int uring_batch(cc_real_io *real_io, int fd, const columnar_io_write *writes, size_t write_count,
                       int *out_ring_error) {
    struct io_uring *ring = real_io->uring;
    uring_slot slots[CC_URING_ENTRIES];
    unsigned free_slots[CC_URING_ENTRIES];
    unsigned free_slot_count = CC_URING_ENTRIES;
    for (unsigned slot_index = 0; slot_index < CC_URING_ENTRIES; slot_index++)
        free_slots[slot_index] = CC_URING_ENTRIES - 1 - slot_index;

    size_t next_range = 0;
    unsigned queued_count = 0;     /* SQEs prepared but not yet taken by the kernel */
    unsigned in_flight_count = 0;  /* SQEs taken by the kernel whose CQE is not yet reaped */
    int result = 0;
    int ring_error = 0;
    unsigned wait_failures = 0;

    for (;;) {
        /* Keep the window full while nothing has failed. */
        while (result == 0 && ring_error == 0 && next_range < write_count && free_slot_count > 0) {
            if (writes[next_range].size == 0) {
                next_range++;
                continue;
            }
            unsigned slot_index = free_slots[--free_slot_count];
            slots[slot_index] = (uring_slot){ .range_index = next_range++, .done_bytes = 0 };
            queue_slot(ring, fd, writes, slots, slot_index);
            queued_count++;
        }

        if (queued_count > 0 && ring_error == 0) {
            int submitted_count = io_uring_submit(ring);
            if (submitted_count > 0) {
                queued_count -= (unsigned)submitted_count;
                in_flight_count += (unsigned)submitted_count;
            } else if (submitted_count == -EINTR) {
                continue;
            } else if ((submitted_count == -EAGAIN || submitted_count == -EBUSY) && in_flight_count > 0) {
                /* The kernel is short of resources or its completion queue is full: reaping below frees both. */
            } else {
                /* Nothing in flight to wait for, or a refusal that will not pass: stop using the ring. The SQEs
                 * still queued are never submitted, because the ring is torn down after the reaping below. */
                ring_error = submitted_count < 0 ? -submitted_count : EIO;
            }
        }

        if (in_flight_count == 0) {
            if (ring_error != 0) break;
            if (queued_count == 0 && (result != 0 || next_range == write_count)) break;
            continue;
        }

        struct io_uring_cqe *cqe = NULL;
        int wait_result = io_uring_wait_cqe(ring, &cqe);
        if (wait_result == -EINTR || wait_result == -EAGAIN) continue;
        if (wait_result < 0) {
            /* Cannot happen on a working kernel. Writes still in flight read the caller's buffers, which are freed
             * once this returns, and a write landing late could store their next contents over space a later
             * commit reuses: wait on, and stop the process if the ring never answers (its death cancels the
             * writes, and recovery sees an unfinished commit). */
            if (++wait_failures < 1000) {
                usleep(1000);
                continue;
            }
            fprintf(stderr, "columnar: io_uring stopped delivering completions with %u writes in flight (%s); "
                    "stopping the process rather than risk a late write\n", in_flight_count, strerror(-wait_result));
            abort();
        }
        unsigned slot_index = (unsigned)io_uring_cqe_get_data64(cqe);
        int completion = cqe->res;
        io_uring_cqe_seen(ring, cqe);
        in_flight_count--;
        if (slot_index >= CC_URING_ENTRIES) {
            ring_error = EIO;  /* a CQE this function did not ask for: the ring cannot be trusted */
            continue;
        }

        uring_slot *slot = &slots[slot_index];
        const columnar_io_write *range = &writes[slot->range_index];
        bool slot_done = true;
        if (completion == -EINTR || completion == -EAGAIN) {
            slot_done = false;  /* nothing was written: ask again for the same piece */
        } else if (completion < 0) {
            if (result == 0)
                result = CC_FAIL(completion, "io_uring write of %zu bytes at offset %llu failed: %s",
                                 slot->requested_bytes, (unsigned long long)(range->offset + slot->done_bytes),
                                 strerror(-completion));
        } else if (completion == 0) {
            if (result == 0)
                result = CC_FAIL(-EIO, "io_uring write of %zu bytes at offset %llu wrote nothing",
                                 slot->requested_bytes, (unsigned long long)(range->offset + slot->done_bytes));
        } else {
            slot->done_bytes += (uint64_t)completion;
            slot_done = slot->done_bytes >= range->size;  /* a short write leaves the rest to resubmit */
        }

        if (!slot_done && result == 0 && ring_error == 0) {
            queue_slot(ring, fd, writes, slots, slot_index);
            queued_count++;
        } else {
            free_slots[free_slot_count++] = slot_index;
        }
    }

    *out_ring_error = ring_error;
    return ring_error != 0 ? 1 : result;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The columnar_io operations                                                                                   */
/* ---------------------------------------------------------------------------------------------------------- */

/* Choosing the way. Buffered writes submitted to io_uring are executed by the kernel's worker threads on file
 * systems without asynchronous buffered writes (ext4 on Linux 6.18 among them); there the writes of a large commit
 * took about three times as long through the ring as through pwritev in most runs (docs/CommitPath.md,
 * "io_uring"), while elsewhere the ring's parallel writes may win. So a large batch goes the way that has been
 * faster in this process: pwritev at first, every batch measured (time per KiB, a moving average); every
 * CC_WAY_RETRY_INTERVAL-th batch goes the other way, and the ring takes over once it has measured cheaper (pwritev
 * is then measured again every CC_WAY_RETRY_INTERVAL-th batch). A short-lived process never pays for a slow ring;
 * a long-lived one pays for it once in that many large batches. Both ways write the same bytes and report the
 * same errors; only the time differs. COLUMNAR_IO_URING_WRITES=always sends every large batch through the ring
 * (the tests use it to cover the ring's writes). */
static _Atomic uint64_t ring_ns_per_kib;  /* 0: not measured yet */
static _Atomic uint64_t pwrite_ns_per_kib;
static _Atomic uint64_t large_batch_count;

static uint64_t elapsed_nanoseconds(const struct timespec *start) {
    struct timespec end;
    clock_gettime(CLOCK_MONOTONIC, &end);
    return (uint64_t)(end.tv_sec - start->tv_sec) * 1000000000u + (uint64_t)end.tv_nsec - (uint64_t)start->tv_nsec;
}

/* Folds one batch's cost into a way's moving average (a quarter of the weight to the newest batch). */
static void record_cost(_Atomic uint64_t *ns_per_kib, uint64_t nanoseconds, uint64_t bytes) {
    uint64_t kib = bytes / 1024 ? bytes / 1024 : 1;
    uint64_t sample = nanoseconds / kib ? nanoseconds / kib : 1;
    uint64_t average = atomic_load_explicit(ns_per_kib, memory_order_relaxed);
    atomic_store_explicit(ns_per_kib, average == 0 ? sample : (3 * average + sample) / 4, memory_order_relaxed);
}

/* Whether the next large batch goes through the ring: the way measured cheaper (pwritev until the ring has been
 * measured), except every CC_WAY_RETRY_INTERVAL-th batch, which goes the other way. */
static bool ring_takes_next(void) {
    uint64_t pwrite_cost = atomic_load_explicit(&pwrite_ns_per_kib, memory_order_relaxed);
    uint64_t ring_cost = atomic_load_explicit(&ring_ns_per_kib, memory_order_relaxed);
    uint64_t count = atomic_fetch_add_explicit(&large_batch_count, 1, memory_order_relaxed);
    bool ring_is_cheaper = ring_cost != 0 && (pwrite_cost == 0 || ring_cost < pwrite_cost);
    bool retry = count % CC_WAY_RETRY_INTERVAL == CC_WAY_RETRY_INTERVAL - 1;
    return ring_is_cheaper != retry;
}

static int real_write_batch(void *context, int fd, const columnar_io_write *writes, size_t write_count) {
    cc_real_io *real_io = context;
    if (write_count == 0) return 0;
    uint64_t total_bytes = 0;
    for (size_t index = 0; index < write_count; index++) total_bytes += writes[index].size;
    bool large = write_count >= CC_URING_MIN_RANGES || total_bytes >= CC_URING_MIN_BYTES;
    if (!real_io->uring_active || !large) return pwrite_batch(fd, writes, write_count);

    bool through_ring = real_io->ring_always || ring_takes_next();
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    if (!through_ring) {
        int result = pwrite_batch(fd, writes, write_count);
        if (result == 0) record_cost(&pwrite_ns_per_kib, elapsed_nanoseconds(&start), total_bytes);
        return result;
    }
    int ring_error = 0;
    int result = uring_batch(real_io, fd, writes, write_count, &ring_error);
    if (ring_error == 0) {
        if (result == 0 && !real_io->ring_always)
            record_cost(&ring_ns_per_kib, elapsed_nanoseconds(&start), total_bytes);
        return result;
    }
    /* The ring broke mid-batch. Whatever it wrote is rewritten with the same bytes, so the batch stays
     * all-or-error, and later batches skip the ring. */
    abandon_uring(real_io, "failed", ring_error);
    return pwrite_batch(fd, writes, write_count);
}

static int real_sync(void *context, int fd) {
    while (fdatasync(fd) != 0) {
        if (errno == EINTR) continue;
        int error = -errno;
        return CC_FAIL(error, "fdatasync failed: %s", strerror(-error));
    }
    return 0;
}

static int real_grow(void *context, int fd, uint64_t size_bytes) {
    if (size_bytes > (uint64_t)INT64_MAX) return CC_FAIL(-EFBIG, "cannot grow the file to %llu bytes",
                                                         (unsigned long long)size_bytes);
    struct stat status;
    if (fstat(fd, &status) != 0) {
        int error = -errno;
        return CC_FAIL(error, "fstat failed: %s", strerror(-error));
    }
    if ((uint64_t)status.st_size >= size_bytes) return 0;

    /* Preallocating reserves the blocks now, so a later commit cannot fail with ENOSPC halfway through its
     * writes; file systems that cannot preallocate (EOPNOTSUPP: tmpfs of old kernels, some FUSE) just get a
     * sparse extension. */
    int result = 0;
    while ((result = fallocate(fd, 0, 0, (off_t)size_bytes)) != 0 && errno == EINTR) {
    }
    if (result == 0) return 0;
    if (errno != EOPNOTSUPP && errno != EINVAL && errno != ENOSYS) {
        int error = -errno;
        return CC_FAIL(error, "fallocate to %llu bytes failed: %s", (unsigned long long)size_bytes,
                       strerror(-error));
    }
    while ((result = ftruncate(fd, (off_t)size_bytes)) != 0 && errno == EINTR) {
    }
    if (result != 0) {
        int error = -errno;
        return CC_FAIL(error, "ftruncate to %llu bytes failed: %s", (unsigned long long)size_bytes,
                       strerror(-error));
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Setup                                                                                                        */
/* ---------------------------------------------------------------------------------------------------------- */

/* Why the kernel cannot run this layer's writes through a freshly created ring: 0 when it can. Kernels before
 * 5.6 create rings but lack IORING_OP_WRITE (and the probe call arrived in the same release). */
static int uring_write_support(struct io_uring *ring) {
    struct io_uring_probe *probe = io_uring_get_probe_ring(ring);
    if (probe == NULL) return ENOSYS;
    bool supported = io_uring_opcode_supported(probe, IORING_OP_WRITE);
    io_uring_free_probe(probe);
    return supported ? 0 : EOPNOTSUPP;
}

int cc_real_io_init(cc_real_io *real_io, bool want_uring) {
    memset(real_io, 0, sizeof *real_io);
    real_io->io.context = real_io;
    real_io->io.write_batch = real_write_batch;
    real_io->io.sync = real_sync;
    real_io->io.grow = real_grow;

    if (!want_uring) {
        snprintf(real_io->description, sizeof real_io->description, "pwrite (io_uring turned off)");
        return 0;
    }

    struct io_uring *ring = calloc(1, sizeof *ring);
    if (ring == NULL) {
        abandon_uring(real_io, "unavailable", ENOMEM);
        return 0;
    }
    int init_result = io_uring_queue_init(CC_URING_ENTRIES, ring, 0);
    if (init_result < 0) {
        free(ring);
        abandon_uring(real_io, "unavailable", -init_result);
        return 0;
    }
    real_io->uring = ring;
    int support_error = uring_write_support(ring);
    if (support_error != 0) {
        abandon_uring(real_io, "unavailable", support_error);
        return 0;
    }
    real_io->uring_active = true;
    const char *writes_choice = getenv("COLUMNAR_IO_URING_WRITES");
    real_io->ring_always = writes_choice != NULL && strcmp(writes_choice, "always") == 0;
    snprintf(real_io->description, sizeof real_io->description, "io_uring");
    return 0;
}

void cc_real_io_destroy(cc_real_io *real_io) {
    if (real_io == NULL) return;
    struct io_uring *ring = real_io->uring;
    if (ring != NULL) {
        io_uring_queue_exit(ring);
        free(ring);
    }
    real_io->uring = NULL;
    real_io->uring_active = false;
}
