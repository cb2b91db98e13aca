#ifndef CSVFREEZE_CFIELDSCAN_MASKS_H
#define CSVFREEZE_CFIELDSCAN_MASKS_H
/* What the 64-byte scans share (private to CFieldScan): the four byte masks of a block,
   the prefix XOR that turns the quote mask into "inside quotes", and the three ways of
   building them (portable, SSE2, AVX2 with carry-less multiply), chosen at run time by
   cf_scan_best_level. */
#include "CFieldScan.h"
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* Bit j of each mask: byte j of the block is the quote, the delimiter, a LF, a CR. */
typedef struct {
    uint64_t quote, delimiter, lf, cr;
} cf_masks;

/* Every prefix's parity: bit i is the XOR of bits 0...i. */
static inline uint64_t cf_prefix_xor(uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

/* Whether the quote quotes: not with --quote none (a line end) nor when it is the
   delimiter; then the scans take the quote mask as empty. */
static inline int cf_quotes(unsigned char delimiter, unsigned char quote) {
    return quote != '\n' && quote != '\r' && quote != delimiter;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__

/* Bit j set where byte j of the word `w` is `byte`: eight bytes at once in a 64-bit word
   (exact: no carry crosses a byte), the high bits gathered by one multiplication. */
static inline uint64_t cf_equal_bytes(uint64_t w, unsigned char byte) {
    const uint64_t low7 = 0x7F7F7F7F7F7F7F7FULL;
    const uint64_t x = w ^ (0x0101010101010101ULL * byte);
    const uint64_t zero = ~(((x & low7) + low7) | x | low7);
    return ((zero >> 7) * 0x0102040810204080ULL) >> 56;
}

static inline cf_masks cf_masks_portable(const unsigned char *p, unsigned char delimiter, unsigned char quote) {
    cf_masks m = {0, 0, 0, 0};
    for (unsigned k = 0; k < 8; k++) {
        uint64_t w;
        memcpy(&w, p + 8 * k, 8);
        m.delimiter |= cf_equal_bytes(w, delimiter) << (8 * k);
        m.lf |= cf_equal_bytes(w, '\n') << (8 * k);
        m.cr |= cf_equal_bytes(w, '\r') << (8 * k);
        m.quote |= cf_equal_bytes(w, quote) << (8 * k);
    }
    return m;
}

#else

static inline cf_masks cf_masks_portable(const unsigned char *p, unsigned char delimiter, unsigned char quote) {
    cf_masks m = {0, 0, 0, 0};
    for (unsigned j = 0; j < 64; j++) {
        const unsigned char byte = p[j];
        m.delimiter |= (uint64_t)(byte == delimiter) << j;
        m.lf |= (uint64_t)(byte == '\n') << j;
        m.cr |= (uint64_t)(byte == '\r') << j;
        m.quote |= (uint64_t)(byte == quote) << j;
    }
    return m;
}

#endif

#if defined(__x86_64__)

static inline uint64_t cf_mask_sse2(__m128i a, __m128i b, __m128i c, __m128i d, __m128i byte) {
    return (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a, byte))
        | ((uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(b, byte)) << 16)
        | ((uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(c, byte)) << 32)
        | ((uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(d, byte)) << 48);
}

static inline cf_masks cf_masks_sse2(const unsigned char *p, unsigned char delimiter, unsigned char quote) {
    const __m128i a = _mm_loadu_si128((const __m128i *)p);
    const __m128i b = _mm_loadu_si128((const __m128i *)(p + 16));
    const __m128i c = _mm_loadu_si128((const __m128i *)(p + 32));
    const __m128i d = _mm_loadu_si128((const __m128i *)(p + 48));
    cf_masks m;
    m.delimiter = cf_mask_sse2(a, b, c, d, _mm_set1_epi8((char)delimiter));
    m.quote = cf_mask_sse2(a, b, c, d, _mm_set1_epi8((char)quote));
    m.lf = cf_mask_sse2(a, b, c, d, _mm_set1_epi8('\n'));
    m.cr = cf_mask_sse2(a, b, c, d, _mm_set1_epi8('\r'));
    return m;
}

#define CF_AVX2 __attribute__((target("avx2,pclmul,popcnt,bmi")))

CF_AVX2 static inline uint64_t cf_mask_avx2(__m256i low, __m256i high, __m256i byte) {
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(low, byte))
        | ((uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(high, byte)) << 32);
}

CF_AVX2 static inline cf_masks cf_masks_avx2(const unsigned char *p, unsigned char delimiter, unsigned char quote) {
    const __m256i low = _mm256_loadu_si256((const __m256i *)p);
    const __m256i high = _mm256_loadu_si256((const __m256i *)(p + 32));
    cf_masks m;
    m.delimiter = cf_mask_avx2(low, high, _mm256_set1_epi8((char)delimiter));
    m.quote = cf_mask_avx2(low, high, _mm256_set1_epi8((char)quote));
    m.lf = cf_mask_avx2(low, high, _mm256_set1_epi8('\n'));
    m.cr = cf_mask_avx2(low, high, _mm256_set1_epi8('\r'));
    return m;
}

/* Carry-less multiplication by all ones is the prefix XOR in one instruction. */
CF_AVX2 static inline uint64_t cf_prefix_xor_clmul(uint64_t x) {
    return (uint64_t)_mm_cvtsi128_si64(_mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8((char)0xFF), 0));
}

#endif

#endif
