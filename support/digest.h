/*
 * digest.h - SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), written for
 * the build cache: the hashes of the files an entry holds, and the tag that
 * says an entry was written by this user's tngc (see codegen/build.c).
 */
#ifndef TNGC_DIGEST_H
#define TNGC_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32

typedef struct Sha256 {
    uint32_t h[8];
    uint64_t total;        /* bytes hashed so far */
    unsigned char buf[64]; /* the block being filled */
    size_t nbuf;
} Sha256;

void sha256_init(Sha256 *self);
void sha256_update(Sha256 *self, const void *data, size_t n);
void sha256_final(Sha256 *self, unsigned char out[SHA256_LEN]);
/* The digest of data[0..n) in one call. */
void sha256(const void *data, size_t n, unsigned char out[SHA256_LEN]);

/* HMAC-SHA-256 of a message given in parts (an HMAC over their
 * concatenation), with a key of any length. */
typedef struct Hmac256 {
    Sha256 inner;
    unsigned char okey[64]; /* the key xor opad */
} Hmac256;

void hmac256_init(Hmac256 *self, const void *key, size_t keylen);
void hmac256_update(Hmac256 *self, const void *data, size_t n);
void hmac256_final(Hmac256 *self, unsigned char out[SHA256_LEN]);

/* Writes the 64 lowercase hex digits of a digest and a NUL into hex. */
void digest_hex(const unsigned char d[SHA256_LEN], char hex[2 * SHA256_LEN + 1]);
/* Compares n bytes in time that does not depend on where they differ;
 * 0 when equal. */
int digest_differs(const void *a, const void *b, size_t n);

#endif
