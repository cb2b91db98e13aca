import CPCRE2

/// A PCRE2 pattern compiled for UTF-8 cells: UTF mode that never fails on invalid UTF-8
/// (invalid bytes simply match nothing), Unicode properties and case folding, JIT where
/// the machine has it, and `$` only at the very end of a cell.
///
/// The compiled code is read-only once built, and PCRE2 documents it as safe to use from
/// several threads at once; each thread matches with its own `PatternMatcher`.
package final class CompiledPattern: @unchecked Sendable {
    // @unchecked: `code` is written only in init and never after; PCRE2 allows concurrent
    // matching with one compiled pattern (match data is per matcher, never shared).
    let code: OpaquePointer
    /// The pattern's text, as given.
    package let text: String
    /// Whether case is ignored (smart case decided it).
    package let ignoresCase: Bool
    /// The shortest text a match needs (0: it may match an empty cell).
    package let minimumLength: Int
    /// True when PCRE2's JIT compiled it.
    package let isJIT: Bool
    /// True for a pattern over bytes, not UTF-8 characters (see `init(bytes:ignoresCase:)`).
    let isBytes: Bool

    /// Compiles `text`, or says where it is wrong.
    convenience init(_ text: String, ignoresCase: Bool) throws(PatternError) {
        try self.init(text, ignoresCase: ignoresCase, options: UInt32(PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_UCP | PCRE2_DOLLAR_ENDONLY))
    }

    /// Compiles `text` to match bytes, one a character (no UTF-8 decoding; case folded
    /// only for ASCII letters): a pattern written for raw bytes (see `RawAbsence`).
    convenience init(bytes text: String, ignoresCase: Bool) throws(PatternError) {
        try self.init(text, ignoresCase: ignoresCase, options: 0)
    }

    private init(_ text: String, ignoresCase: Bool, options given: UInt32) throws(PatternError) {
        var options = given
        isBytes = given & UInt32(PCRE2_UTF) == 0
        if ignoresCase { options |= UInt32(PCRE2_CASELESS) }
        var error: Int32 = 0
        var offset = 0
        let bytes = Array(text.utf8)
        let compiled = bytes.withUnsafeBufferPointer { buffer in
            cf_re_compile(buffer.baseAddress, buffer.count, options, &error, &offset)
        }
        guard let compiled else {
            var message = [UInt8](repeating: 0, count: 256)
            let length = message.withUnsafeMutableBufferPointer { cf_re_error_message(error, $0.baseAddress, $0.count) }
            let reason = String(decoding: message.prefix(max(0, Int(length))), as: UTF8.self)
            // PCRE2 gives a byte offset; a user counts characters.
            let characters = String(decoding: bytes.prefix(min(offset, bytes.count)), as: UTF8.self).count
            throw PatternError(reason: reason, position: characters + 1)
        }
        code = compiled
        self.text = text
        self.ignoresCase = ignoresCase
        isJIT = cf_re_jit(compiled) != 0
        minimumLength = Int(cf_re_min_length(compiled))
    }

    deinit { cf_re_free(code) }
}

/// Matches one compiled pattern on one thread: it holds PCRE2's match data and limits.
///
/// Backtracking is bounded (a match limit and a depth limit), so a pathological pattern
/// gives up on a cell instead of hanging; a cell where it gives up counts as no match.
package final class PatternMatcher {
    package let pattern: CompiledPattern
    private let data: OpaquePointer?
    private let context: OpaquePointer?

    /// What one search in a buffer found.
    package enum Result: Equatable {
        case match(Range<Int>)
        case none
        /// A limit was reached: the buffer may or may not hold a match.
        case gaveUp
    }

    package init(_ pattern: CompiledPattern) {
        self.pattern = pattern
        // Only allocation failure gives nil; matching then reports nothing found.
        data = cf_re_match_data_create(pattern.code)
        context = cf_re_match_context_create(10_000_000, 10_000)
    }

    deinit {
        if let data { cf_re_match_data_free(data) }
        if let context { cf_re_match_context_free(context) }
    }

    /// The first match in `buffer` at or after `start`.
    package func firstMatch(in buffer: UnsafeRawBufferPointer, from start: Int = 0) -> Result {
        guard let data else { return .gaveUp }
        var low = 0, high = 0
        // PCRE2 10.42's JIT reads past the end of a subject that ends in invalid UTF-8
        // (`\b` then depends on whatever bytes follow): such subjects are interpreted.
        let interpret: Int32 = !pattern.isBytes && buffer.last.map { $0 >= 0x80 } ?? false ? 1 : 0
        let result = cf_re_match(pattern.code, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                 buffer.count, start, interpret, data, context, &low, &high)
        if result > 0 { return .match(min(low, high)..<max(low, high)) }
        return result == PCRE2_ERROR_NOMATCH ? .none : .gaveUp
    }

    /// True when the pattern matches somewhere in a cell's bytes (`^`, `$` at its edges).
    package func matches(_ cell: UnsafeRawBufferPointer) -> Bool {
        if case .match = firstMatch(in: cell) { return true }
        return false
    }

    /// True when the pattern matches somewhere in a cell's bytes.
    package func matches(_ cell: ArraySlice<UInt8>) -> Bool {
        cell.withUnsafeBytes { matches($0) }
    }
}
