/* An aligned table's lines, laid out as OutputWriter lays out a row (the tests hold the
   two together): cells padded to their column by display width, numbers to the right,
   controls as the screen's symbols. */
#define _GNU_SOURCE   /* wcwidth */
#include "cexport.h"
#include "utf8.h"
#include "CFieldScan.h"
#include <string.h>
#include <wchar.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

void cx_fill_widths(int8_t *table) {
    for (unsigned code = 0; code < 0x10000; code++) {
        int width = (code >= 0x20 && code < 0x7F) ? 1 : wcwidth((wchar_t)code);
        table[code] = (int8_t)(width < -1 ? -1 : width > 2 ? 2 : width);
    }
}

static inline int is_digit(unsigned char c) { return (unsigned char)(c - '0') < 10; }

/* CellValue.number's reading, reduced to whether there is one. */
static inline int is_number(const unsigned char *p, size_t n) {
    if (n == 0 || (p[0] >= 0x41 && p[0] < 0x80)) return 0;
    size_t start = 0, end = n;
    while (start < end && p[start] == ' ') start++;
    while (end > start && p[end - 1] == ' ') end--;
    if (start >= end) return 0;
    unsigned char lead = p[start];
    if (!(is_digit(lead) || lead == '-' || lead == '+' || lead == '.' || lead == '$' || lead == 0xE2 || lead == 0xC2)) return 0;
    if (p[end - 1] == '%') end--;
    size_t i = start;
    int signed_ = 0;
    if (i < end && (p[i] == '-' || p[i] == '+')) { signed_ = 1; i++; }
    size_t currency = 0;
    if (i < end) {
        if (p[i] == '$') currency = 1;
        else if (p[i] == 0xE2) currency = (i + 3 <= end && p[i + 1] == 0x82 && p[i + 2] == 0xAC) ? 3 : 0;
        else if (p[i] == 0xC2) currency = (i + 2 <= end && (p[i + 1] == 0xA3 || p[i + 1] == 0xA5)) ? 2 : 0;
    }
    if (currency > 0) {
        i += currency;
        if (!signed_ && i < end && (p[i] == '-' || p[i] == '+')) i++;
    }
    long integer_count = 0, first_group = 0, since_comma = -1;
    unsigned char first_digit = i < end ? p[i] : 0;
    /* The digits before any comma, the common case, in a tight loop. */
    size_t digits = i;
    while (digits < end && is_digit(p[digits])) digits++;
    integer_count = first_group = (long)(digits - i);
    i = digits;
    while (i < end) {
        unsigned char c = p[i];
        if (is_digit(c)) {
            if (integer_count == 0) first_digit = c;
            integer_count++;
            if (since_comma >= 0) since_comma++; else first_group++;
        } else if (c == ',') {
            if (!(integer_count > 0 && first_group <= 3 && (since_comma == -1 || since_comma == 3))) return 0;
            since_comma = 0;
        } else {
            break;
        }
        i++;
    }
    if (since_comma >= 0 && since_comma != 3) return 0;
    if (integer_count > 1 && first_digit == '0') return 0;
    size_t fraction = 0;
    if (i < end && p[i] == '.') {
        i++;
        while (i < end && is_digit(p[i])) { i++; fraction++; }
    }
    if (integer_count + (long)fraction == 0) return 0;
    if (i < end && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        if (i < end && (p[i] == '+' || p[i] == '-')) i++;
        size_t exponent_start = i;
        while (i < end && is_digit(p[i])) i++;
        if (i == exponent_start) return 0;
    }
    return i == end;
}

int cx_is_number(const unsigned char *p, size_t n) { return is_number(p, n); }

/* The first b in p[i..n), or n. */
static inline size_t find_byte(const unsigned char *p, size_t n, size_t i, unsigned char b) {
#if defined(__SSE2__)
    const __m128i x = _mm_set1_epi8((char)b);
    for (; i + 16 <= n; i += 16) {
        unsigned mask = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + i)), x));
        if (mask) return i + (size_t)__builtin_ctz(mask);
    }
#endif
    for (; i < n; i++) if (p[i] == b) return i;
    return n;
}

/* Where the record at p[i..n) ends as WellQuotedSplitter reads it (the next one starts). */
static size_t record_end(const unsigned char *p, size_t n, size_t i, unsigned char delimiter, unsigned char quote) {
    if (p[i] == '\n' || p[i] == '\r') return i + ((p[i] == '\r' && i + 1 < n && p[i + 1] == '\n') ? 2 : 1);
    for (;;) {
        if (i < n && p[i] == quote) {
            i++;
            for (;;) {
                i = find_byte(p, n, i, quote) + 1;
                if (i < n && p[i] == quote) { i++; continue; }
                break;
            }
            if (i > n) i = n;
        } else {
            i += cf_find_special(p + i, n - i, delimiter, quote);
        }
        if (i >= n) return n;
        unsigned char byte = p[i++];
        if (byte == delimiter) {
            if (i >= n) return n;
            continue;
        }
        if (byte == '\r' && i < n && p[i] == '\n') i++;
        return i;
    }
}

/* Splits the record at p[i..n) into fields[3k] start, [3k+1] end, [3k+2] 1 when quoted
   with doubled quotes inside; returns where the next record starts, and the field count
   in *count (field_capacity + 1 when there were more). WellQuotedSplitter's reading. */
static size_t split_record(const unsigned char *p, size_t n, size_t i, unsigned char delimiter, unsigned char quote,
                           intptr_t *fields, size_t capacity, size_t *count) {
    size_t k = 0;
    if (p[i] == '\n' || p[i] == '\r') {
        fields[0] = (intptr_t)i; fields[1] = (intptr_t)i; fields[2] = 0;
        *count = 1;
        return i + ((p[i] == '\r' && i + 1 < n && p[i + 1] == '\n') ? 2 : 1);
    }
    for (;;) {
        size_t start, end;
        int doubled = 0;
        if (i < n && p[i] == quote) {
            i++;
            start = i;
            for (;;) {
                size_t found = find_byte(p, n, i, quote);
                if (found >= n) { i = n; end = n; break; }
                i = found + 1;
                if (i < n && p[i] == quote) { doubled = 1; i++; continue; }
                end = found;
                break;
            }
        } else {
            start = i;
            i += cf_find_special(p + i, n - i, delimiter, quote);
            end = i;
        }
        if (k < capacity) {
            fields[3 * k] = (intptr_t)start; fields[3 * k + 1] = (intptr_t)end; fields[3 * k + 2] = doubled;
        }
        k++;
        if (i >= n) break;
        unsigned char byte = p[i++];
        if (byte == delimiter) {
            if (i >= n) {
                if (k < capacity) { fields[3 * k] = (intptr_t)n; fields[3 * k + 1] = (intptr_t)n; fields[3 * k + 2] = 0; }
                k++;
                break;
            }
            continue;
        }
        if (byte == '\r' && i < n && p[i] == '\n') i++;
        break;
    }
    *count = k > capacity ? capacity + 1 : k;
    return i;
}

/* Writes the character at p[i] (a control, or the first byte of a UTF-8 sequence that
   ends by e) as the screen shows it; returns the new end of out, or NULL when the screen
   lays it out otherwise than on its own (invalid UTF-8, no width). Adds its bytes to *i
   and its width to *w. */
static inline __attribute__((always_inline)) unsigned char *put_special(const unsigned char *p, size_t *i, size_t e,
                                                                        const int8_t *narrow, unsigned char *out, long *w) {
    unsigned char c = p[*i];
    if (c < 0x80) {
        /* A control byte: its symbol, 1 cell. */
        out[0] = 0xE2;
        switch (c) {
        case '\n': out[1] = 0x86; out[2] = 0xB5; break;   /* ↵ */
        case '\t': out[1] = 0x86; out[2] = 0x92; break;   /* → */
        case 0x7F: out[1] = 0x90; out[2] = 0xA1; break;   /* ␡ */
        default: out[1] = 0x90; out[2] = (unsigned char)(0x80 + c);   /* ␀…␟, ␍ among them */
        }
        *i += 1;
        *w += 1;
        return out + 3;
    }
    long length = utf8_sequence(p + *i, e - *i);
    if (length <= 0) return NULL;
    const unsigned char *s = p + *i;
    unsigned code;
    if (length == 2) code = ((unsigned)(c & 0x1F) << 6) | (s[1] & 0x3F);
    else if (length == 3) code = ((unsigned)(c & 0x0F) << 12) | ((unsigned)(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
    else code = ((unsigned)(c & 0x07) << 18) | ((unsigned)(s[1] & 0x3F) << 12) | ((unsigned)(s[2] & 0x3F) << 6) | (s[3] & 0x3F);
    if (code <= 0x9F) {
        out[0] = 0xC2; out[1] = 0xBF;   /* ¿ for a C1 control */
        *i += 2;
        *w += 1;
        return out + 2;
    }
    int cells = code < 0x10000 ? narrow[code] : wcwidth((wchar_t)code);
    /* No width: a mark, a joiner, a format character, unassigned. */
    if (cells <= 0) return NULL;
    out[0] = s[0]; out[1] = s[1];
    if (length > 2) out[2] = s[2];
    if (length > 3) out[3] = s[3];
    *i += (size_t)length;
    *w += cells;
    return out + length;
}

/* Writes field p[i..e) as the screen shows it (quotes collapsed when `doubled`), adds its
   display width to *width; returns the new end of out (3 * (e - i) + 16 bytes at most are
   written), or NULL when the screen lays it out otherwise (see put_special). p[0..n) may
   be read: 16-byte blocks past the field while they stay in it. */
static inline unsigned char *put_shown(const unsigned char *p, size_t i, size_t e, size_t n, int doubled, unsigned char quote,
                                       const int8_t *narrow, unsigned char *out, long *width) {
    long w = 0;
    while (i < e) {
#if defined(__SSE2__)
        if (i + 16 <= n) {
            __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
            /* Signed: bytes of 0x80 and more are negative, caught with the controls. */
            __m128i bad = _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)), _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7F)));
            if (doubled) bad = _mm_or_si128(bad, _mm_cmpeq_epi8(v, _mm_set1_epi8((char)quote)));
            unsigned mask = (unsigned)_mm_movemask_epi8(bad);
            size_t left = e - i;
            if (left < 16) mask |= 1u << left;
            _mm_storeu_si128((__m128i *)out, v);
            if (mask == 0) { out += 16; i += 16; w += 16; continue; }
            unsigned plain = (unsigned)__builtin_ctz(mask);
            out += plain; i += plain; w += plain;
            if (i >= e) break;
        }
#endif
        unsigned char c = p[i];
        if (doubled && c == quote) {
            if (c < 0x20 || c >= 0x7F) return NULL;
            *out++ = c; w++;
            i += (i + 1 < e && p[i + 1] == quote) ? 2 : 1;
        } else if (c >= 0x20 && c < 0x7F) {
            *out++ = c; w++; i++;
        } else {
            out = put_special(p, &i, e, narrow, out, &w);
            if (out == NULL) return NULL;
        }
    }
    *width += w;
    return out;
}

long cx_table_shown(const unsigned char *p, size_t n, const int8_t *narrow_widths, unsigned char *out, long *width) {
    unsigned char *end = put_shown(p, 0, n, n, 0, '"', narrow_widths, out, width);
    return end == NULL ? -1 : (long)(end - out);
}

/* Writes count spaces at out; the 16 bytes after them may be overwritten. Most padding is
   a block or two, stored without a call (a loop of stores became a call to memset). */
static inline unsigned char *put_spaces(unsigned char *out, long count) {
#if defined(__SSE2__)
    const __m128i spaces = _mm_set1_epi8(' ');
    _mm_storeu_si128((__m128i *)out, spaces);
    if (count > 16) {
        _mm_storeu_si128((__m128i *)(out + 16), spaces);
        if (count > 32) memset(out + 32, ' ', (size_t)(count - 32));
    }
    return out + count;
#else
    memset(out, ' ', (size_t)count);
    return out + count;
#endif
}

/* Pads the cell written at start..o (display width `width`) to its column: numbers to the
   right. Returns the new end of out; moves *content_end past the cell when it has text. */
static inline unsigned char *place_cell(const cx_table_layout *layout, size_t cell, unsigned char *start, unsigned char *o,
                                        long width, int is_header, unsigned char **content_end) {
    long column_width = cell < layout->width_count ? layout->widths[cell]
        : (width < 1 ? 1 : width > layout->limit ? layout->limit : width);
    long padding = column_width > width ? column_width - width : 0;
    size_t length = (size_t)(o - start);
    if (length > 0 && padding > 0 && !is_header && (start[0] < 0x41 || start[0] >= 0x80) && is_number(start, length)) {
#if defined(__SSE2__)
        if (length <= 16) {
            /* Held in a register while the spaces go before it (16 bytes of room follow). */
            __m128i number = _mm_loadu_si128((const __m128i *)start);
            put_spaces(start, padding);
            _mm_storeu_si128((__m128i *)(start + padding), number);
        } else
#endif
        {
            memmove(start + padding, start, length);
            memset(start, ' ', (size_t)padding);   /* not put_spaces: its blocks would overwrite the number */
        }
        o += padding;
        *content_end = o;
        return o;
    }
    if (length > 0) *content_end = o;
    return put_spaces(o, padding);
}

/* Lays out every cell of the record at p[at..n) as one line at out, in one pass over its
   bytes (split and shown together). Returns the line's length, -1 when it would pass
   out_end, -2 when the record is left to the caller; *next is where the next one starts. */
static long lay_out_record(const cx_table_layout *layout, const unsigned char *p, size_t n, size_t at,
                           unsigned char *out, unsigned char *out_end, size_t *next) {
    const unsigned char delimiter = layout->delimiter, quote = layout->quote;
    size_t i = at;
    if (p[i] == '\n' || p[i] == '\r') {
        /* A blank line: one empty cell, no text. */
        if (out_end - out < 1) return -1;
        *next = i + ((p[i] == '\r' && i + 1 < n && p[i + 1] == '\n') ? 2 : 1);
        out[0] = '\n';
        return 1;
    }
    unsigned char *o = out, *content_end = out;
    size_t cell = 0;
    for (;; cell++) {
        if (cell > 0) {
            if (out_end - o < 2) return -1;
            *o++ = ' '; *o++ = ' ';
        }
        unsigned char *start = o;
        long width = 0;
        if (i < n && p[i] == quote) {
            /* Quoted: up to the closing quote, a doubled one written once, in one pass. */
            i++;
#if defined(__SSE2__)
            const __m128i q = _mm_set1_epi8((char)quote), space = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7F);
#endif
            for (;;) {
                if (out_end - o < 16) return -1;
#if defined(__SSE2__)
                if (i + 16 <= n) {
                    __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
                    unsigned quotes = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, q));
                    unsigned shown = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmplt_epi8(v, space), _mm_cmpeq_epi8(v, del)));
                    _mm_storeu_si128((__m128i *)o, v);
                    unsigned stop = quotes | shown;
                    if (stop == 0) { o += 16; i += 16; width += 16; continue; }
                    unsigned plain = (unsigned)__builtin_ctz(stop);
                    o += plain; i += plain; width += plain;
                    if (!((quotes >> plain) & 1)) {
                        o = put_special(p, &i, n, layout->narrow_widths, o, &width);
                        if (o == NULL) return -2;
                        continue;
                    }
                } else
#endif
                {
                    if (i >= n) break;   /* unclosed: the rest of the input */
                    unsigned char c = p[i];
                    if (c != quote) {
                        if (c >= 0x20 && c < 0x7F) {
                            *o++ = c; width++; i++;
                        } else {
                            o = put_special(p, &i, n, layout->narrow_widths, o, &width);
                            if (o == NULL) return -2;
                        }
                        continue;
                    }
                }
                /* A quote: doubled, it is one; else it closes the field. */
                if (i + 1 < n && p[i + 1] == quote) {
                    *o++ = quote; width++; i += 2;
                    continue;
                }
                i++;
                break;
            }
        } else {
#if defined(__SSE2__)
            const __m128i d = _mm_set1_epi8((char)delimiter), q = _mm_set1_epi8((char)quote);
            const __m128i lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
            const __m128i space = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7F);
#endif
            for (;;) {
                if (out_end - o < 16) return -1;
#if defined(__SSE2__)
                if (i + 16 <= n) {
                    __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
                    unsigned ends = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, d), _mm_cmpeq_epi8(v, q)),
                                                                             _mm_or_si128(_mm_cmpeq_epi8(v, lf), _mm_cmpeq_epi8(v, cr))));
                    /* Signed: bytes of 0x80 and more are negative, caught with the controls. */
                    unsigned shown = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmplt_epi8(v, space), _mm_cmpeq_epi8(v, del)));
                    _mm_storeu_si128((__m128i *)o, v);
                    unsigned stop = ends | shown;
                    if (stop == 0) { o += 16; i += 16; width += 16; continue; }
                    unsigned plain = (unsigned)__builtin_ctz(stop);
                    o += plain; i += plain; width += plain;
                    if ((ends >> plain) & 1) break;
                    o = put_special(p, &i, n, layout->narrow_widths, o, &width);
                    if (o == NULL) return -2;
                    continue;
                }
#endif
                if (i >= n) break;
                unsigned char c = p[i];
                if (c == delimiter || c == quote || c == '\n' || c == '\r') break;
                if (c >= 0x20 && c < 0x7F) {
                    *o++ = c; width++; i++;
                } else {
                    o = put_special(p, &i, n, layout->narrow_widths, o, &width);
                    if (o == NULL) return -2;
                }
            }
        }
        if (layout->maximum_width > 0 && width > layout->maximum_width) return -2;
        long most = cell < layout->width_count ? layout->widths[cell] : layout->limit;
        if (out_end - o < most + 18) return -1;
        o = place_cell(layout, cell, start, o, width, 0, &content_end);
        if (i >= n) break;
        unsigned char byte = p[i++];
        if (byte == delimiter) continue;   /* at the input's end: one empty cell more */
        if (byte == '\r' && i < n && p[i] == '\n') i++;
        break;
    }
    *content_end = '\n';
    *next = i;
    return (long)(content_end + 1 - out);
}

long cx_table_row(const cx_table_layout *layout, const unsigned char *bytes, const intptr_t *ends, size_t count, int is_header,
                  unsigned char *out) {
    size_t total = count == 0 ? 0 : (size_t)ends[count - 1];
    unsigned char *o = out, *content_end = out;
    for (size_t cell = 0; cell < (count == 0 ? 1 : count); cell++) {
        if (cell > 0) { *o++ = ' '; *o++ = ' '; }
        size_t from = cell == 0 ? 0 : (size_t)ends[cell - 1], to = cell < count ? (size_t)ends[cell] : 0;
        unsigned char *start = o;
        long width = 0;
        if (to > from) {
            o = put_shown(bytes, from, to, total, 0, '"', layout->narrow_widths, o, &width);
            if (o == NULL || (layout->maximum_width > 0 && width > layout->maximum_width)) return -1;
        }
        o = place_cell(layout, cell, start, o, width, is_header, &content_end);
    }
    *content_end = '\n';
    return (long)(content_end + 1 - out);
}

int cx_table_lines(const cx_table_layout *layout, const unsigned char *p, size_t n, unsigned char *out, size_t room,
                   intptr_t *fields, size_t field_capacity, cx_table_progress *progress) {
    const int32_t *widths = layout->widths;
    size_t width_count = layout->width_count;
    while (progress->at < n) {
        if (layout->columns == NULL) {
            size_t next = n;
            long length = lay_out_record(layout, p, n, progress->at, out + progress->written, out + room, &next);
            if (length == -1) {
                /* The chunk is full; a record larger than a whole chunk gets one twice as large. */
                progress->need = progress->written == 0 ? 2 * room : room;
                return CX_TABLE_ROOM;
            }
            if (length == -2) {
                progress->record_end = record_end(p, n, progress->at, layout->delimiter, layout->quote);
                return CX_TABLE_ASIDE;
            }
            progress->written += (size_t)length;
            progress->records += 1;
            progress->at = next;
            continue;
        }
        /* Chosen columns, in any order: the record is split first. */
        size_t count;
        size_t next = split_record(p, n, progress->at, layout->delimiter, layout->quote, fields, field_capacity, &count);
        if (count > field_capacity) {
            progress->record_end = next;
            return CX_TABLE_ASIDE;
        }
        size_t cells = layout->column_count;
        /* Each cell: 3 bytes out per byte in at most (a control's symbol), its column's
           padding, two spaces before it, 16 for a block stored whole. */
        size_t need = 1;
        for (size_t cell = 0; cell < cells; cell++) {
            size_t field = (size_t)layout->columns[cell];
            size_t length = field < count ? (size_t)(fields[3 * field + 1] - fields[3 * field]) : 0;
            size_t column_width = cell < width_count ? (size_t)widths[cell] : 1;
            need += 4 * length + column_width + 18;
        }
        if (room - progress->written < need) {
            progress->need = need;
            return CX_TABLE_ROOM;
        }
        unsigned char *line = out + progress->written, *o = line, *content_end = line;
        for (size_t cell = 0; cell < (cells == 0 ? 1 : cells); cell++) {
            if (cell > 0) { *o++ = ' '; *o++ = ' '; }
            /* No column chosen: one empty cell, as a row of none is written. */
            size_t field = cell < cells ? (size_t)layout->columns[cell] : SIZE_MAX;
            unsigned char *start = o;
            long width = 0;
            if (field < count && fields[3 * field + 1] > fields[3 * field]) {
                o = put_shown(p, (size_t)fields[3 * field], (size_t)fields[3 * field + 1], n, (int)fields[3 * field + 2],
                              layout->quote, layout->narrow_widths, o, &width);
                if (o == NULL || (layout->maximum_width > 0 && width > layout->maximum_width)) {
                    progress->record_end = next;
                    return CX_TABLE_ASIDE;
                }
            }
            o = place_cell(layout, cell, start, o, width, 0, &content_end);
        }
        *content_end = '\n';
        progress->written += (size_t)(content_end + 1 - line);
        progress->records += 1;
        progress->at = next;
    }
    return CX_TABLE_END;
}
