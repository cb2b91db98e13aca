#define _GNU_SOURCE
#include "cexport.h"
#include "utf8.h"
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/sendfile.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

ssize_t cx_copy_span(int input, int64_t *offset, int output, size_t length) {
    loff_t from = (loff_t)*offset;
    ssize_t done = copy_file_range(input, &from, output, NULL, length, 0);
    if (done < 0 && (errno == EINVAL || errno == EXDEV || errno == ENOSYS || errno == EBADF || errno == EOPNOTSUPP)) {
        /* Not between these two (a pipe, a terminal, another file system on an old kernel). */
        off_t position = (off_t)*offset;
        done = sendfile(output, input, &position, length);
        if (done > 0) *offset = (int64_t)position;
        return done;
    }
    if (done > 0) *offset = (int64_t)from;
    return done;
}

/* The bytes a JSON string cannot hold as they are: controls, the quote, the backslash,
   and every byte of 0x80 or more (checked as UTF-8 on the slow path). */
static const unsigned char json_special[256] = {
    [0 ... 0x1F] = 1, ['"'] = 1, ['\\'] = 1, [0x80 ... 0xFF] = 1,
};

/* Escapes p[i..to) into out and returns the new end of out. p[0..total) may be read
   (total >= to): blocks of 16 are loaded past the cell's end while they stay inside it,
   so a record's short cells are scanned 16 bytes a step too; the cell's end stops the
   block. Each block is stored whole and only its plain prefix counted, which the
   caller's 6-bytes-per-input-byte room always holds (16 input bytes remain). */
static inline unsigned char *escape_cell(const unsigned char *p, size_t i, size_t to, size_t total,
                                         unsigned char *out) {
    static const char hex[] = "0123456789abcdef";
    while (i < to) {
#if defined(__SSE2__)
        if (i + 16 <= total) {
            const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
            __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
            /* Signed compare: bytes >= 0x80 are negative, so "v < 0x20" also catches them. */
            __m128i bad = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                       _mm_cmplt_epi8(v, space));
            unsigned mask = (unsigned)_mm_movemask_epi8(bad);
            size_t left = to - i;
            if (left < 16) mask |= 1u << left;
            _mm_storeu_si128((__m128i *)out, v);
            if (mask == 0) {
                out += 16;
                i += 16;
                continue;
            }
            unsigned plain = (unsigned)__builtin_ctz(mask);
            out += plain;
            i += plain;
            if (i >= to) break;
        } else
#endif
        {
            while (i < to && !json_special[p[i]]) *out++ = p[i++];
            if (i >= to) break;
        }
        unsigned char c = p[i];
        if (c < 0x80) {
            *out++ = '\\';
            switch (c) {
            case '"': *out++ = '"'; break;
            case '\\': *out++ = '\\'; break;
            case '\n': *out++ = 'n'; break;
            case '\r': *out++ = 'r'; break;
            case '\t': *out++ = 't'; break;
            default:
                *out++ = 'u'; *out++ = '0'; *out++ = '0';
                *out++ = (unsigned char)hex[c >> 4]; *out++ = (unsigned char)hex[c & 0xF];
            }
            i += 1;
            continue;
        }
        long length = utf8_sequence(p + i, to - i);
        if (length > 0) {
            for (long k = 0; k < length; k++) *out++ = p[i + (size_t)k];
            i += (size_t)length;
        } else {
            *out++ = 0xEF; *out++ = 0xBF; *out++ = 0xBD;
            i += (size_t)(-length);
        }
    }
    return out;
}

size_t cx_json_escape(const unsigned char *p, size_t n, unsigned char *out) {
    return (size_t)(escape_cell(p, 0, n, n, out) - out);
}

static inline unsigned char *put_bytes(unsigned char *out, const unsigned char *from, size_t n) {
    if (n > 16) {
        memcpy(out, from, n);
        return out + n;
    }
    for (size_t i = 0; i < n; i++) out[i] = from[i];
    return out + n;
}

size_t cx_json_object_members(const unsigned char *bytes, const intptr_t *ends, size_t count,
                              const unsigned char *keys, const intptr_t *key_ends, size_t column,
                              int continues_previous, int continues_in_next, unsigned char *out) {
    unsigned char *start = out;
    if (!continues_previous) *out++ = '{';
    size_t from = 0, total = count == 0 ? 0 : (size_t)ends[count - 1];
    for (size_t index = 0; index < count; index++) {
        size_t to = (size_t)ends[index];
        if (!(index == 0 && continues_previous)) {
            if (column > 0) *out++ = ',';
            size_t key_start = column == 0 ? 0 : (size_t)key_ends[column - 1];
            out = put_bytes(out, keys + key_start, (size_t)key_ends[column] - key_start);
            column += 1;
            *out++ = '"';
        }
        out = escape_cell(bytes, from, to, total, out);
        if (index + 1 < count || !continues_in_next) *out++ = '"';
        from = to;
    }
    if (!continues_in_next) {
        *out++ = '}';
        *out++ = '\n';
    }
    return (size_t)(out - start);
}
