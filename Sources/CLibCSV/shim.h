#ifndef CSVFREEZE_CLIBCSV_SHIM_H
#define CSVFREEZE_CLIBCSV_SHIM_H
#define _XOPEN_SOURCE 700
#include <stddef.h>
#include <wchar.h>
#include <csv.h>

/* Returning 0 for every byte makes libcsv trim nothing around unquoted fields. */
static inline int cf_csv_never_space(unsigned char c) { (void)c; return 0; }

/* Display width of one Unicode scalar under the current locale (-1: not printable).
   Declared here because the C library's wide-character widths are not otherwise
   visible to Swift on every platform. */
static inline int cf_wcwidth(unsigned int scalar) { return wcwidth((wchar_t)scalar); }

#endif
