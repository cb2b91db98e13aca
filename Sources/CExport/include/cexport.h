#ifndef CSVFREEZE_CEXPORT_H
#define CSVFREEZE_CEXPORT_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Copies up to `length` bytes of `input` from `*offset` to `output` inside the kernel:
   copy_file_range(2), else sendfile(2). Returns the bytes copied (advancing `*offset`),
   0 at the input's end, or -1 with errno set (EINVAL, EXDEV, ENOSYS, EBADF: the caller
   copies through a buffer instead). */
ssize_t cx_copy_span(int input, int64_t *offset, int output, size_t length);

/* Writes p[0..n) into `out` as the inside of a JSON string (no quotes around it) and
   returns the bytes written; `out` holds at least 6 * n bytes (a control byte's escape
   is six). Printable ASCII other than the quote and the backslash is copied 16 bytes a
   step (SSE2); the quote, the backslash, line feed, carriage return and tab get their
   two-byte escapes, other controls the six-byte one (backslash, u, four hex digits);
   valid UTF-8 is copied as it is, and each maximal invalid subpart becomes one U+FFFD
   (EF BF BD), as Swift's String(decoding:as:) reads it. */
size_t cx_json_escape(const unsigned char *p, size_t n, unsigned char *out);

/* Writes a record, or a piece of one, as a JSON object's members into `out` and returns
   the bytes written. Cell i is bytes[ends[i-1]..ends[i]) (from 0 for the first); the
   first cell continues the previous piece's last string when `continues_previous` (no
   key, no opening `{`), the last goes on in the next piece when `continues_in_next` (no
   closing quote, no `}` and line feed). Other cells are keyed by the key of their
   column, counted from `column` (the cells written before this piece): key k is
   keys[key_ends[k-1]..key_ends[k]), already a JSON string followed by its colon. `out`
   holds at least 3 + 4 * count + 6 * ends[count-1] + the keys' bytes. */
size_t cx_json_object_members(const unsigned char *bytes, const intptr_t *ends, size_t count,
                              const unsigned char *keys, const intptr_t *key_ends, size_t column,
                              int continues_previous, int continues_in_next, unsigned char *out);

#endif
