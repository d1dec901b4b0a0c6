/*
 * mirror.c — the decrypted image of an encrypted file, and the I/O layer that encrypts what the commit path writes
 * (docs/Encryption.md).
 *
 * Readers of a plain file decode nodes in place in the shared mapping. An encrypted file cannot be read in place,
 * so its handle keeps a decrypted copy of the file's logical content (the mirror) in private anonymous memory
 * reserved like the plain mapping (map.c): pointers into it stay valid while it grows, and readers use it exactly
 * as they use the mapping. Writers never change a byte a reader can see: a commit writes only free space, so
 * copying its ranges into the mirror races with no reader.
 *
 * The mirror is filled when a range of the file is first needed (at open, recovery needs all of it) and kept in
 * step in two ways:
 *   - this handle's commits go through mirror_write_batch: their ranges are copied into the mirror, then every
 *     sector they touch is sealed from the mirror (so bytes of the sector outside the ranges keep their content)
 *     and written;
 *   - commits of other handles and processes are found when a transaction of this handle reaches a version newer
 *     than the mirror's: the lock file's change ring names the sectors each commit wrote (appended before the
 *     commit writes them), and a named sector whose IV changed is decrypted again. A handle further behind than
 *     the ring reaches, one in a new chain epoch, or one without a lock file compares every sector's IV instead.
 *     Only the bytes that differ are stored, which are free space to every reader of this handle (the versions
 *     they pin protect the rest), so readers are never written under.
 *
 * A sector that fails authentication is recorded as damaged and its bytes in the mirror are filled with 0xA5.
 * Once a damaged sector lies below the used size, every node read checks its checksum (as COLUMNAR_OPEN_PARANOID
 * does), so damage is reported as COLUMNAR_ECORRUPT rather than read as data; columnar_verify lists the sectors.
 */
#include "mirror.h"

#include "crypt.h"
#include "error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>

struct cc_mirror {
    cc_crypt *crypt;
    const columnar_io *inner;      /* writes the physical file */
    columnar_io io;                /* what the commit path writes through (logical ranges in, sealed sectors out) */
    cc_map file;                   /* the physical file, mapped read-only */
    uint8_t *plain;                /* the logical image: header, then the content of each sector */
    uint64_t reserved_bytes;
    pthread_mutex_t mutex;         /* serializes fills, refreshes and writes; guards the fields below */
    uint8_t (*ivs)[CC_CRYPT_IV_BYTES];  /* per covered sector: the IV of what `plain` holds */
    uint64_t covered;              /* sectors whose content is in `plain` */
    uint64_t ivs_capacity;
    uint64_t *damaged;             /* indexes of sectors that failed authentication, ascending */
    size_t damaged_count, damaged_capacity;
    _Atomic uint64_t covered_bytes;/* logical bytes readable in `plain` */
    _Atomic uint64_t version;      /* the newest version whose content `plain` holds ... */
    _Atomic uint64_t epoch;        /* ... in this chain epoch (stored after `version`, read before it) */
    _Atomic bool *suspect;         /* the owning map's flag: set while a damaged sector lies below the used size */
    cc_lock *lock;                 /* the lock file's change ring; NULL without a lock file (a pass each time) */
    bool ring_valid;               /* ring_position means something: a pass was made since the lock was attached */
    uint64_t ring_position;        /* the next change entry the image has not taken in */
    uint64_t writing_version;      /* the version this handle's commit in progress will make (0: none known) */
};

enum { DAMAGE_FILL = 0xA5, RETRIES = 200 };

/* ---------------------------------------------------------------------------------------------------------- */
/* Damage bookkeeping                                                                                           */
/* ---------------------------------------------------------------------------------------------------------- */

static size_t damage_find(const cc_mirror *m, uint64_t sector) {
    size_t lo = 0, hi = m->damaged_count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->damaged[mid] < sector) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static int damage_add(cc_mirror *m, uint64_t sector) {
    size_t at = damage_find(m, sector);
    if (at < m->damaged_count && m->damaged[at] == sector) return 0;
    if (m->damaged_count == m->damaged_capacity) {
        size_t capacity = m->damaged_capacity ? m->damaged_capacity * 2 : 16;
        uint64_t *grown = realloc(m->damaged, capacity * sizeof *grown);
        if (!grown) return -ENOMEM;
        m->damaged = grown;
        m->damaged_capacity = capacity;
    }
    memmove(m->damaged + at + 1, m->damaged + at, (m->damaged_count - at) * sizeof *m->damaged);
    m->damaged[at] = sector;
    m->damaged_count++;
    return 0;
}

static void damage_remove(cc_mirror *m, uint64_t sector) {
    if (!m->damaged_count) return;
    size_t at = damage_find(m, sector);
    if (at == m->damaged_count || m->damaged[at] != sector) return;
    memmove(m->damaged + at, m->damaged + at + 1, (m->damaged_count - at - 1) * sizeof *m->damaged);
    m->damaged_count--;
}

static void damage_publish(cc_mirror *m, uint64_t used_size) {
    bool below = m->damaged_count && cc_crypt_sector_logical(m->damaged[0]) < used_size;
    if (below && m->suspect) atomic_store_explicit(m->suspect, true, memory_order_release);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Filling                                                                                                      */
/* ---------------------------------------------------------------------------------------------------------- */

static int ivs_reserve(cc_mirror *m, uint64_t sectors) {
    if (sectors <= m->ivs_capacity) return 0;
    uint64_t capacity = m->ivs_capacity ? m->ivs_capacity : 1024;
    while (capacity < sectors) capacity *= 2;
    void *grown = realloc(m->ivs, capacity * CC_CRYPT_IV_BYTES);
    if (!grown) return -ENOMEM;
    m->ivs = grown;
    m->ivs_capacity = capacity;
    return 0;
}

/* Stores only the bytes of `fresh` that differ from `at`: bytes a reader may be reading are equal, so they are
 * never written. */
static void store_differences(uint8_t *at, const uint8_t *fresh, size_t size) {
    for (size_t i = 0; i < size; i++)
        if (at[i] != fresh[i]) at[i] = fresh[i];
}

/* Decrypts the physical sector `index` (a copy of it, so a concurrent write cannot change it between the check and
 * the decryption). A sector being written by another process may be seen half old, half new: it is read again
 * until it authenticates, a bounded number of times. Returns true with the plaintext and the IV seen. */
static bool open_sector(cc_mirror *m, uint64_t index, uint8_t plain[CC_CRYPT_PAYLOAD_BYTES],
                        uint8_t iv[CC_CRYPT_IV_BYTES]) {
    const uint8_t *at = m->file.base + cc_crypt_sector_physical(index);
    uint8_t sector[CC_CRYPT_SECTOR_BYTES];
    for (int attempt = 0; attempt < RETRIES; attempt++) {
        if (attempt) {
            struct timespec pause = { 0, 20000 };
            nanosleep(&pause, NULL);
        }
        memcpy(sector, at, sizeof sector);
        if (cc_crypt_open(m->crypt, index, sector, plain)) {
            memcpy(iv, sector, CC_CRYPT_IV_BYTES);
            return true;
        }
    }
    memcpy(iv, sector, CC_CRYPT_IV_BYTES);
    return false;
}

static bool all_zero(const uint8_t *bytes, size_t size) {
    for (size_t i = 0; i < size; i++)
        if (bytes[i]) return false;
    return true;
}

/* Takes physical sector `s` into the image: its plaintext; zeros for a sector of 512 zero bytes (allocated, never
 * written: the file grew and the sealed sectors did not follow, or have not yet); DAMAGE_FILL, recorded as damage,
 * for one that fails authentication. `in_use`: the sector was in the image already, so readers may be reading its
 * bytes, and only those that differ are stored (they are free space to every reader); otherwise it is written
 * directly. */
static int take_sector(cc_mirror *m, uint64_t s, bool in_use) {
    const uint8_t *at = m->file.base + cc_crypt_sector_physical(s);
    uint8_t *to = m->plain + cc_crypt_sector_logical(s);
    uint8_t fresh[CC_CRYPT_PAYLOAD_BYTES];
    uint8_t *into = in_use ? fresh : to;
    int rc = 0;
    if (all_zero(at, CC_CRYPT_SECTOR_BYTES)) {
        memset(into, 0, CC_CRYPT_PAYLOAD_BYTES);
        memset(m->ivs[s], 0, CC_CRYPT_IV_BYTES);
        damage_remove(m, s);
    } else if (open_sector(m, s, into, m->ivs[s])) {
        damage_remove(m, s);
    } else {
        memset(into, DAMAGE_FILL, CC_CRYPT_PAYLOAD_BYTES);
        rc = damage_add(m, s);
    }
    if (in_use) store_differences(to, fresh, CC_CRYPT_PAYLOAD_BYTES);
    return rc;
}

/* The size of the file on disk (physical bytes). */
static int physical_size(int fd, uint64_t *out) {
    struct stat st;
    if (fstat(fd, &st) != 0) return cc_error(-errno, 0, "", "cannot stat the database file: %s", strerror(errno));
    *out = (uint64_t)st.st_size;
    return 0;
}

/* Makes `plain` hold the content of every sector below logical offset `logical`. Sectors past the file's end (a
 * writer about to extend the file) read as zeros, when `beyond_end` allows it; otherwise such a size is damage. */
static int cover(cc_mirror *m, int fd, uint64_t logical, bool beyond_end) {
    if (logical <= CF_HEADER_BYTES) logical = CF_HEADER_BYTES + 1;
    uint64_t needed = cc_crypt_sector_of(logical - 1) + 1;
    if (needed <= m->covered) return 0;
    if (cc_crypt_sector_logical(needed) > m->reserved_bytes)
        return CC_FAIL(COLUMNAR_EMAPFULL, "the file (%llu bytes) exceeds the reserved mapping (%llu bytes)",
                       (unsigned long long)logical, (unsigned long long)m->reserved_bytes);
    uint64_t file_bytes = 0;
    int rc = physical_size(fd, &file_bytes);
    if (rc) return rc;
    uint64_t present = file_bytes > CF_HEADER_BYTES ? (file_bytes - CF_HEADER_BYTES) / CC_CRYPT_SECTOR_BYTES : 0;
    if (present < needed && !beyond_end)
        return CC_CORRUPT(logical, "the database needs %llu bytes but the file has %llu (%llu of %llu sectors)",
                          (unsigned long long)cc_crypt_physical_size(logical), (unsigned long long)file_bytes,
                          (unsigned long long)present, (unsigned long long)needed);
    uint64_t readable = present < needed ? present : needed;
    if (readable > m->covered && (rc = cc_map_ensure(&m->file, fd, cc_crypt_sector_physical(readable)))) return rc;
    if ((rc = ivs_reserve(m, needed))) return rc;
    if (m->covered == 0 && file_bytes >= CF_HEADER_BYTES) {
        if ((rc = cc_map_ensure(&m->file, fd, CF_HEADER_BYTES))) return rc;
        memcpy(m->plain, m->file.base, CF_HEADER_BYTES);
    }
    for (uint64_t s = m->covered; s < needed; s++) {
        uint8_t *to = m->plain + cc_crypt_sector_logical(s);
        if (s >= readable) {
            memset(to, 0, CC_CRYPT_PAYLOAD_BYTES);
            memset(m->ivs[s], 0, CC_CRYPT_IV_BYTES);
            continue;
        }
        if ((rc = take_sector(m, s, false))) return rc;
    }
    m->covered = needed;
    atomic_store_explicit(&m->covered_bytes, cc_crypt_sector_logical(needed), memory_order_release);
    return 0;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Writing                                                                                                      */
/* ---------------------------------------------------------------------------------------------------------- */

static int compare_runs(const void *a, const void *b) {
    const cc_sector_run *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

static int mirror_write_batch(void *context, int fd, const columnar_io_write *writes, size_t write_count) {
    cc_mirror *m = context;
    int rc = 0;
    cc_sector_run *runs = calloc(write_count ? write_count : 1, sizeof *runs);
    columnar_io_write *physical = NULL;
    uint8_t *sealed = NULL;
    if (!runs) return -ENOMEM;
    pthread_mutex_lock(&m->mutex);

    /* The header is in the clear: its writes go through as they are. */
    size_t run_count = 0, header_count = 0;
    uint64_t end = 0;
    for (size_t i = 0; i < write_count; i++) {
        uint64_t from = writes[i].offset, to = from + writes[i].size;
        if (from < CF_HEADER_BYTES) header_count++;
        if (to > CF_HEADER_BYTES && to > end) end = to;
    }
    if (end && (rc = cover(m, fd, end, true))) goto done;
    for (size_t i = 0; i < write_count; i++) {
        uint64_t from = writes[i].offset, to = from + writes[i].size;
        const uint8_t *bytes = writes[i].data;
        if (from < CF_HEADER_BYTES) {
            uint64_t stop = to < CF_HEADER_BYTES ? to : CF_HEADER_BYTES;
            if (m->covered) memcpy(m->plain + from, bytes, stop - from);
            bytes += stop - from;
            from = stop;
        }
        if (from >= to) continue;
        memcpy(m->plain + from, bytes, to - from);
        runs[run_count++] = (cc_sector_run){ cc_crypt_sector_of(from), cc_crypt_sector_of(to - 1) + 1 };
    }
    qsort(runs, run_count, sizeof *runs, compare_runs);
    size_t merged = 0;
    uint64_t sectors = 0;
    for (size_t i = 0; i < run_count; i++) {
        if (merged && runs[i].first <= runs[merged - 1].end) {
            if (runs[i].end > runs[merged - 1].end) runs[merged - 1].end = runs[i].end;
        } else {
            runs[merged++] = runs[i];
        }
    }
    for (size_t i = 0; i < merged; i++) sectors += runs[i].end - runs[i].first;

    /* Before anything is written, other handles learn which sectors this commit writes (cc_lock_changes_append). */
    if (merged && m->lock && m->writing_version) cc_lock_changes_append(m->lock, m->writing_version, runs, merged);
    physical = calloc(merged + header_count + 1, sizeof *physical);
    sealed = malloc(sectors ? sectors * (CC_CRYPT_SECTOR_BYTES + CC_CRYPT_IV_BYTES) : 1);
    if (!physical || !sealed) {
        rc = -ENOMEM;
        goto done;
    }
    size_t physical_count = 0;
    for (size_t i = 0; i < write_count; i++) {
        if (writes[i].offset >= CF_HEADER_BYTES) continue;
        uint64_t stop = writes[i].offset + writes[i].size;
        if (stop > CF_HEADER_BYTES) stop = CF_HEADER_BYTES;
        physical[physical_count++] = (columnar_io_write){ writes[i].offset, writes[i].data,
                                                          (size_t)(stop - writes[i].offset) };
    }
    /* The batch's IVs are drawn in one call, at the end of the buffer. */
    uint8_t *ivs = sealed + sectors * CC_CRYPT_SECTOR_BYTES;
    if ((rc = cc_crypt_random_ivs(ivs, sectors))) goto done;
    uint8_t *out = sealed;
    for (size_t i = 0; i < merged; i++) {
        uint8_t *start = out;
        for (uint64_t s = runs[i].first; s < runs[i].end; s++, out += CC_CRYPT_SECTOR_BYTES, ivs += CC_CRYPT_IV_BYTES)
            if ((rc = cc_crypt_seal(m->crypt, s, m->plain + cc_crypt_sector_logical(s), ivs, out))) goto done;
        physical[physical_count++] = (columnar_io_write){ cc_crypt_sector_physical(runs[i].first), start,
                                                          (size_t)(out - start) };
    }
    if ((rc = m->inner->write_batch(m->inner->context, fd, physical, physical_count))) goto done;
    /* Written: the mirror now holds what these sectors hold. (After a failed write the IVs stay as they were, so
     * the next refresh reads back whatever part of the batch reached the file.) */
    out = sealed;
    for (size_t i = 0; i < merged; i++)
        for (uint64_t s = runs[i].first; s < runs[i].end; s++, out += CC_CRYPT_SECTOR_BYTES) {
            memcpy(m->ivs[s], out, CC_CRYPT_IV_BYTES);
            damage_remove(m, s);
        }
done:
    pthread_mutex_unlock(&m->mutex);
    free(runs);
    free(physical);
    free(sealed);
    return rc;
}

static int mirror_sync(void *context, int fd) {
    cc_mirror *m = context;
    return m->inner->sync(m->inner->context, fd);
}

static int mirror_grow(void *context, int fd, uint64_t size_bytes) {
    cc_mirror *m = context;
    return m->inner->grow(m->inner->context, fd, cc_crypt_physical_size(size_bytes));
}

static void mirror_step(void *context, columnar_step step) {
    cc_mirror *m = context;
    if (m->inner->step) m->inner->step(m->inner->context, step);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Public                                                                                                       */
/* ---------------------------------------------------------------------------------------------------------- */

int cc_mirror_create(const uint8_t key[CC_CRYPT_KEY_BYTES], const columnar_io *inner, cc_mirror **out) {
    *out = NULL;
    cc_mirror *m = calloc(1, sizeof *m);
    if (!m) return -ENOMEM;
    pthread_mutex_init(&m->mutex, NULL);
    m->inner = inner;
    m->io = (columnar_io){ m, mirror_write_batch, mirror_sync, mirror_grow, mirror_step };
    int rc = cc_crypt_create(key, &m->crypt);
    if (rc) goto fail;
    if ((rc = cc_map_init(&m->file))) goto fail;
    m->reserved_bytes = m->file.reserved_bytes;
    void *plain = mmap(NULL, m->reserved_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                       -1, 0);
    if (plain == MAP_FAILED && m->reserved_bytes > (1ull << 34)) {
        /* A limit on address space (ulimit -v) may allow the mapping's reservation but not a second one as large. */
        m->reserved_bytes = 1ull << 34;
        plain = mmap(NULL, m->reserved_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
    }
    if (plain == MAP_FAILED) {
        rc = cc_error(-errno, 0, "", "cannot reserve address space for the decrypted image: %s", strerror(errno));
        goto fail;
    }
    m->plain = plain;
    *out = m;
    return 0;
fail:
    cc_mirror_destroy(m);
    return rc;
}

int cc_mirror_create_for(const cf_identity *identity, const uint8_t key[CC_CRYPT_KEY_BYTES], const columnar_io *inner,
                         const char *path, cc_mirror **out) {
    cc_mirror *m = NULL;
    uint8_t check[CC_CRYPT_KEY_CHECK_BYTES];
    int rc = cc_mirror_create(key, inner, &m);
    if (!rc) rc = cc_crypt_key_check(m->crypt, identity->file_id, check);
    if (!rc && CRYPTO_memcmp(check, identity->key_check, sizeof check) != 0)
        rc = cc_error(COLUMNAR_EKEY, offsetof(cf_identity, key_check), "",
                      "%s is encrypted with another key than the one given", path);
    if (rc) {
        cc_mirror_destroy(m);
        m = NULL;
    }
    *out = m;
    return rc;
}

void cc_mirror_destroy(cc_mirror *m) {
    if (!m) return;
    if (m->plain) munmap(m->plain, m->reserved_bytes);
    if (m->file.base) cc_map_destroy(&m->file);
    cc_crypt_destroy(m->crypt);
    free(m->ivs);
    free(m->damaged);
    pthread_mutex_destroy(&m->mutex);
    free(m);
}

const columnar_io *cc_mirror_io(cc_mirror *m) { return &m->io; }
uint8_t *cc_mirror_base(cc_mirror *m) { return m->plain; }
uint64_t cc_mirror_reserved_bytes(const cc_mirror *m) { return m->reserved_bytes; }
cc_crypt *cc_mirror_crypt(cc_mirror *m) { return m->crypt; }
void cc_mirror_watch_damage(cc_mirror *m, _Atomic bool *suspect) { m->suspect = suspect; }

void cc_mirror_attach_lock(cc_mirror *m, cc_lock *lock) {
    pthread_mutex_lock(&m->mutex);
    m->lock = lock;
    m->ring_valid = false;
    pthread_mutex_unlock(&m->mutex);
}

void cc_mirror_note_writing(cc_mirror *m, uint64_t version) {
    pthread_mutex_lock(&m->mutex);
    m->writing_version = version;
    pthread_mutex_unlock(&m->mutex);
}

int cc_mirror_ensure(cc_mirror *m, int fd, uint64_t logical) {
    if (atomic_load_explicit(&m->covered_bytes, memory_order_acquire) >= logical) return 0;
    pthread_mutex_lock(&m->mutex);
    int rc = cover(m, fd, logical, false);
    pthread_mutex_unlock(&m->mutex);
    return rc;
}

/* Reads sector `s` again when its IV changed since the image last saw it (a sector of the physical mapping). */
static int refresh_sector(cc_mirror *m, uint64_t s) {
    if (memcmp(m->file.base + cc_crypt_sector_physical(s), m->ivs[s], CC_CRYPT_IV_BYTES) == 0) return 0;
    return take_sector(m, s, true);
}

/* Reads again the sectors that the lock file's change ring names for the versions up to `version` (those below
 * `last`). Returns false, having done nothing that matters, when the ring cannot tell: no lock file, no position
 * yet, or later commits overwrote entries the image has not read; a pass over every sector is needed then. */
static bool refresh_from_ring(cc_mirror *m, uint64_t version, uint64_t last, int *rc) {
    if (!m->lock || !m->ring_valid) return false;
    uint64_t head = cc_lock_changes_head(m->lock);
    uint64_t position = m->ring_position;
    /* Check first that nothing the image has not read was overwritten, so a fallback never follows partial work
     * whose position it would then lose. */
    if (head - position > CC_LOCK_CHANGE_RING) return false;
    for (; position < head; position++) {
        uint64_t entry_version, first, end;
        if (!cc_lock_change_get(m->lock, position, &entry_version, &first, &end)) return false;
        /* Entries are appended in commit order: those of a commit still being written come last. */
        if (entry_version > version) break;
        for (uint64_t s = first; s < end && s < last; s++)
            if ((*rc = refresh_sector(m, s))) return true;
    }
    m->ring_position = position;
    return true;
}

int cc_mirror_refresh(cc_mirror *m, int fd, uint64_t version, uint64_t used_size, uint64_t epoch) {
    if (atomic_load_explicit(&m->epoch, memory_order_acquire) == epoch &&
        atomic_load_explicit(&m->version, memory_order_acquire) >= version &&
        atomic_load_explicit(&m->covered_bytes, memory_order_acquire) >= used_size)
        return 0;
    pthread_mutex_lock(&m->mutex);
    int rc = 0;
    bool new_epoch = atomic_load_explicit(&m->epoch, memory_order_relaxed) != epoch;
    bool stale = new_epoch || atomic_load_explicit(&m->version, memory_order_relaxed) < version;
    uint64_t already = m->covered;
    /* Read before anything else, so that a pass leaves the ring position at or before every commit it missed. */
    uint64_t ring_head = m->lock ? cc_lock_changes_head(m->lock) : 0;
    if ((rc = cover(m, fd, used_size, false))) goto done;
    if (stale) {
        /* Another handle committed: read again every sector written since the image was last brought up to date,
         * as the change ring names them, or else every sector whose IV changed. */
        uint64_t file_bytes = 0;
        if ((rc = physical_size(fd, &file_bytes))) goto done;
        if ((rc = cc_map_ensure(&m->file, fd, file_bytes < CF_HEADER_BYTES ? file_bytes : CF_HEADER_BYTES))) goto done;
        store_differences(m->plain, m->file.base, CF_HEADER_BYTES);
        uint64_t present = file_bytes > CF_HEADER_BYTES ? (file_bytes - CF_HEADER_BYTES) / CC_CRYPT_SECTOR_BYTES : 0;
        uint64_t last = already < present ? already : present;
        if (last && (rc = cc_map_ensure(&m->file, fd, cc_crypt_sector_physical(last)))) goto done;
        if (new_epoch || !refresh_from_ring(m, version, last, &rc)) {
            for (uint64_t s = 0; s < last && !rc; s++) rc = refresh_sector(m, s);
            m->ring_position = ring_head;
            m->ring_valid = m->lock != NULL;
        }
        if (rc) goto done;
        atomic_store_explicit(&m->version, version, memory_order_release);
        atomic_store_explicit(&m->epoch, epoch, memory_order_release);
    }
    damage_publish(m, used_size);
done:
    pthread_mutex_unlock(&m->mutex);
    return rc;
}

void cc_mirror_note_version(cc_mirror *m, uint64_t version, uint64_t epoch) {
    pthread_mutex_lock(&m->mutex);
    /* The writer brought the image up to its base version of this epoch before it began (the writer lock kept
     * every other commit out since), so the image now holds `version`. */
    if (atomic_load_explicit(&m->epoch, memory_order_relaxed) == epoch &&
        atomic_load_explicit(&m->version, memory_order_relaxed) < version)
        atomic_store_explicit(&m->version, version, memory_order_release);
    pthread_mutex_unlock(&m->mutex);
}

size_t cc_mirror_damage(cc_mirror *m, uint64_t below, uint64_t *out_sectors, size_t capacity) {
    pthread_mutex_lock(&m->mutex);
    size_t count = 0;
    for (size_t i = 0; i < m->damaged_count && cc_crypt_sector_logical(m->damaged[i]) < below; i++) {
        if (count < capacity) out_sectors[count] = m->damaged[i];
        count++;
    }
    pthread_mutex_unlock(&m->mutex);
    return count;
}
