/*
 * create.c — creating a database file so that a crash at any moment leaves either no file or a whole one
 * (docs/CommitPath.md, "Creating a file").
 *
 * The first version is built aside, in an unnamed file in the same directory (O_TMPFILE; a randomly named one
 * where the file system lacks it), grown and zero-filled to its first megabyte, and made durable; only then is
 * it linked under its name, with link() rather than rename() so that two processes creating the same database
 * at once cannot replace each other's file (the loser opens the winner's), and the directory is synced. An
 * existing empty file (created by hand, say) is replaced by rename(), under an OFD lock on the empty file so
 * that concurrent openers wait, then reopen the new file.
 */
#include "commit.h"
#include "mirror.h"

#include "header.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* 16 random bytes (getrandom, falling back to time and address bits where it is unavailable: a file id only has
 * to differ between files, not be secret). */
static void random_bytes(uint8_t *out, size_t size) {
    size_t got = 0;
    while (got < size) {
        ssize_t n = getrandom(out + got, size - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    for (; got < size; got++) out[got] = (uint8_t)((uintptr_t)out * 2654435761u >> (got % 24)) ^ (uint8_t)got;
}

int cc_write_first_version(const columnar_io *io, int fd, const char *path, uint32_t cluster_size,
                           const uint8_t *key, uint8_t file_id[CF_FILE_ID_BYTES]) {
    random_bytes(file_id, CF_FILE_ID_BYTES);
    /* An encrypted file is written through a mirror of its own (mirror.h), which seals every sector. */
    cc_mirror *mirror = NULL;
    uint8_t key_check[CC_CRYPT_KEY_CHECK_BYTES];
    if (key) {
        int rc = cc_mirror_create(key, io, &mirror);
        if (!rc) rc = cc_crypt_key_check(cc_mirror_crypt(mirror), file_id, key_check);
        if (rc) {
            cc_mirror_destroy(mirror);
            return rc;
        }
        io = cc_mirror_io(mirror);
    }
    /* Version 1 goes through the ordinary encoder, on a database handle that exists only to carry the settings
     * it reads. Its nodes are synced before anything names the file, so its record is empty. */
    columnar_db scratch;
    memset(&scratch, 0, sizeof scratch);
    scratch.path = (char *)path;
    scratch.fd = fd;
    scratch.io = io;
    scratch.cluster_size = cluster_size;
    scratch.node_bases = true;   /* a new file is of the current format version */
    scratch.map.reserved_bytes = COLUMNAR_MAX_MAP_BYTES;
    if (mirror) cc_map_attach_mirror(&scratch.map, mirror);   /* freed below, not by the scratch map */
    columnar_txn *txn = calloc(1, sizeof *txn);
    if (!txn) {
        cc_mirror_destroy(mirror);
        return -ENOMEM;
    }
    txn->db = &scratch;
    txn->is_write = true;
    txn->used_size = CF_HEADER_BYTES;
    txn->schema = cc_schema_empty();
    txn->schema_dirty = true;
    cc_image image;
    memset(&image, 0, sizeof image);
    int rc = txn->schema ? cc_commit_encode(txn, 0, false, &image) : -ENOMEM;
    uint64_t file_size = 0;
    /* Growing an empty file takes it to its first megabyte, zero-filled past the version's nodes. */
    if (!rc) rc = cc_image_make_room(&scratch, fd, &image, &file_size);
    if (!rc) {
        cf_identity identity;
        cf_slot slot;
        if (mirror) cc_identity_build_encrypted(&identity, file_id, key_check);
        else cc_identity_build(&identity, file_id);
        cc_slot_build(&slot, file_id, image.version, image.top_ref, image.used_size, image.free_bytes, 0,
                      CF_SLOT_NODES_SYNCED);
        columnar_io_write header[2] = { { 0, &identity, sizeof identity },
                                        { cf_slot_offset(image.version), &slot, sizeof slot } };
        rc = io->write_batch(io->context, fd, header, 2);
        if (!rc && image.batch_count) rc = io->write_batch(io->context, fd, image.batch, image.batch_count);
        if (rc) rc = cc_error(rc, 0, "", "cannot write the first version of %s: %s", path, columnar_strerror(rc));
    }
    if (!rc) {
        cc_io_step(io, COLUMNAR_STEP_CREATE_WRITTEN);
        if ((rc = io->sync(io->context, fd)))
            rc = cc_error(rc, 0, "", "cannot make the new file %s durable: %s", path, columnar_strerror(rc));
    }
    cc_image_free(&image);
    cc_schema_release(txn->schema);
    cc_rangevec_free(&txn->to_free);
    cc_rangevec_free(&txn->free_list);
    free(txn);
    cc_mirror_destroy(mirror);
    return rc;
}

/* Syncs the directory holding `path`, so that a name just linked or renamed there survives a crash. */
static int sync_directory(const char *path) {
    char *copy = strdup(path);
    if (!copy) return -ENOMEM;
    int dir_fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = 0;
    if (dir_fd < 0) rc = cc_error(-errno, 0, "", "cannot open the directory of %s: %s", path, strerror(errno));
    else {
        while (fsync(dir_fd) != 0) {
            if (errno == EINTR) continue;
            /* Some file systems cannot sync a directory (EINVAL): there is nothing more to do for them. */
            if (errno != EINVAL) rc = cc_error(-errno, 0, "", "cannot sync the directory of %s: %s", path, strerror(errno));
            break;
        }
        close(dir_fd);
    }
    free(copy);
    return rc;
}

/* A new, randomly named file beside `path` ("<path>.creating-<hex>"), opened read-write. */
static int open_named_temporary(const char *path, char **out_name) {
    for (int attempt = 0; attempt < 16; attempt++) {
        uint8_t bits[8];
        random_bytes(bits, sizeof bits);
        size_t size = strlen(path) + 32;
        char *name = malloc(size);
        if (!name) return -ENOMEM;
        snprintf(name, size, "%s.creating-%02x%02x%02x%02x%02x%02x", path, bits[0], bits[1], bits[2], bits[3],
                 bits[4], bits[5]);
        int fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0) {
            *out_name = name;
            return fd;
        }
        int error = errno;
        free(name);
        if (error != EEXIST) return cc_error(-error, 0, "", "cannot create a file beside %s: %s", path, strerror(error));
    }
    return cc_error(-EEXIST, 0, "", "cannot find a free temporary name beside %s", path);
}

int cc_create_file(const char *path, const columnar_io *io, uint32_t cluster_size, const uint8_t *key) {
    char *copy = strdup(path);
    if (!copy) return -ENOMEM;
    int fd = open(dirname(copy), O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
    free(copy);
    char *temporary = NULL;
    if (fd < 0 && (fd = open_named_temporary(path, &temporary)) < 0) return fd;
    uint8_t file_id[CF_FILE_ID_BYTES];
    int rc = cc_write_first_version(io, fd, path, cluster_size, key, file_id);
    if (rc) goto done;
    cc_io_step(io, COLUMNAR_STEP_CREATE_SYNCED);
    if (!temporary) {
        char proc_path[64];
        snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", fd);
        if (linkat(AT_FDCWD, proc_path, AT_FDCWD, path, AT_SYMLINK_FOLLOW) != 0) {
            rc = -errno;
            if (rc != -EEXIST) {
                /* No /proc to name the unnamed file by: build it again under a name instead. */
                close(fd);
                fd = -1;
                if ((fd = open_named_temporary(path, &temporary)) < 0) {
                    rc = fd;
                    goto done;
                }
                if ((rc = cc_write_first_version(io, fd, path, cluster_size, key, file_id))) goto done;
                cc_io_step(io, COLUMNAR_STEP_CREATE_SYNCED);
            }
        }
    }
    if (temporary) {
        rc = link(temporary, path) == 0 ? 0 : -errno;
        unlink(temporary);
    }
    if (rc == -EEXIST) goto done;   /* another process created it first: the caller opens theirs */
    if (rc) {
        rc = cc_error(rc, 0, "", "cannot link the new database file into place as %s: %s", path, strerror(-rc));
        goto done;
    }
    cc_io_step(io, COLUMNAR_STEP_CREATE_LINKED);
    rc = sync_directory(path);
done:
    if (fd >= 0) close(fd);
    free(temporary);
    return rc;
}

int cc_replace_empty_file(const char *path, int empty_fd, const columnar_io *io, uint32_t cluster_size,
                          const uint8_t *key) {
    /* Openers of the empty file queue on this lock; each finds the name pointing elsewhere once it is its turn. */
    int rc = cc_lock_data_create(empty_fd, true);
    if (rc) return rc;
    struct stat by_name, by_fd;
    char *temporary = NULL;
    int fd = -1;
    if (stat(path, &by_name) != 0 || fstat(empty_fd, &by_fd) != 0 || by_name.st_ino != by_fd.st_ino ||
        by_name.st_dev != by_fd.st_dev || by_fd.st_size != 0)
        goto done;   /* replaced already (or gone): the caller opens the name again */
    if ((fd = open_named_temporary(path, &temporary)) < 0) {
        rc = fd;
        goto done;
    }
    uint8_t file_id[CF_FILE_ID_BYTES];
    if ((rc = cc_write_first_version(io, fd, path, cluster_size, key, file_id))) goto done;
    cc_io_step(io, COLUMNAR_STEP_CREATE_SYNCED);
    if (rename(temporary, path) != 0) {
        rc = cc_error(-errno, 0, "", "cannot move the new database file into place as %s: %s", path, strerror(errno));
        goto done;
    }
    free(temporary);
    temporary = NULL;
    cc_io_step(io, COLUMNAR_STEP_CREATE_LINKED);
    rc = sync_directory(path);
done:
    if (temporary) {
        unlink(temporary);
        free(temporary);
    }
    if (fd >= 0) close(fd);
    cc_lock_data_create(empty_fd, false);
    return rc;
}
