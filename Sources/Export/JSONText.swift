import CExport

/// JSON strings from cell bytes, escaped in bulk: runs of printable ASCII are found 16
/// bytes at a time and copied whole; quotes, backslashes and controls are escaped; UTF-8
/// is copied as it is, and each maximal invalid sequence becomes one U+FFFD, exactly as
/// Swift's `String(decoding:as:)` reads it. Nothing is allocated per cell.
public enum JSONText {
    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)
    private static let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]

    /// Appends `bytes` as a JSON string; `opens` and `closes` say whether the quotes
    /// around it are written (a string that arrives in pieces opens with its first).
    public static func append(_ bytes: UnsafeRawBufferPointer, opens: Bool = true, closes: Bool = true, to buffer: inout [UInt8]) {
        if opens { buffer.append(0x22) }
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            if closes { buffer.append(0x22) }
            return
        }
        let count = bytes.count
        var index = 0
        while index < count {
            let plain = cx_json_plain_prefix(base + index, count - index)
            if plain > 0 {
                buffer.append(contentsOf: UnsafeBufferPointer(start: base + index, count: plain))
                index += plain
                if index >= count { break }
            }
            let byte = base[index]
            if byte < 0x80 {
                switch byte {
                case 0x22: buffer.append(0x5C); buffer.append(0x22)
                case 0x5C: buffer.append(0x5C); buffer.append(0x5C)
                case 0x0A: buffer.append(0x5C); buffer.append(UInt8(ascii: "n"))
                case 0x0D: buffer.append(0x5C); buffer.append(UInt8(ascii: "r"))
                case 0x09: buffer.append(0x5C); buffer.append(UInt8(ascii: "t"))
                default:
                    buffer.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                }
                index += 1
                continue
            }
            let length = validSequence(base + index, count - index)
            if length > 0 {
                buffer.append(contentsOf: UnsafeBufferPointer(start: base + index, count: length))
                index += length
            } else {
                buffer.append(contentsOf: replacement)
                index += max(1, -length)
            }
        }
        if closes { buffer.append(0x22) }
    }

    /// Appends `bytes` as a JSON string (see `append(_:opens:closes:to:)`).
    public static func append(_ bytes: ArraySlice<UInt8>, opens: Bool = true, closes: Bool = true, to buffer: inout [UInt8]) {
        bytes.withUnsafeBytes { append($0, opens: opens, closes: closes, to: &buffer) }
    }

    /// The length of the valid UTF-8 sequence at `p` (a byte of 0x80 or more), or minus
    /// the length of its maximal invalid subpart (at least 1).
    @inline(__always)
    static func validSequence(_ p: UnsafePointer<UInt8>, _ available: Int) -> Int {
        let lead = p[0]
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return -1
        }
        var index = 1
        while index < length {
            guard index < available else { return -index }
            let byte = p[index]
            let (lower, upper) = index == 1 ? (low, high) : (UInt8(0x80), UInt8(0xBF))
            guard byte >= lower && byte <= upper else { return -index }
            index += 1
        }
        return length
    }
}
