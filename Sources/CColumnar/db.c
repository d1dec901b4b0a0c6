/*
 * db.c — opening and closing a database: the data file (or an in-memory file shared by identifier), its lock
 * file, the mapping, the I/O layer, and reading the header to find the latest committed version.
 */
#include "node.h"

#include "checksum.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

static int memdb_acquire(const char *identifier, cc_memdb **out, bool *out_new) {
    pthread_mutex_lock(&memdb_mutex);
    int rc = 0;
    cc_memdb *m = memdb_list;
    while (m && strcmp(m->identifier, identifier) != 0) m = m->next;
    *out_new = m == NULL;
    if (!m) {
        m = calloc(1, sizeof *m);
        if (!m || !(m->identifier = strdup(identifier))) { free(m); rc = -ENOMEM; goto done; }
        m->fd = memfd_create("columnar-in-memory", MFD_CLOEXEC);
        if (m->fd < 0) {
            rc = cc_error(-errno, 0, "", "cannot create the in-memory database %s: %s", identifier, strerror(errno));
            free(m->identifier);
            free(m);
            goto done;
        }
        bool fresh;
        if ((rc = cc_lock_open(NULL, &m->lock, &fresh))) {
            close(m->fd);
            free(m->identifier);
            free(m);
            goto done;
        }
        m->next = memdb_list;
        memdb_list = m;
    }
    m->users++;
    *out = m;
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

/* Reads and validates the file header; picks the slot of the latest valid version. */
static int read_header(columnar_db *db, cc_published *out) {
    cf_header header;
    ssize_t got = pread(db->fd, &header, sizeof header, 0);
    if (got < 0) return cc_error(-errno, 0, "", "cannot read the header of %s: %s", db->path, strerror(errno));
    if ((size_t)got < sizeof header)
        return cc_error(COLUMNAR_ENOTDB, 0, "", "%s is too short (%zd bytes) to be a Columnar database", db->path, got);
    if (memcmp(header.magic, CF_MAGIC, CF_MAGIC_BYTES) != 0)
        return cc_error(COLUMNAR_ENOTDB, 0, "", "%s is not a Columnar database (bad magic number)", db->path);
    if (header.format_version != CF_FORMAT_VERSION)
        return cc_error(COLUMNAR_EFORMAT, 8, "", "%s has format version %u; this library reads version %u", db->path,
                        header.format_version, CF_FORMAT_VERSION);
    if (header.header_bytes != CF_HEADER_BYTES)
        return CC_CORRUPT(12, "%s declares a %u-byte header", db->path, header.header_bytes);
    struct stat st;
    if (fstat(db->fd, &st) != 0) return cc_error(-errno, 0, "", "cannot stat %s: %s", db->path, strerror(errno));
    bool valid[2];
    for (int i = 0; i < 2; i++) {
        const cf_slot *slot = &header.slots[i];
        valid[i] = cc_crc32c(0, slot, offsetof(cf_slot, checksum)) == slot->checksum && slot->version != 0 &&
                   slot->top_ref >= CF_HEADER_BYTES && slot->used_size <= (uint64_t)st.st_size &&
                   slot->top_ref < slot->used_size;
    }
    int chosen;
    if (header.selector <= 1 && valid[header.selector]) chosen = header.selector;
    else if (valid[0] && valid[1]) chosen = header.slots[0].version > header.slots[1].version ? 0 : 1;
    else if (valid[0] || valid[1]) chosen = valid[0] ? 0 : 1;
    else
        return CC_CORRUPT(32, "%s has no valid header slot (both checksums or bounds fail; file size %lld)", db->path,
                          (long long)st.st_size);
    out->version = header.slots[chosen].version;
    out->top_ref = header.slots[chosen].top_ref;
    out->used_size = header.slots[chosen].used_size;
    out->file_size = (uint64_t)st.st_size;
    return 0;
}

int cc_db_latest(columnar_db *db, cc_published *out) {
    if (db->lock && cc_lock_read_published(db->lock, out)) return 0;
    if (!db->lock) return read_header(db, out);
    /* Nothing published yet (or a writer died while publishing): the header is the truth; publish it. */
    int rc = cc_lock_writer_acquire(db->lock);
    if (rc) return rc;
    rc = read_header(db, out);
    if (!rc) cc_lock_publish(db->lock, out);
    cc_lock_writer_release(db->lock);
    return rc;
}

int cc_db_read_header(columnar_db *db, cc_published *out) { return read_header(db, out); }

static const char *path_description(columnar_db *db) {
    if (db->flags & COLUMNAR_OPEN_IN_MEMORY) return "memory";
    const cc_real_io *real = cc_io_is_faultio(db->io) ? cc_faultio_real(cc_faultio_from_io(db->io)) : &db->real_io;
    return real->description;
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
    if ((rc = cc_map_init(&db->map))) goto fail;

    bool fresh_lock = false;
    if (flags & COLUMNAR_OPEN_IN_MEMORY) {
        bool created;
        if ((rc = memdb_acquire(path, &db->memdb, &created))) goto fail;
        db->lock = db->memdb->lock;
        db->fd = dup(db->memdb->fd);
        if (db->fd < 0) { rc = cc_error(-errno, 0, "", "cannot share the in-memory database: %s", strerror(errno)); goto fail; }
        db->durability = COLUMNAR_DURABILITY_UNSAFE;
        fresh_lock = created;
    } else {
        if (!(flags & COLUMNAR_OPEN_NO_LOCK)) {
            size_t n = strlen(path) + 6;
            if (!(lock_path = malloc(n))) { rc = -ENOMEM; goto fail; }
            snprintf(lock_path, n, "%s.lock", path);
            if ((rc = cc_lock_open(lock_path, &db->lock, &fresh_lock))) goto fail;
        }
        int open_flags = O_CLOEXEC | ((flags & COLUMNAR_OPEN_READ_ONLY) ? O_RDONLY : O_RDWR);
        if ((flags & COLUMNAR_OPEN_CREATE) && !(flags & COLUMNAR_OPEN_READ_ONLY)) open_flags |= O_CREAT;
        db->fd = open(path, open_flags, 0644);
        if (db->fd < 0) {
            rc = cc_error(-errno, 0, "", "cannot open %s: %s", path, strerror(errno));
            goto fail;
        }
    }
    db->commit_path = (flags & COLUMNAR_OPEN_IN_MEMORY) ? COLUMNAR_COMMIT_PATH_MEMORY
                      : (cc_io_is_faultio(db->io) ? cc_faultio_real(cc_faultio_from_io(db->io))->uring_active
                                                  : db->real_io.uring_active)
                          ? COLUMNAR_COMMIT_PATH_IO_URING : COLUMNAR_COMMIT_PATH_PWRITE;
    snprintf(db->commit_path_description, sizeof db->commit_path_description, "%s", path_description(db));

    struct stat st;
    if (fstat(db->fd, &st) != 0) { rc = cc_error(-errno, 0, "", "cannot stat %s: %s", path, strerror(errno)); goto fail; }
    if (st.st_size == 0) {
        if (flags & COLUMNAR_OPEN_READ_ONLY) {
            rc = cc_error(COLUMNAR_ENOTDB, 0, "", "%s is empty, not a Columnar database", path);
            goto fail;
        }
        /* A new file: write version 1 under the writer lock (another process may be creating it too). */
        if ((rc = cc_lock_writer_acquire(db->lock))) goto fail;
        if (fstat(db->fd, &st) == 0 && st.st_size == 0) rc = cc_create_initial_version(db);
        cc_lock_writer_release(db->lock);
        if (rc) goto fail;
    }
    cc_published latest;
    if (fresh_lock && db->lock) {
        if ((rc = cc_lock_writer_acquire(db->lock))) goto fail;
        rc = read_header(db, &latest);
        if (!rc) cc_lock_publish(db->lock, &latest);
        cc_lock_writer_release(db->lock);
    } else {
        rc = cc_db_latest(db, &latest);
    }
    if (rc) goto fail;
    if ((rc = cc_map_ensure(&db->map, db->fd, latest.used_size))) goto fail;
    /* Validate the top structures of the latest version now, so a damaged file fails at open. */
    columnar_txn *probe;
    if ((rc = columnar_txn_begin_read(db, &probe))) goto fail;
    columnar_txn_rollback(probe);
    free(lock_path);
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
    if (db->fd >= 0) close(db->fd);
    if (db->memdb) memdb_release(db->memdb);
    else if (db->lock) cc_lock_close(db->lock);
    if (!db->io || db->io == &db->real_io.io) cc_real_io_destroy(&db->real_io);
    cc_schema_release(db->schema_cache);
    pthread_mutex_destroy(&db->schema_cache_mutex);
    free(db->path);
    free(db);
}

columnar_commit_path columnar_db_commit_path(const columnar_db *db) { return db->commit_path; }
const char *columnar_db_commit_path_description(const columnar_db *db) { return db->commit_path_description; }

int columnar_db_stats_get(columnar_db *db, columnar_db_stats *out) {
    memset(out, 0, sizeof *out);
    cc_published latest;
    int rc = cc_db_latest(db, &latest);
    if (rc) return rc;
    out->version = latest.version;
    out->live_versions = db->lock ? cc_lock_live_versions(db->lock, latest.version) : 1;
    out->oldest_pinned = db->lock ? cc_lock_oldest_pinned(db->lock, latest.version) : latest.version;
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
    if (!rc)
        for (uint32_t i = 0; i < sizes.count; i++) out->free_bytes += (uint64_t)cc_node_int_at(&sizes, i);
    columnar_txn_rollback(txn);
    return rc;
}
