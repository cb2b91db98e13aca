#ifndef CSVFREEZE_CFIELDSCAN_H
#define CSVFREEZE_CFIELDSCAN_H
/* Byte searches for the field kernel (CellStore's FieldKernel): the loops that find the
   next delimiter, quote or line end, the bulk record-boundary scan, and the scans of bytes
   the index vouches are well quoted (SQL's raw pieces). Nothing here knows a state machine
   beyond what its comment says; the kernel owns the rules. Every 64-byte scan shares one
   set of masks, prefix XOR and run-time choice of AVX2, SSE2 or portable code (Masks.h). */
#include <stddef.h>
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Asks the CPU to start loading the cache line at p (a hint: p need not be valid). The
   counts of a summary look values up in tables larger than the caches; a record's lookups
   are announced before they are made, so their loads overlap. */
static inline void cf_prefetch(const void *p) {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p);
#endif
}

/* The small searches stay inline: a call per field costs as much as the search. They use
   SSE2, which every x86-64 CPU has (wider vectors cannot be inlined into code built for
   the baseline); elsewhere a byte at a time. */

/* The offset of the first byte in p[0..n) that is the delimiter, the quote, CR or LF, or n. */
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

/* Unquoted fields from p, through their delimiters: returns the offset of the first quote,
   CR or LF, or n. Each delimiter on the way adds one to *fields; *after_delimiter says
   whether the byte at the returned offset (or the end) comes right after a delimiter, where
   a quote opens a quoted field. Delimiters are counted from a bit mask, 16 bytes a step;
   only a quote or a line end stops it. */
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

/* The offset of the first byte in p[0..n) that is `a` or `b`, or n: the two cases of a
   letter a raw-byte search anchors on, 64 bytes a step. */
static inline size_t cf_find_either(const unsigned char *p, size_t n, unsigned char a, unsigned char b) {
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i va = _mm_set1_epi8((char)a), vb = _mm_set1_epi8((char)b);
    for (; i + 64 <= n; i += 64) {
        __m128i x0 = _mm_loadu_si128((const __m128i *)(p + i)), x1 = _mm_loadu_si128((const __m128i *)(p + i + 16));
        __m128i x2 = _mm_loadu_si128((const __m128i *)(p + i + 32)), x3 = _mm_loadu_si128((const __m128i *)(p + i + 48));
        __m128i m0 = _mm_or_si128(_mm_cmpeq_epi8(x0, va), _mm_cmpeq_epi8(x0, vb));
        __m128i m1 = _mm_or_si128(_mm_cmpeq_epi8(x1, va), _mm_cmpeq_epi8(x1, vb));
        __m128i m2 = _mm_or_si128(_mm_cmpeq_epi8(x2, va), _mm_cmpeq_epi8(x2, vb));
        __m128i m3 = _mm_or_si128(_mm_cmpeq_epi8(x3, va), _mm_cmpeq_epi8(x3, vb));
        if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(m0, m1), _mm_or_si128(m2, m3)))) {
            unsigned long long mask = (unsigned long long)(unsigned)_mm_movemask_epi8(m0)
                | (unsigned long long)(unsigned)_mm_movemask_epi8(m1) << 16
                | (unsigned long long)(unsigned)_mm_movemask_epi8(m2) << 32
                | (unsigned long long)(unsigned)_mm_movemask_epi8(m3) << 48;
            return i + (size_t)__builtin_ctzll(mask);
        }
    }
    for (; i + 16 <= n; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(p + i));
        int mask = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(x, vb)));
        if (mask) return i + (size_t)__builtin_ctz((unsigned)mask);
    }
#endif
    for (; i < n; i++) if (p[i] == a || p[i] == b) return i;
    return n;
}

/* The offset of the first place in h[0..n) where needle[0..m) occurs, or n. With
   `caseless`, ASCII letters are compared without case (the needle is given in lower
   case): SQLite's LIKE folds ASCII only, so this finds a superset of its matches.
   Candidates are found 16 bytes a step by the needle's first and last bytes (each
   compared at its own distance), then confirmed. Inline: SQL tests it on every cell. */
static inline size_t cf_find_text(const unsigned char *h, size_t n, const unsigned char *needle, size_t m, int caseless) {
    if (m == 0) return 0;
    if (m > n) return n;
    const size_t last = n - m;
    const unsigned char a = needle[0], b = needle[m - 1];
    const unsigned char fa = caseless && a >= 'a' && a <= 'z' ? 0x20 : 0;
    const unsigned char fb = caseless && b >= 'a' && b <= 'z' ? 0x20 : 0;
    size_t i = 0;
#define CF_CONFIRM(at) do { \
        size_t k = 0; \
        for (; k < m; k++) { \
            unsigned char c = h[(at) + k]; \
            if (caseless && c >= 'A' && c <= 'Z') c |= 0x20; \
            if (c != needle[k]) break; \
        } \
        if (k == m) return (at); \
    } while (0)
#if defined(__SSE2__)
    const __m128i va = _mm_set1_epi8((char)a), vb = _mm_set1_epi8((char)b);
    const __m128i ma = _mm_set1_epi8((char)fa), mb = _mm_set1_epi8((char)fb);
    for (; i + 16 <= last + 1; i += 16) {
        __m128i x = _mm_or_si128(_mm_loadu_si128((const __m128i *)(h + i)), ma);
        __m128i y = _mm_or_si128(_mm_loadu_si128((const __m128i *)(h + i + m - 1)), mb);
        unsigned mask = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(y, vb)));
        while (mask) {
            size_t at = i + (size_t)__builtin_ctz(mask);
            mask &= mask - 1;
            CF_CONFIRM(at);
        }
    }
#endif
    for (; i <= last; i++) {
        if ((unsigned char)(h[i] | fa) == a && (unsigned char)(h[i + m - 1] | fb) == b) CF_CONFIRM(i);
    }
#undef CF_CONFIRM
    return n;
}

/* ---- Scans of well-quoted bytes ----

   In well-quoted CSV (no quote inside an unquoted field, none after a closing one, every
   quote closed: what the index vouches for a raw piece) a quote opens or closes a quoted
   field or is half of a doubled one, so a byte is inside quotes exactly when an odd number
   of quotes come before it since a record's start, and every LF or CR outside quotes ends
   a record (CRLF once). These scans read it 64 bytes a step by that rule alone, with the
   bulk scan's masks and prefix XOR, and check nothing else: the caller checks what it can
   (the records a piece holds, a range ending inside quotes). A range starts outside quotes
   (or inside, as `in_quotes` says) and never between the CR and LF of a CRLF. The quote
   is ignored when it is CR or LF (--quote none) or the delimiter. */

/* Records that end in a range: how many, the offset just past the last of them (0: none),
   and whether the range ends inside quotes. */
typedef struct cf_record_count {
    size_t records;
    size_t last_end;
    int in_quotes;
} cf_record_count;

/* Counts the records that end in p[0..n). With `first_only`, stops at the first one. */
cf_record_count cf_count_records(const unsigned char *p, size_t n, unsigned char delimiter, unsigned char quote, int in_quotes,
                                 int first_only);

/* The ends of the fields in p[0..n), which starts at a record boundary: the delimiters
   outside quotes that end a record's first `limit` fields, and every record end outside
   quotes (an LF or a lone CR; for a CRLF, the LF), as offsets, with bit 31 set for a
   record end. `ends` has room for n + 1. Returns how many, and the record ends among them;
   *in_quotes says whether the bytes ended inside quotes (then they were not as the index
   vouched). Past a record's `limit` fields its delimiters are skipped 64 at a time. */
size_t cf_field_ends(const unsigned char *p, size_t n, unsigned char delimiter, unsigned char quote, size_t limit,
                     uint32_t *ends, int *in_quotes, size_t *record_count);

/* The same with implementation `level` (or the best below it that the CPU runs). */
cf_record_count cf_count_records_at(int level, const unsigned char *p, size_t n, unsigned char delimiter, unsigned char quote,
                                    int in_quotes, int first_only);
size_t cf_field_ends_at(int level, const unsigned char *p, size_t n, unsigned char delimiter, unsigned char quote, size_t limit,
                        uint32_t *ends, int *in_quotes, size_t *record_count);

/* ---- The bulk record-boundary scan ----

   64 bytes a step: bit masks of quotes, delimiters, CRs and LFs; "inside quotes" as the
   prefix XOR of the quote mask (every quote toggles); record ends are the line ends
   outside quotes. That reading equals the field rules exactly while every quote that
   toggles into quotes starts a field (the byte before it is a delimiter, a line end, the
   start, or the quote that just closed: a doubled quote), and every quote that toggles
   out is followed by a delimiter, a line end or a quote. A block where that does not hold
   (a quote inside an unquoted field, text after a closing quote) is not consumed: the
   caller reads it by the rules, byte by byte, and may call again after it. */

/* A record end found by the bulk scan. */
typedef struct cf_record_end {
    /* The offset just past the terminator, from the start of the scanned bytes. */
    size_t end;
    /* Fields of the record that ended (delimiters outside quotes plus one); 0 for the LF
       of a CRLF, which ends no record. */
    size_t fields;
    /* The terminator: '\n' or '\r'; for the LF of a CRLF, 0. */
    unsigned char terminator;
} cf_record_end;

/* What the bulk scan carries from one call to the next (the caller's state machine, in
   the scan's terms). */
typedef struct cf_scan_state {
    /* In and out: inside a quoted field. */
    int inside;
    /* In: the byte before p opens a field (the start, a delimiter, a line end). */
    int opens_field;
    /* In: the byte before p is a CR that ended a record (a LF at p is the rest of a CRLF). */
    int after_cr;
    /* In and out: delimiters outside quotes in the record being read. */
    size_t delimiters;
    /* Out: the offset of the last quote that opened a quoted field, or (size_t)-1. */
    size_t opened_at;
    /* Out: record ends written. */
    size_t count;
} cf_scan_state;

/* Implementations, best first; cf_scan_records picks the best the CPU runs. */
enum {
    CF_SCAN_PORTABLE = 0, /* any CPU: masks built a byte at a time */
    CF_SCAN_SSE2 = 1,     /* x86-64 baseline: 16-byte compares, prefix XOR by shifts */
    CF_SCAN_AVX2 = 2      /* AVX2 and carry-less multiply (PCLMULQDQ), chosen at run time */
};

/* The best implementation this CPU runs. */
int cf_scan_best_level(void);

/* Scans whole 64-byte blocks of p[0..n) while they follow the rules above, writing each
   record end (and LF of a CRLF) to ends[] (state->count of them, at most `capacity`).
   Returns the bytes consumed: a multiple of 64, unless `stop_at_record_end` is set and a
   record ended, then just past that record's terminator. It stops before a block that
   breaks the rules, before the last byte of p (a quote's next byte must be seen), and
   when ends[] might not hold another block's ends. Needs capacity >= 64. The quote is
   ignored when it is CR or LF (no quoting) or the delimiter; a delimiter that is a line
   end makes it consume nothing. */
size_t cf_scan_records(const unsigned char *p, size_t n, unsigned char delimiter, unsigned char quote,
                       int stop_at_record_end, cf_scan_state *state, cf_record_end *ends, size_t capacity);

/* The same with implementation `level` (or the best below it that the CPU runs): for
   tests and the benchmark. */
size_t cf_scan_records_at(int level, const unsigned char *p, size_t n, unsigned char delimiter, unsigned char quote,
                          int stop_at_record_end, cf_scan_state *state, cf_record_end *ends, size_t capacity);

#endif
