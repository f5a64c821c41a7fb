/*
 * digest.c - SHA-256 and HMAC-SHA-256 (digest.h), from the definitions in
 * FIPS 180-4 (section 6.2) and RFC 2104. Checked against the published
 * test vectors in tests/unit/test_digest.c.
 */
#include "digest.h"

#include <string.h>

static const uint32_t sha256__k[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
    0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
    0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
    0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
    0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
    0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u,
};

static uint32_t sha256__ror(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

/* One 64-byte block into the state. */
static void sha256__block(uint32_t h[8], const unsigned char *p)
{
    uint32_t w[64];
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 | (uint32_t)p[4 * t + 2] << 8 |
               (uint32_t)p[4 * t + 3];
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = sha256__ror(w[t - 15], 7) ^ sha256__ror(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = sha256__ror(w[t - 2], 17) ^ sha256__ror(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int t = 0; t < 64; t++) {
        uint32_t S1 = sha256__ror(e, 6) ^ sha256__ror(e, 11) ^ sha256__ror(e, 25);
        uint32_t ch = (e & f) ^ (~e & g);
        uint32_t t1 = k + S1 + ch + sha256__k[t] + w[t];
        uint32_t S0 = sha256__ror(a, 2) ^ sha256__ror(a, 13) ^ sha256__ror(a, 22);
        uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
        uint32_t t2 = S0 + maj;
        k = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += k;
}

void sha256_init(Sha256 *self)
{
    static const uint32_t h0[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
                                   0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};
    memcpy(self->h, h0, sizeof h0);
    self->total = 0;
    self->nbuf = 0;
}

void sha256_update(Sha256 *self, const void *data, size_t n)
{
    const unsigned char *p = data;
    self->total += n;
    if (self->nbuf) {
        size_t take = 64 - self->nbuf < n ? 64 - self->nbuf : n;
        memcpy(self->buf + self->nbuf, p, take);
        self->nbuf += take;
        p += take;
        n -= take;
        if (self->nbuf < 64)
            return;
        sha256__block(self->h, self->buf);
        self->nbuf = 0;
    }
    for (; n >= 64; p += 64, n -= 64)
        sha256__block(self->h, p);
    memcpy(self->buf, p, n);
    self->nbuf = n;
}

void sha256_final(Sha256 *self, unsigned char out[SHA256_LEN])
{
    uint64_t bits = self->total * 8;
    unsigned char pad[72] = {0x80};
    size_t padn = (self->nbuf < 56 ? 56 : 120) - self->nbuf;
    for (int i = 0; i < 8; i++)
        pad[padn + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
    sha256_update(self, pad, padn + 8);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(self->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(self->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(self->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)self->h[i];
    }
}

void sha256(const void *data, size_t n, unsigned char out[SHA256_LEN])
{
    Sha256 s;
    sha256_init(&s);
    sha256_update(&s, data, n);
    sha256_final(&s, out);
}

void hmac256_init(Hmac256 *self, const void *key, size_t keylen)
{
    unsigned char k[64] = {0}, ikey[64];
    if (keylen > 64)
        sha256(key, keylen, k);
    else if (keylen)
        memcpy(k, key, keylen);
    for (int i = 0; i < 64; i++) {
        ikey[i] = k[i] ^ 0x36;
        self->okey[i] = k[i] ^ 0x5c;
    }
    sha256_init(&self->inner);
    sha256_update(&self->inner, ikey, sizeof ikey);
}

void hmac256_update(Hmac256 *self, const void *data, size_t n)
{
    sha256_update(&self->inner, data, n);
}

void hmac256_final(Hmac256 *self, unsigned char out[SHA256_LEN])
{
    unsigned char ih[SHA256_LEN];
    sha256_final(&self->inner, ih);
    Sha256 o;
    sha256_init(&o);
    sha256_update(&o, self->okey, sizeof self->okey);
    sha256_update(&o, ih, sizeof ih);
    sha256_final(&o, out);
}

void digest_hex(const unsigned char d[SHA256_LEN], char hex[2 * SHA256_LEN + 1])
{
    static const char x[] = "0123456789abcdef";
    for (int i = 0; i < SHA256_LEN; i++) {
        hex[2 * i] = x[d[i] >> 4];
        hex[2 * i + 1] = x[d[i] & 15];
    }
    hex[2 * SHA256_LEN] = 0;
}

int digest_differs(const void *a, const void *b, size_t n)
{
    const unsigned char *p = a, *q = b;
    unsigned char acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= p[i] ^ q[i];
    return acc != 0;
}
