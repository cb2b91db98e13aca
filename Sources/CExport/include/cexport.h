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

/* The length of the leading run of p[0..n) that JSON takes as it is: printable ASCII
   other than the quote and the backslash (16 bytes a step with SSE2). */
size_t cx_json_plain_prefix(const unsigned char *p, size_t n);

#endif
