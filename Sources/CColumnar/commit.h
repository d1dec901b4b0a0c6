/*
 * commit.h — a write transaction's commit: the image of the new version it writes, and the steps that write it
 * under the writer lock (commit.c). Making it durable comes after: durability.h.
 */
#ifndef COLUMNAR_COMMIT_H
#define COLUMNAR_COMMIT_H

#include "node.h"

/* What a commit writes: its nodes as a batch and its slot's fields. */
typedef struct cc_image {
    uint64_t version;
    uint64_t top_ref;
    uint64_t used_size;
    uint64_t free_bytes;
    uint64_t base_version;
    uint32_t slot_flags;          /* CF_SLOT_NODES_SYNCED for a commit whose nodes are synced before its slot */
    columnar_io_write *batch;     /* points into `emitter`'s buffer */
    size_t batch_count;
    cc_emitter emitter;            /* owns the buffer the batch points into */
} cc_image;

/* A version written and named in the lock file, not yet durable. */
typedef struct cc_written {
    uint64_t version;
    uint64_t epoch;
} cc_written;

/* Encodes the transaction's changes as version base + 1 whose record reaches back to `base_version` (with
 * `allow_one_sync`; otherwise, and for commits too large to verify at recovery, the record is empty and the
 * slot flag CF_SLOT_NODES_SYNCED is set). Frees the base version's replaced nodes. */
int cc_commit_encode(columnar_txn *txn, uint64_t base_version, bool allow_one_sync, cc_image *out);
void cc_image_free(cc_image *image);
/* Grows the file `fd` (preallocating, zero-filling the slack) so the image fits; the file's size goes to
 * *out_file_size. */
int cc_image_make_room(columnar_db *db, int fd, const cc_image *image, uint64_t *out_file_size);
/* The commit, holding the writer lock: encodes, writes the nodes and the slot, names the version in the lock
 * file (docs/CommitPath.md). Durability comes after the writer lock is released (durability.h). */
int cc_commit(columnar_txn *txn, cc_written *out);

/* Writes a new database's identity and version 1 into the empty file `fd`, grows it to its first megabyte and
 * syncs it; the file id chosen goes to `file_id`. With `key` (COLUMNAR_ENCRYPTION_KEY_BYTES, else NULL) the file
 * is an encrypted one. */
int cc_write_first_version(const columnar_io *io, int fd, const char *path, uint32_t cluster_size,
                           const uint8_t *key, uint8_t file_id[CF_FILE_ID_BYTES]);
/* Creates the database file `path` atomically (create.c). Returns 0, -EEXIST when another process created it
 * first (open that one), or the error. */
int cc_create_file(const char *path, const columnar_io *io, uint32_t cluster_size, const uint8_t *key);
/* Replaces the empty file open as `empty_fd` at `path` with a new database, unless another opener did so first.
 * Either way the caller then opens `path` again. */
int cc_replace_empty_file(const char *path, int empty_fd, const columnar_io *io, uint32_t cluster_size,
                          const uint8_t *key);

#endif /* COLUMNAR_COMMIT_H */
