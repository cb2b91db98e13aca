#ifndef CSVFREEZE_CLIBCSV_SHIM_H
#define CSVFREEZE_CLIBCSV_SHIM_H
#define _XOPEN_SOURCE 700
#include <stddef.h>
#include <wchar.h>
#include <csv.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Returning 0 for every byte makes libcsv trim nothing around unquoted fields. */
static inline int cf_csv_never_space(unsigned char c) { (void)c; return 0; }

/* Display width of one Unicode scalar under the current locale (-1: not printable).
   Declared here because the C library's wide-character widths are not otherwise
   visible to Swift on every platform. */
static inline int cf_wcwidth(unsigned int scalar) { return wcwidth((wchar_t)scalar); }

/* The offset of the first byte in p[0..n) that is the delimiter, the quote, CR or LF, or n:
   16 bytes a step with SSE2 (every x86-64 CPU has it), a byte at a time elsewhere. */
static inline size_t cf_find_special(const unsigned char *p, size_t n, unsigned char delimiter, unsigned char quote) {
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i d = _mm_set1_epi8((char)delimiter), q = _mm_set1_epi8((char)quote);
    const __m128i lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, d), _mm_cmpeq_epi8(v, q)),
                                   _mm_or_si128(_mm_cmpeq_epi8(v, lf), _mm_cmpeq_epi8(v, cr)));
        int mask = _mm_movemask_epi8(hit);
        if (mask) return i + (size_t)__builtin_ctz((unsigned)mask);
    }
#endif
    for (; i < n; i++) {
        unsigned char c = p[i];
        if (c == delimiter || c == quote || c == '\n' || c == '\r') return i;
    }
    return n;
}

/* The record scanner's loop outside quotes, kept in C so one call covers a run of fields.
   Scans unquoted fields from p: returns the offset of the first quote, CR or LF, or n.
   Each delimiter on the way adds one to *fields; *after_delimiter says whether the byte at
   the returned offset (or the end) comes right after a delimiter, where a quote opens a
   quoted field. With SSE2, 16 bytes a step whatever the fields: delimiters are counted
   from a bit mask, and only a quote or a line end stops it. */
static inline size_t cf_scan_unquoted(const unsigned char *p, size_t n, unsigned char delimiter, unsigned char quote,
                                      long *fields, int *after_delimiter) {
    size_t i = 0;
    long added = 0;
    int after = *after_delimiter;
#if defined(__SSE2__)
    const __m128i d = _mm_set1_epi8((char)delimiter), q = _mm_set1_epi8((char)quote);
    const __m128i lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
        unsigned delimiters = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, d));
        unsigned stops = (unsigned)_mm_movemask_epi8(
            _mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_or_si128(_mm_cmpeq_epi8(v, lf), _mm_cmpeq_epi8(v, cr))));
        if (stops == 0) {
            added += __builtin_popcount(delimiters);
            after = (delimiters >> 15) & 1;
            continue;
        }
        unsigned at = (unsigned)__builtin_ctz(stops);
        unsigned before = delimiters & ((1u << at) - 1u);
        added += __builtin_popcount(before);
        if (at > 0) after = (delimiters >> (at - 1)) & 1;
        *fields += added;
        *after_delimiter = after;
        return i + at;
    }
#endif
    for (; i < n; i++) {
        unsigned char c = p[i];
        if (c == delimiter) { added++; after = 1; continue; }
        if (c == quote || c == '\n' || c == '\r') break;
        after = 0;
    }
    *fields += added;
    *after_delimiter = after;
    return i;
}

/* The offset of the first `byte` in p[0..n), or n: memchr without a call, for the many
   short quoted fields. */
static inline size_t cf_find_byte(const unsigned char *p, size_t n, unsigned char byte) {
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i b = _mm_set1_epi8((char)byte);
    for (; i + 16 <= n; i += 16) {
        int mask = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + i)), b));
        if (mask) return i + (size_t)__builtin_ctz((unsigned)mask);
    }
#endif
    for (; i < n; i++) if (p[i] == byte) return i;
    return n;
}

#endif
