#if canImport(Glibc)
import Glibc
#endif
import CellStore
import CFieldScan
import Synchronization

/// Tells from an input's raw bytes alone, with no index and no record boundary, that no
/// cell can match a literal pattern: how a filter that keeps nothing ends at the speed of
/// `grep`.
///
/// A cell's value is always its raw bytes less some quotes: those around a quoted field,
/// one of each doubled pair, and, where a field is badly quoted, a closing quote that text
/// follows (the text joins the field). So a literal without the quote character that is
/// in a value is in the raw bytes too, with at most runs of quotes between its bytes,
/// whatever the quoting: searched that way, raw bytes with no occurrence hold no record
/// that matches. Only literals are analysed (letters, digits, punctuation other than
/// PCRE2's, and `\` before punctuation), with or without conditions on their ends (`^`,
/// `$`, `\b`); with case ignored only ASCII ones, whose folding
/// in a UTF-8 cell is known (`k` also matches U+212A, `s` U+017F, both spelt out here).
package struct RawAbsence: Sendable {
    /// One character of the literal: its bytes, whether they are an ASCII letter with case
    /// ignored, and another spelling (the sign `k` or `s` also matches, case ignored).
    struct Atom: Sendable {
        var bytes: [UInt8]
        var foldsCase: Bool
        var other: [UInt8]?
    }
    let atoms: [Atom]
    /// The literal over raw bytes, quotes allowed between its bytes: searched with PCRE2
    /// when no byte of it is in every spelling (every character a `k` or an `s`).
    let pattern: CompiledPattern
    /// The most bytes an occurrence holds besides quotes, less one: what a read carries
    /// over to the next, so no occurrence is cut at a buffer's edge.
    let carried: Int
    /// The quote byte skipped between the literal's bytes (nil: the dialect has none).
    let quote: UInt8?

    /// What a search of raw bytes found.
    package enum Finding: Equatable, Sendable {
        /// No cell can match.
        case absent
        /// Maybe one can: none starts before this offset (one starts here, or the search
        /// could not tell from here on).
        case candidate(at: Int64)
        case cancelled
    }

    /// The search for `text` (a filter's pattern, with case ignored or not), or nil when
    /// it is not a literal analysed here or holds the quote byte.
    package init?(pattern text: String, ignoresCase: Bool, quote: UInt8?) {
        guard let literal = Self.literal(text), !literal.isEmpty else { return nil }
        let between = quote.map { "\\x{" + String($0, radix: 16) + "}*" } ?? ""
        func spelt(_ sequence: [UInt8]) -> String {
            sequence.map { "\\x{" + String($0, radix: 16) + "}" }.joined(separator: between)
        }
        var atoms: [Atom] = []
        var parts: [String] = []
        var longest = 0
        for scalar in literal {
            if ignoresCase && !scalar.isASCII { return nil }
            let encoded = Array(String(scalar).utf8)
            if let quote, encoded.contains(quote) { return nil }
            let isLetter = scalar.isASCII && scalar.properties.isAlphabetic
            // In a UTF-8 cell with case ignored, `k` and `s` also match a sign of 3 and 2
            // bytes (KELVIN SIGN, LATIN SMALL LETTER LONG S).
            var other: [UInt8]?
            if ignoresCase && (scalar == "k" || scalar == "K") { other = [0xE2, 0x84, 0xAA] }
            if ignoresCase && (scalar == "s" || scalar == "S") { other = [0xC5, 0xBF] }
            atoms.append(Atom(bytes: ignoresCase && isLetter ? encoded.map { $0 | 0x20 } : encoded,
                              foldsCase: ignoresCase && isLetter, other: other))
            parts.append(other.map { "(?:" + spelt(encoded) + "|" + spelt($0) + ")" } ?? spelt(encoded))
            longest += max(encoded.count, other?.count ?? 0)
        }
        guard let compiled = try? CompiledPattern(bytes: parts.joined(separator: between), ignoresCase: ignoresCase) else { return nil }
        self.atoms = atoms
        pattern = compiled
        carried = longest - 1
        self.quote = quote
    }

    /// The scalars every match of `text` holds one after another when it is a plain
    /// literal, else nil. Conditions on its ends (`^`, `\A`, `\b` before; `$`, `\z`,
    /// `\Z`, `\b` after) only narrow where it matches: they are left out.
    static func literal(_ text: String) -> [Unicode.Scalar]? {
        let special = Set("\\^$.|?*+()[]{}".unicodeScalars)
        // Each scalar, and whether a backslash escaped it.
        var tokens: [(scalar: Unicode.Scalar, escaped: Bool)] = []
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            if scalar == "\\" {
                guard let next = scalars.next() else { return nil }
                tokens.append((next, true))
            } else {
                tokens.append((scalar, false))
            }
        }
        func isStart(_ token: (scalar: Unicode.Scalar, escaped: Bool)) -> Bool {
            token.escaped ? token.scalar == "A" || token.scalar == "b" : token.scalar == "^"
        }
        func isEnd(_ token: (scalar: Unicode.Scalar, escaped: Bool)) -> Bool {
            token.escaped ? "zZb".unicodeScalars.contains(token.scalar) : token.scalar == "$"
        }
        var body = tokens[...]
        while let first = body.first, isStart(first) { body = body.dropFirst() }
        while let last = body.last, isEnd(last) { body = body.dropLast() }
        var result: [Unicode.Scalar] = []
        for (scalar, escaped) in body {
            if escaped {
                // An escaped punctuation character is itself; other escapes mean more.
                guard scalar.isASCII, !scalar.properties.isAlphabetic, !("0"..."9").contains(scalar), scalar.value > 0x20,
                      scalar.value != 0x7F else { return nil }
                result.append(scalar)
            } else if special.contains(scalar) || scalar.value == 0 {
                return nil
            } else {
                result.append(scalar)
            }
        }
        return result
    }

    /// Where the search anchors: a byte (both cases of a letter) that every occurrence
    /// holds, the rarest in `sample`; nil when there is none (every character has another
    /// spelling).
    func anchor(in sample: UnsafeRawBufferPointer) -> (atom: Int, byte: Int)? {
        var counts = [Int](repeating: 0, count: 256)
        for byte in sample { counts[Int(byte)] += 1 }
        var best: (atom: Int, byte: Int, count: Int)?
        for (index, atom) in atoms.enumerated() where atom.other == nil {
            for (position, byte) in atom.bytes.enumerated() {
                let count = counts[Int(byte)] + (atom.foldsCase ? counts[Int(byte & ~0x20)] : 0)
                if best == nil || count <= best!.count { best = (index, position, count) }
            }
        }
        return best.map { ($0.atom, $0.byte) }
    }

    /// Searches bytes `start..<end` of `source` on `workers` threads (past `minimumShared`
    /// bytes), each a part of about equal bytes read on by `overlap` bytes, so no occurrence
    /// is cut between them, `size` bytes at a time; an earlier part's candidate stops the
    /// later ones.
    package func search(_ source: ByteSource, from start: Int64, to end: Int64, workers: Int, size: Int = 1 << 20,
                        minimumShared: Int64 = 8 << 20, overlap: Int64 = 64 << 10,
                        isCancelled: @escaping @Sendable () -> Bool = { false }) -> Finding {
        let parts = end - start >= max(1, minimumShared) ? max(1, workers) : 1
        guard parts > 1 else { return search(source, from: start, to: end, size: size, isCancelled: isCancelled) }
        let findings = Mutex<[Finding?]>(Array(repeating: nil, count: parts))
        BackgroundScan<Int>.runConcurrently(parts, threadName: "csvfreeze raw search", yieldsToInteractiveThreads: false) { part in
            let from = start + (end - start) * Int64(part) / Int64(parts)
            let covered = start + (end - start) * Int64(part + 1) / Int64(parts)
            let settled = {
                isCancelled() || findings.withLock { found in found[..<part].contains { if case .candidate = $0 { true } else { false } } }
            }
            let finding = search(source, from: from, to: min(end, covered + overlap), covers: covered, size: size, isCancelled: settled)
            findings.withLock { $0[part] = finding }
        }
        let found = findings.withLock { $0 }
        // In order: the first part that is not clear of occurrences says where one may start.
        for finding in found {
            switch finding {
            case .absent: continue
            case .candidate(let offset): return .candidate(at: offset)
            case .cancelled, nil: return .cancelled
            }
        }
        return .absent
    }

    /// Searches bytes `start..<end` of `source`, `size` bytes (a megabyte) at a time, for
    /// occurrences that start before `covers` (`end` unless given).
    package func search(_ source: ByteSource, from start: Int64, to end: Int64, covers: Int64? = nil, size: Int = 1 << 20,
                        isCancelled: () -> Bool = { false }) -> Finding {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        let matcher = PatternMatcher(pattern)
        var anchor: (atom: Int, byte: Int)??   // chosen from the first read
        var kept = 0          // bytes carried over at the buffer's start
        var offset = start    // where the next read starts
        while offset < end {
            if isCancelled() { return .cancelled }
            let wanted = Int(min(Int64(size - kept), end - offset))
            let count = source.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[kept..<(kept + wanted)]))
            // The input became shorter than it was: let the exact pass say what is there.
            if count <= 0 { return .candidate(at: offset - Int64(kept)) }
            let filled = kept + count
            let base = offset - Int64(kept)
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<filled])
            if anchor == nil { anchor = .some(self.anchor(in: bytes)) }
            if let found = anchor.flatMap({ $0 }) {
                if let position = firstOccurrence(in: bytes, anchor: found) { return .candidate(at: base + Int64(position)) }
            } else {
                switch matcher.firstMatch(in: bytes) {
                case .match(let range): return .candidate(at: base + Int64(range.lowerBound))
                case .gaveUp: return .candidate(at: base)
                case .none: break
                }
            }
            offset += Int64(count)
            // Carry the last `carried` bytes that are not quotes, and the quotes among them.
            var from = filled
            var needed = carried
            while from > 0 && needed > 0 {
                from -= 1
                if buffer[from] != quote { needed -= 1 }
            }
            kept = filled - from
            // Quotes enough to fill half the buffer: not worth carrying.
            if kept > size / 2 { return .candidate(at: base + Int64(from)) }
            if kept > 0, let address = buffer.baseAddress { memmove(address, address + from, kept) }
        }
        // An occurrence starting before `covers` could run past the end read (only after
        // a run of quotes as long as the overlap).
        if let covers, end > covers, offset - Int64(kept) < covers { return .candidate(at: offset - Int64(kept)) }
        return .absent
    }

    /// Where the first occurrence wholly in `bytes` (found by its anchor byte) starts, or
    /// nil. Anchor bytes are found 64 a step; each is followed back and on through the literal.
    func firstOccurrence(in bytes: UnsafeRawBufferPointer, anchor: (atom: Int, byte: Int)) -> Int? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        let atom = atoms[anchor.atom]
        let byte = atom.bytes[anchor.byte]
        let other = atom.foldsCase ? byte & ~0x20 : byte
        var index = 0
        while index < bytes.count {
            let rest = bytes.count - index
            let found: Int
            if byte == other {
                guard let hit = memchr(base + index, Int32(byte), rest) else { return nil }
                found = index + (UnsafeRawPointer(hit) - UnsafeRawPointer(base + index))
            } else {
                found = index + cf_find_either(base + index, rest, byte, other)
                if found >= bytes.count { return nil }
            }
            if let start = occurrence(in: bytes, at: found, anchor: anchor) { return start }
            index = found + 1
        }
        return nil
    }

    /// Where the literal starts when it occurs in `bytes` with its anchor byte at
    /// `position`, quotes allowed between its bytes; nil when it does not, or would run
    /// past either end of `bytes`.
    func occurrence(in bytes: UnsafeRawBufferPointer, at position: Int, anchor: (atom: Int, byte: Int)) -> Int? {
        // Back from the anchor: the anchor's character's earlier bytes, then the characters before.
        var back = position
        let anchorAtom = atoms[anchor.atom]
        for index in stride(from: anchor.byte - 1, through: 0, by: -1) {
            guard step(bytes, &back, forward: false, to: anchorAtom.bytes[index], folds: anchorAtom.foldsCase) else { return nil }
        }
        for index in stride(from: anchor.atom - 1, through: 0, by: -1) {
            guard spell(bytes, &back, atoms[index], forward: false) else { return nil }
        }
        var on = position + 1
        for index in (anchor.byte + 1)..<max(anchor.byte + 1, anchorAtom.bytes.count) {
            guard step(bytes, &on, forward: true, to: anchorAtom.bytes[index], folds: anchorAtom.foldsCase) else { return nil }
        }
        for index in (anchor.atom + 1)..<max(anchor.atom + 1, atoms.count) {
            guard spell(bytes, &on, atoms[index], forward: true) else { return nil }
        }
        return back
    }

    /// Follows one character of the literal from `position` (either of its spellings).
    private func spell(_ bytes: UnsafeRawBufferPointer, _ position: inout Int, _ atom: Atom, forward: Bool) -> Bool {
        if follow(bytes, &position, atom.bytes, folds: atom.foldsCase, forward: forward) { return true }
        guard let other = atom.other else { return false }
        return follow(bytes, &position, other, folds: false, forward: forward)
    }

    /// Follows `spelling` from `position`, moving past it only when it is all there.
    private func follow(_ bytes: UnsafeRawBufferPointer, _ position: inout Int, _ spelling: [UInt8], folds: Bool,
                        forward: Bool) -> Bool {
        var at = position
        for index in spelling.indices {
            let byte = spelling[forward ? index : spelling.count - 1 - index]
            guard step(bytes, &at, forward: forward, to: byte, folds: folds) else { return false }
        }
        position = at
        return true
    }

    /// Steps over quotes to the next byte (forward: at `position`; back: before it) and
    /// checks it is `byte` (its letter in either case with `folds`); moves past it.
    private func step(_ bytes: UnsafeRawBufferPointer, _ position: inout Int, forward: Bool, to byte: UInt8, folds: Bool) -> Bool {
        var at = forward ? position : position - 1
        while at >= 0 && at < bytes.count && bytes[at] == quote { at += forward ? 1 : -1 }
        guard at >= 0 && at < bytes.count else { return false }
        let found = folds ? bytes[at] | 0x20 : bytes[at]
        guard found == byte else { return false }
        position = forward ? at + 1 : at
        return true
    }
}
