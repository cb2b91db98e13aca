// JSON lines and JSON arrays as CSV records: simdjson (On Demand) parses each record; this
// file only finds where records end (a line end; in an array, the comma or bracket that
// ends an element, strings and nesting skipped) and writes the cells as CSV.
//
// Columns are keys in the order first met. Records are held back until the first window
// (`window_records` records or `window_bytes` of input) is read, so the header names every
// key met there; a key met later becomes a column past the header's end, named through
// cjson_column_name (the store shows that name).

#include "cjson.h"

#include <simdjson.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

using namespace simdjson;

namespace {

// Before the '['; before the first element (or ']'); before another; in one; past ']'.
// An element runs to the ',' or ']' at its own depth, so two values with no comma between
// are one element, which simdjson refuses: shown whole, and said.
enum ArrayState { kBefore, kFirstValue, kValue, kInElement, kDone };

struct Cell {
    // In the record's own bytes (`scratch`) when `in_record`, else in `values`.
    size_t offset;
    size_t length;
    // A JSON null: written as an empty field without quotes (an empty string is `""`).
    bool null;
    bool in_record;
};

// True when a CSV field of these bytes needs quotes (a comma, quote or line break in it).
// 16 bytes a step with SSE2, which every x86-64 has: no CPU is chosen at build time.
inline bool needs_quotes(const char *bytes, size_t count) {
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i comma = _mm_set1_epi8(','), quote = _mm_set1_epi8('"');
    const __m128i newline = _mm_set1_epi8('\n'), ret = _mm_set1_epi8('\r');
    for (; i + 16 <= count; i += 16) {
        __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(bytes + i));
        __m128i hits = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, comma), _mm_cmpeq_epi8(v, quote)),
                                    _mm_or_si128(_mm_cmpeq_epi8(v, newline), _mm_cmpeq_epi8(v, ret)));
        if (_mm_movemask_epi8(hits) != 0) return true;
    }
#endif
    for (; i < count; i++) {
        char c = bytes[i];
        if (c == ',' || c == '"' || c == '\n' || c == '\r') return true;
    }
    return false;
}

// As needs_quotes, for bytes followed by at least 15 more that may be read (a cell of a
// padded record): the last step reads past the end and ignores what it finds there (most
// cells are shorter than a step).
inline bool needs_quotes_padded(const char *bytes, size_t count) {
#if defined(__SSE2__)
    const __m128i comma = _mm_set1_epi8(','), quote = _mm_set1_epi8('"');
    const __m128i newline = _mm_set1_epi8('\n'), ret = _mm_set1_epi8('\r');
    for (size_t i = 0; i < count; i += 16) {
        __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(bytes + i));
        __m128i hits = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, comma), _mm_cmpeq_epi8(v, quote)),
                                    _mm_or_si128(_mm_cmpeq_epi8(v, newline), _mm_cmpeq_epi8(v, ret)));
        unsigned mask = unsigned(_mm_movemask_epi8(hits));
        if (count - i < 16) mask &= (1u << (count - i)) - 1;
        if (mask != 0) return true;
    }
    return false;
#else
    return needs_quotes(bytes, count);
#endif
}

// True when `count` bytes followed by at least 15 more that may be read hold a backslash.
inline bool has_backslash_padded(const char *bytes, size_t count) {
#if defined(__SSE2__)
    const __m128i backslash = _mm_set1_epi8('\\');
    for (size_t i = 0; i < count; i += 16) {
        __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(bytes + i));
        unsigned mask = unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash)));
        if (count - i < 16) mask &= (1u << (count - i)) - 1;
        if (mask != 0) return true;
    }
    return false;
#else
    return std::memchr(bytes, '\\', count) != nullptr;
#endif
}

// The length of a string's raw text (from after its opening quote to before its closing
// one), escapes as written. Only for a string simdjson has already found whole.
inline size_t raw_length(const char *raw) {
    size_t i = 0;
    while (raw[i] != '"') i += raw[i] == '\\' ? 2 : 1;
    return i;
}

// The process's exit and the converters' threads. `exit` runs simdjson's static destructors
// (its implementation objects, in the shared library) while a loader's thread may still be
// converting: a call into a destroyed object aborts ("pure virtual method called") after
// the program has said what it had to, or as the viewer quits. So every call into simdjson
// passes this gate; the program closes it before it exits (cjson_close_for_exit), which
// waits for the calls under way to leave and parks every later one until the process is
// gone. An `atexit` handler closes it too, for an exit the program did not prepare (it runs
// before simdjson's destructors only when registered after them, which is not assured: a
// converter may start while exit is under way). Trivially destructible globals: nothing
// here is torn down at exit itself.
std::atomic<int> gate_inside{0};
std::atomic<bool> gate_closed{false};
std::once_flag gate_registered;

void close_gate() {
    gate_closed.store(true);
    const struct timespec millisecond = {0, 1000000};
    while (gate_inside.load() > 0) nanosleep(&millisecond, nullptr);
}

void register_gate() {
    std::call_once(gate_registered, [] {
        // Makes simdjson choose its implementation now (its objects are made on first use).
        (void)simdjson::get_active_implementation()->name();
        std::atexit(close_gate);
    });
}

// Held while a thread is in simdjson (see close_gate).
struct GatePass {
    GatePass() {
        gate_inside.fetch_add(1);
        if (!gate_closed.load()) return;
        gate_inside.fetch_sub(1);
        // The process is ending: this thread waits for it.
        for (;;) pause();
    }
    ~GatePass() { gate_inside.fetch_sub(1); }
    GatePass(const GatePass &) = delete;
    GatePass &operator=(const GatePass &) = delete;
};

}  // namespace

struct cjson_converter {
    int mode;
    size_t window_records;
    size_t window_bytes;
    size_t max_columns;
    ondemand::parser parser;
    // A record's bytes with simdjson's padding after them, and the record's length.
    std::vector<char> scratch;
    size_t record_length = 0;
    // Decode every key and string through simdjson, as before the shortcuts below (the
    // differential tests compare the two).
    bool reference = false;
    // Input not converted yet: a line or element that has not ended.
    std::string pending;
    // Input bytes before `pending`, and the line `pending` starts on.
    int64_t consumed = 0;
    int64_t line = 1;
    bool started = false;
    std::string out;
    // Records made before the header was written.
    std::string held;
    bool header_written = false;
    size_t header_count = 0;
    std::vector<std::string> names;
    // Each column's key as last spelled in the input (escapes as written, no quotes): a
    // key spelled the same is the same key, found without decoding it.
    std::vector<std::string> raw_names;
    std::unordered_map<std::string, size_t> columns;
    // This record's cells: `stamp[c] == record` when column c was set in it.
    std::vector<int64_t> stamp;
    std::vector<Cell> cells;
    std::vector<uint8_t> kinds;
    std::string values;
    std::string minified;
    // The columns of the previous object's keys, in order: most records repeat them.
    std::vector<size_t> previous_order;
    std::vector<size_t> order;
    cjson_facts facts;
    // Records shown whole (not an object, or not UTF-8), and the keys objects repeated:
    // the first `kMarks` of each, for the grid's mark and the record view.
    std::vector<int64_t> whole_records;
    std::vector<cjson_duplicate> duplicate_keys;
    static constexpr size_t kMarks = 65536;
    // The array's scan: where it resumes in `pending`, and where the element began.
    ArrayState state = kBefore;
    size_t scan = 0;
    size_t element_start = 0;
    int64_t element_line = 1;
    int depth = 0;

    cjson_converter(int mode, size_t window_records, size_t window_bytes, size_t max_columns)
        : mode(mode), window_records(window_records), window_bytes(window_bytes), max_columns(max_columns) {
        std::memset(&facts, 0, sizeof facts);
        facts.not_array_byte = -1;
    }

    std::string &sink() { return header_written ? out : held; }

    static void append_cell(std::string &to, const char *bytes, size_t count) {
        if (!needs_quotes(bytes, count)) {
            to.append(bytes, count);
            return;
        }
        to.push_back('"');
        const char *start = bytes;
        const char *end = bytes + count;
        while (start < end) {
            const char *quote = static_cast<const char *>(std::memchr(start, '"', size_t(end - start)));
            if (quote == nullptr) {
                to.append(start, size_t(end - start));
                break;
            }
            to.append(start, size_t(quote - start) + 1);
            to.push_back('"');
            start = quote + 1;
        }
        to.push_back('"');
    }

    void write_header() {
        header_count = names.size();
        for (size_t i = 0; i < names.size(); i++) {
            if (i > 0) out.push_back(',');
            append_cell(out, names[i].data(), names[i].size());
        }
        out.push_back('\n');
        out.append(held);
        held.clear();
        held.shrink_to_fit();
        header_written = true;
    }

    void window_check(bool is_last) {
        if (header_written) return;
        if (is_last || size_t(facts.records) >= window_records || size_t(consumed) >= window_bytes) {
            if (facts.records > 0) write_header();
            else if (is_last) header_written = true;
        }
    }

    // The column for `key`; SIZE_MAX past the limit.
    size_t column(std::string_view key, size_t position) {
        if (position < previous_order.size()) {
            size_t guess = previous_order[position];
            if (names[guess].size() == key.size() && std::memcmp(names[guess].data(), key.data(), key.size()) == 0) {
                return guess;
            }
        }
        std::string owned(key);
        auto found = columns.find(owned);
        if (found != columns.end()) return found->second;
        if (names.size() >= max_columns) return SIZE_MAX;
        size_t index = names.size();
        names.push_back(owned);
        raw_names.emplace_back();
        columns.emplace(std::move(owned), index);
        stamp.push_back(-1);
        cells.push_back(Cell{0, 0, false, false});
        if (kinds.size() <= index) kinds.resize(index + 1, 0);
        return index;
    }

    void set(size_t column, const char *bytes, size_t count, int64_t at_line, uint8_t kind) {
        kinds[column] |= kind;
        if (stamp[column] == facts.records) {
            if (facts.duplicates++ == 0) facts.first_duplicate_line = at_line;
            note_duplicate(column);
        }
        stamp[column] = facts.records;
        // Bytes of the record itself are not copied (the record stays in `scratch`).
        uintptr_t at = reinterpret_cast<uintptr_t>(bytes), record = reinterpret_cast<uintptr_t>(scratch.data());
        if (!reference && at >= record && at + count <= record + record_length) {
            cells[column] = Cell{size_t(at - record), count, kind == CJSON_KIND_NULL, true};
            return;
        }
        cells[column] = Cell{values.size(), count, kind == CJSON_KIND_NULL, false};
        values.append(bytes, count);
    }

    // Column `column` met once more in this record.
    void note_duplicate(size_t column) {
        for (size_t i = duplicate_keys.size(); i > 0 && duplicate_keys[i - 1].record == facts.records; i--) {
            if (duplicate_keys[i - 1].column == int64_t(column)) {
                duplicate_keys[i - 1].times++;
                return;
            }
        }
        if (duplicate_keys.size() < kMarks) duplicate_keys.push_back(cjson_duplicate{facts.records, int64_t(column), 2});
    }

    static std::string_view trimmed(std::string_view text) {
        size_t start = 0, end = text.size();
        while (start < end && (text[start] == ' ' || text[start] == '\t' || text[start] == '\n' || text[start] == '\r')) start++;
        while (end > start && (text[end - 1] == ' ' || text[end - 1] == '\t' || text[end - 1] == '\n' || text[end - 1] == '\r')) end--;
        return text.substr(start, end - start);
    }

    // Reads the object in `scratch` into the cells; false when simdjson says it is not
    // one object (the record is then shown whole).
    bool read_object(size_t length, int64_t at_line, bool &invalid_utf8) {
        ondemand::document doc;
        auto error = parser.iterate(scratch.data(), length, scratch.size()).get(doc);
        if (error) {
            invalid_utf8 = error == UTF8_ERROR;
            return false;
        }
        ondemand::object object;
        if (doc.get_object().get(object)) return false;
        order.clear();
        size_t position = 0;
        const char *record_end = scratch.data() + length;
        for (auto field_result : object) {
            ondemand::field field;
            if (std::move(field_result).get(field)) return false;
            // The key the previous record had here, spelled the same: that column, without
            // decoding the key. (The spelling ends where its closing quote is: a quote after
            // the same bytes is one too, as the spelling ends in an even run of backslashes.)
            const char *raw_key = field.key().raw();
            size_t index = SIZE_MAX;
            bool known = false;
            if (!reference && position < previous_order.size()) {
                const std::string &spelled = raw_names[previous_order[position]];
                if (size_t(record_end - raw_key) > spelled.size() && raw_key[spelled.size()] == '"' &&
                    std::memcmp(raw_key, spelled.data(), spelled.size()) == 0) {
                    index = previous_order[position];
                    known = true;
                }
            }
            if (!known) {
                std::string_view key;
                if (field.unescaped_key().get(key)) return false;
                index = column(key, position);
                if (index != SIZE_MAX) raw_names[index].assign(raw_key, raw_length(raw_key));
            }
            position++;
            ondemand::value value = field.value();
            ondemand::json_type type;
            if (value.type().get(type)) return false;
            if (index == SIZE_MAX) {
                if (facts.dropped_keys++ == 0) facts.first_dropped_key_line = at_line;
                continue;
            }
            order.push_back(index);
            switch (type) {
            case ondemand::json_type::string: {
                std::string_view raw = value.raw_json_token();
                if (!reference) {
                    // No backslash: the string is its bytes as written (simdjson has checked
                    // they are UTF-8, and decoding would copy them unchanged).
                    std::string_view token = trimmed(raw);
                    if (token.size() >= 2 && token.back() == '"' &&
                        !has_backslash_padded(token.data() + 1, token.size() - 2)) {
                        set(index, token.data() + 1, token.size() - 2, at_line, CJSON_KIND_STRING);
                        break;
                    }
                }
                std::string_view text;
                if (value.get_string().get(text)) {
                    // Not decodable (a lone surrogate): kept as written, quotes and all.
                    if (facts.kept_strings++ == 0) facts.first_kept_string_line = at_line;
                    raw = trimmed(raw);
                    set(index, raw.data(), raw.size(), at_line, CJSON_KIND_STRING);
                } else {
                    set(index, text.data(), text.size(), at_line, CJSON_KIND_STRING);
                }
                break;
            }
            case ondemand::json_type::number:
            case ondemand::json_type::boolean: {
                std::string_view raw = trimmed(value.raw_json_token());
                set(index, raw.data(), raw.size(), at_line,
                    type == ondemand::json_type::number ? CJSON_KIND_NUMBER : CJSON_KIND_BOOLEAN);
                break;
            }
            case ondemand::json_type::null:
                if (value.is_null().error()) return false;
                set(index, "", 0, at_line, CJSON_KIND_NULL);
                break;
            case ondemand::json_type::object:
            case ondemand::json_type::array: {
                std::string_view raw;
                if (type == ondemand::json_type::object) {
                    ondemand::object inner;
                    if (value.get_object().get(inner) || inner.raw_json().get(raw)) return false;
                } else {
                    ondemand::array inner;
                    if (value.get_array().get(inner) || inner.raw_json().get(raw)) return false;
                }
                raw = trimmed(raw);
                minified.resize(raw.size());
                size_t made = 0;
                if (minify(raw.data(), raw.size(), minified.data(), made)) return false;
                set(index, minified.data(), made, at_line, CJSON_KIND_NESTED);
                break;
            }
            }
        }
        return at_end(doc);
    }

    // True when nothing follows the value read (On Demand reads no further than asked).
    static bool at_end(ondemand::document &doc) { return doc.current_location().error() == OUT_OF_BOUNDS; }

    // One record: `bytes` without its line end.
    void convert(const char *bytes, size_t count, int64_t at_line) {
        std::string_view text = trimmed(std::string_view(bytes, count));
        if (scratch.size() < text.size() + SIMDJSON_PADDING) scratch.resize(text.size() + SIMDJSON_PADDING);
        std::memcpy(scratch.data(), text.data(), text.size());
        record_length = text.size();
        values.clear();
        bool invalid_utf8 = false;
        std::string &to = sink();
        size_t known = names.size();
        if (!read_object(text.size(), at_line, invalid_utf8)) {
            // Keys read before simdjson found the trouble name no column.
            while (names.size() > known) {
                columns.erase(names.back());
                names.pop_back();
                raw_names.pop_back();
                stamp.pop_back();
                cells.pop_back();
            }
            if (kinds.size() > known) kinds.resize(known > 0 ? known : 0);
            previous_order.clear();
            while (!duplicate_keys.empty() && duplicate_keys.back().record == facts.records) duplicate_keys.pop_back();
            if (whole_records.size() < kMarks) whole_records.push_back(facts.records);
            // Not one JSON object: the record whole, in the first column. Cells set before
            // simdjson found the trouble are forgotten (their stamp is this record's).
            if (invalid_utf8) {
                if (facts.invalid_utf8++ == 0) facts.first_invalid_utf8_line = at_line;
            } else if (facts.not_objects++ == 0) {
                facts.first_not_object_line = at_line;
            }
            append_cell(to, text.data(), text.size());
            to.push_back('\n');
            facts.records++;
            if (kinds.empty()) kinds.push_back(0);
            kinds[0] |= CJSON_KIND_TEXT;
            return;
        }
        size_t last = 0;
        bool any = false;
        for (size_t index : order) {
            if (!any || index > last) last = index;
            any = true;
        }
        if (any && reference) {
            for (size_t c = 0; c <= last; c++) {
                if (c > 0) to.push_back(',');
                if (stamp[c] != facts.records || cells[c].null) continue;
                if (cells[c].length == 0) to.append("\"\"");
                else append_cell(to, values.data() + cells[c].offset, cells[c].length);
            }
            to.push_back('\n');
        } else if (any) {
            // Written through a pointer into room made first: at most each byte doubled,
            // two quotes and a comma a cell.
            size_t room = 1;
            for (size_t c = 0; c <= last; c++) {
                if (stamp[c] == facts.records) room += 2 * cells[c].length;
                room += 3;
            }
            // Every cell may be read 15 bytes past its end (needs_quotes_padded): a record's
            // bytes have simdjson's padding after them, `values` gets some.
            values.append(16, ' ');
            size_t start = to.size();
            to.resize(start + room);
            char *at = to.data() + start;
            for (size_t c = 0; c <= last; c++) {
                if (c > 0) *at++ = ',';
                if (stamp[c] != facts.records || cells[c].null) continue;
                // An empty value that is not null is written `""`: the store reads an empty
                // field without quotes as null (a key the record lacks, too).
                const Cell &cell = cells[c];
                const char *bytes = (cell.in_record ? scratch.data() : values.data()) + cell.offset;
                if (cell.length == 0) {
                    *at++ = '"';
                    *at++ = '"';
                } else if (!needs_quotes_padded(bytes, cell.length)) {
                    std::memcpy(at, bytes, cell.length);
                    at += cell.length;
                } else {
                    *at++ = '"';
                    const char *end = bytes + cell.length;
                    while (bytes < end) {
                        const char *quote = static_cast<const char *>(std::memchr(bytes, '"', size_t(end - bytes)));
                        size_t run = (quote == nullptr ? end : quote + 1) - bytes;
                        std::memcpy(at, bytes, run);
                        at += run;
                        if (quote == nullptr) break;
                        *at++ = '"';
                        bytes = quote + 1;
                    }
                    *at++ = '"';
                }
            }
            *at++ = '\n';
            to.resize(size_t(at - to.data()));
        } else {
            to.push_back('\n');
        }
        previous_order.swap(order);
        facts.records++;
    }

    static bool is_blank(const char *bytes, size_t count) {
        for (size_t i = 0; i < count; i++) {
            char c = bytes[i];
            if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return false;
        }
        return true;
    }

    void feed_lines(bool is_last) {
        size_t position = 0;
        const char *base = pending.data();
        size_t size = pending.size();
        while (position < size) {
            const char *end = static_cast<const char *>(std::memchr(base + position, '\n', size - position));
            if (end == nullptr) break;
            size_t length = size_t(end - (base + position));
            if (!is_blank(base + position, length)) convert(base + position, length, line);
            line++;
            position += length + 1;
            window_check(false);
        }
        if (is_last && position < size) {
            if (!is_blank(base + position, size - position)) convert(base + position, size - position, line);
            position = size;
        }
        consumed += int64_t(position);
        pending.erase(0, position);
    }

    static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

    void element_done(size_t end) {
        // Nothing between two commas, or between a comma and ']': no element, so no record
        // (a record of nothing would be a row the input does not have); counted, said.
        if (is_blank(pending.data() + element_start, end - element_start)) {
            if (facts.empty_elements++ == 0) facts.first_empty_element_line = element_line;
            return;
        }
        convert(pending.data() + element_start, end - element_start, element_line);
        window_check(false);
    }

    void feed_array(bool is_last) {
        const char *base = pending.data();
        size_t size = pending.size();
        size_t position = scan;
        while (position < size && state != kDone) {
            char c = base[position];
            if (state != kInElement) {
                if (c == '\n') line++;
                if (is_space(c)) {
                    position++;
                    continue;
                }
                switch (state) {
                case kBefore:
                    if (c == '[') {
                        state = kFirstValue;
                    } else {
                        facts.not_array_byte = (unsigned char)c;
                        state = kDone;
                    }
                    position++;
                    continue;
                case kFirstValue:
                case kValue:
                    if (c == ']' && state == kFirstValue) {
                        state = kDone;
                        position++;
                        continue;
                    }
                    state = kInElement;
                    element_start = position;
                    element_line = line;
                    depth = 0;
                    break;
                default:
                    break;
                }
            }
            // In an element: find its end, skipping strings and nesting.
            if (c == '"') {
                size_t at = position + 1;
                bool closed = false;
                while (at < size) {
                    const char *quote = static_cast<const char *>(std::memchr(base + at, '"', size - at));
                    if (quote == nullptr) break;
                    size_t q = size_t(quote - base);
                    size_t slashes = 0;
                    while (q - slashes > position && base[q - slashes - 1] == '\\') slashes++;
                    at = q + 1;
                    if (slashes % 2 == 0) {
                        closed = true;
                        break;
                    }
                }
                if (!closed) break;  // the string ends in the next chunk
                position = at;
                continue;
            }
            if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                if (depth == 0) {
                    // The array's own end (an element of a scalar, or one cut short).
                    element_done(position);
                    state = kDone;
                    position++;
                    continue;
                }
                depth--;
            } else if (c == ',' && depth == 0) {
                element_done(position);
                state = kValue;
                position++;
                continue;
            } else if (c == '\n') {
                line++;
            }
            position++;
        }
        if (state == kDone) {
            // Anything but space after the array's end is said.
            bool looks = facts.trailing_byte == 0 && facts.broken_byte == 0 && facts.not_array_byte < 0;
            for (size_t at = position; looks && at < size && facts.trailing_byte == 0; at++) {
                if (!is_space(base[at])) facts.trailing_byte = consumed + int64_t(at) + 1;
            }
            consumed += int64_t(size);
            pending.clear();
            scan = 0;
            element_start = 0;
            return;
        }
        if (is_last) {
            // Cut short: the records so far stand, and where it broke is said.
            facts.broken_byte = consumed + int64_t(size) + 1;
            facts.broken_line = line;
            consumed += int64_t(size);
            pending.clear();
            return;
        }
        // Keep the element that has not ended (scanning resumes where it stopped: at a
        // string's opening quote when the string goes on in the next chunk).
        size_t keep = state == kInElement ? element_start : position;
        scan = position - keep;
        element_start = 0;
        consumed += int64_t(keep);
        pending.erase(0, keep);
    }

    int feed(const uint8_t *bytes, size_t count, bool is_last) {
        GatePass pass;
        try {
            if (!started) {
                // A UTF-8 byte-order mark is not part of the JSON.
                pending.append(reinterpret_cast<const char *>(bytes), count);
                if (pending.size() < 3 && !is_last) return 0;
                started = true;
                if (pending.size() >= 3 && (unsigned char)pending[0] == 0xEF && (unsigned char)pending[1] == 0xBB &&
                    (unsigned char)pending[2] == 0xBF) {
                    pending.erase(0, 3);
                    consumed += 3;
                }
            } else {
                pending.append(reinterpret_cast<const char *>(bytes), count);
            }
            if (mode == CJSON_ARRAY) feed_array(is_last);
            else feed_lines(is_last);
            window_check(is_last);
        } catch (const std::bad_alloc &) {
            return -1;
        }
        return 0;
    }
};

extern "C" {

cjson_converter *cjson_new(int mode, size_t window_records, size_t window_bytes, size_t max_columns) {
    try {
        register_gate();
        return new cjson_converter(mode, window_records, window_bytes, max_columns);
    } catch (...) {
        return nullptr;
    }
}

void cjson_close_for_exit(void) { close_gate(); }

void cjson_free(cjson_converter *converter) {
    GatePass pass;
    delete converter;
}

void cjson_set_reference(cjson_converter *converter, int reference) { converter->reference = reference != 0; }

int cjson_feed(cjson_converter *converter, const uint8_t *bytes, size_t count, int is_last) {
    return converter->feed(bytes, count, is_last != 0);
}

void cjson_flush(cjson_converter *converter) {
    try {
        if (!converter->header_written && converter->facts.records > 0) converter->write_header();
    } catch (...) {
    }
}

const uint8_t *cjson_output(const cjson_converter *converter, size_t *count) {
    *count = converter->out.size();
    return reinterpret_cast<const uint8_t *>(converter->out.data());
}

void cjson_clear_output(cjson_converter *converter) { converter->out.clear(); }

size_t cjson_column_count(const cjson_converter *converter) { return converter->names.size(); }

size_t cjson_header_count(const cjson_converter *converter) { return converter->header_count; }

const char *cjson_column_name(const cjson_converter *converter, size_t index, size_t *length) {
    if (index >= converter->names.size()) {
        *length = 0;
        return "";
    }
    *length = converter->names[index].size();
    return converter->names[index].data();
}

size_t cjson_column_kinds(const cjson_converter *converter, uint8_t *kinds, size_t count) {
    size_t known = converter->kinds.size();
    if (count > known) count = known;
    if (count > 0) std::memcpy(kinds, converter->kinds.data(), count);
    return known;
}

void cjson_get_facts(const cjson_converter *converter, cjson_facts *facts) { *facts = converter->facts; }

size_t cjson_whole_records(const cjson_converter *converter, size_t from, int64_t *records, size_t count) {
    size_t known = converter->whole_records.size();
    for (size_t i = from; i < known && i - from < count; i++) records[i - from] = converter->whole_records[i];
    return known;
}

size_t cjson_duplicate_keys(const cjson_converter *converter, size_t from, cjson_duplicate *keys, size_t count) {
    size_t known = converter->duplicate_keys.size();
    for (size_t i = from; i < known && i - from < count; i++) keys[i - from] = converter->duplicate_keys[i];
    return known;
}

int cjson_is_object(const uint8_t *bytes, size_t count) {
    try {
        register_gate();
        GatePass pass;
        std::vector<char> padded(count + SIMDJSON_PADDING, ' ');
        std::memcpy(padded.data(), bytes, count);
        ondemand::parser parser;
        ondemand::document doc;
        if (parser.iterate(padded.data(), count, padded.size()).get(doc)) return 0;
        ondemand::object object;
        if (doc.get_object().get(object)) return 0;
        // Walk it whole: On Demand finds most errors only as it reads.
        std::string_view raw;
        if (object.raw_json().get(raw)) return 0;
        return cjson_converter::at_end(doc) ? 1 : 0;
    } catch (...) {
        return 0;
    }
}

#define CJSON_TEXT(x) #x
#define CJSON_VERSION_TEXT(x) CJSON_TEXT(x)

const char *cjson_library_version(void) { return "simdjson " CJSON_VERSION_TEXT(SIMDJSON_VERSION); }

}  // extern "C"
