#define _GNU_SOURCE
#include "cexport.h"
#include <errno.h>
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

size_t cx_json_plain_prefix(const unsigned char *p, size_t n) {
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    const __m128i below = _mm_set1_epi8(0x1F);
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
        /* Signed compare: bytes >= 0x80 are negative, so "v <= 0x1F" also catches them. */
        __m128i bad = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                   _mm_cmplt_epi8(v, _mm_add_epi8(below, _mm_set1_epi8(1))));
        int mask = _mm_movemask_epi8(bad);
        if (mask != 0) return i + (size_t)__builtin_ctz((unsigned)mask);
    }
#endif
    for (; i < n; i++) {
        unsigned char c = p[i];
        if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') return i;
    }
    return n;
}
