#ifndef CSVFREEZE_CPCRE2_SHIM_H
#define CSVFREEZE_CPCRE2_SHIM_H
/* PCRE2 for UTF-8 subjects. PCRE2's generic names are macros over the width-suffixed
   functions (pcre2_compile -> pcre2_compile_8), which Swift cannot import: these
   prefixed wrappers give Swift plain functions, and hide the size macros too. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <stddef.h>
#include <stdint.h>
#include <pcre2.h>

typedef pcre2_code_8 cf_re_code;
typedef pcre2_match_data_8 cf_re_match_data;
typedef pcre2_match_context_8 cf_re_match_context;

/* Compiles a pattern of `length` bytes; on failure returns NULL with the error code and
   the byte offset where the pattern is wrong. */
static inline cf_re_code *cf_re_compile(const unsigned char *pattern, size_t length, uint32_t options,
                                        int *error, size_t *offset) {
    PCRE2_SIZE where = 0;
    cf_re_code *code = pcre2_compile_8(pattern, length, options, error, &where, NULL);
    *offset = (size_t)where;
    return code;
}

/* JIT-compiles for complete matches; 0 when the JIT is not available (matching still works). */
static inline int cf_re_jit(cf_re_code *code) { return pcre2_jit_compile_8(code, PCRE2_JIT_COMPLETE) == 0; }

static inline void cf_re_free(cf_re_code *code) { pcre2_code_free_8(code); }

/* The library's version, e.g. "10.42 2022-12-11" (the buffer needs 32 bytes). */
static inline int cf_re_version(unsigned char *buffer) { return pcre2_config_8(PCRE2_CONFIG_VERSION, buffer); }

/* The shortest subject length a match needs (0: it may match an empty string). */
static inline uint32_t cf_re_min_length(const cf_re_code *code) {
    uint32_t length = 0;
    if (pcre2_pattern_info_8(code, PCRE2_INFO_MINLENGTH, &length) != 0) return 0;
    return length;
}

static inline cf_re_match_data *cf_re_match_data_create(const cf_re_code *code) {
    return pcre2_match_data_create_from_pattern_8(code, NULL);
}
static inline void cf_re_match_data_free(cf_re_match_data *data) { pcre2_match_data_free_8(data); }

/* A context that bounds backtracking, so no pattern can hang on any input. */
static inline cf_re_match_context *cf_re_match_context_create(uint32_t match_limit, uint32_t depth_limit) {
    cf_re_match_context *context = pcre2_match_context_create_8(NULL);
    if (context) {
        pcre2_set_match_limit_8(context, match_limit);
        pcre2_set_depth_limit_8(context, depth_limit);
    }
    return context;
}
static inline void cf_re_match_context_free(cf_re_match_context *context) { pcre2_match_context_free_8(context); }

/* Matches in subject[0..<length] from `start`: > 0 on a match (its start and end in
   *match_start, *match_end), PCRE2_ERROR_NOMATCH (-1) when there is none, another negative
   code on an error (a limit reached). With `interpret`, without the JIT. */
static inline int cf_re_match(const cf_re_code *code, const unsigned char *subject, size_t length, size_t start,
                              int interpret, cf_re_match_data *data, cf_re_match_context *context,
                              size_t *match_start, size_t *match_end) {
    static const unsigned char empty = 0;
    int result = pcre2_match_8(code, subject ? subject : &empty, length, start, interpret ? PCRE2_NO_JIT : 0,
                               data, context);
    if (result > 0) {
        PCRE2_SIZE *vector = pcre2_get_ovector_pointer_8(data);
        *match_start = (size_t)vector[0];
        *match_end = (size_t)vector[1];
    }
    return result;
}

/* The message for an error code, in `buffer` (NUL-terminated). */
static inline int cf_re_error_message(int error, unsigned char *buffer, size_t size) {
    return pcre2_get_error_message_8(error, buffer, size);
}

#endif
