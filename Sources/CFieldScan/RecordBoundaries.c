/* The bulk record-boundary scan (see CFieldScan.h): one block routine on 64-bit masks,
   fed by three mask builders (AVX2 with carry-less multiply, SSE2, portable), chosen once
   at run time from what the CPU reports. */
#include "Masks.h"
#if defined(__x86_64__)
#include <cpuid.h>
#endif

/* The scan's state between blocks, as masks' bit 0 for the byte before a block. */
typedef struct {
    uint64_t inside;     /* all ones inside quotes */
    uint64_t opens;      /* the byte before opens a field */
    uint64_t quote;      /* the byte before is a quote (one that closed, when outside) */
    uint64_t cr;         /* the byte before is a CR */
    size_t delimiters;
    size_t opened_at;
} cf_carry;

static inline cf_carry cf_carry_in(const cf_scan_state *state) {
    cf_carry c;
    c.inside = state->inside ? ~(uint64_t)0 : 0;
    c.opens = state->opens_field ? 1 : 0;
    c.quote = 0;
    c.cr = state->after_cr ? 1 : 0;
    c.delimiters = state->delimiters;
    c.opened_at = (size_t)-1;
    return c;
}

static inline void cf_carry_out(cf_scan_state *state, const cf_carry *c) {
    state->inside = c->inside != 0;
    state->delimiters = c->delimiters;
    state->opened_at = c->opened_at;
}

enum { CF_BLOCK_REFUSED = 0, CF_BLOCK_DONE = 1, CF_BLOCK_STOPPED = 2 };

/* One block at offset `base`: checks that the toggle reading holds (see the header),
   then writes its record ends. `next_ok`: the byte after the block may follow a closing
   quote. With `stop`, returns after the first record end, *stopped_at just past it. */
static inline __attribute__((always_inline)) int cf_block(cf_masks m, uint64_t quote_prefix, int next_ok, cf_carry *c,
                                                          size_t base, int stop, cf_record_end *ends, size_t *count,
                                                          size_t *stopped_at) {
    const uint64_t separators = m.delimiter | m.lf | m.cr;
    const uint64_t inside = quote_prefix ^ c->inside; /* an opening quote is inside, a closing one outside */
    const uint64_t opening = m.quote & inside;
    const uint64_t closing = m.quote & ~inside;
    const uint64_t opens = (separators << 1) | c->opens;
    const uint64_t after_quote = (m.quote << 1) | c->quote;
    const uint64_t followed = ((separators | m.quote) >> 1) | ((uint64_t)(next_ok != 0) << 63);
    /* A quote that opens where no field starts is literal, and text after a closing
       quote joins the field: the byte-at-a-time rules read those. */
    if ((opening & ~(opens | after_quote)) | (closing & ~followed)) return CF_BLOCK_REFUSED;
    const uint64_t outside = ~inside;
    const uint64_t line_ends = (m.lf | m.cr) & outside;
    const uint64_t delimiters = m.delimiter & outside;
    const uint64_t field_opens = opening & opens; /* not the second quote of a doubled one */
    if (line_ends == 0) {
        c->delimiters += (size_t)__builtin_popcountll(delimiters);
    } else {
        const uint64_t crlf = m.lf & ((m.cr << 1) | c->cr);
        uint64_t left = line_ends, counted = delimiters;
        while (left) {
            const unsigned bit = (unsigned)__builtin_ctzll(left);
            const uint64_t through = ((uint64_t)2 << bit) - 1; /* bits 0...bit */
            c->delimiters += (size_t)__builtin_popcountll(counted & through);
            counted &= ~through;
            cf_record_end *end = &ends[(*count)++];
            end->end = base + bit + 1;
            if ((crlf >> bit) & 1) {
                end->fields = 0;
                end->terminator = 0;
            } else {
                end->fields = c->delimiters + 1;
                end->terminator = ((m.cr >> bit) & 1) ? '\r' : '\n';
                c->delimiters = 0;
                if (stop) {
                    c->inside = 0;
                    *stopped_at = bit + 1;
                    return CF_BLOCK_STOPPED;
                }
            }
            left &= left - 1;
        }
        c->delimiters += (size_t)__builtin_popcountll(counted);
    }
    if (field_opens) c->opened_at = base + 63 - (size_t)__builtin_clzll(field_opens);
    c->inside = (uint64_t)((int64_t)inside >> 63);
    c->opens = separators >> 63;
    c->quote = m.quote >> 63;
    c->cr = m.cr >> 63;
    return CF_BLOCK_DONE;
}

/* The loop every implementation shares: BUILD_MASKS fills `m` from p + i, PREFIX(x) is the
   prefix XOR. A macro, so each implementation is compiled with its own target features. */
#define CF_SCAN_LOOP(BUILD_MASKS, PREFIX)                                                                    \
    state->count = 0;                                                                                         \
    if (delimiter == '\n' || delimiter == '\r' || capacity < 64) return 0;                                  \
    const int quotes = cf_quotes(delimiter, quote);                                                           \
    cf_carry c = cf_carry_in(state);                                                                          \
    size_t i = 0;                                                                                             \
    while (n - i > 64 && capacity - state->count >= 64) {                                                    \
        cf_masks m;                                                                                           \
        BUILD_MASKS                                                                                           \
        if (!quotes) m.quote = 0;                                                                             \
        const unsigned char next = p[i + 64];                                                                 \
        const int next_ok = next == delimiter || next == '\n' || next == '\r' || (quotes && next == quote);   \
        size_t stopped_at = 0;                                                                                \
        const int done = cf_block(m, PREFIX(m.quote), next_ok, &c, i, stop_at_record_end, ends, &state->count, \
                                  &stopped_at);                                                               \
        if (done == CF_BLOCK_REFUSED) break;                                                                  \
        if (done == CF_BLOCK_STOPPED) {                                                                       \
            i += stopped_at;                                                                                  \
            break;                                                                                            \
        }                                                                                                     \
        i += 64;                                                                                              \
    }                                                                                                         \
    cf_carry_out(state, &c);                                                                                  \
    return i;

static size_t cf_scan_portable(const unsigned char *p, size_t n, unsigned char delimiter, unsigned char quote,
                               int stop_at_record_end, cf_scan_state *state, cf_record_end *ends, size_t capacity) {
    CF_SCAN_LOOP(m = cf_masks_portable(p + i, delimiter, quote);, cf_prefix_xor)
}

#if defined(__x86_64__)

static size_t cf_scan_sse2(const unsigned char *p, size_t n, unsigned char delimiter, unsigned char quote,
                           int stop_at_record_end, cf_scan_state *state, cf_record_end *ends, size_t capacity) {
    CF_SCAN_LOOP(m = cf_masks_sse2(p + i, delimiter, quote);, cf_prefix_xor)
}

CF_AVX2 static size_t cf_scan_avx2(const unsigned char *p, size_t n, unsigned char delimiter, unsigned char quote,
                                   int stop_at_record_end, cf_scan_state *state, cf_record_end *ends, size_t capacity) {
    CF_SCAN_LOOP(m = cf_masks_avx2(p + i, delimiter, quote);, cf_prefix_xor_clmul)
}

/* AVX2 needs the CPU's word and the operating system's (it saves the YMM registers). */
static int cf_detect_level(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return CF_SCAN_SSE2;
    const int pclmul = (c >> 1) & 1, popcnt = (c >> 23) & 1, osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
    if (!(pclmul && popcnt && osxsave && avx)) return CF_SCAN_SSE2;
    unsigned xcr0_low, xcr0_high;
    __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    (void)xcr0_high;
    if ((xcr0_low & 6) != 6) return CF_SCAN_SSE2;
    if (__get_cpuid_max(0, 0) < 7) return CF_SCAN_SSE2;
    __cpuid_count(7, 0, a, b, c, d);
    const int avx2 = (b >> 5) & 1, bmi1 = (b >> 3) & 1;
    return avx2 && bmi1 ? CF_SCAN_AVX2 : CF_SCAN_SSE2;
}

#else

static int cf_detect_level(void) { return CF_SCAN_PORTABLE; }

#endif

int cf_scan_best_level(void) {
    /* Every thread that races here computes the same answer. */
    static int level = -1;
    int known = __atomic_load_n(&level, __ATOMIC_RELAXED);
    if (known < 0) {
        known = cf_detect_level();
        __atomic_store_n(&level, known, __ATOMIC_RELAXED);
    }
    return known;
}

size_t cf_scan_records_at(int level, const unsigned char *p, size_t n, unsigned char delimiter, unsigned char quote,
                          int stop_at_record_end, cf_scan_state *state, cf_record_end *ends, size_t capacity) {
    const int best = cf_scan_best_level();
    if (level > best) level = best;
#if defined(__x86_64__)
    if (level >= CF_SCAN_AVX2) return cf_scan_avx2(p, n, delimiter, quote, stop_at_record_end, state, ends, capacity);
    if (level == CF_SCAN_SSE2) return cf_scan_sse2(p, n, delimiter, quote, stop_at_record_end, state, ends, capacity);
#endif
    return cf_scan_portable(p, n, delimiter, quote, stop_at_record_end, state, ends, capacity);
}

size_t cf_scan_records(const unsigned char *p, size_t n, unsigned char delimiter, unsigned char quote,
                       int stop_at_record_end, cf_scan_state *state, cf_record_end *ends, size_t capacity) {
    return cf_scan_records_at(CF_SCAN_AVX2, p, n, delimiter, quote, stop_at_record_end, state, ends, capacity);
}
