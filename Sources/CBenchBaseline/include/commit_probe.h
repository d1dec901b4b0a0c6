/*
 * commit_probe.h — the durable writes columnar-bench's commit suite measures the engine's commits against.
 *
 * Two measurements share this interface, both on a file the caller places in the databases' directory (so on the
 * same file system):
 *   - the reference line (BENCH_COMMIT_REFERENCE): one 4 KiB pwrite + fdatasync, the least a durable commit can
 *     cost on this storage;
 *   - the io options probe (every other method): the write pattern of a commit, "k scattered node writes of one
 *     4 KiB page each, one 512-byte header-sector write, one data sync", done each way the engine could do it.
 *
 * The file is made by bench_commit_file_prepare before anything is timed: its full size is written with zeros and
 * synced, so its extents are allocated and written. Steps only overwrite pages inside it, cycling over them, so no
 * timed write grows the file or converts an unwritten extent (either would add a journal commit to the sync).
 * Page 0 holds the header sector; node writes go to pages 1 and up, two pages apart, so no two of one step are
 * neighbours that the block layer could merge.
 *
 * A probe is opened once, stepped (one commit-like operation per call, synchronous: the call returns once the
 * data sync has completed; the caller times it) and closed. Functions return 0 or a negative errno.
 * Used only by columnar-bench; not part of Columnar.
 */
#ifndef COMMIT_PROBE_H
#define COMMIT_PROBE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The size of a node write and of the file's pages. */
#define BENCH_COMMIT_PAGE_BYTES 4096u
/** The size of the header-sector write (a whole page with O_DIRECT, which writes only whole pages). */
#define BENCH_COMMIT_HEADER_BYTES 512u
/** The most node writes one step may make. */
#define BENCH_COMMIT_MAX_NODE_WRITES 16u

/** How a step writes and syncs. 0 is reserved (invalid). */
typedef enum bench_commit_method {
    /** The reference line: one 4 KiB pwrite at the next page, then fdatasync. The node count is ignored. */
    BENCH_COMMIT_REFERENCE = 1,
    /** One pwritev per node page, one for the header sector, then fdatasync. */
    BENCH_COMMIT_PWRITEV = 2,
    /** io_uring with default ring flags: the node writes, the header write and an IORING_OP_FSYNC
     *  (IORING_FSYNC_DATASYNC) joined with IOSQE_IO_LINK in one submission, then a wait for each completion in
     *  turn (as the engine's commit waits). */
    BENCH_COMMIT_URING_LINKED = 3,
    /** As BENCH_COMMIT_URING_LINKED on a ring set up with IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN
     *  (default flags where the kernel refuses them; the probe's note says so). */
    BENCH_COMMIT_URING_DEFER_TASKRUN = 4,
    /** As BENCH_COMMIT_URING_DEFER_TASKRUN with the file registered (IOSQE_FIXED_FILE). */
    BENCH_COMMIT_URING_REGISTERED_FILE = 5,
    /** As BENCH_COMMIT_URING_REGISTERED_FILE with the buffers registered too (IORING_OP_WRITE_FIXED). */
    BENCH_COMMIT_URING_REGISTERED_BUFFERS = 6,
    /** The file opened with O_DIRECT: each node page and the header's whole page (4 KiB) written with pwrite
     *  from page-aligned buffers, then fdatasync (which still flushes the device's cache). */
    BENCH_COMMIT_O_DIRECT = 7,
    /** One pwritev2 with RWF_DSYNC of a single contiguous range: the k node pages followed by the header sector,
     *  at the next free slot of the file, as a log append would write them. No separate sync. */
    BENCH_COMMIT_RWF_DSYNC = 8,
    /** O_DIRECT through io_uring (ring flags as BENCH_COMMIT_URING_DEFER_TASKRUN): the node pages and the header
     *  page written in parallel (not linked), then an IORING_OP_FSYNC (datasync) marked IOSQE_IO_DRAIN, so it
     *  starts once every write has completed; one submission. Only a self-validating commit may write its header
     *  alongside its nodes; this is that commit's pattern. */
    BENCH_COMMIT_URING_O_DIRECT_DRAINED = 9,
} bench_commit_method;

typedef struct bench_commit_probe bench_commit_probe;

/** A short, static name of `method` for tables (e.g. "io_uring linked, default flags"). */
const char *bench_commit_method_name(bench_commit_method method);

/** Creates or truncates the file at `path` and writes `size_bytes` (a multiple of BENCH_COMMIT_PAGE_BYTES, at
 *  least 64 pages) of zeros to it, then fsyncs it. Returns 0, -EINVAL for a bad size, or -errno of the call that
 *  failed. */
int bench_commit_file_prepare(const char *path, uint64_t size_bytes);

/** Opens a probe of `method` making `node_writes` (1 ... BENCH_COMMIT_MAX_NODE_WRITES) node writes a step on the
 *  prepared file at `path`. On failure returns -errno (-EINVAL for a bad argument, or the error of open, the
 *  buffer allocation or the ring's set-up) and writes a sentence naming the failed call into `message`
 *  (`message_bytes` long, may be 0). */
int bench_commit_probe_open(const char *path, bench_commit_method method, unsigned node_writes,
                            bench_commit_probe **out_probe, char *message, size_t message_bytes);

/** Moves the probe's cycle over the file's pages `writes` node writes on, so that probes stepped at once from
 *  several threads (the threads reference line) start on pages of their own. */
void bench_commit_probe_skip_writes(bench_commit_probe *probe, uint64_t writes);

/** Makes one commit-like write and its sync. Returns 0 once the data sync completed, or -errno of the first call
 *  or completion that failed (-EIO for a short write). */
int bench_commit_probe_step(bench_commit_probe *probe);

/** What the probe had to do differently from its method's description (e.g. the kernel refused the ring flags),
 *  or "" when nothing. Valid until the probe is closed. */
const char *bench_commit_probe_note(const bench_commit_probe *probe);

/** Closes the file and the ring and frees the probe. NULL is allowed. */
void bench_commit_probe_close(bench_commit_probe *probe);

#ifdef __cplusplus
}
#endif

#endif /* COMMIT_PROBE_H */
