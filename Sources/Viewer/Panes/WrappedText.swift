import CellStore

/// A cell's text wrapped to a width, laid out lazily from any line start.
///
/// Nothing is wrapped ahead: a line is laid out from its start when it is drawn or
/// stepped over, so a 50 MB cell opens as fast as a short one. Lines break at the cell's
/// line breaks (LF, CR, CRLF), greedily at the width (never inside a grapheme cluster),
/// and, inside a logical line longer than `segment` bytes, at every `segment` bytes of
/// the cell (moved to the next character start, and past the marks and joiners that
/// continue a cluster there). That last rule bounds going back: the
/// line before any line start is found by wrapping forward from the nearest line break
/// or segment boundary, at most `segment` bytes back, never from the top of the cell.
///
/// With `breaksAtSpaces`, a line that overflows breaks after its last space instead (a
/// word is cut only when it is longer than the line), and a space where the line is full
/// ends the line without starting the next: text reads as prose does (the record view).
///
/// Positions are indices into `bytes` (the cell's slice of its row, shared, not copied,
/// or a cell read from the input by window: see `TextBytes`).
struct WrappedText: Sendable {
    let bytes: TextBytes
    let width: Int
    let segment: Int
    let breaksAtSpaces: Bool

    /// Bytes between forced breaks in a long logical line.
    static let defaultSegment = 1 << 16

    init(_ bytes: ArraySlice<UInt8>, width: Int, segment: Int = defaultSegment, breaksAtSpaces: Bool = false) {
        self.init(TextBytes(bytes), width: width, segment: segment, breaksAtSpaces: breaksAtSpaces)
    }

    init(_ bytes: TextBytes, width: Int, segment: Int = defaultSegment, breaksAtSpaces: Bool = false) {
        self.bytes = bytes
        self.width = max(1, width)
        self.segment = max(16, segment)
        self.breaksAtSpaces = breaksAtSpaces
    }

    var start: Int { bytes.startIndex }
    var end: Int { bytes.endIndex }

    /// Whether the text is small enough to count its lines on every frame.
    var isSmall: Bool { bytes.count <= segment }

    // MARK: One line

    /// The line that starts at `lineStart`: its glyphs (when asked for) and where the next
    /// line starts (nil after the last line).
    ///
    /// - Complexity: O(width) for text without combining-heavy clusters; never more than
    ///   about 16 bytes a cell.
    func line(at lineStart: Int, glyphs wantsGlyphs: Bool = true) -> (glyphs: [CellText.Glyph], next: Int?) {
        let hardEnd = nextForcedBreak(after: lineStart)
        var glyphs: [CellText.Glyph] = []
        var used = 0
        var index = lineStart
        // Where the line may end at a word's edge: after its last space so far.
        var wordEdge: (next: Int, glyphs: Int)?
        // The line is full at `index`: it ends there, at a space, or at the last word's edge.
        func full() -> (glyphs: [CellText.Glyph], next: Int?) {
            guard breaksAtSpaces else { return (glyphs, index) }
            if bytes[index] == 0x20 {
                // The space that would overflow ends the line; the next starts after it.
                let after = index + 1
                if after >= end { return (glyphs, nil) }
                return (glyphs, Self.isBreak(bytes[after]) ? afterBreak(at: after) : after)
            }
            guard let edge = wordEdge else { return (glyphs, index) }
            return (Array(glyphs.prefix(edge.glyphs)), edge.next)
        }
        while index < hardEnd {
            let byte = bytes[index]
            if Self.isBreak(byte) { return (glyphs, afterBreak(at: index)) }
            if byte < 0x80 && (index + 1 >= hardEnd || bytes[index + 1] < 0x80) {
                // One ASCII byte is one glyph one cell wide (controls become symbols).
                if used + 1 > width { return full() }
                if wantsGlyphs { glyphs.append(Self.asciiGlyphs[Int(byte)]) }
                used += 1
                index += 1
                if byte == 0x20 && breaksAtSpaces { wordEdge = (index, glyphs.count) }
                continue
            }
            let (clusters, complete) = decodeClusters(from: index, limit: hardEnd, room: width - used)
            var stopped = false
            for (offset, cluster) in clusters.enumerated() {
                if !complete && offset == clusters.count - 1 && offset > 0 { break }   // may go on past the window
                if used + cluster.width > width && used > 0 { stopped = true; break }
                if wantsGlyphs { glyphs.append(contentsOf: cluster.glyphs) }
                used += cluster.width
                index += cluster.length
                if cluster.length == 1 && bytes[index - 1] == 0x20 && breaksAtSpaces { wordEdge = (index, glyphs.count) }
            }
            if stopped { return full() }
        }
        if hardEnd >= end { return (glyphs, nil) }
        // A forced break right before a line break is no break: the line ends there anyway.
        if Self.isBreak(bytes[hardEnd]) { return (glyphs, afterBreak(at: hardEnd)) }
        return (glyphs, hardEnd)
    }

    /// Up to `count` line starts from `lineStart` on (itself first).
    func starts(from lineStart: Int, count: Int) -> [Int] {
        var result: [Int] = []
        var current: Int? = lineStart
        while let position = current, result.count < count {
            result.append(position)
            current = line(at: position, glyphs: false).next
        }
        return result
    }

    // MARK: Going back

    /// Up to `count` line starts before `lineStart`, nearest last.
    ///
    /// - Complexity: O(segment) per region of text crossed, whatever the text's size.
    func starts(before lineStart: Int, count: Int) -> [Int] {
        var found: [Int] = []
        var limit = lineStart
        while found.count < count, limit > start {
            let region = regionStart(beforeLineStart: limit)
            var inRegion: [Int] = []
            var current: Int? = region
            while let position = current, position < limit {
                inRegion.append(position)
                current = line(at: position, glyphs: false).next
            }
            found = inRegion + found
            if region >= limit { break }   // no progress: cannot happen for a line start
            limit = region
        }
        return Array(found.suffix(count))
    }

    /// The line start at or before `position` (for a position kept from another width).
    func lineStart(atOrBefore position: Int) -> Int {
        var position = max(start, min(position, end))
        if position == start { return position }
        if bytes[position - 1] == 0x0D && position < end && bytes[position] == 0x0A {
            position -= 1   // inside a CRLF: the line it ends
        } else if Self.isBreak(bytes[position - 1]) {
            return position
        }
        let region = regionStart(atOrBefore: min(position, end - 1))
        var last = region
        var current: Int? = region
        while let candidate = current, candidate <= position {
            last = candidate
            current = line(at: candidate, glyphs: false).next
        }
        return last
    }

    /// The start of the last line.
    var lastLineStart: Int { lineStart(atOrBefore: end) }

    /// The number of lines and of lines before `lineStart`, counted from the top; only
    /// for small texts (see `isSmall`).
    func lineNumber(of lineStart: Int) -> (index: Int, total: Int) {
        var index = 0, total = 0
        var current: Int? = start
        while let position = current {
            if position < lineStart { index += 1 }
            total += 1
            current = line(at: position, glyphs: false).next
        }
        return (index, total)
    }

    /// Where wrapping can start for the line that ends just before `lineStart`: the start
    /// of its logical line or the last forced break in it, whichever is later.
    private func regionStart(beforeLineStart lineStart: Int) -> Int {
        var last = lineStart - 1
        if Self.isBreak(bytes[last]) {
            if bytes[last] == 0x0A && last > start && bytes[last - 1] == 0x0D { last -= 1 }
        }
        return regionStart(atOrBefore: last)
    }

    /// The later of the logical line start and the last forced break at or before
    /// `position` (a forced break counts only where text follows it).
    private func regionStart(atOrBefore position: Int) -> Int {
        var boundary = forcedBreak(atOrBefore: position)
        if boundary == position && boundary > start && Self.isBreak(bytes[boundary]) {
            boundary = forcedBreak(atOrBefore: position - 1)
        }
        var index = position
        while index > boundary {
            if Self.isBreak(bytes[index - 1]) { return index }
            index -= 1
        }
        return boundary
    }

    // MARK: Forced breaks

    /// Forced break `k` (k ≥ 1): `k * segment` bytes in, moved to a character start, then
    /// past what continues a cluster there.
    private func forcedBreak(_ k: Int) -> Int {
        var position = min(end, start + k * segment)
        var steps = 0
        while position < end && steps < 3 && bytes[position] & 0xC0 == 0x80 { position += 1; steps += 1 }
        return clusterBoundary(from: position)
    }

    /// `position` (a character start) moved past the code points that continue the
    /// cluster before it: zero-width ones (marks, joiners, selectors) and what a zero-width
    /// joiner joins. A break there would show them apart, as characters that draw nothing.
    /// At most 64 bytes on: a longer cluster is cut.
    private func clusterBoundary(from position: Int) -> Int {
        let limit = min(end, position + 64)
        var index = position
        var afterJoiner = position - start >= 3 && bytes.bytes(in: (position - 3)..<position).elementsEqual([0xE2, 0x80, 0x8D])
        while index < limit, bytes[index] >= 0x80 {
            var iterator = bytes.bytes(in: index..<min(end, index + 4)).makeIterator()
            var parser = Unicode.UTF8.ForwardParser()
            guard case .valid(let encoded) = parser.parseScalar(from: &iterator) else { break }
            let scalar = Unicode.UTF8.decode(encoded)
            guard afterJoiner || (DisplayWidth.of(scalar) == 0 && CellText.symbol(for: scalar) == nil) else { break }
            afterJoiner = scalar.value == 0x200D
            index += encoded.count
        }
        return index
    }

    private func nextForcedBreak(after position: Int) -> Int {
        guard position < end else { return end }
        var k = (position - start) / segment + 1
        while forcedBreak(k) <= position { k += 1 }
        return forcedBreak(k)
    }

    private func forcedBreak(atOrBefore position: Int) -> Int {
        var k = (position - start) / segment
        while k >= 1 && forcedBreak(k) > position { k -= 1 }
        return k >= 1 ? forcedBreak(k) : start
    }

    // MARK: Bytes

    static func isBreak(_ byte: UInt8) -> Bool { byte == 0x0A || byte == 0x0D }

    private func afterBreak(at index: Int) -> Int {
        bytes[index] == 0x0D && index + 1 < end && bytes[index + 1] == 0x0A ? index + 2 : index + 1
    }

    /// Glyphs for the 128 ASCII bytes (controls as their symbols).
    static let asciiGlyphs: [CellText.Glyph] = (0..<128).map { value in
        let scalar = Unicode.Scalar(UInt8(value))
        if let symbol = CellText.symbol(for: scalar) { return CellText.Glyph(text: symbol, width: 1, isSymbol: true) }
        return CellText.Glyph(text: String(Character(scalar)), width: 1, isSymbol: false)
    }

    struct Cluster {
        var glyphs: [CellText.Glyph]
        var width: Int
        var length: Int
    }

    /// Grapheme clusters from `index`, decoded from a window large enough for `room`
    /// cells and stopped at a line break or `limit`; `complete` is false when the window
    /// was cut short, so its last cluster may go on.
    private func decodeClusters(from index: Int, limit: Int, room: Int) -> ([Cluster], Bool) {
        let cap = 4 * (max(0, room) + 1) + 32
        var windowEnd = min(limit, index + cap)
        var complete = windowEnd == limit
        var scan = index
        while scan < windowEnd {
            if Self.isBreak(bytes[scan]) { windowEnd = scan; complete = true; break }
            scan += 1
        }
        // Decode by hand, so each scalar's length in the input is known (invalid bytes
        // become U+FFFD, and the offsets still add up).
        var scalars = String.UnicodeScalarView()
        var lengths: [Int] = []
        var iterator = bytes.bytes(in: index..<windowEnd).makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        loop: while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                scalars.append(Unicode.UTF8.decode(encoded))
                lengths.append(encoded.count)
            case .error(let length):
                scalars.append("\u{FFFD}")
                lengths.append(length)
            case .emptyInput:
                break loop
            }
        }
        var clusters: [Cluster] = []
        var scalarIndex = 0
        for character in String(scalars) {
            let count = character.unicodeScalars.count
            let length = lengths[scalarIndex..<(scalarIndex + count)].reduce(0, +)
            scalarIndex += count
            let glyphs = CellText.glyphs(String(character))
            clusters.append(Cluster(glyphs: glyphs, width: glyphs.reduce(0) { $0 + $1.width }, length: length))
        }
        return (clusters, complete)
    }
}

extension WrappedText: Equatable {
    /// Same width and rules over the same bytes (compared by storage first: a huge cell
    /// is not compared byte by byte with itself).
    static func == (lhs: WrappedText, rhs: WrappedText) -> Bool {
        lhs.width == rhs.width && lhs.segment == rhs.segment && lhs.breaksAtSpaces == rhs.breaksAtSpaces
            && lhs.bytes.isSame(as: rhs.bytes)
    }
}
