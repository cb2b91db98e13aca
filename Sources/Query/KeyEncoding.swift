import CellStore

/// Turns a cell into bytes that compare, byte by byte (`memcmp`), the way the column's kind
/// orders cells: what a sort extracts, stores and spills.
///
/// A key starts with a class byte: numbers and dates (1) before text (2) before empty
/// cells (0xFF, last in both directions: the comparer puts them last). A number or date is
/// 8 bytes that order as the value does; text is case-folded, with each run of ASCII digits
/// written as its length and its digits (leading zeros dropped), so runs compare as numbers.
/// Text keys hold no zero byte, so a shorter key that is a prefix of a longer one sorts
/// first whether or not it is padded with zeros.
package enum KeyEncoding {
    package static let valueClass: UInt8 = 1
    package static let textClass: UInt8 = 2
    package static let emptyClass: UInt8 = 0xFF
    /// Text keys are cut at this many bytes: cells that agree that far tie (file order).
    package static let textLimit = 4096

    /// Appends the key of `cell` for a column of `kind` to `key`.
    package static func append(_ cell: UnsafeRawBufferPointer, kind: ColumnKind, to key: inout [UInt8]) {
        if cell.isEmpty {
            key.append(emptyClass)
            return
        }
        switch kind {
        case .number:
            if let value = number(cell) { return appendValue(value, to: &key) }
        case .date:
            if let value = instant(cell) { return appendValue(value, to: &key) }
        case .text: break
        }
        key.append(textClass)
        appendText(cell, to: &key)
    }

    /// Appends the key a one-column ascending sort gives `cell` in a column of `kind`, as
    /// `KeyBuilder` makes it: the cell cut where the sort's reader cuts it, a text key
    /// ended by a zero byte. Keys compare with `order(_:_:)`; the summary takes its min and
    /// max by them, so they are the ends of a sort by construction.
    @inline(__always)
    package static func appendSortKey(_ cell: UnsafeRawBufferPointer, kind: ColumnKind, to key: inout [UInt8]) {
        let start = key.count
        let kept = cell.count > KeyExtractor.cellLimit ? UnsafeRawBufferPointer(rebasing: cell[..<KeyExtractor.cellLimit]) : cell
        append(kept, kind: kind, to: &key)
        if key[start] == textClass { key.append(0) }   // ends a text key
    }

    /// Appends the key `appendSortKey` gives a cell that reads as `value` in a number
    /// column (`number(_:)`) or a date column (`instant(_:)`), without reading it again.
    @inline(__always)
    package static func appendSortKey(value: Double, to key: inout [UInt8]) {
        appendValue(value, to: &key)
    }

    /// -1, 0 or 1 as key `a` sorts before, with or after key `b` (ties keep the file's order).
    @inline(__always)
    package static func order(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let order = SortRun.compare(a, b)
        return order < 0 ? -1 : order > 0 ? 1 : 0
    }

    /// The 8 bytes after the class byte of a number's or instant's key, as one big-endian
    /// word: two values' words compare as their keys do.
    @inline(__always)
    package static func orderedBits(_ value: Double) -> UInt64 {
        let value = value == 0 ? 0 : value   // -0 is 0
        // IEEE order: flip the sign bit of positives, every bit of negatives.
        let bits = value.bitPattern
        return bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
    }

    static func appendValue(_ value: Double, to key: inout [UInt8]) {
        key.append(valueClass)
        let ordered = orderedBits(value)
        for shift in stride(from: 56, through: 0, by: -8) { key.append(UInt8(truncatingIfNeeded: ordered >> UInt64(shift))) }
    }

    /// Case-folded text with digit runs made to compare as numbers.
    static func appendText(_ cell: UnsafeRawBufferPointer, to key: inout [UInt8]) {
        let start = key.count
        if cell.contains(where: { $0 >= 0x80 }) && !isOwnLowercase(cell) {
            let folded = Array(String(decoding: cell, as: UTF8.self).lowercased().utf8)
            folded.withUnsafeBytes { appendFolded($0, to: &key) }
        } else {
            appendFolded(cell, to: &key)
        }
        if key.count - start > textLimit { key.removeSubrange((start + textLimit)...) }
    }

    /// Scalars of the Basic Multilingual Plane that lowercasing changes, one bit each (8 KiB,
    /// made the first time a cell holds more than ASCII).
    private static let changesWhenLowercased: [UInt64] = {
        var bits = [UInt64](repeating: 0, count: 1024)
        for value in 0x80..<0x10000 {
            guard let scalar = Unicode.Scalar(UInt32(value)), scalar.properties.changesWhenLowercased else { continue }
            bits[value >> 6] |= 1 << UInt64(value & 63)
        }
        return bits
    }()

    /// True when `cell` is valid UTF-8 of one- to three-byte sequences whose scalars past
    /// ASCII lowercasing leaves as they are (北京, naïve, œuvre): its lowercase is its ASCII
    /// letters lowered, with no `String` made. False decides nothing (the slow path folds).
    static func isOwnLowercase(_ cell: UnsafeRawBufferPointer) -> Bool {
        let count = cell.count
        var index = 0
        return changesWhenLowercased.withUnsafeBufferPointer { changes in
            while index < count {
                let lead = cell[index]
                if lead < 0x80 {
                    index += 1
                    continue
                }
                let value: Int
                if lead >= 0xC2 && lead <= 0xDF && index + 1 < count && cell[index + 1] & 0xC0 == 0x80 {
                    value = Int(lead & 0x1F) << 6 | Int(cell[index + 1] & 0x3F)
                    index += 2
                } else if lead >= 0xE0 && lead <= 0xEF && index + 2 < count
                            && cell[index + 1] & 0xC0 == 0x80 && cell[index + 2] & 0xC0 == 0x80 {
                    value = Int(lead & 0x0F) << 12 | Int(cell[index + 1] & 0x3F) << 6 | Int(cell[index + 2] & 0x3F)
                    // Overlong forms and surrogates are invalid: the decoder replaces them.
                    guard value >= 0x800 && !(0xD800...0xDFFF).contains(value) else { return false }
                    index += 3
                } else {
                    return false
                }
                if changes[value >> 6] & (1 << UInt64(value & 63)) != 0 { return false }
            }
            return true
        }
    }

    /// Folds `text` into scratch memory, then appends it in one copy (an append per byte
    /// cost more than the folding). A byte becomes at most two (a digit run: its bytes,
    /// `0x30`, its length in pieces of 250).
    private static func appendFolded(_ text: UnsafeRawBufferPointer, to key: inout [UInt8]) {
        let count = text.count
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 * count + 2) { scratch in
            guard let out = scratch.baseAddress else { return }
            var written = 0
            var index = 0
            while index < count {
                let byte = text[index]
                if byte >= 0x30 && byte <= 0x39 {
                    var end = index
                    while end < count && text[end] >= 0x30 && text[end] <= 0x39 { end += 1 }
                    var first = index
                    while first < end - 1 && text[first] == 0x30 { first += 1 }
                    // 0x30 keeps digits where a digit sorts among other characters; then the
                    // run's length (in pieces of at most 250) and its digits.
                    var length = end - first
                    out[written] = 0x30
                    written += 1
                    while length > 250 {
                        out[written] = 0xFC
                        written += 1
                        length -= 250
                    }
                    out[written] = UInt8(length + 1)
                    written += 1
                    for digit in first..<end {
                        out[written] = text[digit]
                        written += 1
                    }
                    index = end
                    continue
                }
                if byte >= 0x41 && byte <= 0x5A {
                    out[written] = byte + 0x20
                } else if byte <= 1 {
                    out[written] = 1   // no zero byte in a text key
                    written += 1
                    out[written] = byte + 1
                } else {
                    out[written] = byte
                }
                written += 1
                index += 1
            }
            key.append(contentsOf: UnsafeBufferPointer(start: out, count: written))
        }
    }

    // MARK: Numbers and dates

    /// The value of a number cell, or nil: `CellValue`'s reading, the one the summary and
    /// the screen share (`-1,234.5`, `1e-3`, `12%` as 0.12, `$5`, `-€3.20`, spaces around;
    /// `1e400` is +infinity, after every finite number).
    static func number(_ cell: UnsafeRawBufferPointer) -> Double? { CellValue.number(cell)?.value }

    /// Seconds since 1970 (UTC) named by an ISO 8601 date or date and time, or nil
    /// (`CellValue.instant`).
    static func instant(_ cell: UnsafeRawBufferPointer) -> Double? { CellValue.instant(cell) }
}
