/*
 * db.c — opening and closing a database: the data file (created atomically when new, or an in-memory file shared
 * by identifier), its lock file (named from the file's real path), the mapping, the I/O layer, and recovery of
 * the version the file opens at when this handle is the first to open it.
 */
#include "commit.h"

#include "header.h"
#include "mirror.h"
#include "recovery.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* In-memory databases with the same identifier share one memory file and one lock area within the process. */
typedef struct cc_memdb {
    struct cc_memdb *next;
    char *identifier;
    int fd;
    cc_lock *lock;
    uint32_t users;
} cc_memdb;

static pthread_mutex_t memdb_mutex = PTHREAD_MUTEX_INITIALIZER;
static cc_memdb *memdb_list;

/* Joins the in-memory database named `identifier`, creating it (memory file, lock area, version 1) when this is
 * its first handle. Sets db->memdb, db->lock and db->fd (a descriptor of its own for the shared memory file).
 * Creation and the first recovery run under the registry's mutex, so a second handle never sees it half made. */
static int memdb_acquire(columnar_db *db, const char *identifier) {
    pthread_mutex_lock(&memdb_mutex);
    int rc = 0;
    cc_memdb *m = memdb_list;
    while (m && strcmp(m->identifier, identifier) != 0) m = m->next;
    bool created = false;
    if (!m) {
        m = calloc(1, sizeof *m);
        if (!m || !(m->identifier = strdup(identifier))) { free(m); rc = -ENOMEM; goto done; }
        m->fd = memfd_create("columnar-in-memory", MFD_CLOEXEC);
        bool fresh;
        uint8_t file_id[CF_FILE_ID_BYTES];
        if (m->fd < 0) rc = cc_error(-errno, 0, "", "cannot create the in-memory database %s: %s", identifier,
                                     strerror(errno));
        else if (!(rc = cc_write_first_version(db->io, m->fd, identifier, db->cluster_size, NULL, file_id)))
            rc = cc_lock_open(NULL, -1, false, &m->lock, &fresh);
        if (rc) {
            if (m->fd >= 0) close(m->fd);
            free(m->identifier);
            free(m);
            goto done;
        }
        m->next = memdb_list;
        memdb_list = m;
        created = true;
    }
    m->users++;
    db->memdb = m;
    db->lock = m->lock;
    db->fd = dup(m->fd);
    if (db->fd < 0) {
        rc = cc_error(-errno, 0, "", "cannot share the in-memory database %s: %s", identifier, strerror(errno));
        goto done;
    }
    if (created) {
        cc_version_state state;
        rc = cc_recover(db, CC_REPAIR_VERIFY, 0, true, &state);
    }
done:
    pthread_mutex_unlock(&memdb_mutex);
    return rc;
}

static void memdb_release(cc_memdb *m) {
    pthread_mutex_lock(&memdb_mutex);
    if (--m->users == 0) {
        cc_memdb **link = &memdb_list;
        while (*link != m) link = &(*link)->next;
        *link = m->next;
        cc_lock_close(m->lock);
        close(m->fd);
        free(m->identifier);
        free(m);
    }
    pthread_mutex_unlock(&memdb_mutex);
}

int cc_db_latest(columnar_db *db, cc_version_state *out) {
    if (!db->lock) {
        *out = db->unlocked_state;
        return 0;
    }
    if (cc_lock_read_published(db->lock, out)) return 0;
    return CC_FAIL(COLUMNAR_ELOCKFILE, "the lock file of %s names no published version", db->path);
}

static const char *path_description(columnar_db *db) {
    if (db->flags & COLUMNAR_OPEN_IN_MEMORY) return "memory";
    const cc_real_io *real =
        cc_io_is_faultio(db->file_io) ? cc_faultio_real(cc_faultio_from_io(db->file_io)) : &db->real_io;
    return real->description;
}

/* Opens the data file at `path` into db->fd: creating it atomically first when asked to and absent, and
 * replacing an empty file with a new database. */
static int open_data_file(columnar_db *db, const char *path) {
    bool read_only = (db->flags & COLUMNAR_OPEN_READ_ONLY) != 0;
    bool create = (db->flags & COLUMNAR_OPEN_CREATE) && !read_only;
    for (int attempt = 0; attempt < 16; attempt++) {
        int fd = open(path, (read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC);
        if (fd < 0) {
            if (errno == ENOENT && create) {
                int rc = cc_create_file(path, db->io, db->cluster_size, db->encryption_key);
                if (rc && rc != -EEXIST) return rc;
                continue;
            }
            return cc_error(-errno, 0, "", "cannot open %s: %s", path, strerror(errno));
        }
        struct stat st;
        if (fstat(fd, &st) != 0) {
            int error = errno;
            close(fd);
            return cc_error(-error, 0, "", "cannot stat %s: %s", path, strerror(error));
        }
        if (st.st_size == 0) {
            if (!create) {
                close(fd);
                return cc_error(COLUMNAR_ENOTDB, 0, "", "%s is empty, not a Columnar database", path);
            }
            int rc = cc_replace_empty_file(path, fd, db->io, db->cluster_size, db->encryption_key);
            close(fd);
            if (rc) return rc;
            continue;
        }
        db->fd = fd;
        return 0;
    }
    return cc_error(-EAGAIN, 0, "", "%s kept changing while it was being opened (created and removed by others)", path);
}

char *cc_db_lock_path_beside(const char *resolved) {
    size_t size = strlen(resolved) + 6;
    char *lock_path = malloc(size);
    if (lock_path) snprintf(lock_path, size, "%s.lock", resolved);
    return lock_path;
}

/* "<real path>.lock": every symlink to the file, and the file seen through a bind-mounted directory, share it. */
static int lock_path_of(const char *path, char **out) {
    char *real = realpath(path, NULL);
    if (!real) return cc_error(-errno, 0, "", "cannot resolve the path %s: %s", path, strerror(errno));
    *out = cc_db_lock_path_beside(real);
    free(real);
    return *out ? 0 : -ENOMEM;
}

int columnar_delete_files(const char *path, bool *out_deleted) {
    bool ignored;
    if (!out_deleted) out_deleted = &ignored;
    *out_deleted = false;
    if (!path || !*path) return CC_MISUSE("columnar_delete_files needs a path");
    char *real = realpath(path, NULL);
    if (!real && errno != ENOENT)
        return cc_error(-errno, 0, "", "cannot resolve the path %s: %s", path, strerror(errno));
    /* Without the file, a lock file left under the given name may still be there. */
    const char *data_path = real ? real : path;
    char *lock_path = cc_db_lock_path_beside(data_path);
    if (!lock_path) {
        free(real);
        return -ENOMEM;
    }
    int rc = 0;
    struct stat status;
    if (real || stat(lock_path, &status) == 0) {
        rc = cc_lock_delete_files(data_path, lock_path, out_deleted);
        /* And a compacted copy that a crash left unfinished beside it (copy.c). */
        if (!rc) rc = cc_copy_remove_leftovers(data_path);
    }
    free(lock_path);
    free(real);
    return rc;
}

/* Checks that the file's encryption and the caller's key agree and, for an encrypted file, routes reads through a
 * decrypted image and writes through its sealing layer (mirror.h). Before anything is read past the header. */
static int attach_encryption(columnar_db *db, const char *path, const cf_identity *identity) {
    bool encrypted = cc_identity_encrypted(identity);
    if (!encrypted && !db->encryption_key) return 0;
    if (!encrypted)
        return cc_error(COLUMNAR_EKEY, 0, "", "%s is not encrypted, but an encryption key was given", path);
    if (!db->encryption_key)
        return cc_error(COLUMNAR_EKEY, 0, "", "%s is encrypted: open it with its encryption key", path);
    cc_mirror *mirror = NULL;
    int rc = cc_mirror_create_for(identity, db->encryption_key, db->file_io, path, &mirror);
    if (rc) return rc;
    cc_map_attach_mirror(&db->map, mirror);
    db->io = cc_mirror_io(mirror);
    return 0;
}

/* An encrypted file whose sectors fail authentication below what any slot names was damaged or changed: no crash
 * leaves such a sector (each is written whole or not at all, and both authenticate; space allocated but never
 * written is all zeros and reads as zeros). Refused at open, rather than opened at an older version as recovery
 * would for a torn commit. */
static int refuse_tampered_sectors(columnar_db *db, const char *path, const cc_header *header) {
    uint64_t below = 0;
    for (uint32_t index = 0; index < CF_SLOT_COUNT; index++) {
        const cc_slot_view *view = &header->slots[index];
        if (view->checksum_valid && !view->is_zero && view->slot.used_size > below) below = view->slot.used_size;
    }
    if (below > header->file_size) below = header->file_size;
    int rc = cc_map_ensure(&db->map, db->fd, below);
    if (rc) return rc;
    uint64_t sector = 0;
    if (cc_mirror_damage(db->map.mirror, below, &sector, 1) == 0) return 0;
    return CC_CORRUPT(cc_crypt_sector_logical(sector), "%s: encrypted sector %llu (file offset %llu) fails "
                      "authentication: the file was damaged or changed there", path, (unsigned long long)sector,
                      (unsigned long long)cc_crypt_sector_physical(sector));
}

/* The same promise for the header of an encrypted file: the slot after the newest intact one is where a newer
 * version would be, so when that slot is written but fails its checksum, the newest version may be the one lost.
 * A plain file opens at the newest intact version then; an encrypted one is refused, since no crash damages a
 * slot (one sector, written whole or not at all). A slot being written by another process can be read half
 * written, so the header is read again a few times before the slot is judged. */
static int refuse_damaged_next_slot(columnar_db *db, const char *path, const cc_header *first) {
    cc_header again;
    const cc_header *header = first;
    for (int attempt = 0;; attempt++) {
        uint64_t newest = 0;
        for (uint32_t index = 0; index < CF_SLOT_COUNT; index++)
            if (header->slots[index].usable && header->slots[index].slot.version > newest)
                newest = header->slots[index].slot.version;
        uint32_t next = (uint32_t)((newest + 1) % CF_SLOT_COUNT);
        const cc_slot_view *view = &header->slots[next];
        if (newest == 0 || view->is_zero || view->checksum_valid) return 0;
        if (attempt == 3)
            return CC_CORRUPT(cf_slot_offset(newest + 1), "%s: header slot %u (offset %llu) fails its checksum; it "
                              "may have named a version newer than %llu, the newest intact one: the file was damaged "
                              "or changed there", path, next, (unsigned long long)cf_slot_offset(newest + 1),
                              (unsigned long long)newest);
        struct timespec pause = { 0, 2000000 };
        nanosleep(&pause, NULL);
        int rc = cc_header_read(db->fd, path, &again);
        if (rc) return rc;
        header = &again;
    }
}

static int refuse_tampered(columnar_db *db, const char *path, const cc_header *header) {
    int rc = refuse_tampered_sectors(db, path, header);
    return rc ? rc : refuse_damaged_next_slot(db, path, header);
}

uint64_t cc_db_chain_epoch(columnar_db *db) {
    if (!db->map.mirror || !db->lock) return 0;
    uint64_t epoch = 0, written = 0;
    cc_lock_chain_read(db->lock, &epoch, &written);
    return epoch;
}

int columnar_open(const char *path, const columnar_open_options *options, columnar_db **out_db) {
    static const columnar_open_options defaults = { 0 };
    if (!options) options = &defaults;
    *out_db = NULL;
    uint32_t flags = options->flags;
    if (!path || !*path) return CC_MISUSE("columnar_open needs a path (or an in-memory identifier)");
    if ((flags & COLUMNAR_OPEN_NO_LOCK) && !(flags & COLUMNAR_OPEN_READ_ONLY))
        return CC_MISUSE("COLUMNAR_OPEN_NO_LOCK is only allowed with COLUMNAR_OPEN_READ_ONLY");
    if ((flags & COLUMNAR_OPEN_IN_MEMORY) && (flags & (COLUMNAR_OPEN_READ_ONLY | COLUMNAR_OPEN_NO_LOCK)))
        return CC_MISUSE("an in-memory database cannot be opened read-only");
    if (options->cluster_size > COLUMNAR_MAX_CLUSTER_SIZE)
        return CC_MISUSE("cluster_size %u is above %u", options->cluster_size, COLUMNAR_MAX_CLUSTER_SIZE);
    if (options->durability != COLUMNAR_DURABILITY_FULL && options->durability != COLUMNAR_DURABILITY_UNSAFE)
        return CC_MISUSE("unknown durability %d", (int)options->durability);
    if (options->encryption_key && (flags & COLUMNAR_OPEN_IN_MEMORY))
        return CC_MISUSE("an in-memory database cannot be encrypted (it has no file to protect)");

    columnar_db *db = calloc(1, sizeof *db);
    if (!db) return -ENOMEM;
    db->fd = -1;
    db->flags = flags;
    db->durability = options->durability;
    db->max_active_versions = options->max_active_versions;
    db->cluster_size = options->cluster_size ? options->cluster_size : COLUMNAR_DEFAULT_CLUSTER_SIZE;
    pthread_mutex_init(&db->schema_cache_mutex, NULL);
    int rc = 0;
    char *lock_path = NULL;
    if (!(db->path = strdup(path))) { rc = -ENOMEM; goto fail; }
    const char *env = getenv("COLUMNAR_NO_IO_URING");
    bool want_uring = !(flags & COLUMNAR_OPEN_NO_IO_URING) && !(env && strcmp(env, "1") == 0) &&
                      !(flags & COLUMNAR_OPEN_IN_MEMORY);
    if (options->io) {
        db->io = options->io;
        if (cc_io_is_faultio(options->io)) cc_faultio_attach(cc_faultio_from_io(options->io), want_uring);
    } else {
        cc_real_io_init(&db->real_io, want_uring);
        db->io = &db->real_io.io;
    }
    db->file_io = db->io;
    db->encryption_key = options->encryption_key;
    if ((rc = cc_map_init(&db->map))) goto fail;

    bool read_only = (flags & COLUMNAR_OPEN_READ_ONLY) != 0;
    int stale_attempts = 0;
reopen:
    if (flags & COLUMNAR_OPEN_IN_MEMORY) {
        db->durability = COLUMNAR_DURABILITY_UNSAFE;
        if ((rc = memdb_acquire(db, path))) goto fail;
    } else {
        if ((rc = open_data_file(db, path))) goto fail;
    }
    db->commit_path = (flags & COLUMNAR_OPEN_IN_MEMORY) ? COLUMNAR_COMMIT_PATH_MEMORY
                      : (cc_io_is_faultio(db->file_io) ? cc_faultio_real(cc_faultio_from_io(db->file_io))->uring_active
                                                  : db->real_io.uring_active)
                          ? COLUMNAR_COMMIT_PATH_IO_URING : COLUMNAR_COMMIT_PATH_PWRITE;
    snprintf(db->commit_path_description, sizeof db->commit_path_description, "%s", path_description(db));

    /* The identity first: a file that is not a database of this version is refused before any lock file is
     * made for it. */
    cc_header header;
    if ((rc = cc_header_read(db->fd, path, &header))) goto fail;
    memcpy(db->file_id, header.identity.file_id, CF_FILE_ID_BYTES);
    db->node_bases = cc_identity_node_bases(&header.identity);
    if (!(flags & COLUMNAR_OPEN_IN_MEMORY) && (rc = attach_encryption(db, path, &header.identity))) goto fail;
    if (db->map.mirror && (rc = refuse_tampered(db, path, &header))) goto fail;

    if (!(flags & COLUMNAR_OPEN_IN_MEMORY)) {
        bool fresh = false;
        if (flags & COLUMNAR_OPEN_NO_LOCK) {
            /* No lock file: nobody learns of this reader, so it reads the version recovery picks, unrepaired. */
            if ((rc = cc_recover(db, CC_REPAIR_VERIFY, 0, false, &db->unlocked_state))) goto fail;
        } else {
            if ((rc = lock_path_of(path, &lock_path))) goto fail;
            rc = cc_lock_open(lock_path, db->fd, read_only, &db->lock, &fresh);
            if (rc == -ESTALE) {
                /* The file was deleted (columnar_delete_files) after this open reached it: start over. */
                close(db->fd);
                db->fd = -1;
                free(lock_path);
                lock_path = NULL;
                if (db->map.mirror) {
                    /* The image was of the deleted file. */
                    cc_map_destroy(&db->map);
                    db->io = db->file_io;
                    if ((rc = cc_map_init(&db->map))) goto fail;
                }
                if (++stale_attempts < 8) goto reopen;
                rc = cc_error(-ESTALE, 0, "", "%s was deleted again and again while it was being opened", path);
            }
            if (rc) goto fail;
            if (db->map.mirror) cc_mirror_attach_lock(db->map.mirror, db->lock);
            if (fresh || cc_lock_published_version(db->lock) == 0) {
                /* The first to open the file since every handle closed: choose the version it opens at and, when
                 * this handle may write, make it durable again (a process may have died mid-commit). Others wait
                 * for this in cc_lock_open. */
                cc_version_state state;
                rc = cc_recover(db, CC_REPAIR_VERIFY, 0, fresh && !read_only, &state);
                int done_rc = cc_lock_fresh_done(db->lock);
                if (rc || (rc = done_rc)) goto fail;
            }
        }
    }
    cc_version_state latest;
    if ((rc = cc_db_latest(db, &latest))) goto fail;
    if ((rc = cc_map_refresh(&db->map, db->fd, latest.version, latest.used_size, cc_db_chain_epoch(db)))) goto fail;
    /* Validate the top structures of the latest version now, so a damaged file fails at open. */
    columnar_txn *probe;
    if ((rc = columnar_txn_begin_read(db, &probe))) goto fail;
    columnar_txn_rollback(probe);
    free(lock_path);
    db->encryption_key = NULL;
    *out_db = db;
    return 0;
fail:
    free(lock_path);
    columnar_close(db);
    return rc;
}

void columnar_close(columnar_db *db) {
    if (!db) return;
    cc_map_destroy(&db->map);
    if (db->memdb) memdb_release(db->memdb);
    else if (db->lock) cc_lock_close(db->lock);
    /* After the lock file: closing the data file drops this handle's alias byte and any OFD lock it held. */
    if (db->fd >= 0) close(db->fd);
    if (!db->file_io || db->file_io == &db->real_io.io) cc_real_io_destroy(&db->real_io);
    cc_schema_release(db->schema_cache);
    pthread_mutex_destroy(&db->schema_cache_mutex);
    free(db->path);
    free(db);
}

columnar_commit_path columnar_db_commit_path(const columnar_db *db) { return db->commit_path; }
const char *columnar_db_commit_path_description(const columnar_db *db) { return db->commit_path_description; }

int columnar_db_stats_get(columnar_db *db, columnar_db_stats *out) {
    memset(out, 0, sizeof *out);
    cc_version_state latest;
    int rc = cc_db_latest(db, &latest);
    if (rc) return rc;
    out->version = latest.version;
    out->live_versions = db->lock ? cc_lock_live_versions(db->lock, latest.version) : 1;
    out->oldest_pinned = db->lock ? cc_lock_oldest_pinned(db->lock, latest.version) : latest.version;
    out->durable_version = db->lock ? cc_lock_durable(db->lock) : latest.version;
    struct stat st;
    out->file_size_bytes = fstat(db->fd, &st) == 0 ? (uint64_t)st.st_size : latest.file_size;
    out->used_size_bytes = latest.used_size;
    out->cluster_size = db->cluster_size;
    /* The free byte count is in the header slot; read it from the version's free list via a read txn. */
    columnar_txn *txn;
    if ((rc = columnar_txn_begin_read(db, &txn))) return rc;
    cc_node top, sizes;
    rc = cc_node_read(txn, txn->top_ref, CF_ROLE_TOP, &top);
    if (!rc) rc = cc_node_child(txn, &top, CF_TOP_FREE_SIZE, CF_ROLE_FREE_SIZE, false, &sizes);
    if (!rc && sizes.encoding != COLUMNAR_ENCODING_PACKED_INT)
        rc = CC_CORRUPT(sizes.ref, "free-list sizes at %llu are not packed integers", (unsigned long long)sizes.ref);
    for (uint32_t i = 0; !rc && i < sizes.count; i++) {
        int64_t size = cc_node_int_at(&sizes, i);
        if (size <= 0 || (uint64_t)size > latest.used_size)
            rc = CC_CORRUPT(sizes.ref, "free-list entry %u claims %lld bytes", i, (long long)size);
        else
            out->free_bytes += (uint64_t)size;
    }
    columnar_txn_rollback(txn);
    return rc;
}
