/*
 * header.h — the file header of format versions 2 to 5 (format.h): building the identity sector and the commit slots,
 * and reading them back with every check recovery and inspection need.
 *
 * Reading is split in two: cc_header_read checks the identity (is this a Columnar file of this version?) and
 * decodes each slot with the reason it is or is not usable; which usable slot wins is recovery's choice
 * (recovery.h), because it depends on whether the version's commit record verifies.
 */
#ifndef COLUMNAR_HEADER_H
#define COLUMNAR_HEADER_H

#include "format.h"

#include <stdbool.h>
#include <stdint.h>

/* One slot as read, whether or not it is usable. */
typedef struct cc_slot_view {
    cf_slot slot;
    bool is_zero;          /* every byte is zero: never written, or invalidated */
    bool checksum_valid;
    bool usable;           /* checksum, file id, sector, version, refs and sizes all fit */
    char problem[128];     /* why not usable ("" when usable) */
} cc_slot_view;

/* The header as read. */
typedef struct cc_header {
    cf_identity identity;
    uint64_t file_size;
    cc_slot_view slots[CF_SLOT_COUNT];   /* slots[i] is the slot of sector 1 + i */
} cc_header;

/* Fills a new file's identity sector. */
void cc_identity_build(cf_identity *identity, const uint8_t file_id[CF_FILE_ID_BYTES]);
/* The identity of an encrypted file (format version 5), carrying the key check of its key. */
void cc_identity_build_encrypted(cf_identity *identity, const uint8_t file_id[CF_FILE_ID_BYTES],
                                 const uint8_t key_check[32]);
/* Whether the identity is that of an encrypted file. */
static inline bool cc_identity_encrypted(const cf_identity *identity) {
    return identity->format_version == CF_FORMAT_VERSION_ENCRYPTED ||
           identity->format_version == CF_FORMAT_VERSION_ENCRYPTED_NO_BASES;
}
/* Whether the file's packed-int nodes may carry a base (format.h NODE): versions 4 and 5. */
static inline bool cc_format_has_node_bases(uint32_t format_version) {
    return format_version == CF_FORMAT_VERSION || format_version == CF_FORMAT_VERSION_ENCRYPTED;
}
static inline bool cc_identity_node_bases(const cf_identity *identity) {
    return cc_format_has_node_bases(identity->format_version);
}
/* Fills (and checksums) the slot of `version`. */
void cc_slot_build(cf_slot *slot, const uint8_t file_id[CF_FILE_ID_BYTES], uint64_t version, uint64_t top_ref,
                   uint64_t used_size, uint64_t free_bytes, uint64_t base_version, uint32_t flags);

/* Checks a raw identity sector of a file of `file_size` bytes (of which `present` header bytes could be read):
 * 0, or COLUMNAR_ENOTDB (too short, wrong magic), COLUMNAR_EFORMAT (another format version: the message names
 * both), COLUMNAR_ECORRUPT (checksum, header size, sector size or slot count), with the reason in `problem` and
 * the offset of the bad field in *out_offset. Records nothing in columnar_last_error. */
int cc_identity_check(const cf_identity *identity, uint64_t present, char *problem, size_t problem_size,
                      uint64_t *out_offset);
/* Decodes the slot of sector 1 + index against the identity and the file size. */
void cc_slot_decode(const uint8_t *sector, uint32_t index, const cf_identity *identity, uint64_t file_size,
                    cc_slot_view *out);

/* Reads the header of the open file `fd` (named `path` in messages) and decodes every slot. Returns 0,
 * -errno, or the identity's error (recorded with its message). */
int cc_header_read(int fd, const char *path, cc_header *out);

#endif /* COLUMNAR_HEADER_H */
