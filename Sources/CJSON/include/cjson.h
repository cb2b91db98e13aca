#ifndef CSVFREEZE_CJSON_H
#define CSVFREEZE_CJSON_H

/* JSON lines and JSON arrays turned into CSV records, with simdjson parsing every
 * record (a C API over C++, for Swift). One converter per input, used by one thread. */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cjson_converter cjson_converter;

enum {
    /* One JSON value per line. */
    CJSON_LINES = 0,
    /* One JSON array; each element a record. */
    CJSON_ARRAY = 1
};

/* What the converter met, for the status line. Lines and bytes count from 1; 0: none. */
typedef struct {
    int64_t records;
    /* Records that were not a JSON object (shown whole in the first column). */
    int64_t not_objects;
    int64_t first_not_object_line;
    /* Records not valid UTF-8 (shown whole in the first column, not counted above). */
    int64_t invalid_utf8;
    int64_t first_invalid_utf8_line;
    /* Objects that named a key twice (the last value kept). */
    int64_t duplicates;
    int64_t first_duplicate_line;
    /* Strings simdjson would not decode (a lone surrogate): kept as written, quotes too. */
    int64_t kept_strings;
    int64_t first_kept_string_line;
    /* Keys past the column limit, left out (counted per record). */
    int64_t dropped_keys;
    int64_t first_dropped_key_line;
    /* Array elements with nothing in them (a comma before ']' or after another): no record. */
    int64_t empty_elements;
    int64_t first_empty_element_line;
    /* A JSON array: where it broke off (1-based byte and line), or text after its end. */
    int64_t broken_byte;
    int64_t broken_line;
    int64_t trailing_byte;
    /* The array did not start with '[': the byte found instead (-1: none). */
    int32_t not_array_byte;
} cjson_facts;

/* A converter; `window_records` and `window_bytes` bound the records held back until the
 * header is written (the keys met in them are the header's columns); `max_columns`
 * bounds the columns. NULL when out of memory. */
cjson_converter *cjson_new(int mode, size_t window_records, size_t window_bytes, size_t max_columns);
void cjson_free(cjson_converter *converter);

/* For the tests: every key and string decoded by simdjson and copied, as before the
 * shortcuts (a string without a backslash taken as written, a key spelled as the previous
 * record's taken as its column); the output must be the same byte for byte. Before any feed. */
void cjson_set_reference(cjson_converter *converter, int reference);

/* Converts the next `count` bytes of the input; `is_last`: nothing follows. The CSV made
 * is appended to the output (see cjson_output). 0, or -1 when out of memory. */
int cjson_feed(cjson_converter *converter, const uint8_t *bytes, size_t count, int is_last);

/* Writes the header now if records are held back for it (a followed file has reached its
 * end for now: its records are shown; keys met later are columns found late). */
void cjson_flush(cjson_converter *converter);

/* The CSV made since the last cjson_clear_output. */
const uint8_t *cjson_output(const cjson_converter *converter, size_t *count);
void cjson_clear_output(cjson_converter *converter);

/* Columns known so far (keys in the order first met), and how many the header names
 * (0 until it is written). */
size_t cjson_column_count(const cjson_converter *converter);
size_t cjson_header_count(const cjson_converter *converter);
const char *cjson_column_name(const cjson_converter *converter, size_t index, size_t *length);

/* What each column's values were, OR-ed over every record so far (CJSON_KIND_*), into
 * `kinds` (at most `count`); returns the number of columns. */
enum {
    CJSON_KIND_STRING = 1,
    CJSON_KIND_NUMBER = 2,
    CJSON_KIND_BOOLEAN = 4,
    CJSON_KIND_NULL = 8,
    CJSON_KIND_NESTED = 16,
    /* A record shown whole (not an object): its text. */
    CJSON_KIND_TEXT = 32
};
size_t cjson_column_kinds(const cjson_converter *converter, uint8_t *kinds, size_t count);

void cjson_get_facts(const cjson_converter *converter, cjson_facts *facts);

/* Records (from 0, in order) shown whole in the first column: not a JSON object, or not
 * UTF-8; the first 65,536. Copies those from `from` on (at most `count`) into `records`;
 * returns how many are known. */
size_t cjson_whole_records(const cjson_converter *converter, size_t from, int64_t *records, size_t count);

/* A key an object named more than once: its record (from 0), its column, how many times. */
typedef struct {
    int64_t record;
    int64_t column;
    int64_t times;
} cjson_duplicate;

/* The repeated keys (the first 65,536, in record order), as cjson_whole_records. */
size_t cjson_duplicate_keys(const cjson_converter *converter, size_t from, cjson_duplicate *keys, size_t count);

/* 1 when `bytes` (one line, without its end) are one JSON object and nothing else. */
int cjson_is_object(const uint8_t *bytes, size_t count);

/* Before the process exits: waits for the calls into simdjson under way on other threads
   and makes every later one wait until the process is gone (exit destroys simdjson's
   static objects, which a converting thread would call into). Idempotent. */
void cjson_close_for_exit(void);

/* simdjson's version and the implementation chosen for this CPU. */
const char *cjson_library_version(void);

#ifdef __cplusplus
}
#endif

#endif
