/*
 * mirror.h — the decrypted image of an encrypted file and the I/O layer that encrypts its writes (mirror.c,
 * docs/Encryption.md). A plain file has no mirror: its readers use the shared mapping (map.c).
 */
#ifndef COLUMNAR_MIRROR_H
#define COLUMNAR_MIRROR_H

#include "crypt.h"
#include "internal.h"

typedef struct cc_mirror cc_mirror;

/* A mirror for one key, writing through `inner`. Returns 0, -ENOMEM, -errno of mmap, COLUMNAR_ESTORAGE. */
int cc_mirror_create(const uint8_t key[CC_CRYPT_KEY_BYTES], const columnar_io *inner, cc_mirror **out);
void cc_mirror_destroy(cc_mirror *m);
/* A mirror for the encrypted file `path` whose identity is `identity`, once `key` proves to be its key (the
 * identity's key check): COLUMNAR_EKEY, naming `path`, when it is another key. */
int cc_mirror_create_for(const cf_identity *identity, const uint8_t key[CC_CRYPT_KEY_BYTES], const columnar_io *inner,
                         const char *path, cc_mirror **out);

/* The I/O layer the commit path writes through: logical ranges in, sealed sectors out (to `inner`). */
const columnar_io *cc_mirror_io(cc_mirror *m);
/* The start of the decrypted image: logical offset 0. */
uint8_t *cc_mirror_base(cc_mirror *m);
uint64_t cc_mirror_reserved_bytes(const cc_mirror *m);
cc_crypt *cc_mirror_crypt(cc_mirror *m);
/* The flag that the mirror sets once a damaged sector lies below the used size (node reads then verify). */
void cc_mirror_watch_damage(cc_mirror *m, _Atomic bool *suspect);
/* The lock file whose change ring this handle's commits append to and its refreshes read (lock.h). */
void cc_mirror_attach_lock(cc_mirror *m, cc_lock *lock);
/* The version this handle's commit in progress will make, which its writes' change entries carry. */
void cc_mirror_note_writing(cc_mirror *m, uint64_t version);

/* Makes the first `logical` bytes readable (decrypting sectors not read yet). COLUMNAR_ECORRUPT when the file is
 * shorter. */
int cc_mirror_ensure(cc_mirror *m, int fd, uint64_t logical);
/* Brings the image up to `version` of chain epoch `epoch` (whose used size is `used_size`): when another handle
 * committed since the image was last brought up to date (a newer version, or another epoch: a failed sync dropped
 * versions whose numbers are made again), every sector written since is decrypted again. */
int cc_mirror_refresh(cc_mirror *m, int fd, uint64_t version, uint64_t used_size, uint64_t epoch);
/* This handle committed `version` in chain epoch `epoch` through the mirror's I/O layer: the image holds it. */
void cc_mirror_note_version(cc_mirror *m, uint64_t version, uint64_t epoch);
/* The sectors that failed authentication and start below `below`: their count, and the first `capacity` indexes.
 * (A sector of 512 zero bytes is not among them: it was allocated and never written, and reads as zeros.) Such a
 * sector is damage or tampering, which no crash can cause: a sector is written whole or not at all, and both
 * authenticate. */
size_t cc_mirror_damage(cc_mirror *m, uint64_t below, uint64_t *out_sectors, size_t capacity);

#endif /* COLUMNAR_MIRROR_H */
