#ifndef MRQ_SHA256_H
#define MRQ_SHA256_H

// SHA-256's compression function on the CPU's SHA extensions (x86-64's
// SHA-NI), for ObjectStore's `sha256` (Core Data's version hashes: a model
// of a few hundred properties hashes a thousand blocks or more each time a
// store opens with the model it keeps). A header only: Swift has no
// spelling for these instructions. Where the CPU lacks them, or on another
// architecture, `mrq_sha256_hardware` is 0 and the caller compresses in
// Swift; both give the same bytes (ObjectStore's SHA256Tests).

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <cpuid.h>
#include <immintrin.h>

/// 1 when this CPU has the SHA extensions and SSSE3 and SSE4.1, which the
/// compression below uses; 0 otherwise.
static inline int mrq_sha256_hardware(void) {
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    int ssse3 = (c >> 9) & 1, sse41 = (c >> 19) & 1;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    int sha = (b >> 29) & 1;
    return ssse3 && sse41 && sha;
}

/// Compresses `blocks` 64-byte blocks at `data` into `state` (SHA-256's
/// eight working words, in FIPS 180-4's order a…h); `k` is FIPS 180-4's 64
/// round constants (the caller's table, which its own rounds use too).
/// Call only where `mrq_sha256_hardware()` is 1.
__attribute__((target("sha,sse4.1,ssse3")))
static inline void mrq_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks, const uint32_t k[64]) {
    // The message's bytes are big-endian words: reversed within each word.
    const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);

    // The instructions keep the state as two halves, ABEF and CDGH.
    __m128i dcba = _mm_loadu_si128((const __m128i *)&state[0]);
    __m128i hgfe = _mm_loadu_si128((const __m128i *)&state[4]);
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
    __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);

    for (; blocks > 0; blocks--, data += 64) {
        const __m128i abefStart = abef, cdghStart = cdgh;
        __m128i w[4];   // the last sixteen message words, four to a group
        for (int i = 0; i < 16; i++) {
            __m128i words;
            if (i < 4) {
                words = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * i)), swap);
            } else {
                // W[t] from W[t-16], W[t-15] (σ0), W[t-7] and W[t-2] (σ1).
                __m128i partial = _mm_sha256msg1_epu32(w[i & 3], w[(i + 1) & 3]);
                partial = _mm_add_epi32(partial, _mm_alignr_epi8(w[(i + 3) & 3], w[(i + 2) & 3], 4));
                words = _mm_sha256msg2_epu32(partial, w[(i + 3) & 3]);
            }
            w[i & 3] = words;
            __m128i kw = _mm_add_epi32(words, _mm_loadu_si128((const __m128i *)&k[4 * i]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, kw);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(kw, 0x0E));
        }
        abef = _mm_add_epi32(abef, abefStart);
        cdgh = _mm_add_epi32(cdgh, cdghStart);
    }

    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}

#else

static inline int mrq_sha256_hardware(void) { return 0; }

static inline void mrq_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks, const uint32_t k[64]) {
    (void)state; (void)data; (void)blocks; (void)k;
}

#endif

#endif
