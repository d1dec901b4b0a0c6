/*
 * sync_overlap.c — how much do concurrent fdatasyncs on one file overlap on this machine, and what stops them?
 *
 * Group commit (docs/CommitPath.md) runs one sync at a time for a whole file. Letting several syncs run at once
 * ("sync lanes", each through an open file description of its own) only pays if the kernel and the disk overlap
 * them. This probe measures that without the engine: each row runs the same pattern with 1 writer and with N
 * writers (threads, each with its own open file description of one preallocated, zero-filled file), every writer
 * calling fdatasync after each of its writes, and reports the syncs a second of all writers together over the
 * 1-writer rate.
 *
 *   own page           each write is one 4 KiB page no other writer touches (the commit suite's line 5a)
 *   + shared sector    the same, plus a 512-byte sector in the file's first 8 KiB (where format 4 keeps its 15
 *                      header slots): writers now share pages, and a page under writeback must finish before it
 *                      is written again
 *   commit, format 4   what one small commit writes: under a writer mutex, 6,000 bytes at an append head shared
 *                      by all writers (so one commit's last page is the next one's first) and a slot sector
 *                      1 + v % 15; then the sync, outside the mutex
 *   commit, spaced     the same with each slot on a 4 KiB page of its own and each commit starting on a fresh page
 *
 * Build and run: make sync-overlap (or cc -O2 -pthread sync_overlap.c -o sync-overlap && ./sync-overlap DIR).
 * Arguments: directory (default .), writers (default 8), syncs per writer (default 600).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096
#define SECTOR 512
#define FILE_BYTES (64ll << 20)
#define COMMIT_BYTES 6000
#define DATA_START (1ll << 20)

typedef enum pattern { OWN_PAGE, SHARED_SECTOR, COMMIT_PACKED, COMMIT_SPACED, PATTERN_COUNT } pattern;
static const char *const pattern_names[PATTERN_COUNT] = {
    "own page", "own page + shared sector", "commit, format 4 layout", "commit, slots and commits on own pages",
};

typedef struct run {
    const char *path;
    pattern kind;
    int syncs_per_writer;
    pthread_mutex_t writer_mutex;   /* the commit patterns' writer lock */
    int64_t head;                   /* the commit patterns' append head */
    uint64_t version;
    int failed;                     /* an errno, when any call failed */
} run;

typedef struct writer {
    run *run;
    int index;
    pthread_t thread;
} writer;

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int write_fully(int fd, const void *data, size_t size, int64_t offset) {
    ssize_t done = pwrite(fd, data, size, offset);
    if (done < 0) return errno;
    return (size_t)done == size ? 0 : EIO;
}

static void *write_and_sync(void *argument) {
    writer *self = argument;
    run *r = self->run;
    static const char block[2 * PAGE + COMMIT_BYTES];
    int fd = open(r->path, O_RDWR | O_CLOEXEC);   /* an open file description of its own, not a dup() */
    if (fd < 0) {
        r->failed = errno;
        return NULL;
    }
    for (int i = 0; i < r->syncs_per_writer && !r->failed; i++) {
        int rc = 0;
        int64_t own = DATA_START + ((int64_t)self->index * 1024 + i % 1024) * PAGE;
        switch (r->kind) {
        case OWN_PAGE:
            rc = write_fully(fd, block, PAGE, own);
            break;
        case SHARED_SECTOR:
            rc = write_fully(fd, block, PAGE, own);
            if (!rc) rc = write_fully(fd, block, SECTOR, (int64_t)SECTOR * (1 + i % 15));
            break;
        case COMMIT_PACKED:
        case COMMIT_SPACED: {
            pthread_mutex_lock(&r->writer_mutex);
            uint64_t version = ++r->version;
            if (r->kind == COMMIT_SPACED && r->head % PAGE) r->head += PAGE - r->head % PAGE;
            /* Wrap within the file, keeping clear of the header. */
            if (r->head + COMMIT_BYTES > FILE_BYTES) r->head = DATA_START + 16 * PAGE;
            rc = write_fully(fd, block, COMMIT_BYTES, r->head + 16 * PAGE);
            r->head += COMMIT_BYTES;
            int64_t slot = r->kind == COMMIT_SPACED ? (int64_t)PAGE * (1 + version % 15)
                                                    : (int64_t)SECTOR * (1 + version % 15);
            if (!rc) rc = write_fully(fd, block, SECTOR, slot);
            pthread_mutex_unlock(&r->writer_mutex);
            break;
        }
        default:
            break;
        }
        if (!rc && fdatasync(fd) != 0) rc = errno;
        if (rc) r->failed = rc;
    }
    close(fd);
    return NULL;
}

/* Syncs a second of `writers` writers together, or a negative errno. */
static double measure(const char *path, pattern kind, int writers, int syncs_per_writer) {
    run r = { .path = path, .kind = kind, .syncs_per_writer = syncs_per_writer, .head = DATA_START };
    pthread_mutex_init(&r.writer_mutex, NULL);
    writer *all = calloc((size_t)writers, sizeof *all);
    if (!all) return -ENOMEM;
    double start = now_seconds();
    int started = 0;
    for (; started < writers; started++) {
        all[started] = (writer){ &r, started, 0 };
        if (pthread_create(&all[started].thread, NULL, write_and_sync, &all[started]) != 0) {
            r.failed = EAGAIN;
            break;
        }
    }
    for (int i = 0; i < started; i++) pthread_join(all[i].thread, NULL);
    double seconds = now_seconds() - start;
    free(all);
    pthread_mutex_destroy(&r.writer_mutex);
    if (r.failed) return -(double)r.failed;
    return (double)writers * syncs_per_writer / seconds;
}

/* A zero-filled file, so that no write allocates blocks (what the engine's growth does too). */
static int prepare(const char *path) {
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return errno;
    static const char zeros[1 << 16];
    int rc = 0;
    for (int64_t offset = 0; offset < FILE_BYTES && !rc; offset += sizeof zeros)
        rc = write_fully(fd, zeros, sizeof zeros, offset);
    if (!rc && fsync(fd) != 0) rc = errno;
    close(fd);
    return rc;
}

int main(int argc, char **argv) {
    const char *directory = argc > 1 ? argv[1] : ".";
    int writers = argc > 2 ? atoi(argv[2]) : 8;
    int syncs = argc > 3 ? atoi(argv[3]) : 600;
    if (writers < 2 || writers > 64 || syncs < 1) {
        fprintf(stderr, "usage: %s [directory] [writers 2..64] [syncs per writer]\n", argv[0]);
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/sync-overlap.probe", directory);
    int rc = prepare(path);
    if (rc) {
        fprintf(stderr, "cannot prepare %s: %s\n", path, strerror(rc));
        return 1;
    }
    printf("%-40s %12s %12s %8s\n", "pattern (syncs a second)", "1 writer", "N writers", "ratio");
    for (int kind = 0; kind < PATTERN_COUNT; kind++) {
        double one = measure(path, (pattern)kind, 1, syncs);
        double many = measure(path, (pattern)kind, writers, syncs);
        if (one < 0 || many < 0) {
            fprintf(stderr, "%s: %s\n", pattern_names[kind], strerror((int)-(one < 0 ? one : many)));
            unlink(path);
            return 1;
        }
        printf("%-40s %12.0f %12.0f %7.2fx\n", pattern_names[kind], one, many, many / one);
    }
    printf("each writer has its own open file description and calls fdatasync after each write; %d writers, %d "
           "syncs each\n", writers, syncs);
    unlink(path);
    return 0;
}
