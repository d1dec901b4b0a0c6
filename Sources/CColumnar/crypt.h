/*
 * crypt.h — sealing and opening the encrypted sectors of an encrypted file (docs/Encryption.md).
 *
 * An encrypted file keeps the 8192-byte header in the clear (it holds versions, refs and checksums, no user data)
 * and stores everything after it in 512-byte sectors, each carrying 480 bytes of the file's logical content:
 *
 *   OFFSET SIZE DESCRIPTION
 *        0   16 IV: random bytes drawn anew every time the sector is written
 *       16   16 tag: the first 16 bytes of HMAC-SHA256(mac key, sector index (u64 LE) || IV || ciphertext)
 *       32  480 ciphertext: AES-256-CTR(cipher key, IV) of the 480 plaintext bytes
 *
 * A sector is the unit a disk writes whole, so a power cut leaves each sector wholly old or wholly new, and both
 * authenticate: the commit protocol above sees the same torn-write behaviour as with a plain file. The 64-byte key
 * is RealmSwift's: bytes 0 .. 31 are the cipher key, bytes 32 .. 63 the MAC key.
 *
 * Logical offset L >= 8192 lives in sector (L - 8192) / 480, at byte 32 + (L - 8192) % 480 of it; the sector
 * starts at physical offset 8192 + 512 x index. Below 8192 logical and physical offsets are the same.
 */
#ifndef COLUMNAR_CRYPT_H
#define COLUMNAR_CRYPT_H

#include "format.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CC_CRYPT_KEY_BYTES 64u
#define CC_CRYPT_SECTOR_BYTES 512u
#define CC_CRYPT_IV_BYTES 16u
#define CC_CRYPT_TAG_BYTES 16u
#define CC_CRYPT_PAYLOAD_BYTES (CC_CRYPT_SECTOR_BYTES - CC_CRYPT_IV_BYTES - CC_CRYPT_TAG_BYTES)   /* 480 */
#define CC_CRYPT_KEY_CHECK_BYTES 32u

/* The identity's encryption scheme (cf_identity reserved bytes, see format.h). */
enum { CC_CRYPT_SCHEME_AES256_CTR_HMAC_SHA256 = 1 };

typedef struct cc_crypt cc_crypt;

/* Prepares the ciphers for one key. Returns 0, -ENOMEM, or COLUMNAR_ESTORAGE when libcrypto refuses. */
int cc_crypt_create(const uint8_t key[CC_CRYPT_KEY_BYTES], cc_crypt **out);
void cc_crypt_destroy(cc_crypt *crypt);

/* Fills `count` IVs (16 bytes each) with random bytes: one call for a whole batch of sectors, as drawing them one
 * by one costs about as much as sealing. */
int cc_crypt_random_ivs(uint8_t *out, size_t count);
/* Encrypts 480 plaintext bytes into one 512-byte sector for sector `index`, under `iv` (from cc_crypt_random_ivs,
 * never used before). Not thread-safe: one caller per cc_crypt at a time. */
int cc_crypt_seal(cc_crypt *crypt, uint64_t index, const uint8_t *plain, const uint8_t iv[CC_CRYPT_IV_BYTES],
                  uint8_t *sector);
/* Authenticates and decrypts a sector. Returns true and fills 480 bytes of `plain`, or false (the sector was
 * damaged, written with another key, or moved from another index), leaving `plain` untouched. */
bool cc_crypt_open(cc_crypt *crypt, uint64_t index, const uint8_t *sector, uint8_t *plain);

/* What a key proves about itself to a file: HMAC-SHA256(mac key, "Columnar key check" || file id). Stored in the
 * identity, so that opening with another key is refused before any sector is read. */
int cc_crypt_key_check(cc_crypt *crypt, const uint8_t file_id[CF_FILE_ID_BYTES],
                       uint8_t out[CC_CRYPT_KEY_CHECK_BYTES]);

/* Layout arithmetic. */
static inline uint64_t cc_crypt_sector_of(uint64_t logical) {
    return (logical - CF_HEADER_BYTES) / CC_CRYPT_PAYLOAD_BYTES;
}
static inline uint64_t cc_crypt_sector_logical(uint64_t index) {
    return CF_HEADER_BYTES + index * CC_CRYPT_PAYLOAD_BYTES;
}
static inline uint64_t cc_crypt_sector_physical(uint64_t index) {
    return CF_HEADER_BYTES + index * CC_CRYPT_SECTOR_BYTES;
}
/* The physical size that holds `logical` bytes of content (whole sectors). */
static inline uint64_t cc_crypt_physical_size(uint64_t logical) {
    if (logical <= CF_HEADER_BYTES) return logical;
    uint64_t sectors = (logical - CF_HEADER_BYTES + CC_CRYPT_PAYLOAD_BYTES - 1) / CC_CRYPT_PAYLOAD_BYTES;
    return cc_crypt_sector_physical(sectors);
}
/* The logical bytes that a physical file of `physical` bytes holds (whole sectors only). */
static inline uint64_t cc_crypt_logical_size(uint64_t physical) {
    if (physical <= CF_HEADER_BYTES) return physical;
    return cc_crypt_sector_logical((physical - CF_HEADER_BYTES) / CC_CRYPT_SECTOR_BYTES);
}

#endif /* COLUMNAR_CRYPT_H */
