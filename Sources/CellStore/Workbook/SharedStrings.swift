#if canImport(Glibc)
import Glibc
#endif

/// The workbook's shared strings (`xl/sharedStrings.xml`): a cell of type `s` holds an
/// index into them. Rich text is its runs' text joined (phonetic guides, `rPh`, left out).
///
/// They are read whole before a sheet's first row, since any row may name any string.
/// Up to `memoryLimit` (text and offsets) they are kept in memory; past it, both go to
/// temporary files, read back with `pread`, so a workbook of any size opens in bounded
/// memory. `textLimit` bounds the whole (the disk a zip bomb could fill).
final class SharedStrings: XMLHandler {
    /// Memory kept for the strings before they go to a temporary file.
    static let defaultMemoryLimit = 32 << 20
    /// The longest string or cell text read: Excel's own limit is 32,767 characters.
    static let cellLimit = 16 << 20

    private let memoryLimit: Int
    private let textLimit: Int64
    /// In memory: the text of every string, one after another, and where each starts
    /// (with the end of the last).
    private var bytes: [UInt8] = []
    private var starts: [Int64] = [0]
    /// On disk, once spilled: the text and the starts (8 bytes each, little-endian).
    private var textFile: UnlinkedFile?
    private var startsFile: UnlinkedFile?
    private var textWritten: Int64 = 0
    private var startsWritten: Int64 = 0
    private var total: Int64 = 0

    private var current: [UInt8] = []
    private var inString = false
    private var inText = false
    private var phoneticDepth = 0
    private var failure: String?

    /// How many strings there are.
    private(set) var count = 0

    init(memoryLimit: Int = SharedStrings.defaultMemoryLimit, textLimit: Int64) {
        self.memoryLimit = memoryLimit
        self.textLimit = textLimit
    }

    /// Reads the shared strings of `workbook` (none when it has no such part).
    static func read(_ workbook: Workbook, memoryLimit: Int = SharedStrings.defaultMemoryLimit,
                     textLimit: Int64) throws(ZipEntryError) -> SharedStrings {
        let strings = SharedStrings(memoryLimit: memoryLimit, textLimit: textLimit)
        guard let part = workbook.sharedStringsPart, let index = workbook.archive.locate(part) else { return strings }
        let entry = try workbook.archive.open(index, part: part)
        let reader = try XMLReader(part: part, handler: strings)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try entry.read(into: buffer)
            var status = reader.parse(UnsafeRawBufferPointer(rebasing: buffer[..<count]), isFinal: count == 0)
            while status == .paused { status = reader.resume() }
            if case .failed(let why) = status { throw ZipEntryError(why) }
            if count == 0 { break }
        }
        try strings.finish()
        return strings
    }

    func start(_ name: XMLName, _ attributes: XMLAttributes, _ reader: XMLReader) {
        if name == "si" {
            inString = true
            current.removeAll(keepingCapacity: true)
        } else if name == "rPh" {
            phoneticDepth += 1
        } else if name == "t" && inString && phoneticDepth == 0 {
            inText = true
        }
    }

    func end(_ name: XMLName, _ reader: XMLReader) {
        if name == "t" {
            inText = false
        } else if name == "rPh" {
            phoneticDepth = max(0, phoneticDepth - 1)
        } else if name == "si" {
            inString = false
            if let why = append(XMLText.unescaped(current)) { reader.fail(why) }
        }
    }

    func text(_ text: UnsafeRawBufferPointer, _ reader: XMLReader) {
        guard inText else { return }
        if current.count + text.count > SharedStrings.cellLimit {
            reader.fail("has a string longer than \(SpoolLimit.describe(Int64(SharedStrings.cellLimit))) (string \((count + 1).grouped)): not read")
            return
        }
        current.append(contentsOf: text)
    }

    /// Adds a string; why not, when it cannot be kept.
    private func append(_ string: [UInt8]) -> String? {
        total += Int64(string.count) + 8
        if total > textLimit {
            return "holds more than \(SpoolLimit.describe(textLimit)) of strings: not read (--spool-limit sets more)"
        }
        count += 1
        if textFile == nil && bytes.count + string.count + starts.count * 8 > memoryLimit {
            if let why = spill() { return why }
        }
        bytes.append(contentsOf: string)
        starts.append((starts.last ?? 0) + Int64(string.count))
        if textFile != nil && bytes.count >= 1 << 20 { return flush() }
        return nil
    }

    /// Moves what is in memory to temporary files; from now on strings pass through.
    private func spill() -> String? {
        do {
            textFile = try UnlinkedFile(tag: "strings")
            startsFile = try UnlinkedFile(tag: "starts")
        } catch {
            return "has more strings than fit in memory, and \(error.message)"
        }
        return flush()
    }

    /// Writes the text and starts held in memory to the files; the last start stays
    /// (the next string's text begins there) unless `isLast`.
    private func flush(isLast: Bool = false) -> String? {
        guard let textFile, let startsFile else { return nil }
        var failed = bytes.withUnsafeBytes { textFile.write($0, at: textWritten) }
        textWritten += Int64(bytes.count)
        bytes.removeAll(keepingCapacity: true)
        let written = isLast ? starts[...] : starts.dropLast()
        if failed == 0 {
            failed = written.withUnsafeBytes { startsFile.write($0, at: startsWritten) }
        }
        startsWritten += Int64(written.count * 8)
        starts.removeFirst(written.count)
        if failed != 0 { return "cannot keep the strings in a temporary file: \(String(cString: strerror(failed)))" }
        return nil
    }

    /// Ends the reading: what is still in memory of spilled strings goes to the files.
    private func finish() throws(ZipEntryError) {
        if textFile != nil, let why = flush(isLast: true) { throw ZipEntryError(why) }
    }

    /// Calls `body` with string `index`'s text where it is kept (no copy when in memory);
    /// false when there is no such string.
    func withString(_ index: Int, _ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
        guard index >= 0 && index < count else { return false }
        guard textFile != nil else {
            bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[Int(starts[index])..<Int(starts[index + 1])])) }
            return true
        }
        guard let text = string(index) else { return false }
        text.withUnsafeBytes { body($0) }
        return true
    }

    /// String `index`'s text, or nil when there is no such string.
    func string(_ index: Int) -> [UInt8]? {
        guard index >= 0 && index < count else { return nil }
        guard let textFile, let startsFile else {
            return Array(bytes[Int(starts[index])..<Int(starts[index + 1])])
        }
        var pair: (Int64, Int64) = (0, 0)
        let got = withUnsafeMutableBytes(of: &pair) { startsFile.read(at: Int64(index) * 8, into: $0) }
        guard got == 16, pair.1 >= pair.0, pair.1 - pair.0 <= SharedStrings.cellLimit else { return nil }
        var text = [UInt8](repeating: 0, count: Int(pair.1 - pair.0))
        let read = text.withUnsafeMutableBytes { textFile.read(at: pair.0, into: $0) }
        return read == text.count ? text : nil
    }

    /// True when the strings went to temporary files.
    var isSpilled: Bool { textFile != nil }
}

/// The text of an Office XML string: `_xHHHH_` stands for the UTF-16 code unit HHHH (how
/// Excel writes a control character, such as `_x000D_` for a carriage return), and
/// `_x005F_` for a `_` that would otherwise begin one.
enum XMLText {
    static func unescaped(_ text: [UInt8]) -> [UInt8] {
        guard text.contains(0x5F) else { return text }
        func hex(_ byte: UInt8) -> UInt32? {
            switch byte {
            case 0x30...0x39: return UInt32(byte - 0x30)
            case 0x41...0x46: return UInt32(byte - 0x41 + 10)
            case 0x61...0x66: return UInt32(byte - 0x61 + 10)
            default: return nil
            }
        }
        /// The code unit of an escape at `index`, if one is there.
        func unit(at index: Int) -> UInt32? {
            guard index + 7 <= text.count, text[index] == 0x5F, text[index + 1] == 0x78 || text[index + 1] == 0x58,
                  text[index + 6] == 0x5F else { return nil }
            var value: UInt32 = 0
            for offset in 2..<6 {
                guard let digit = hex(text[index + offset]) else { return nil }
                value = value << 4 | digit
            }
            return value
        }
        var output: [UInt8] = []
        output.reserveCapacity(text.count)
        var index = 0
        while index < text.count {
            guard let first = unit(at: index) else {
                output.append(text[index])
                index += 1
                continue
            }
            index += 7
            var scalar = first
            if (0xD800...0xDBFF).contains(first), let second = unit(at: index), (0xDC00...0xDFFF).contains(second) {
                scalar = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                index += 7
            }
            output.append(contentsOf: Array(String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8))
        }
        return output
    }
}
