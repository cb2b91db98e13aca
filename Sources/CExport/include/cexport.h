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

/* An aligned table's layout, for cx_table_lines. */
typedef struct {
    /* Each column's width in display cells, as sampled; a column past them is as wide as
       its own cell, at least 1 and at most `limit`. */
    const int32_t *widths;
    size_t width_count;
    /* The input columns written, in order (a column a record lacks is an empty cell);
       NULL writes every cell of each record. */
    const int32_t *columns;
    size_t column_count;
    int32_t limit;
    /* A record with a cell wider than this is left to the caller, which cuts it (0: none
       is cut). */
    int32_t maximum_width;
    unsigned char delimiter, quote;
    /* wcwidth of every code point below 0x10000 (cx_fill_widths), as the screen measures. */
    const int8_t *narrow_widths;
} cx_table_layout;

/* Fills table[0..0x10000) with wcwidth of each code point, in the current locale. */
void cx_fill_widths(int8_t *table);

/* True when cell p[0..n) reads as a number (CellValue.isNumber: right-aligned). */
int cx_is_number(const unsigned char *p, size_t n);

/* Writes cell p[0..n) as the screen shows it (controls as symbols) into out, which holds
   3 * n + 16 bytes, and adds its display width to *width; returns the bytes written, or
   -1 when the screen lays it out otherwise than character by character (a character of
   no width, invalid UTF-8). narrow_widths as in cx_table_layout. */
long cx_table_shown(const unsigned char *p, size_t n, const int8_t *narrow_widths, unsigned char *out, long *width);

/* Writes a row of `count` cells (cell i is bytes[ends[i-1]..ends[i]), from 0 for the
   first) as one line of the table, as cx_table_lines lays out a record (a header row's
   numbers not to the right); returns its length, or -1 when a cell is left to the caller
   (see cx_table_lines). out holds 4 * ends[count-1] + the widths + 19 * count + 20 bytes. */
long cx_table_row(const cx_table_layout *layout, const unsigned char *bytes, const intptr_t *ends, size_t count, int is_header,
                  unsigned char *out);

/* Where cx_table_lines got to. */
typedef struct {
    size_t at;          /* input consumed: whole records */
    size_t written;     /* bytes written to out */
    size_t records;     /* records written */
    size_t need;        /* CX_TABLE_ROOM: the room the next record needs */
    size_t record_end;  /* CX_TABLE_ASIDE: where the record left to the caller ends */
} cx_table_progress;

enum { CX_TABLE_END = 0, CX_TABLE_ROOM = 1, CX_TABLE_ASIDE = 2 };

/* Writes the records of p[progress->at..n) (well quoted, split as WellQuotedSplitter
   splits them) as lines of an aligned data table into out[progress->written..room),
   exactly as OutputWriter.appendTableRow writes them: cells padded to their column,
   numbers to the right, two spaces between, no padding at a line's end, controls as the
   screen's symbols. Stops at the end (CX_TABLE_END), before a record that needs more
   room than is left (CX_TABLE_ROOM, `need`), or before a record the caller writes itself
   (CX_TABLE_ASIDE): a character of no width or invalid UTF-8 (the screen shows it as a
   placeholder, by grapheme cluster), a cell to cut, more cells than `field_capacity`.
   `fields` is room for 3 * field_capacity numbers. */
int cx_table_lines(const cx_table_layout *layout, const unsigned char *p, size_t n, unsigned char *out, size_t room,
                   intptr_t *fields, size_t field_capacity, cx_table_progress *progress);

#endif
