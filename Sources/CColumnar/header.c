/*
 * header.c — building and reading the header of format versions 2 to 5: the identity sector and the fifteen commit
 * slots (format.h, docs/FileFormat.md).
 */
#include "header.h"

#include "checksum.h"
#include "crypt.h"
#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void cc_identity_build(cf_identity *identity, const uint8_t file_id[CF_FILE_ID_BYTES]) {
    memset(identity, 0, sizeof *identity);
    memcpy(identity->magic, CF_MAGIC, CF_MAGIC_BYTES);
    identity->format_version = CF_FORMAT_VERSION;
    identity->header_bytes = CF_HEADER_BYTES;
    identity->sector_bytes = CF_SECTOR_BYTES;
    identity->slot_count = CF_SLOT_COUNT;
    memcpy(identity->file_id, file_id, CF_FILE_ID_BYTES);
    identity->checksum = cc_crc32c(0, identity, offsetof(cf_identity, checksum));
}

void cc_identity_build_encrypted(cf_identity *identity, const uint8_t file_id[CF_FILE_ID_BYTES],
                                 const uint8_t key_check[32]) {
    cc_identity_build(identity, file_id);
    identity->format_version = CF_FORMAT_VERSION_ENCRYPTED;
    identity->encryption = CC_CRYPT_SCHEME_AES256_CTR_HMAC_SHA256;
    identity->sector_payload_bytes = CC_CRYPT_PAYLOAD_BYTES;
    memcpy(identity->key_check, key_check, sizeof identity->key_check);
    identity->checksum = cc_crc32c(0, identity, offsetof(cf_identity, checksum));
}

void cc_slot_build(cf_slot *slot, const uint8_t file_id[CF_FILE_ID_BYTES], uint64_t version, uint64_t top_ref,
                   uint64_t used_size, uint64_t free_bytes, uint64_t base_version, uint32_t flags) {
    memset(slot, 0, sizeof *slot);
    slot->version = version;
    slot->top_ref = top_ref;
    slot->used_size = used_size;
    slot->free_bytes = free_bytes;
    slot->base_version = base_version;
    slot->flags = flags;
    memcpy(slot->file_id, file_id, CF_FILE_ID_BYTES);
    slot->checksum = cc_crc32c(0, slot, offsetof(cf_slot, checksum));
}

int cc_identity_check(const cf_identity *identity, uint64_t present, char *problem, size_t problem_size,
                      uint64_t *out_offset) {
    *out_offset = 0;
    if (present < CF_MAGIC_BYTES + 4 || memcmp(identity->magic, CF_MAGIC, CF_MAGIC_BYTES) != 0) {
        snprintf(problem, problem_size, present < CF_MAGIC_BYTES + 4 ? "too short to be a Columnar database"
                                                                     : "not a Columnar database (bad magic number)");
        return COLUMNAR_ENOTDB;
    }
    uint32_t version = identity->format_version;
    if (version < CF_FORMAT_VERSION_NO_BASES || version > CF_FORMAT_VERSION_ENCRYPTED) {
        *out_offset = offsetof(cf_identity, format_version);
        snprintf(problem, problem_size, "format version %u; this library reads versions %u and %u (plain files) and "
                 "%u and %u (encrypted files) only (files of version 1 are not upgraded: recreate them)", version,
                 CF_FORMAT_VERSION_NO_BASES, CF_FORMAT_VERSION, CF_FORMAT_VERSION_ENCRYPTED_NO_BASES,
                 CF_FORMAT_VERSION_ENCRYPTED);
        return COLUMNAR_EFORMAT;
    }
    if (present < CF_HEADER_BYTES) {
        snprintf(problem, problem_size, "too short (%llu bytes) to hold the %u-byte header",
                 (unsigned long long)present, CF_HEADER_BYTES);
        return COLUMNAR_ENOTDB;
    }
    uint32_t crc = cc_crc32c(0, identity, offsetof(cf_identity, checksum));
    if (crc != identity->checksum) {
        *out_offset = offsetof(cf_identity, checksum);
        snprintf(problem, problem_size, "the identity sector fails its checksum (stored %08x, computed %08x)",
                 identity->checksum, crc);
        return COLUMNAR_ECORRUPT;
    }
    if (identity->header_bytes != CF_HEADER_BYTES || identity->sector_bytes != CF_SECTOR_BYTES ||
        identity->slot_count != CF_SLOT_COUNT) {
        *out_offset = offsetof(cf_identity, header_bytes);
        snprintf(problem, problem_size, "declares a %u-byte header of %u slots of %u bytes (expected %u, %u, %u)",
                 identity->header_bytes, identity->slot_count, identity->sector_bytes, CF_HEADER_BYTES,
                 CF_SLOT_COUNT, CF_SECTOR_BYTES);
        return COLUMNAR_ECORRUPT;
    }
    bool encrypted = cc_identity_encrypted(identity);
    if (encrypted ? identity->encryption != CC_CRYPT_SCHEME_AES256_CTR_HMAC_SHA256 ||
                        identity->sector_payload_bytes != CC_CRYPT_PAYLOAD_BYTES
                  : identity->encryption != 0 || identity->sector_payload_bytes != 0) {
        *out_offset = offsetof(cf_identity, encryption);
        snprintf(problem, problem_size, "format version %u declares encryption scheme %u with %u bytes per sector "
                 "(expected %u, %u)", identity->format_version, identity->encryption,
                 identity->sector_payload_bytes, encrypted ? CC_CRYPT_SCHEME_AES256_CTR_HMAC_SHA256 : 0,
                 encrypted ? CC_CRYPT_PAYLOAD_BYTES : 0);
        return COLUMNAR_ECORRUPT;
    }
    return 0;
}

void cc_slot_decode(const uint8_t *sector, uint32_t index, const cf_identity *identity, uint64_t file_size,
                    cc_slot_view *out) {
    memset(out, 0, sizeof *out);
    memcpy(&out->slot, sector, sizeof out->slot);
    const cf_slot *slot = &out->slot;
    static const uint8_t zero[sizeof(cf_slot)];
    out->is_zero = memcmp(slot, zero, sizeof zero) == 0;
    uint32_t crc = cc_crc32c(0, slot, offsetof(cf_slot, checksum));
    out->checksum_valid = crc == slot->checksum;
    const char *why = NULL;
    char detail[96] = "";
    if (out->is_zero) why = "empty";
    else if (!out->checksum_valid) {
        snprintf(detail, sizeof detail, "fails its checksum (stored %08x, computed %08x)", slot->checksum, crc);
        why = detail;
    } else if (memcmp(slot->file_id, identity->file_id, CF_FILE_ID_BYTES) != 0) why = "belongs to another file";
    else if (slot->version == 0) why = "has version 0";
    else if (slot->version % CF_SLOT_COUNT != index) why = "holds a version that belongs in another sector";
    else if (slot->flags & ~(uint32_t)CF_SLOT_FLAGS_KNOWN) why = "has unknown flags";
    else if (slot->base_version >= slot->version) why = "names a base version that is not older than itself";
    else if (slot->top_ref < CF_HEADER_BYTES || (slot->top_ref & 7)) why = "has a top ref inside the header or unaligned";
    else if (slot->used_size > file_size || slot->used_size & 7) {
        snprintf(detail, sizeof detail, "says %llu bytes are used, but the file has %llu",
                 (unsigned long long)slot->used_size, (unsigned long long)file_size);
        why = detail;
    } else if (slot->top_ref >= slot->used_size) why = "has its top ref past its used size";
    if (why) snprintf(out->problem, sizeof out->problem, "%s", why);
    out->usable = why == NULL;
}

int cc_header_read(int fd, const char *path, cc_header *out) {
    memset(out, 0, sizeof *out);
    struct stat status;
    if (fstat(fd, &status) != 0) return cc_error(-errno, 0, "", "cannot stat %s: %s", path, strerror(errno));
    out->file_size = (uint64_t)status.st_size;
    uint8_t bytes[CF_HEADER_BYTES];
    memset(bytes, 0, sizeof bytes);
    size_t present = 0;
    while (present < sizeof bytes) {
        ssize_t got = pread(fd, bytes + present, sizeof bytes - present, (off_t)present);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return cc_error(-errno, 0, "", "cannot read the header of %s: %s", path, strerror(errno));
        if (got == 0) break;
        present += (size_t)got;
    }
    memcpy(&out->identity, bytes, sizeof out->identity);
    char problem[192];
    uint64_t offset;
    int rc = cc_identity_check(&out->identity, present, problem, sizeof problem, &offset);
    if (rc == COLUMNAR_ECORRUPT) return CC_CORRUPT(offset, "%s %s", path, problem);
    if (rc) return cc_error(rc, offset, "", "%s: %s", path, problem);
    /* Slots and everything after the header speak of logical offsets: an encrypted file's sectors hold fewer. */
    if (cc_identity_encrypted(&out->identity)) out->file_size = cc_crypt_logical_size(out->file_size);
    for (uint32_t index = 0; index < CF_SLOT_COUNT; index++)
        cc_slot_decode(bytes + (size_t)CF_SECTOR_BYTES * (1 + index), index, &out->identity, out->file_size,
                       &out->slots[index]);
    return 0;
}
