#ifndef CSVFREEZE_CSQLITE_SHIM_H
#define CSVFREEZE_CSQLITE_SHIM_H
/* SQLite for the SQL module. Swift cannot import SQLite's destructor macros
   (SQLITE_TRANSIENT is a cast of -1) nor call its variadic configuration functions: the
   prefixed helpers below stand in for them. The two structs are the "subclasses" of
   sqlite3_vtab and sqlite3_vtab_cursor that SQLite's virtual-table interface expects:
   SQLite owns the memory (sqlite3_malloc), and `owner` points at the Swift object. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sqlite3.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef struct cf_sql_table {
    sqlite3_vtab base;
    void *owner;
} cf_sql_table;

typedef struct cf_sql_cursor {
    sqlite3_vtab_cursor base;
    void *owner;
} cf_sql_cursor;

/* Text SQLite copies at once: the bytes behind it are reused for the next row. */
static inline void cf_sql_result_text(sqlite3_context *context, const void *bytes, int length) {
    sqlite3_result_text(context, (const char *)bytes, length, SQLITE_TRANSIENT);
}

/* The virtual tables read files and have no side effects: usable from views and triggers. */
static inline int cf_sql_vtab_innocuous(sqlite3 *db) { return sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS); }

/* A copy of `text` in memory SQLite frees (error messages, idxStr). */
static inline char *cf_sql_strdup(const char *text) { return sqlite3_mprintf("%s", text); }

/* Shuts what a query could write or load: defensive mode (SQL cannot corrupt a database
   file), no extensions (load_extension() nor the C call), no triggers, no views, no FTS3
   tokenizer pointers, an untrusted schema. Returns SQLITE_OK when every setting took. */
static inline int cf_sql_lock_down(sqlite3 *db) {
    int status = SQLITE_OK;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0) != SQLITE_OK) status = SQLITE_ERROR;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)0) != SQLITE_OK) status = SQLITE_ERROR;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)0) != SQLITE_OK) status = SQLITE_ERROR;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, (int *)0) != SQLITE_OK) status = SQLITE_ERROR;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, (int *)0) != SQLITE_OK) status = SQLITE_ERROR;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0) != SQLITE_OK) status = SQLITE_ERROR;
    return status;
}

/* The offset of the first place in h[0..n) where needle[0..m) occurs, or n. With
   `caseless`, ASCII letters are compared without case (the needle is given in lower
   case): SQLite's LIKE folds ASCII only, so this finds a superset of its matches.
   Candidates are found 16 bytes a step with SSE2 by the needle's first and last bytes
   (each compared at its own distance), then confirmed. */
static inline size_t cf_sql_find(const unsigned char *h, size_t n, const unsigned char *needle, size_t m, int caseless) {
    if (m == 0) return 0;
    if (m > n) return n;
    const size_t last = n - m;
    const unsigned char a = needle[0], b = needle[m - 1];
    const unsigned char fa = caseless && a >= 'a' && a <= 'z' ? 0x20 : 0;
    const unsigned char fb = caseless && b >= 'a' && b <= 'z' ? 0x20 : 0;
    size_t i = 0;
#define CF_SQL_CONFIRM(at) do { \
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
            CF_SQL_CONFIRM(at);
        }
    }

#endif
    for (; i <= last; i++) {
        if ((unsigned char)(h[i] | fa) == a && (unsigned char)(h[i + m - 1] | fb) == b) CF_SQL_CONFIRM(i);
    }
#undef CF_SQL_CONFIRM
    return n;
}


/* Record ends in well-quoted CSV (no quote inside an unquoted field, none after a closing
   one, every quote closed): a quote there opens or closes a quoted field or is half of a
   doubled one, so a byte is inside quotes exactly when an odd number of quotes come before
   it since a record's start, and every LF or CR outside quotes ends a record (CRLF once).
   This finds them 64 bytes a step with SSE2: masks of quotes, LFs and CRs, the inside-quotes
   mask as a prefix XOR of the quote mask. The caller's range starts outside quotes (or
   inside, as `in_quotes` says) and never between the CR and LF of a CRLF. */
typedef struct cf_sql_records {
    size_t records;    /* records ended in the range */
    size_t last_end;   /* offset just past the last of them (0: none) */
    int in_quotes;     /* whether the range ends inside quotes */
} cf_sql_records;

static inline uint64_t cf_sql_prefix_xor(uint64_t m) {
    m ^= m << 1; m ^= m << 2; m ^= m << 4; m ^= m << 8; m ^= m << 16; m ^= m << 32;
    return m;
}

#if defined(__SSE2__)
static inline uint64_t cf_sql_mask64(const unsigned char *p, __m128i v) {
    uint64_t m0 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p), v));
    uint64_t m1 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 16)), v));
    uint64_t m2 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 32)), v));
    uint64_t m3 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 48)), v));
    return m0 | m1 << 16 | m2 << 32 | m3 << 48;
}
#endif

/* Counts the records that end in p[0..n). With `first_only`, stops at the first one. */
static inline cf_sql_records cf_sql_count_records(const unsigned char *p, size_t n, unsigned char quote, int in_quotes,
                                                  int first_only) {
    cf_sql_records result = {0, 0, in_quotes};
    size_t i = 0;
    int inside = in_quotes;
#if defined(__SSE2__)
    const __m128i vq = _mm_set1_epi8((char)quote), vlf = _mm_set1_epi8('\n'), vcr = _mm_set1_epi8('\r');
    uint64_t carry = inside ? ~(uint64_t)0 : 0;
    for (; i + 64 <= n; i += 64) {
        uint64_t q = cf_sql_mask64(p + i, vq), lf = cf_sql_mask64(p + i, vlf), cr = cf_sql_mask64(p + i, vcr);
        uint64_t within = cf_sql_prefix_xor(q) ^ carry;
        carry = (uint64_t)((int64_t)within >> 63);
        if ((lf | cr) == 0) continue;
        uint64_t next_lf = i + 64 < n && p[i + 64] == '\n' ? (uint64_t)1 << 63 : 0;
        uint64_t ends = (lf | (cr & ~(lf >> 1) & ~next_lf)) & ~within;
        if (!ends) continue;
        if (first_only) {
            unsigned at = (unsigned)__builtin_ctzll(ends);
            result.records = 1;
            result.last_end = i + at + 1;
            result.in_quotes = 0;
            return result;
        }
        result.records += (size_t)__builtin_popcountll(ends);
        result.last_end = i + 64 - (size_t)__builtin_clzll(ends);
    }
    inside = carry != 0;
#endif
    for (; i < n; i++) {
        unsigned char c = p[i];
        if (c == quote) { inside = !inside; continue; }
        if (inside || (c != '\n' && c != '\r')) continue;
        if (c == '\r' && i + 1 < n && p[i + 1] == '\n') continue;   /* the LF ends it */
        result.records += 1;
        result.last_end = i + 1;
        if (first_only) break;
    }
    result.in_quotes = inside;
    return result;
}

/* The ends of the fields in p[0..n) of well-quoted CSV that starts at a record boundary:
   the delimiters outside quotes that end a record's first `limit` fields, and every record
   end outside quotes (an LF or a lone CR; for a CRLF, the LF), as offsets, with bit 31 set
   for a record end. `ends` has room for n + 1. Returns how many, and the record ends among
   them; *in_quotes says whether the bytes ended inside quotes (then they were not as the
   index vouched). 64 bytes a step with SSE2, as cf_sql_count_records; past a record's
   `limit` fields its delimiters are skipped 64 at a time. */
static inline size_t cf_sql_field_ends(const unsigned char *p, size_t n, unsigned char delimiter, unsigned char quote,
                                       size_t limit, uint32_t *ends, int *in_quotes, size_t *record_count) {
    size_t count = 0, i = 0, record_ends = 0, column = 0;
    int inside = 0;
#if defined(__SSE2__)
    const __m128i vq = _mm_set1_epi8((char)quote), vd = _mm_set1_epi8((char)delimiter);
    const __m128i vlf = _mm_set1_epi8('\n'), vcr = _mm_set1_epi8('\r');
    uint64_t carry = 0;
    for (; i + 64 <= n; i += 64) {
        uint64_t q = cf_sql_mask64(p + i, vq), d = cf_sql_mask64(p + i, vd);
        uint64_t lf = cf_sql_mask64(p + i, vlf), cr = cf_sql_mask64(p + i, vcr);
        uint64_t within = cf_sql_prefix_xor(q) ^ carry;
        carry = (uint64_t)((int64_t)within >> 63);
        uint64_t next_lf = i + 64 < n && p[i + 64] == '\n' ? (uint64_t)1 << 63 : 0;
        uint64_t records = (lf | (cr & ~(lf >> 1) & ~next_lf)) & ~within;
        uint64_t all = (d & ~within) | records;
        record_ends += (size_t)__builtin_popcountll(records);
        if (column >= limit) {
            /* Still past the wanted fields: on to the next record end. */
            all = records ? all & ~((records & -records) - 1) : 0;
        }
        while (all) {
            unsigned at = (unsigned)__builtin_ctzll(all);
            uint64_t bit = (uint64_t)1 << at;
            all &= all - 1;
            if (records & bit) {
                ends[count++] = (uint32_t)(i + at) | (uint32_t)1 << 31;
                column = 0;
                continue;
            }
            ends[count++] = (uint32_t)(i + at);
            if (++column >= limit) {
                uint64_t later = records & all;
                all = later ? all & ~((later & -later) - 1) : 0;
            }
        }
    }
    inside = carry != 0;
#endif
    for (; i < n; i++) {
        unsigned char c = p[i];
        if (c == quote) { inside = !inside; continue; }
        if (inside) continue;
        if (c == delimiter) {
            if (column < limit) ends[count++] = (uint32_t)i;
            column++;
        } else if (c == '\n' || c == '\r') {
            if (c == '\r' && i + 1 < n && p[i + 1] == '\n') continue;
            ends[count++] = (uint32_t)i | (uint32_t)1 << 31;
            record_ends += 1;
            column = 0;
        }
    }
    *in_quotes = inside;
    *record_count = record_ends;
    return count;
}

#endif
