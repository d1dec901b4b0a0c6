/*
 * faultio.c — the fault-injecting I/O layer for tests: a model of the Linux page cache and a disk behind it, in
 * the spirit of SQLite's crash-test VFS but with Linux's failure semantics rather than a friendly model
 * (columnar_faultio_* in columnar.h; docs/Reliability.md).
 *
 * The real file plays the page cache: writes go to it (so the engine's mapping sees them, as it would see the
 * cache), and each 4 KiB page they touch is marked dirty. A second file, "the disk", holds what stable storage
 * holds; a sync copies the dirty pages to it. What Linux does that a friendly model would not:
 *
 *   - A failed sync writes back some of the dirty pages and then marks all of them clean: the pages it did not
 *     write stay in the cache with data the disk lacks ("failed" pages), and a later sync does not write them
 *     again. Such a page can also be evicted and read back from the disk (columnar_faultio_evict_failed).
 *   - Writeback happens whenever the kernel likes, in any order (columnar_faultio_writeback), and a power cut
 *     keeps, loses or tears (per 512-byte sector) each page that was still dirty.
 *   - A process can die between any two steps (columnar_faultio_kill_*), and the power can go at a step too.
 *
 * The model's state is kept in files beside the data file, named by the data file's device and inode (so the
 * unnamed file of an atomic creation and the name it is linked under share it), and shared by every process
 * that writes the file: ".columnar-model-<dev>-<ino>.disk" and "...pages" (a header and one state byte per
 * page), guarded by flock() on the pages file. A sync of the model never calls fdatasync: the disk file is the
 * disk.
 */
#include "io.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define MODEL_PAGE_BYTES 4096u
#define MODEL_SECTOR_BYTES 512u
#define MODEL_MAGIC "CLMNFLT1"

/* Page states. */
enum { PAGE_CLEAN = 0, PAGE_DIRTY = 1, PAGE_FAILED = 2 };

typedef struct model_header {
    char magic[8];
    uint64_t page_count;    /* state bytes that follow */
    uint64_t disk_size;     /* the file size stable storage knows */
    uint64_t reserved;
} model_header;

/* The model files of one data file, open. */
typedef struct model_files {
    uint64_t device;
    uint64_t inode;
    int disk_fd;
    int pages_fd;
} model_files;

struct columnar_faultio {
    /* Guards everything below. Writes are forwarded while holding it, so faults see the writes in the order
     * they reached the file. */
    pthread_mutex_t mutex;
    columnar_io io;               /* the table handed out; context points back here */

    cc_real_io real;              /* where the surviving writes go */
    bool real_ready;
    bool real_wants_uring;

    uint64_t random_state;        /* splitmix64 state, from the seed */
    uint64_t write_count;         /* writes (ranges) seen, including failed ones */
    uint64_t sync_count;          /* syncs seen, including failed ones */

    bool failure_armed;           /* fail_writes_after is in force */
    uint64_t writes_before_failure;
    int failure_error;

    bool power_cut_armed;         /* power_cut_after is in force and the power is still on */
    uint64_t writes_before_power_cut;
    bool power_is_cut;

    bool kill_armed;              /* kill_after_writes */
    uint64_t writes_before_kill;

    bool sync_failure_armed;      /* fail_sync */
    uint64_t syncs_before_failure;
    int sync_failure_error;

    columnar_step step_armed;     /* kill_at_step / power_cut_at_step: which step, how often, and what then */
    uint64_t step_occurrences_left;
    bool step_kills;

    model_files files;            /* the model of the last file touched (device 0: none open) */
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

static void die_now(void) {
    raise(SIGKILL);
    _exit(137);   /* not reached */
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The model files                                                                                              */
/* ---------------------------------------------------------------------------------------------------------- */

static int read_all(int fd, void *buffer, size_t size, uint64_t offset) {
    size_t done = 0;
    while (done < size) {
        ssize_t n = pread(fd, (uint8_t *)buffer + done, size - done, (off_t)(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -errno;
        if (n == 0) break;
        done += (size_t)n;
    }
    memset((uint8_t *)buffer + done, 0, size - done);   /* past the end reads as zeros */
    return 0;
}

static int write_all(int fd, const void *buffer, size_t size, uint64_t offset) {
    size_t done = 0;
    while (done < size) {
        ssize_t n = pwrite(fd, (const uint8_t *)buffer + done, size - done, (off_t)(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -errno;
        if (n == 0) return -EIO;
        done += (size_t)n;
    }
    return 0;
}

/* "<directory of the data file>/.columnar-model-<dev>-<ino>.<suffix>". The directory comes from /proc (an
 * unnamed file's entry reads "dir/#123 (deleted)", whose directory is still right) or from `path`. */
static int model_path(int data_fd, const char *path, uint64_t device, uint64_t inode, const char *suffix,
                      char *out, size_t out_size) {
    char link[4096];
    if (!path) {
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", data_fd);
        ssize_t n = readlink(proc, link, sizeof link - 1);
        if (n < 0) return -errno;
        link[n] = 0;
    } else {
        snprintf(link, sizeof link, "%s", path);
    }
    snprintf(out, out_size, "%s/.columnar-model-%llu-%llu.%s", dirname(link), (unsigned long long)device,
             (unsigned long long)inode, suffix);
    return 0;
}

static void close_files(model_files *files) {
    if (files->disk_fd >= 0) close(files->disk_fd);
    if (files->pages_fd >= 0) close(files->pages_fd);
    memset(files, 0, sizeof *files);
    files->disk_fd = files->pages_fd = -1;
}

/* Opens (creating on first sight) the model of the file `data_fd` (or `path`) and locks it. A new model starts
 * with the disk holding what the file holds: the file was durable when the model first saw it. */
static int open_model(columnar_faultio *faultio, int data_fd, const char *path) {
    struct stat status;
    if ((path ? stat(path, &status) : fstat(data_fd, &status)) != 0) return -errno;
    model_files *files = &faultio->files;
    if (files->pages_fd < 0 || files->device != (uint64_t)status.st_dev || files->inode != (uint64_t)status.st_ino) {
        close_files(files);
        char disk_path[4200], pages_path[4200];
        int rc = model_path(data_fd, path, status.st_dev, status.st_ino, "disk", disk_path, sizeof disk_path);
        if (!rc) rc = model_path(data_fd, path, status.st_dev, status.st_ino, "pages", pages_path, sizeof pages_path);
        if (rc) return rc;
        files->pages_fd = open(pages_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        files->disk_fd = open(disk_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (files->pages_fd < 0 || files->disk_fd < 0) {
            int error = -errno;
            close_files(files);
            return error;
        }
        files->device = (uint64_t)status.st_dev;
        files->inode = (uint64_t)status.st_ino;
    }
    while (flock(files->pages_fd, LOCK_EX) != 0)
        if (errno != EINTR) return -errno;
    model_header header;
    int rc = read_all(files->pages_fd, &header, sizeof header, 0);
    if (rc) return rc;
    if (memcmp(header.magic, MODEL_MAGIC, 8) != 0) {
        /* First sight: the disk holds what the file holds. */
        int source = path ? open(path, O_RDONLY | O_CLOEXEC) : dup(data_fd);
        if (source < 0) return -errno;
        uint8_t page[MODEL_PAGE_BYTES];
        uint64_t size = (uint64_t)status.st_size;
        for (uint64_t offset = 0; offset < size && !rc; offset += sizeof page) {
            size_t bytes = size - offset < sizeof page ? (size_t)(size - offset) : sizeof page;
            if (!(rc = read_all(source, page, bytes, offset))) rc = write_all(files->disk_fd, page, bytes, offset);
        }
        close(source);
        if (!rc && ftruncate(files->disk_fd, (off_t)size) != 0) rc = -errno;
        memset(&header, 0, sizeof header);
        memcpy(header.magic, MODEL_MAGIC, 8);
        header.disk_size = size;
        if (!rc && ftruncate(files->pages_fd, sizeof header) != 0) rc = -errno;
        if (!rc) rc = write_all(files->pages_fd, &header, sizeof header, 0);
    }
    return rc;
}

static void unlock_model(columnar_faultio *faultio) {
    if (faultio->files.pages_fd >= 0) flock(faultio->files.pages_fd, LOCK_UN);
}

static int model_header_read(columnar_faultio *faultio, model_header *header) {
    return read_all(faultio->files.pages_fd, header, sizeof *header, 0);
}

static int model_header_write(columnar_faultio *faultio, const model_header *header) {
    return write_all(faultio->files.pages_fd, header, sizeof *header, 0);
}

/* The state bytes of every page, read whole (files here are megabytes: a few hundred bytes of state). */
static int states_read(columnar_faultio *faultio, uint8_t **out, uint64_t *out_count) {
    model_header header;
    int rc = model_header_read(faultio, &header);
    if (rc) return rc;
    uint8_t *states = calloc(header.page_count ? header.page_count : 1, 1);
    if (!states) return -ENOMEM;
    if ((rc = read_all(faultio->files.pages_fd, states, (size_t)header.page_count, sizeof header))) {
        free(states);
        return rc;
    }
    *out = states;
    *out_count = header.page_count;
    return 0;
}

static int states_write(columnar_faultio *faultio, const uint8_t *states, uint64_t count) {
    model_header header;
    int rc = model_header_read(faultio, &header);
    if (rc) return rc;
    if (count > header.page_count) {
        header.page_count = count;
        if ((rc = model_header_write(faultio, &header))) return rc;
    }
    return write_all(faultio->files.pages_fd, states, (size_t)count, sizeof header);
}

/* Marks the pages [offset, offset + size) touches dirty. */
static int mark_dirty(columnar_faultio *faultio, uint64_t offset, uint64_t size) {
    if (size == 0) return 0;
    uint64_t first = offset / MODEL_PAGE_BYTES, last = (offset + size - 1) / MODEL_PAGE_BYTES;
    model_header header;
    int rc = model_header_read(faultio, &header);
    if (rc) return rc;
    if (last + 1 > header.page_count) {
        header.page_count = last + 1;
        if ((rc = model_header_write(faultio, &header))) return rc;
        /* New state bytes past the old end read as zeros: clean. */
    }
    uint64_t count = last - first + 1;
    uint8_t *dirty = malloc((size_t)count);
    if (!dirty) return -ENOMEM;
    memset(dirty, PAGE_DIRTY, (size_t)count);
    rc = write_all(faultio->files.pages_fd, dirty, (size_t)count, sizeof header + first);
    free(dirty);
    return rc;
}

/* Copies page `page` from the cache (the real file `cache_fd`) to the disk, whole or, with `tear`, sector by
 * sector at random. */
static int write_back(columnar_faultio *faultio, int cache_fd, uint64_t page, bool tear) {
    uint8_t bytes[MODEL_PAGE_BYTES];
    uint64_t offset = page * MODEL_PAGE_BYTES;
    int rc = read_all(cache_fd, bytes, sizeof bytes, offset);
    if (rc) return rc;
    if (!tear) return write_all(faultio->files.disk_fd, bytes, sizeof bytes, offset);
    for (uint64_t sector = 0; sector < MODEL_PAGE_BYTES / MODEL_SECTOR_BYTES && !rc; sector++)
        if (next_random(faultio) & 1)
            rc = write_all(faultio->files.disk_fd, bytes + sector * MODEL_SECTOR_BYTES, MODEL_SECTOR_BYTES,
                           offset + sector * MODEL_SECTOR_BYTES);
    return rc;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The columnar_io operations                                                                                   */
/* ---------------------------------------------------------------------------------------------------------- */

static int fault_write_batch(void *context, int fd, const columnar_io_write *writes, size_t write_count) {
    columnar_faultio *faultio = context;
    int result = 0;
    pthread_mutex_lock(&faultio->mutex);
    ensure_real(faultio);
    bool model_open = false;
    for (size_t index = 0; index < write_count; index++) {
        const columnar_io_write *write = &writes[index];
        if (faultio->power_cut_armed && faultio->writes_before_power_cut == 0) {
            faultio->power_cut_armed = false;
            faultio->power_is_cut = true;
        }
        if (faultio->power_is_cut) {
            faultio->write_count++;
            result = cc_error(-EIO, 0, "", "simulated power cut after %llu writes",
                              (unsigned long long)faultio->write_count);
            break;
        }
        if (faultio->failure_armed && faultio->writes_before_failure == 0) {
            faultio->write_count++;
            result = cc_error(faultio->failure_error, 0, "", "injected write failure after %llu writes",
                              (unsigned long long)faultio->write_count);
            break;
        }
        if (!model_open) {
            if ((result = open_model(faultio, fd, NULL))) {
                result = CC_FAIL(result, "fault layer: cannot open the model of the file: %s", strerror(-result));
                break;
            }
            model_open = true;
        }
        size_t size = write->size;
        bool kill_here = faultio->kill_armed && faultio->writes_before_kill == 0;
        /* A process killed inside a write leaves a prefix of it, whole pages at a time. */
        if (kill_here && size > MODEL_PAGE_BYTES)
            size = (size_t)(next_random(faultio) % (size / MODEL_PAGE_BYTES + 1)) * MODEL_PAGE_BYTES;
        if ((result = mark_dirty(faultio, write->offset, size))) break;
        columnar_io_write piece = { write->offset, write->data, size };
        if (size && (result = faultio->real.io.write_batch(faultio->real.io.context, fd, &piece, 1))) break;
        if (kill_here) die_now();
        faultio->write_count++;
        if (faultio->power_cut_armed) faultio->writes_before_power_cut--;
        if (faultio->failure_armed) faultio->writes_before_failure--;
        if (faultio->kill_armed) faultio->writes_before_kill--;
    }
    if (model_open) unlock_model(faultio);
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
    bool fail = faultio->sync_failure_armed && faultio->syncs_before_failure == 0;
    if (faultio->sync_failure_armed && !fail) faultio->syncs_before_failure--;
    if (fail) faultio->sync_failure_armed = false;
    if ((result = open_model(faultio, fd, NULL))) {
        result = CC_FAIL(result, "fault layer: cannot open the model of the file: %s", strerror(-result));
        goto done;
    }
    uint8_t *states = NULL;
    uint64_t count = 0;
    if (!(result = states_read(faultio, &states, &count))) {
        for (uint64_t page = 0; page < count && !result; page++) {
            if (states[page] != PAGE_DIRTY) continue;
            /* A failing sync still writes back some pages before it gives up; the others are marked clean all the
             * same, and only the cache holds them now. */
            if (fail && next_random(faultio) % 2) {
                states[page] = PAGE_FAILED;
                continue;
            }
            result = write_back(faultio, fd, page, false);
            states[page] = PAGE_CLEAN;
        }
        if (!result) result = states_write(faultio, states, count);
        model_header header;
        if (!result && !fail && !(result = model_header_read(faultio, &header))) {
            struct stat status;
            if (fstat(fd, &status) == 0) header.disk_size = (uint64_t)status.st_size;
            result = model_header_write(faultio, &header);
        }
        free(states);
    }
    unlock_model(faultio);
    if (!result && fail)
        result = cc_error(faultio->sync_failure_error, 0, "", "injected fdatasync failure (sync %llu)",
                          (unsigned long long)faultio->sync_count);
done:
    pthread_mutex_unlock(&faultio->mutex);
    return result;
}

static int fault_grow(void *context, int fd, uint64_t size_bytes) {
    columnar_faultio *faultio = context;
    int result = 0;
    pthread_mutex_lock(&faultio->mutex);
    ensure_real(faultio);
    if (faultio->power_is_cut) result = cc_error(-EIO, 0, "", "simulated power cut: growing the file after the cut fails");
    else result = faultio->real.io.grow(faultio->real.io.context, fd, size_bytes);
    pthread_mutex_unlock(&faultio->mutex);
    return result;
}

static void fault_step(void *context, columnar_step step) {
    columnar_faultio *faultio = context;
    pthread_mutex_lock(&faultio->mutex);
    bool act = faultio->step_armed == step && faultio->step_occurrences_left > 0 &&
               --faultio->step_occurrences_left == 0;
    if (act) {
        faultio->step_armed = 0;
        if (faultio->step_kills) die_now();
        faultio->power_is_cut = true;
    }
    pthread_mutex_unlock(&faultio->mutex);
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
    faultio->io.step = fault_step;
    faultio->random_state = seed;
    faultio->files.disk_fd = faultio->files.pages_fd = -1;
    return faultio;
}

void columnar_faultio_destroy(columnar_faultio *faultio) {
    if (faultio == NULL) return;
    close_files(&faultio->files);
    if (faultio->real_ready) cc_real_io_destroy(&faultio->real);
    pthread_mutex_destroy(&faultio->mutex);
    free(faultio);
}

const columnar_io *columnar_faultio_io(columnar_faultio *faultio) { return &faultio->io; }

void columnar_faultio_fail_writes_after(columnar_faultio *faultio, uint64_t write_count, int error) {
    pthread_mutex_lock(&faultio->mutex);
    faultio->failure_armed = error != 0;
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

void columnar_faultio_kill_after_writes(columnar_faultio *faultio, uint64_t write_count) {
    pthread_mutex_lock(&faultio->mutex);
    faultio->kill_armed = true;
    faultio->writes_before_kill = write_count;
    pthread_mutex_unlock(&faultio->mutex);
}

void columnar_faultio_at_step(columnar_faultio *faultio, columnar_step step, uint64_t occurrence, bool kill) {
    pthread_mutex_lock(&faultio->mutex);
    faultio->step_armed = occurrence ? step : 0;
    faultio->step_occurrences_left = occurrence;
    faultio->step_kills = kill;
    pthread_mutex_unlock(&faultio->mutex);
}

void columnar_faultio_fail_sync(columnar_faultio *faultio, uint64_t syncs_before, int error) {
    pthread_mutex_lock(&faultio->mutex);
    faultio->sync_failure_armed = true;
    faultio->syncs_before_failure = syncs_before;
    faultio->sync_failure_error = error;
    pthread_mutex_unlock(&faultio->mutex);
}

/* The counters are read under the mutex; the const is cast away because locking is not a change a caller can
 * observe. */
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

/* Runs `body` on the model of the file at `path`, opened and locked, with the file open read-write as `fd`. */
static int with_model(columnar_faultio *faultio, const char *path,
                      int (*body)(columnar_faultio *, int fd, void *), void *argument) {
    pthread_mutex_lock(&faultio->mutex);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    int rc = fd < 0 ? -errno : open_model(faultio, fd, path);
    if (!rc) {
        rc = body(faultio, fd, argument);
        unlock_model(faultio);
    }
    if (fd >= 0) close(fd);
    if (rc) CC_FAIL(rc, "fault layer: %s: %s", path, strerror(-rc));
    pthread_mutex_unlock(&faultio->mutex);
    return rc;
}

static int writeback_body(columnar_faultio *faultio, int fd, void *argument) {
    double share = *(const double *)argument;
    uint8_t *states;
    uint64_t count;
    int rc = states_read(faultio, &states, &count);
    if (rc) return rc;
    for (uint64_t page = 0; page < count && !rc; page++) {
        if (states[page] != PAGE_DIRTY || (double)(next_random(faultio) % 1000000) / 1e6 >= share) continue;
        rc = write_back(faultio, fd, page, false);
        states[page] = PAGE_CLEAN;
    }
    if (!rc) rc = states_write(faultio, states, count);
    free(states);
    return rc;
}

int columnar_faultio_writeback(columnar_faultio *faultio, const char *path, double share) {
    return with_model(faultio, path, writeback_body, &share);
}

static int evict_body(columnar_faultio *faultio, int fd, void *argument) {
    (void)argument;
    uint8_t *states;
    uint64_t count;
    int rc = states_read(faultio, &states, &count);
    if (rc) return rc;
    uint8_t page_bytes[MODEL_PAGE_BYTES];
    for (uint64_t page = 0; page < count && !rc; page++) {
        if (states[page] != PAGE_FAILED) continue;
        /* Dropped from the cache and read again: what the disk has comes back. */
        if (!(rc = read_all(faultio->files.disk_fd, page_bytes, sizeof page_bytes, page * MODEL_PAGE_BYTES)))
            rc = write_all(fd, page_bytes, sizeof page_bytes, page * MODEL_PAGE_BYTES);
        states[page] = PAGE_CLEAN;
    }
    if (!rc) rc = states_write(faultio, states, count);
    free(states);
    return rc;
}

int columnar_faultio_evict_failed(columnar_faultio *faultio, const char *path) {
    return with_model(faultio, path, evict_body, NULL);
}

static int power_cut_body(columnar_faultio *faultio, int fd, void *argument) {
    columnar_power_cut_mode mode = *(const columnar_power_cut_mode *)argument;
    uint8_t *states;
    uint64_t count;
    int rc = states_read(faultio, &states, &count);
    if (rc) return rc;
    /* Each page still dirty reached the disk whole, not at all, or torn at its sectors. */
    for (uint64_t page = 0; page < count && !rc; page++) {
        if (states[page] != PAGE_DIRTY || mode == COLUMNAR_POWER_CUT_DROP) continue;
        uint64_t outcome = next_random(faultio) % 3;
        if (outcome == 1) continue;
        rc = write_back(faultio, fd, page, outcome == 2);
    }
    free(states);
    if (rc) return rc;
    /* The size is metadata the journal may or may not have committed. */
    model_header header;
    if ((rc = model_header_read(faultio, &header))) return rc;
    struct stat status;
    if (fstat(fd, &status) != 0) return -errno;
    uint64_t size = header.disk_size;
    if (mode == COLUMNAR_POWER_CUT_RANDOM && (next_random(faultio) & 1)) size = (uint64_t)status.st_size;
    /* After the machine comes back, the file is what the disk holds. */
    uint8_t disk_page[MODEL_PAGE_BYTES], cache_page[MODEL_PAGE_BYTES];
    for (uint64_t offset = 0; offset < size && !rc; offset += MODEL_PAGE_BYTES) {
        if ((rc = read_all(faultio->files.disk_fd, disk_page, sizeof disk_page, offset)) ||
            (rc = read_all(fd, cache_page, sizeof cache_page, offset)))
            break;
        size_t bytes = size - offset < MODEL_PAGE_BYTES ? (size_t)(size - offset) : MODEL_PAGE_BYTES;
        if (memcmp(disk_page, cache_page, bytes) != 0) rc = write_all(fd, disk_page, bytes, offset);
    }
    if (!rc && ftruncate(fd, (off_t)size) != 0) rc = -errno;
    if (!rc && ftruncate(faultio->files.disk_fd, (off_t)size) != 0) rc = -errno;
    if (!rc && fsync(fd) != 0) rc = -errno;
    /* The model starts over: the disk holds what the file holds, and nothing is dirty. */
    memset(&header, 0, sizeof header);
    memcpy(header.magic, MODEL_MAGIC, 8);
    header.disk_size = size;
    if (!rc && ftruncate(faultio->files.pages_fd, sizeof header) != 0) rc = -errno;
    if (!rc) rc = model_header_write(faultio, &header);
    return rc;
}

int columnar_faultio_apply_power_cut(columnar_faultio *faultio, const char *path, columnar_power_cut_mode mode) {
    if (mode != COLUMNAR_POWER_CUT_DROP && mode != COLUMNAR_POWER_CUT_RANDOM)
        return CC_MISUSE("unknown power cut mode %d", (int)mode);
    int rc = with_model(faultio, path, power_cut_body, &mode);
    pthread_mutex_lock(&faultio->mutex);
    faultio->power_is_cut = false;
    faultio->power_cut_armed = false;
    faultio->kill_armed = false;
    faultio->sync_failure_armed = false;
    faultio->step_armed = 0;
    pthread_mutex_unlock(&faultio->mutex);
    return rc;
}

int columnar_faultio_forget(const char *path) {
    struct stat status;
    if (stat(path, &status) != 0) return -errno;
    char name[4200];
    for (int i = 0; i < 2; i++) {
        if (model_path(-1, path, status.st_dev, status.st_ino, i ? "pages" : "disk", name, sizeof name) == 0)
            unlink(name);
    }
    return 0;
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
