import CExport

/// JSON strings from cell bytes, escaped in bulk by `cx_json_escape`: runs of printable
/// ASCII are copied 16 bytes at a time; quotes, backslashes and controls are escaped;
/// UTF-8 is copied as it is, and each maximal invalid sequence becomes one U+FFFD, exactly
/// as Swift's `String(decoding:as:)` reads it. Nothing is allocated per cell.
package enum JSONText {
    /// Bytes the escaped form of `count` bytes takes at most (a control byte's `\u00XX`).
    package static func escapedBound(_ count: Int) -> Int { 6 * count }

    /// Writes `bytes`, escaped, at `out` (room for `escapedBound(bytes.count)`); returns
    /// the position after them.
    @inline(__always)
    package static func escape(_ bytes: UnsafeRawBufferPointer, at out: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return out }
        return out + cx_json_escape(base.assumingMemoryBound(to: UInt8.self), bytes.count, out)
    }

    /// Appends `bytes` as a JSON string; `opens` and `closes` say whether the quotes
    /// around it are written (a string that arrives in pieces opens with its first).
    package static func append(_ bytes: UnsafeRawBufferPointer, opens: Bool = true, closes: Bool = true, to buffer: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: escapedBound(bytes.count) + 2) { scratch in
            guard let start = scratch.baseAddress else { return }
            var end = start
            if opens { end.pointee = 0x22; end += 1 }
            end = escape(bytes, at: end)
            if closes { end.pointee = 0x22; end += 1 }
            buffer.append(contentsOf: UnsafeBufferPointer(start: start, count: end - start))
        }
    }

    /// Appends `bytes` as a JSON string (see `append(_:opens:closes:to:)`).
    package static func append(_ bytes: ArraySlice<UInt8>, opens: Bool = true, closes: Bool = true, to buffer: inout [UInt8]) {
        bytes.withUnsafeBytes { append($0, opens: opens, closes: closes, to: &buffer) }
    }

    /// Appends a record, or a piece of one, as a JSON object's members (see
    /// `cx_json_object_members`): written whole into scratch memory, then added to
    /// `buffer` in one copy (an append per key and cell cost more than the escaping).
    /// `keys` are the columns' keys back to back, each a JSON string and its colon, key
    /// `k` ending at `keyEnds[k]`; `column` counts the cells written before this piece.
    package static func appendMembers(cells: [UInt8], ends: [Int], keys: [UInt8], keyEnds: [Int], column: Int,
                                      continuesPrevious: Bool, continuesInNext: Bool, to buffer: inout [UInt8]) {
        let last = min(column + ends.count, keyEnds.count)
        let keyBytes = last == 0 ? 0 : keyEnds[last - 1] - (column == 0 || column > last ? 0 : keyEnds[column - 1])
        let bound = 3 + 4 * ends.count + escapedBound(cells.count) + keyBytes
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bound) { scratch in
            guard let out = scratch.baseAddress else { return }
            let written = cells.withUnsafeBufferPointer { cells in
                ends.withUnsafeBufferPointer { ends in
                    keys.withUnsafeBufferPointer { keys in
                        keyEnds.withUnsafeBufferPointer { keyEnds in
                            cx_json_object_members(cells.baseAddress, ends.baseAddress, ends.count, keys.baseAddress,
                                                   keyEnds.baseAddress, column, continuesPrevious ? 1 : 0,
                                                   continuesInNext ? 1 : 0, out)
                        }
                    }
                }
            }
            buffer.append(contentsOf: UnsafeBufferPointer(start: out, count: written))
        }
    }
}
