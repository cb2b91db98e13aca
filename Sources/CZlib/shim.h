#ifndef CSVFREEZE_CZLIB_SHIM_H
#define CSVFREEZE_CZLIB_SHIM_H

#include <zlib.h>

/* inflateInit2 is a macro (it passes the header's version and struct size): Swift cannot
 * call it, so it is wrapped here. windowBits: -15 raw deflate, 31 gzip, 47 zlib or gzip. */
static inline int csvfreeze_inflate_init2(z_stream *stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}

/* deflateInit2 is a macro for the same reason: windowBits 31 writes gzip. */
static inline int csvfreeze_deflate_init2(z_stream *stream, int level, int window_bits) {
    return deflateInit2(stream, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
}

#endif
