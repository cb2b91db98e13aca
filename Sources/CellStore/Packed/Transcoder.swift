#if canImport(Glibc)
import Glibc
#endif

/// Converts an input's bytes to UTF-8 as they pass, chunk by chunk, in bounded memory: a
/// character cut between two chunks waits for the next one, a sequence the encoding does
/// not allow becomes U+FFFD (one per code unit), and where that first happened is kept so
/// it can be said once. Used by one thread at a time.
final class Transcoder {
    private var transcoding: Transcoding
    private var converter: iconv_t?
    /// Bytes passed in but not converted yet: a character cut at the end of a chunk, or,
    /// while detecting, the first bytes until a byte-order mark can be told.
    private var pending: [UInt8] = []
    /// Bytes passed in so far.
    private var received: Int64 = 0
    /// Sequences not valid in the encoding, the input offset of the first, and its line.
    private(set) var invalidCount = 0
    private(set) var firstInvalid: Int64?
    private(set) var firstInvalidLine = 0
    /// Line ends (LF, CRLF or CR) in the text converted so far, until the first invalid
    /// sequence; and whether that text ended in a CR (a LF next ends no other line).
    private var lineEnds = 0
    private var endsInCR = false

    static let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]

    init(_ transcoding: Transcoding) throws(CellStoreError) {
        self.transcoding = transcoding
        switch transcoding {
        case .from(let encoding, _): try open(encoding)
        case .detect(let otherwise?): try open(otherwise)
        default: break
        }
    }

    deinit {
        if let converter { iconv_close(converter) }
    }

    private func open(_ encoding: TextEncoding) throws(CellStoreError) {
        let made = iconv_open("UTF-8", encoding.name)
        guard made != iconv_t(bitPattern: -1) else { throw .unknownEncoding(encoding.name) }
        converter = made
    }

    /// True once it is known that the bytes pass as they are (no byte-order mark found).
    var passesThrough: Bool { transcoding == .none }

    /// The encoding converted from, once known (nil: the bytes pass as they are).
    var encoding: TextEncoding? {
        if case .from(let encoding, _) = transcoding { return encoding }
        return nil
    }

    /// The encoding the user named that a byte-order mark overruled, once known.
    var overruled: TextEncoding? {
        if case .from(_, let overruled) = transcoding { return overruled }
        return nil
    }

    /// One line saying where the input was not valid in its encoding, or nil: the line,
    /// and the byte (from 1) in the input before conversion (decompressed, if it was).
    var problem: String? {
        guard let firstInvalid, let encoding else { return nil }
        let more = invalidCount > 1 ? " and \(PackedDamage.grouped(Int64(invalidCount - 1))) more" : ""
        return "bytes not valid in \(encoding.name) on line \(PackedDamage.grouped(Int64(firstInvalidLine)))"
            + " (byte \(PackedDamage.grouped(firstInvalid + 1)))\(more), shown as \u{FFFD}"
    }

    /// Counts line ends in `bytes`, which follow the text counted before.
    private func countLines(_ bytes: ArraySlice<UInt8>) {
        for byte in bytes {
            if byte == 0x0D || (byte == 0x0A && !endsInCR) { lineEnds += 1 }
            endsInCR = byte == 0x0D
        }
    }

    /// The UTF-8 for `bytes`, which follow those passed before; `isLast` says none follow
    /// (a character still cut then is not valid).
    func pass(_ bytes: UnsafeRawBufferPointer, isLast: Bool) -> [UInt8] {
        let start = received - Int64(pending.count)
        received += Int64(bytes.count)
        if case .detect(let otherwise) = transcoding {
            pending.append(contentsOf: bytes)
            guard pending.count >= 4 || isLast else { return [] }
            let decided = Transcoding.decided(named: otherwise, marked: TextEncoding.fromByteOrderMark(pending, utf8: otherwise != nil))
            if case .from(let encoding, _) = decided, encoding != otherwise {
                if let converter { iconv_close(converter) }
                converter = nil
                transcoding = (try? open(encoding)) != nil ? decided : .none
            } else {
                transcoding = decided
            }
            let held = pending
            pending = []
            received -= Int64(held.count)
            return held.withUnsafeBytes { pass($0, isLast: isLast) }
        }
        guard converter != nil else {
            if pending.isEmpty { return Array(bytes) }
            defer { pending = [] }
            return pending + Array(bytes)
        }
        if pending.isEmpty {
            return convert(bytes, at: start, isLast: isLast)
        }
        let joined = pending + Array(bytes)
        pending = []
        return joined.withUnsafeBytes { convert($0, at: start, isLast: isLast) }
    }

    /// How much of a UTF-8 sequence `bytes` starts with is well formed (`matched`), and how
    /// long the sequence its lead byte begins is (`needed`, 0 for a byte no sequence starts
    /// with): the rules of Swift's decoder and the WHATWG one, a maximal invalid subpart one
    /// U+FFFD.
    static func wellFormedPrefix(_ bytes: UnsafeRawBufferPointer) -> (matched: Int, needed: Int) {
        guard let lead = bytes.first else { return (0, 0) }
        let needed: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch lead {
        case 0x00...0x7F: return (1, 1)
        case 0xC2...0xDF: needed = 2
        case 0xE0: needed = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE, 0xEF: needed = 3
        case 0xED: needed = 3; high = 0x9F
        case 0xF0: needed = 4; low = 0x90
        case 0xF1...0xF3: needed = 4
        case 0xF4: needed = 4; high = 0x8F
        default: return (1, 0)
        }
        var matched = 1
        while matched < needed && matched < bytes.count {
            let byte = bytes[matched]
            guard byte >= (matched == 1 ? low : 0x80) && byte <= (matched == 1 ? high : 0xBF) else { break }
            matched += 1
        }
        return (matched, needed)
    }

    /// UTF-8 named (`--encoding utf-8`) is checked here, not by iconv, which lets sequences
    /// past U+10FFFF through: valid runs are copied as they are, each maximal invalid
    /// subpart becomes one U+FFFD, a sequence cut at the chunk's end waits for the next.
    private func checkUTF8(_ input: UnsafeRawBufferPointer, at offset: Int64, isLast: Bool) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(input.count + 16)
        let count = input.count
        var runStart = 0
        var index = 0
        while index < count {
            if input[index] < 0x80 {
                index += 1
                continue
            }
            let (matched, needed) = Transcoder.wellFormedPrefix(UnsafeRawBufferPointer(rebasing: input[index...]))
            if needed > 0 && matched == needed {
                index += matched
                continue
            }
            output.append(contentsOf: input[runStart..<index])
            if needed > 0 && index + matched == count && !isLast {
                pending = Array(input[index...])   // cut: the rest comes with the next chunk
                runStart = count
                index = count
                break
            }
            invalidCount += 1
            if firstInvalid == nil {
                firstInvalid = offset + Int64(index)
                countLines(output[...])
                firstInvalidLine = lineEnds + 1
            }
            output.append(contentsOf: Transcoder.replacement)
            index += max(1, matched)
            runStart = index
        }
        output.append(contentsOf: input[runStart..<index])
        if firstInvalid == nil { countLines(output[...]) }
        return output
    }

    /// Converts `input` (at input offset `offset`), keeping a cut last character in `pending`.
    private func convert(_ input: UnsafeRawBufferPointer, at offset: Int64, isLast: Bool) -> [UInt8] {
        if encoding?.isUTF8 == true { return checkUTF8(input, at: offset, isLast: isLast) }
        guard let converter else { return [] }
        // UTF-8 takes at most three bytes for what any encoding puts in one byte or more
        // (four for what takes four there): three times the input, and more when not.
        var output = [UInt8](repeating: 0, count: max(64, input.count * 3 + 16))
        var produced = 0
        var consumed = 0
        let unit = encoding?.unitSize ?? 1
        func run(_ flush: Bool) -> Int32 {
            output.withUnsafeMutableBytes { out -> Int32 in
                var outPointer: UnsafeMutablePointer<CChar>? = out.baseAddress.map {
                    ($0 + produced).assumingMemoryBound(to: CChar.self)
                }
                var outLeft = out.count - produced
                defer { produced = out.count - outLeft }
                if flush { return iconv(converter, nil, nil, &outPointer, &outLeft) == -1 ? errno : 0 }
                guard let base = input.baseAddress else { return 0 }
                var inPointer: UnsafeMutablePointer<CChar>? = UnsafeMutablePointer(mutating: (base + consumed).assumingMemoryBound(to: CChar.self))
                var inLeft = input.count - consumed
                defer { consumed = input.count - inLeft }
                return iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft) == -1 ? errno : 0
            }
        }
        func replace(skipping count: Int) {
            invalidCount += 1
            if firstInvalid == nil {
                firstInvalid = offset + Int64(consumed)
                countLines(output[..<produced])
                firstInvalidLine = lineEnds + 1
            }
            if output.count - produced < 3 { output.append(contentsOf: repeatElement(0, count: 64)) }
            output.replaceSubrange(produced..<(produced + 3), with: Transcoder.replacement)
            produced += 3
            consumed += count
        }
        while consumed < input.count {
            switch run(false) {
            case 0:
                continue
            case E2BIG:
                output.append(contentsOf: repeatElement(0, count: output.count))
            case EINVAL:
                // A character cut at the end: the rest comes with the next chunk.
                let rest = input.count - consumed
                if isLast {
                    replace(skipping: rest)
                } else {
                    pending = Array(input[consumed...])
                    consumed += rest
                }
            default:
                // EILSEQ, or anything else iconv may say: not valid here. One code unit
                // is skipped, so UTF-16 and UTF-32 stay in step.
                replace(skipping: min(unit, input.count - consumed))
            }
        }
        if isLast {
            // A stateful encoding (ISO-2022-JP) may owe a return to its initial state.
            while run(true) == E2BIG { output.append(contentsOf: repeatElement(0, count: output.count)) }
        }
        output.removeSubrange(produced...)
        if firstInvalid == nil { countLines(output[...]) }
        return output
    }
}
