/* The scans of well-quoted bytes (see CFieldScan.h): record ends and field ends found 64
   bytes a step by the prefix XOR of the quote mask, with no check of the quoting (the
   index vouched for it). Each is built three times from one body, like the bulk
   record-boundary scan, and the best the CPU runs is chosen at run time. */
#include "Masks.h"

/* The record ends of a block outside quotes: every LF, and every CR not followed by a LF
   (the LF of a CRLF ends it). `next_lf`: the byte after the block is a LF. */
static inline uint64_t cf_line_ends(cf_masks m, uint64_t within, int next_lf) {
    return (m.lf | (m.cr & ~(m.lf >> 1) & ~((uint64_t)(next_lf != 0) << 63))) & ~within;
}

#define CF_COUNT_BODY(MASKS, PREFIX)                                                                   \
    cf_record_count result = {0, 0, in_quotes};                                                        \
    const int quotes = cf_quotes(delimiter, quote);                                                    \
    size_t i = 0;                                                                                      \
    uint64_t carry = in_quotes ? ~(uint64_t)0 : 0;                                                     \
    for (; i + 64 <= n; i += 64) {                                                                     \
        const cf_masks m = MASKS(p + i, delimiter, quote);                                             \
        const uint64_t within = (quotes ? PREFIX(m.quote) : 0) ^ carry;                                \
        carry = (uint64_t)((int64_t)within >> 63);                                                     \
        if ((m.lf | m.cr) == 0) continue;                                                              \
        const uint64_t ends = cf_line_ends(m, within, i + 64 < n && p[i + 64] == '\n');               \
        if (!ends) continue;                                                                           \
        if (first_only) {                                                                              \
            result.records = 1;                                                                        \
            result.last_end = i + (size_t)__builtin_ctzll(ends) + 1;                                   \
            result.in_quotes = 0;                                                                      \
            return result;                                                                             \
        }                                                                                              \
        result.records += (size_t)__builtin_popcountll(ends);                                          \
        result.last_end = i + 64 - (size_t)__builtin_clzll(ends);                                      \
    }                                                                                                  \
    int inside = carry != 0;                                                                           \
    for (; i < n; i++) {                                                                               \
        const unsigned char c = p[i];                                                                  \
        if (quotes && c == quote) {                                                                    \
            inside = !inside;                                                                          \
            continue;                                                                                  \
        }                                                                                              \
        if (inside || (c != '\n' && c != '\r')) continue;                                              \
        if (c == '\r' && i + 1 < n && p[i + 1] == '\n') continue; /* the LF ends it */                \
        result.records += 1;                                                                           \
        result.last_end = i + 1;                                                                       \
        if (first_only) break;                                                                         \
    }                                                                                                  \
    result.in_quotes = inside;                                                                         \
    return result;

#define CF_FIELD_ENDS_BODY(MASKS, PREFIX)                                                              \
    const int quotes = cf_quotes(delimiter, quote);                                                    \
    size_t count = 0, i = 0, record_ends = 0, column = 0;                                              \
    const uint32_t record_bit = (uint32_t)1 << 31;                                                     \
    uint64_t carry = 0;                                                                                \
    for (; i + 64 <= n; i += 64) {                                                                     \
        const cf_masks m = MASKS(p + i, delimiter, quote);                                             \
        const uint64_t within = (quotes ? PREFIX(m.quote) : 0) ^ carry;                                \
        carry = (uint64_t)((int64_t)within >> 63);                                                     \
        const uint64_t records = cf_line_ends(m, within, i + 64 < n && p[i + 64] == '\n');            \
        uint64_t all = (m.delimiter & ~within) | records;                                              \
        record_ends += (size_t)__builtin_popcountll(records);                                          \
        if (column >= limit) {                                                                         \
            /* Still past the wanted fields: on to the next record end. */                            \
            all = records ? all & ~((records & -records) - 1) : 0;                                     \
        }                                                                                              \
        while (all) {                                                                                  \
            const unsigned at = (unsigned)__builtin_ctzll(all);                                        \
            const uint64_t bit = (uint64_t)1 << at;                                                    \
            all &= all - 1;                                                                            \
            if (records & bit) {                                                                       \
                ends[count++] = (uint32_t)(i + at) | record_bit;                                       \
                column = 0;                                                                            \
                continue;                                                                              \
            }                                                                                          \
            ends[count++] = (uint32_t)(i + at);                                                        \
            if (++column >= limit) {                                                                   \
                const uint64_t later = records & all;                                                  \
                all = later ? all & ~((later & -later) - 1) : 0;                                       \
            }                                                                                          \
        }                                                                                              \
    }                                                                                                  \
    int inside = carry != 0;                                                                           \
    for (; i < n; i++) {                                                                               \
        const unsigned char c = p[i];                                                                  \
        if (quotes && c == quote) {                                                                    \
            inside = !inside;                                                                          \
            continue;                                                                                  \
        }                                                                                              \
        if (inside) continue;                                                                          \
        if (c == delimiter) {                                                                          \
            if (column < limit) ends[count++] = (uint32_t)i;                                           \
            column++;                                                                                  \
        } else if (c == '\n' || c == '\r') {                                                           \
            if (c == '\r' && i + 1 < n && p[i + 1] == '\n') continue;                                  \
            ends[count++] = (uint32_t)i | record_bit;                                                  \
            record_ends += 1;                                                                          \
            column = 0;                                                                                \
        }                                                                                              \
    }                                                                                                  \
    *in_quotes = inside;                                                                               \
    *record_count = record_ends;                                                                       \
    return count;

#define CF_COUNT_PARAMS                                                                                \
    (const unsigned char *p, size_t n, unsigned char delimiter, unsigned char quote, int in_quotes, int first_only)
#define CF_FIELD_ENDS_PARAMS                                                                           \
    (const unsigned char *p, size_t n, unsigned char delimiter, unsigned char quote, size_t limit, uint32_t *ends, \
     int *in_quotes, size_t *record_count)

static cf_record_count cf_count_records_portable CF_COUNT_PARAMS { CF_COUNT_BODY(cf_masks_portable, cf_prefix_xor) }
static size_t cf_field_ends_portable CF_FIELD_ENDS_PARAMS { CF_FIELD_ENDS_BODY(cf_masks_portable, cf_prefix_xor) }

#if defined(__x86_64__)
static cf_record_count cf_count_records_sse2 CF_COUNT_PARAMS { CF_COUNT_BODY(cf_masks_sse2, cf_prefix_xor) }
static size_t cf_field_ends_sse2 CF_FIELD_ENDS_PARAMS { CF_FIELD_ENDS_BODY(cf_masks_sse2, cf_prefix_xor) }
CF_AVX2 static cf_record_count cf_count_records_avx2 CF_COUNT_PARAMS { CF_COUNT_BODY(cf_masks_avx2, cf_prefix_xor_clmul) }
CF_AVX2 static size_t cf_field_ends_avx2 CF_FIELD_ENDS_PARAMS { CF_FIELD_ENDS_BODY(cf_masks_avx2, cf_prefix_xor_clmul) }
#endif

cf_record_count cf_count_records_at(int level, const unsigned char *p, size_t n, unsigned char delimiter, unsigned char quote,
                                    int in_quotes, int first_only) {
    const int best = cf_scan_best_level();
    if (level > best) level = best;
#if defined(__x86_64__)
    if (level >= CF_SCAN_AVX2) return cf_count_records_avx2(p, n, delimiter, quote, in_quotes, first_only);
    if (level == CF_SCAN_SSE2) return cf_count_records_sse2(p, n, delimiter, quote, in_quotes, first_only);
#endif
    return cf_count_records_portable(p, n, delimiter, quote, in_quotes, first_only);
}

cf_record_count cf_count_records(const unsigned char *p, size_t n, unsigned char delimiter, unsigned char quote, int in_quotes,
                                 int first_only) {
    return cf_count_records_at(CF_SCAN_AVX2, p, n, delimiter, quote, in_quotes, first_only);
}

size_t cf_field_ends_at(int level, const unsigned char *p, size_t n, unsigned char delimiter, unsigned char quote, size_t limit,
                        uint32_t *ends, int *in_quotes, size_t *record_count) {
    const int best = cf_scan_best_level();
    if (level > best) level = best;
#if defined(__x86_64__)
    if (level >= CF_SCAN_AVX2) return cf_field_ends_avx2(p, n, delimiter, quote, limit, ends, in_quotes, record_count);
    if (level == CF_SCAN_SSE2) return cf_field_ends_sse2(p, n, delimiter, quote, limit, ends, in_quotes, record_count);
#endif
    return cf_field_ends_portable(p, n, delimiter, quote, limit, ends, in_quotes, record_count);
}

size_t cf_field_ends(const unsigned char *p, size_t n, unsigned char delimiter, unsigned char quote, size_t limit,
                     uint32_t *ends, int *in_quotes, size_t *record_count) {
    return cf_field_ends_at(CF_SCAN_AVX2, p, n, delimiter, quote, limit, ends, in_quotes, record_count);
}
