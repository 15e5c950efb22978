// SHA-256 compression with the SHA-NI instructions, written from their definitions in the Intel 64 and IA-32
// Architectures Software Developer's Manual (SHA256RNDS2, SHA256MSG1, SHA256MSG2) and FIPS 180-4.
//
// SHA256RNDS2 runs two rounds. Its first operand holds the working variables {C, D, G, H} and its second {A, B, E,
// F} (most significant double word first), its third the two words W[t] + K[t] in its low 64 bits; it returns the
// new {A, B, E, F}. After two rounds the new {C, D, G, H} are the old {A, B, E, F}, so none is computed.
// SHA256MSG1 and SHA256MSG2 compute the message schedule four words at a time: MSG1 adds sigma0 of the next word
// to each of W[t-16..t-13], the caller adds W[t-7..t-4], and MSG2 adds sigma1 of W[t-2] and W[t-1] (the last two
// of those four produced by itself).

#include "CSHA256.h"

#if defined(__x86_64__) || defined(__i386__)

#include <cpuid.h>
#include <immintrin.h>

int pb_sha256_hardware_available(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    int ssse3 = (ecx >> 9) & 1;
    int sse41 = (ecx >> 19) & 1;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    int sha = (ebx >> 29) & 1;
    return ssse3 && sse41 && sha;
}

static const uint32_t round_constants[64] __attribute__((aligned(16))) = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/// Four rounds: W[t..t+3] + K[t..t+3] in `schedule`, through two SHA256RNDS2.
#define FOUR_ROUNDS(schedule, t)                                                                   \
    do {                                                                                           \
        __m128i wk = _mm_add_epi32((schedule), _mm_load_si128((const __m128i *)&round_constants[t])); \
        __m128i next = _mm_sha256rnds2_epu32(cdgh, abef, wk);                                      \
        cdgh = abef;                                                                               \
        abef = next;                                                                               \
        next = _mm_sha256rnds2_epu32(cdgh, abef, _mm_shuffle_epi32(wk, 0x0E));                     \
        cdgh = abef;                                                                               \
        abef = next;                                                                               \
    } while (0)

/// W[t..t+3] from the four groups before: w0 = W[t-16..t-13], w1 = W[t-12..t-9], w2 = W[t-8..t-5], w3 = W[t-4..t-1].
#define SCHEDULE(w0, w1, w2, w3) \
    _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32((w0), (w1)), _mm_alignr_epi8((w3), (w2), 4)), (w3))

__attribute__((target("sha,sse4.1,ssse3")))
void pb_sha256_compress_hardware(uint32_t state[8], const uint8_t *blocks, size_t count) {
    // Big-endian message words into little-endian lanes: reverse the bytes of each double word.
    const __m128i byte_order = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
    __m128i abef = _mm_set_epi32((int)state[0], (int)state[1], (int)state[4], (int)state[5]);
    __m128i cdgh = _mm_set_epi32((int)state[2], (int)state[3], (int)state[6], (int)state[7]);
    for (size_t block = 0; block < count; block++, blocks += 64) {
        const __m128i saved_abef = abef;
        const __m128i saved_cdgh = cdgh;
        __m128i w0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 0)), byte_order);
        __m128i w1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 16)), byte_order);
        __m128i w2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 32)), byte_order);
        __m128i w3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 48)), byte_order);
        FOUR_ROUNDS(w0, 0);
        FOUR_ROUNDS(w1, 4);
        FOUR_ROUNDS(w2, 8);
        FOUR_ROUNDS(w3, 12);
        // Rounds 16 to 63: each new group replaces the oldest of the four, which it no longer needs.
        for (int t = 16; t < 64; t += 16) {
            w0 = SCHEDULE(w0, w1, w2, w3);
            FOUR_ROUNDS(w0, t);
            w1 = SCHEDULE(w1, w2, w3, w0);
            FOUR_ROUNDS(w1, t + 4);
            w2 = SCHEDULE(w2, w3, w0, w1);
            FOUR_ROUNDS(w2, t + 8);
            w3 = SCHEDULE(w3, w0, w1, w2);
            FOUR_ROUNDS(w3, t + 12);
        }
        abef = _mm_add_epi32(abef, saved_abef);
        cdgh = _mm_add_epi32(cdgh, saved_cdgh);
    }
    // Lanes, least significant first: abef = {F, E, B, A}, cdgh = {H, G, D, C}.
    uint32_t lanes[8];
    _mm_storeu_si128((__m128i *)&lanes[0], abef);
    _mm_storeu_si128((__m128i *)&lanes[4], cdgh);
    state[0] = lanes[3];
    state[1] = lanes[2];
    state[2] = lanes[7];
    state[3] = lanes[6];
    state[4] = lanes[1];
    state[5] = lanes[0];
    state[6] = lanes[5];
    state[7] = lanes[4];
}

#else

int pb_sha256_hardware_available(void) { return 0; }

void pb_sha256_compress_hardware(uint32_t state[8], const uint8_t *blocks, size_t count) {
    (void)state;
    (void)blocks;
    (void)count;
    __builtin_trap();  // a programmer error: callers check pb_sha256_hardware_available() first
}

#endif
