/*
 * commit_probe.c — the reference line and the io options probe of columnar-bench's commit suite (commit_probe.h).
 *
 * A probe owns one descriptor of the prepared file (opened with O_DIRECT for the direct methods), one page-aligned
 * buffer per node write plus one for the header, and for the io_uring methods a ring. Buffers are filled once and
 * stamped with the step number before each step, so no two steps write the same bytes. Every call's result is
 * checked; a step fails with the first error rather than retrying, because a measurement that hid an error would
 * measure something else.
 */
#include "commit_probe.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

/* Ring entries: every step's node writes, the header write and the sync fit in one submission. */
#define PROBE_RING_ENTRIES 32u
_Static_assert(BENCH_COMMIT_MAX_NODE_WRITES + 2 <= PROBE_RING_ENTRIES, "one step must fit in one submission");

/* How many file pages the writes cycle over at least (bench_commit_file_prepare's minimum size). */
#define PROBE_MINIMUM_PAGES 64u

struct bench_commit_probe {
    bench_commit_method method;
    unsigned node_writes;
    int fd;
    uint64_t page_count;
    /* Steps made so far: the stamp of the next step's buffers. */
    uint64_t step_count;
    /* Node writes made so far: picks the next node page. */
    uint64_t node_write_count;
    /* buffers[0 ..< node_writes] are node pages, buffers[node_writes] the header's page. */
    void *buffers[BENCH_COMMIT_MAX_NODE_WRITES + 1];
    struct io_uring ring;
    bool has_ring;
    bool fixed_file;
    bool fixed_buffers;
    char note[200];
};

const char *bench_commit_method_name(bench_commit_method method) {
    switch (method) {
    case BENCH_COMMIT_REFERENCE: return "pwrite 4 KiB + fdatasync";
    case BENCH_COMMIT_PWRITEV: return "pwritev + fdatasync";
    case BENCH_COMMIT_URING_LINKED: return "io_uring linked, default flags";
    case BENCH_COMMIT_URING_DEFER_TASKRUN: return "io_uring linked, SINGLE_ISSUER|DEFER_TASKRUN";
    case BENCH_COMMIT_URING_REGISTERED_FILE: return "io_uring linked, + registered file";
    case BENCH_COMMIT_URING_REGISTERED_BUFFERS: return "io_uring linked, + registered file and buffers";
    case BENCH_COMMIT_O_DIRECT: return "O_DIRECT pwrite pages + fdatasync";
    case BENCH_COMMIT_RWF_DSYNC: return "pwritev2 RWF_DSYNC, 1 contiguous write";
    case BENCH_COMMIT_URING_O_DIRECT_DRAINED: return "io_uring O_DIRECT, parallel writes + drained fsync";
    }
    return "unknown method";
}

static void describe_failure(char *message, size_t message_bytes, const char *format, ...) {
    if (message == NULL || message_bytes == 0) return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(message, message_bytes, format, arguments);
    va_end(arguments);
}

/* Writes all `size` bytes at `offset`, retrying after an interruption or a short write. */
static int write_fully(int fd, const void *data, size_t size, uint64_t offset) {
    const char *bytes = data;
    while (size > 0) {
        ssize_t written = pwrite(fd, bytes, size, (off_t)offset);
        if (written < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        if (written == 0) return -EIO;
        bytes += written;
        size -= (size_t)written;
        offset += (uint64_t)written;
    }
    return 0;
}

static int data_sync(int fd) {
    while (fdatasync(fd) != 0) {
        if (errno != EINTR) return -errno;
    }
    return 0;
}

int bench_commit_file_prepare(const char *path, uint64_t size_bytes) {
    if (size_bytes % BENCH_COMMIT_PAGE_BYTES != 0 || size_bytes < PROBE_MINIMUM_PAGES * BENCH_COMMIT_PAGE_BYTES)
        return -EINVAL;
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return -errno;
    enum { chunk_bytes = 1 << 20 };
    void *zeros = calloc(1, chunk_bytes);
    int result = zeros == NULL ? -ENOMEM : 0;
    for (uint64_t offset = 0; result == 0 && offset < size_bytes; offset += chunk_bytes) {
        uint64_t remaining = size_bytes - offset;
        result = write_fully(fd, zeros, remaining < chunk_bytes ? (size_t)remaining : chunk_bytes, offset);
    }
    /* fsync, not fdatasync: the size and the extents become durable here, so timed syncs carry only data. */
    while (result == 0 && fsync(fd) != 0) {
        if (errno != EINTR) result = -errno;
    }
    free(zeros);
    close(fd);
    return result;
}

static bool method_uses_ring(bench_commit_method method) {
    return method == BENCH_COMMIT_URING_LINKED || method == BENCH_COMMIT_URING_DEFER_TASKRUN
        || method == BENCH_COMMIT_URING_REGISTERED_FILE || method == BENCH_COMMIT_URING_REGISTERED_BUFFERS
        || method == BENCH_COMMIT_URING_O_DIRECT_DRAINED;
}

static bool method_is_direct(bench_commit_method method) {
    return method == BENCH_COMMIT_O_DIRECT || method == BENCH_COMMIT_URING_O_DIRECT_DRAINED;
}

/* Sets up the ring: with SINGLE_ISSUER | DEFER_TASKRUN for every method but the default-flags one, falling back to
 * default flags (and saying so in the note) where the kernel refuses them; then registers the file and buffers
 * the method asks for. */
static int set_up_ring(bench_commit_probe *probe, char *message, size_t message_bytes) {
    bool wants_deferred = probe->method != BENCH_COMMIT_URING_LINKED;
    int result = -EINVAL;
    if (wants_deferred) {
        struct io_uring_params params;
        memset(&params, 0, sizeof params);
        params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
        result = io_uring_queue_init_params(PROBE_RING_ENTRIES, &probe->ring, &params);
        if (result < 0) {
            snprintf(probe->note, sizeof probe->note,
                     "the kernel refused IORING_SETUP_SINGLE_ISSUER|IORING_SETUP_DEFER_TASKRUN (%s): default flags",
                     strerror(-result));
        }
    }
    if (result < 0) {
        result = io_uring_queue_init(PROBE_RING_ENTRIES, &probe->ring, 0);
        if (result < 0) {
            describe_failure(message, message_bytes, "io_uring_queue_init: %s", strerror(-result));
            return result;
        }
    }
    probe->has_ring = true;

    if (probe->method == BENCH_COMMIT_URING_REGISTERED_FILE || probe->method == BENCH_COMMIT_URING_REGISTERED_BUFFERS) {
        result = io_uring_register_files(&probe->ring, &probe->fd, 1);
        if (result < 0) {
            describe_failure(message, message_bytes, "io_uring_register_files: %s", strerror(-result));
            return result;
        }
        probe->fixed_file = true;
    }
    if (probe->method == BENCH_COMMIT_URING_REGISTERED_BUFFERS) {
        struct iovec vectors[BENCH_COMMIT_MAX_NODE_WRITES + 1];
        for (unsigned index = 0; index <= probe->node_writes; index++) {
            vectors[index].iov_base = probe->buffers[index];
            vectors[index].iov_len = BENCH_COMMIT_PAGE_BYTES;
        }
        result = io_uring_register_buffers(&probe->ring, vectors, probe->node_writes + 1);
        if (result < 0) {
            describe_failure(message, message_bytes, "io_uring_register_buffers: %s", strerror(-result));
            return result;
        }
        probe->fixed_buffers = true;
    }
    return 0;
}

int bench_commit_probe_open(const char *path, bench_commit_method method, unsigned node_writes,
                            bench_commit_probe **out_probe, char *message, size_t message_bytes) {
    *out_probe = NULL;
    describe_failure(message, message_bytes, "%s", "");
    if (method < BENCH_COMMIT_REFERENCE || method > BENCH_COMMIT_URING_O_DIRECT_DRAINED) {
        describe_failure(message, message_bytes, "unknown method %d", (int)method);
        return -EINVAL;
    }
    if (method == BENCH_COMMIT_REFERENCE) node_writes = 1;
    if (node_writes < 1 || node_writes > BENCH_COMMIT_MAX_NODE_WRITES) {
        describe_failure(message, message_bytes, "%u node writes (1 to %u allowed)", node_writes,
                         BENCH_COMMIT_MAX_NODE_WRITES);
        return -EINVAL;
    }
    bench_commit_probe *probe = calloc(1, sizeof *probe);
    if (probe == NULL) return -ENOMEM;
    probe->fd = -1;
    probe->method = method;
    probe->node_writes = node_writes;
    int result = 0;

    probe->fd = open(path, O_RDWR | O_CLOEXEC | (method_is_direct(method) ? O_DIRECT : 0));
    if (probe->fd < 0) {
        result = -errno;
        describe_failure(message, message_bytes, "open(%s)%s: %s", path,
                         method_is_direct(method) ? " with O_DIRECT" : "", strerror(-result));
        goto fail;
    }
    struct stat info;
    if (fstat(probe->fd, &info) != 0) {
        result = -errno;
        describe_failure(message, message_bytes, "fstat: %s", strerror(-result));
        goto fail;
    }
    probe->page_count = (uint64_t)info.st_size / BENCH_COMMIT_PAGE_BYTES;
    /* The contiguous method needs a slot of node_writes + 1 pages past page 0; the others one page past it. */
    if (probe->page_count < PROBE_MINIMUM_PAGES
        || probe->page_count < 1 + 2 * (uint64_t)(node_writes + 1)) {
        result = -EINVAL;
        describe_failure(message, message_bytes, "%s holds %llu pages; prepare it with bench_commit_file_prepare",
                         path, (unsigned long long)probe->page_count);
        goto fail;
    }

    for (unsigned index = 0; index <= node_writes; index++) {
        int allocation = posix_memalign(&probe->buffers[index], BENCH_COMMIT_PAGE_BYTES, BENCH_COMMIT_PAGE_BYTES);
        if (allocation != 0) {
            probe->buffers[index] = NULL;
            result = -allocation;
            describe_failure(message, message_bytes, "posix_memalign: %s", strerror(allocation));
            goto fail;
        }
        /* Bytes that differ per buffer and per page position, as node contents would. */
        unsigned char *bytes = probe->buffers[index];
        for (size_t position = 0; position < BENCH_COMMIT_PAGE_BYTES; position++)
            bytes[position] = (unsigned char)(position * 131u + index * 17u + 1u);
    }

    if (method_uses_ring(method)) {
        result = set_up_ring(probe, message, message_bytes);
        if (result < 0) goto fail;
    }
    *out_probe = probe;
    return 0;

fail:
    bench_commit_probe_close(probe);
    return result;
}

/* The page of the next node write: pages 1 and up, two apart, cycling over the file. */
static uint64_t next_node_offset(bench_commit_probe *probe) {
    uint64_t cycle_pages = probe->page_count - 1;
    uint64_t page = 1 + (2 * probe->node_write_count++) % cycle_pages;
    return page * BENCH_COMMIT_PAGE_BYTES;
}

static int step_reference(bench_commit_probe *probe) {
    /* Consecutive pages, cycling: each write lands on a page of its own until the file has been gone through. */
    uint64_t page = 1 + probe->node_write_count++ % (probe->page_count - 1);
    int result = write_fully(probe->fd, probe->buffers[0], BENCH_COMMIT_PAGE_BYTES, page * BENCH_COMMIT_PAGE_BYTES);
    return result != 0 ? result : data_sync(probe->fd);
}

static int step_pwritev(bench_commit_probe *probe) {
    /* Each node is its own range, so each gets its own call; pwritev with one vector is what the engine's
     * fallback issues for a range that has no neighbour. */
    for (unsigned index = 0; index <= probe->node_writes; index++) {
        bool is_header = index == probe->node_writes;
        struct iovec vector = {
            .iov_base = probe->buffers[index],
            .iov_len = is_header ? BENCH_COMMIT_HEADER_BYTES : BENCH_COMMIT_PAGE_BYTES,
        };
        uint64_t offset = is_header ? 0 : next_node_offset(probe);
        ssize_t written;
        do written = pwritev(probe->fd, &vector, 1, (off_t)offset);
        while (written < 0 && errno == EINTR);
        if (written < 0) return -errno;
        if ((size_t)written != vector.iov_len) return -EIO;
    }
    return data_sync(probe->fd);
}

static int step_direct(bench_commit_probe *probe) {
    for (unsigned index = 0; index <= probe->node_writes; index++) {
        bool is_header = index == probe->node_writes;
        int result = write_fully(probe->fd, probe->buffers[index], BENCH_COMMIT_PAGE_BYTES,
                                 is_header ? 0 : next_node_offset(probe));
        if (result != 0) return result;
    }
    return data_sync(probe->fd);
}

static int step_dsync_append(bench_commit_probe *probe) {
    struct iovec vectors[BENCH_COMMIT_MAX_NODE_WRITES + 1];
    size_t total_bytes = 0;
    for (unsigned index = 0; index <= probe->node_writes; index++) {
        vectors[index].iov_base = probe->buffers[index];
        vectors[index].iov_len = index == probe->node_writes ? BENCH_COMMIT_HEADER_BYTES : BENCH_COMMIT_PAGE_BYTES;
        total_bytes += vectors[index].iov_len;
    }
    uint64_t slot_pages = probe->node_writes + 1;
    uint64_t slot_count = (probe->page_count - 1) / slot_pages;
    uint64_t offset = (1 + (probe->step_count % slot_count) * slot_pages) * BENCH_COMMIT_PAGE_BYTES;
    ssize_t written;
    do written = pwritev2(probe->fd, vectors, (int)probe->node_writes + 1, (off_t)offset, RWF_DSYNC);
    while (written < 0 && errno == EINTR);
    if (written < 0) return -errno;
    return (size_t)written == total_bytes ? 0 : -EIO;
}

/* One submission: the node writes, the header write and a datasync. Linked methods chain every entry with
 * IOSQE_IO_LINK (each starts after the previous one succeeded); the drained method leaves the writes unlinked and
 * marks the sync IOSQE_IO_DRAIN (it starts once everything submitted before it completed). */
static int step_ring(bench_commit_probe *probe) {
    struct io_uring *ring = &probe->ring;
    bool drained = probe->method == BENCH_COMMIT_URING_O_DIRECT_DRAINED;
    bool direct = method_is_direct(probe->method);
    int target_fd = probe->fixed_file ? 0 : probe->fd;   /* a registered file is named by its index */
    unsigned entry_count = probe->node_writes + 2;
    for (unsigned index = 0; index <= probe->node_writes; index++) {
        bool is_header = index == probe->node_writes;
        unsigned size = is_header && !direct ? BENCH_COMMIT_HEADER_BYTES : BENCH_COMMIT_PAGE_BYTES;
        uint64_t offset = is_header ? 0 : next_node_offset(probe);
        struct io_uring_sqe *entry = io_uring_get_sqe(ring);
        if (entry == NULL) return -EBUSY;
        if (probe->fixed_buffers)
            io_uring_prep_write_fixed(entry, target_fd, probe->buffers[index], size, offset, (int)index);
        else
            io_uring_prep_write(entry, target_fd, probe->buffers[index], size, offset);
        io_uring_sqe_set_data64(entry, index);
        entry->flags |= (drained ? 0 : IOSQE_IO_LINK) | (probe->fixed_file ? IOSQE_FIXED_FILE : 0);
    }
    struct io_uring_sqe *sync = io_uring_get_sqe(ring);
    if (sync == NULL) return -EBUSY;
    io_uring_prep_fsync(sync, target_fd, IORING_FSYNC_DATASYNC);
    io_uring_sqe_set_data64(sync, probe->node_writes + 1);
    sync->flags |= (drained ? IOSQE_IO_DRAIN : 0) | (probe->fixed_file ? IOSQE_FIXED_FILE : 0);

    /* Submit, then wait for each completion in turn, as the engine's commit does. Not one wait for all of them:
     * on a DEFER_TASKRUN ring the kernel wakes a waiter only once as many completions are pending as it waits
     * for, and the drained sync is issued only after the writes' completions have been processed, by that very
     * waiter; a wait for every entry of the drained method never returned on Linux 6.18. */
    int submitted;
    do submitted = io_uring_submit(ring);
    while (submitted == -EINTR);
    if (submitted < 0) return submitted;
    int result = (unsigned)submitted == entry_count ? 0 : -EIO;
    /* Reap what was submitted, even after a failure, so the ring is empty for the next step. */
    for (int reaped = 0; reaped < submitted;) {
        struct io_uring_cqe *completion;
        int wait_result = io_uring_wait_cqe(ring, &completion);
        if (wait_result == -EINTR) continue;
        if (wait_result < 0) return wait_result;
        uint64_t index = io_uring_cqe_get_data64(completion);
        int completion_result = completion->res;
        io_uring_cqe_seen(ring, completion);
        reaped++;
        bool is_sync = index == probe->node_writes + 1;
        bool is_header = index == probe->node_writes;
        int expected = is_sync ? 0 : (int)(is_header && !direct ? BENCH_COMMIT_HEADER_BYTES : BENCH_COMMIT_PAGE_BYTES);
        if (result == 0 && completion_result != expected) result = completion_result < 0 ? completion_result : -EIO;
    }
    return result;
}

void bench_commit_probe_skip_writes(bench_commit_probe *probe, uint64_t writes) {
    probe->node_write_count += writes;
}

int bench_commit_probe_step(bench_commit_probe *probe) {
    /* Stamp every buffer with the step number: no step writes the bytes of the one before. */
    for (unsigned index = 0; index <= probe->node_writes; index++)
        memcpy(probe->buffers[index], &probe->step_count, sizeof probe->step_count);
    int result;
    switch (probe->method) {
    case BENCH_COMMIT_REFERENCE: result = step_reference(probe); break;
    case BENCH_COMMIT_PWRITEV: result = step_pwritev(probe); break;
    case BENCH_COMMIT_O_DIRECT: result = step_direct(probe); break;
    case BENCH_COMMIT_RWF_DSYNC: result = step_dsync_append(probe); break;
    default: result = step_ring(probe); break;
    }
    probe->step_count++;
    return result;
}

const char *bench_commit_probe_note(const bench_commit_probe *probe) { return probe->note; }

void bench_commit_probe_close(bench_commit_probe *probe) {
    if (probe == NULL) return;
    if (probe->has_ring) io_uring_queue_exit(&probe->ring);
    if (probe->fd >= 0) close(probe->fd);
    for (unsigned index = 0; index <= BENCH_COMMIT_MAX_NODE_WRITES; index++) free(probe->buffers[index]);
    free(probe);
}
