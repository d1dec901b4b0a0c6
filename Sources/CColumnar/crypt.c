/*
 * crypt.c — the sector cipher of encrypted files: AES-256-CTR with a random IV per write, authenticated by
 * HMAC-SHA256 (encrypt-then-MAC), both from the system's libcrypto. Layout and key split: crypt.h.
 *
 * CTR with a random 128-bit IV never reuses a keystream block in practice (the chance that two of 2^40 sector
 * writes overlap is below 2^-60). The MAC covers the sector's index, so a sector copied to another place fails.
 */
#include "crypt.h"

#include "error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

struct cc_crypt {
    EVP_CIPHER_CTX *cipher;   /* AES-256-CTR, keyed once; each sector sets its IV */
    EVP_MAC *mac_algorithm;
    EVP_MAC_CTX *mac;         /* HMAC-SHA256, keyed once; re-initialised with no key per sector (keeps the pads) */
};

static int crypt_failure(const char *what) {
    return cc_error(COLUMNAR_ESTORAGE, 0, "", "libcrypto refused to %s", what);
}

int cc_crypt_create(const uint8_t key[CC_CRYPT_KEY_BYTES], cc_crypt **out) {
    *out = NULL;
    cc_crypt *crypt = calloc(1, sizeof *crypt);
    if (!crypt) return -ENOMEM;
    int rc = 0;
    if (!(crypt->cipher = EVP_CIPHER_CTX_new()) ||
        EVP_EncryptInit_ex(crypt->cipher, EVP_aes_256_ctr(), NULL, key, NULL) != 1) {
        rc = crypt_failure("set up AES-256-CTR");
        goto fail;
    }
    char digest[] = "SHA256";
    OSSL_PARAM params[] = { OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                            OSSL_PARAM_construct_end() };
    if (!(crypt->mac_algorithm = EVP_MAC_fetch(NULL, "HMAC", NULL)) ||
        !(crypt->mac = EVP_MAC_CTX_new(crypt->mac_algorithm)) ||
        EVP_MAC_init(crypt->mac, key + 32, 32, params) != 1) {
        rc = crypt_failure("set up HMAC-SHA256");
        goto fail;
    }
    *out = crypt;
    return 0;
fail:
    cc_crypt_destroy(crypt);
    return rc;
}

void cc_crypt_destroy(cc_crypt *crypt) {
    if (!crypt) return;
    EVP_CIPHER_CTX_free(crypt->cipher);
    EVP_MAC_CTX_free(crypt->mac);
    EVP_MAC_free(crypt->mac_algorithm);
    free(crypt);
}

/* HMAC-SHA256 over (index, iv, ciphertext), truncated into `tag`. */
static bool sector_tag(cc_crypt *crypt, uint64_t index, const uint8_t *iv, const uint8_t *ciphertext,
                       uint8_t tag[CC_CRYPT_TAG_BYTES]) {
    uint8_t index_bytes[8];
    memcpy(index_bytes, &index, 8);   /* little-endian hosts only (format.h) */
    uint8_t full[32];
    size_t length = 0;
    if (EVP_MAC_init(crypt->mac, NULL, 0, NULL) != 1 || EVP_MAC_update(crypt->mac, index_bytes, 8) != 1 ||
        EVP_MAC_update(crypt->mac, iv, CC_CRYPT_IV_BYTES) != 1 ||
        EVP_MAC_update(crypt->mac, ciphertext, CC_CRYPT_PAYLOAD_BYTES) != 1 ||
        EVP_MAC_final(crypt->mac, full, &length, sizeof full) != 1 || length != sizeof full)
        return false;
    memcpy(tag, full, CC_CRYPT_TAG_BYTES);
    return true;
}

static bool apply_keystream(cc_crypt *crypt, const uint8_t *iv, const uint8_t *in, uint8_t *out) {
    int length = 0;
    return EVP_EncryptInit_ex(crypt->cipher, NULL, NULL, NULL, iv) == 1 &&
           EVP_EncryptUpdate(crypt->cipher, out, &length, in, (int)CC_CRYPT_PAYLOAD_BYTES) == 1 &&
           length == (int)CC_CRYPT_PAYLOAD_BYTES;
}

int cc_crypt_random_ivs(uint8_t *out, size_t count) {
    size_t bytes = count * CC_CRYPT_IV_BYTES;
    while (bytes) {
        int chunk = bytes > (1u << 30) ? (1 << 30) : (int)bytes;
        if (RAND_bytes(out, chunk) != 1) return crypt_failure("draw random IVs");
        out += chunk;
        bytes -= (size_t)chunk;
    }
    return 0;
}

int cc_crypt_seal(cc_crypt *crypt, uint64_t index, const uint8_t *plain, const uint8_t given_iv[CC_CRYPT_IV_BYTES],
                  uint8_t *sector) {
    uint8_t *iv = sector, *tag = sector + CC_CRYPT_IV_BYTES, *ciphertext = tag + CC_CRYPT_TAG_BYTES;
    memcpy(iv, given_iv, CC_CRYPT_IV_BYTES);
    if (!apply_keystream(crypt, iv, plain, ciphertext)) return crypt_failure("encrypt a sector");
    if (!sector_tag(crypt, index, iv, ciphertext, tag)) return crypt_failure("authenticate a sector");
    return 0;
}

bool cc_crypt_open(cc_crypt *crypt, uint64_t index, const uint8_t *sector, uint8_t *plain) {
    const uint8_t *iv = sector, *tag = sector + CC_CRYPT_IV_BYTES, *ciphertext = tag + CC_CRYPT_TAG_BYTES;
    uint8_t expected[CC_CRYPT_TAG_BYTES];
    if (!sector_tag(crypt, index, iv, ciphertext, expected)) return false;
    if (CRYPTO_memcmp(expected, tag, CC_CRYPT_TAG_BYTES) != 0) return false;
    return apply_keystream(crypt, iv, ciphertext, plain);
}

int cc_crypt_key_check(cc_crypt *crypt, const uint8_t file_id[CF_FILE_ID_BYTES],
                       uint8_t out[CC_CRYPT_KEY_CHECK_BYTES]) {
    static const char label[] = "Columnar key check";
    size_t length = 0;
    if (EVP_MAC_init(crypt->mac, NULL, 0, NULL) != 1 ||
        EVP_MAC_update(crypt->mac, (const uint8_t *)label, sizeof label - 1) != 1 ||
        EVP_MAC_update(crypt->mac, file_id, CF_FILE_ID_BYTES) != 1 ||
        EVP_MAC_final(crypt->mac, out, &length, CC_CRYPT_KEY_CHECK_BYTES) != 1 || length != CC_CRYPT_KEY_CHECK_BYTES)
        return crypt_failure("compute the key check");
    return 0;
}
