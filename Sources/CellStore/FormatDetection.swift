#if canImport(Glibc)
import Glibc
#endif

/// Which format an input is in: the one place that decides, from its name and its first
/// bytes, for every format. The viewer's list of inputs, the store, a record stream, an
/// output and the check of a `.json` before anything opens all ask it.
extension InputSpec.Format {
    /// A `.json` that does not hold what a table can be made of: one object, a string,
    /// a number, text that is not JSON. Said in one line, exit 65.
    package struct ShapeProblem: Error, Equatable, Sendable {
        /// What was found, e.g. `holds one JSON object, not an array of objects`.
        package var found: String
    }

    /// The first 16 bytes of every SQLite 3 database file (`SQLite format 3` and a NUL).
    package static let sqliteHeader: [UInt8] = Array("SQLite format 3".utf8) + [0]
    /// A zip's first local file header (an `.xlsx` is a zip).
    static let zipMagic: [UInt8] = [0x50, 0x4B, 0x03, 0x04]
    /// How many first bytes `detect` wants to decide JSON (fewer when the input has fewer).
    package static let detectionLength = 1 << 20
    /// How many first bytes decide the formats known by their magic (SQLite, a zip, an
    /// OLE compound file) and a zip's first entries' names.
    package static let magicLength = 4096

    /// The format of an input named `name` (nil: standard input; a compression suffix is
    /// looked through) whose first bytes are `bytes` (all of it when `isWhole`). What the
    /// bytes say wins over the name; the name is a hint where they say nothing.
    ///
    /// 1. `SQLite format 3` and a NUL: a SQLite database, whatever the name.
    /// 2. A zip (`PK\3\4`) named `.xlsx` or `.xlsm`, or one whose first entries (in
    ///    `bytes`) are under `xl/`, or for which `holdsWorkbook` finds `xl/workbook.xml`:
    ///    an Excel workbook. An OLE compound file (`D0 CF 11 E0`) named `.xls`, `.xlsx`,
    ///    `.xlsm` or `.xlsb`: an old binary or encrypted workbook, which the workbook
    ///    reader refuses with a sentence (a `.xls` that is text, as some sites export,
    ///    stays text).
    /// 3. `.jsonl`, `.ndjson`: JSON lines, whatever other bytes.
    /// 4. `.json`: a JSON array when the first non-blank byte is `[`; JSON lines when it
    ///    is `{` and the first line is a whole object with more after it; empty: JSON lines
    ///    (an empty table). Anything else throws.
    /// 5. Any other name (none too): JSON lines when the first non-blank byte is `{` and
    ///    the first line is one JSON object; a JSON array when it is `[` and the next
    ///    non-blank byte is `{` (or `]` ending the input), unless the name says delimited
    ///    text (`.csv`, `.tsv`, …); else CSV, as before.
    ///
    /// No CSV or TSV starts with a NUL in its 16th byte, a zip's or an OLE file's magic,
    /// or a line that is a JSON object: text that opened before opens the same now.
    package static func detect(name: String?, firstBytes bytes: some Collection<UInt8>, isWhole: Bool,
                               holdsWorkbook: () -> Bool = { false }) throws(ShapeProblem) -> InputSpec.Format {
        let bytes = ArraySlice(bytes)
        if bytes.starts(with: sqliteHeader) { return .sqlite }
        let bare = name.map { OpenedInput.tableName(of: $0).lowercased() } ?? ""
        let suffix = bare.lastIndex(of: ".").map { String(bare[$0...]) } ?? ""
        if bytes.starts(with: zipMagic) {
            if suffix == ".xlsx" || suffix == ".xlsm" || zipNamesWorkbookPart(bytes) || holdsWorkbook() { return .xlsx }
        }
        if bytes.starts(with: Workbook.compoundFileMagic), [".xls", ".xlsx", ".xlsm", ".xlsb"].contains(suffix) {
            return .xlsx
        }
        if suffix == ".jsonl" || suffix == ".ndjson" { return .jsonLines }
        var start = bytes.startIndex
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start += 3 }
        start = firstNonBlank(bytes, from: start)
        let lineEnd = bytes[start...].firstIndex(of: 0x0A) ?? bytes.endIndex
        let firstLineIsObject = start < bytes.endIndex && bytes[start] == UInt8(ascii: "{")
            && (lineEnd < bytes.endIndex || isWhole) && JSONStage.isObject(bytes[start..<lineEnd])
        guard suffix == ".json" else {
            if firstLineIsObject { return .jsonLines }
            let saysDelimited = InputFacts.delimitedExtensions.contains(String(suffix.dropFirst()))
            if !saysDelimited, start < bytes.endIndex, bytes[start] == UInt8(ascii: "[") {
                let next = firstNonBlank(bytes, from: start + 1)
                if next < bytes.endIndex && bytes[next] == UInt8(ascii: "{") { return .jsonArray }
                if next < bytes.endIndex && bytes[next] == UInt8(ascii: "]") && isWhole
                    && firstNonBlank(bytes, from: next + 1) == bytes.endIndex { return .jsonArray }
            }
            return .csv
        }
        guard start < bytes.endIndex else { return .jsonLines }
        switch bytes[start] {
        case UInt8(ascii: "["):
            return .jsonArray
        case UInt8(ascii: "{"):
            let rest = bytes[lineEnd...]
            if firstLineIsObject && rest.contains(where: { !isBlank($0) }) { return .jsonLines }
            throw ShapeProblem(found: "holds one JSON object, not an array of objects (nor one object per line)")
        case UInt8(ascii: "\""):
            throw ShapeProblem(found: "holds a JSON string, not an array of objects")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            throw ShapeProblem(found: "holds a JSON number, not an array of objects")
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            throw ShapeProblem(found: "holds a JSON true, false or null (or is not JSON), not an array of objects")
        default:
            let byte = bytes[start]
            let hex = String(byte, radix: 16, uppercase: true)
            let shown = (0x21..<0x7F).contains(byte) ? "'\(String(UnicodeScalar(byte)))'" : "byte 0x" + (byte < 16 ? "0" : "") + hex
            throw ShapeProblem(found: "is not JSON: it starts with \(shown), where a JSON array starts with '['")
        }
    }

    /// True while `bytes`, the first of a stream, are too few for `detect` to tell a
    /// database, a workbook or a JSON array from text: a start of SQLite's header, of a
    /// zip's or an OLE file's magic, a zip's first 4 KiB (its first entries' names), or
    /// `[` with nothing but blanks after it yet (up to 64 KiB of them). A stream is read
    /// on until they tell (or it ends).
    package static func needsMoreBytes(_ bytes: [UInt8]) -> Bool {
        if bytes.isEmpty { return true }
        for magic in [sqliteHeader, zipMagic, Workbook.compoundFileMagic]
        where bytes.count < magic.count && magic.starts(with: bytes) {
            return true
        }
        // A zip's first entries' names say whether it is a workbook.
        if bytes.starts(with: zipMagic) { return bytes.count < magicLength }
        guard bytes.count < 1 << 16 else { return false }
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        if bytes.count < 3 && [0xEF, 0xBB, 0xBF].starts(with: bytes) { return true }
        start = firstNonBlank(bytes[...], from: start)
        if start == bytes.count { return true }
        return bytes[start] == UInt8(ascii: "[") && firstNonBlank(bytes[...], from: start + 1) == bytes.count
    }

    /// The formats that are not text, read from a file of their own (SQLite's pages, a
    /// zip's entries): what standard input holding one is copied into before it is read.
    package var needsFile: Bool { self == .sqlite || self == .xlsx }

    /// True when a local file header among the zip's first bytes names an entry under
    /// `xl/`, as a workbook's parts are (`[Content_Types].xml` usually comes first, then
    /// `_rels/.rels`, then `xl/…`, all small).
    static func zipNamesWorkbookPart(_ bytes: ArraySlice<UInt8>) -> Bool {
        var index = bytes.startIndex
        while index + 30 <= bytes.endIndex {
            if bytes[index] == 0x50 && bytes[index + 1] == 0x4B && bytes[index + 2] == 0x03 && bytes[index + 3] == 0x04 {
                let length = Int(bytes[index + 26]) | Int(bytes[index + 27]) << 8
                let nameStart = index + 30
                if nameStart + length <= bytes.endIndex, length >= 3, bytes[nameStart..<nameStart + 3].elementsEqual("xl/".utf8) {
                    return true
                }
                index += 4
            } else {
                index += 1
            }
        }
        return false
    }

    static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    static func firstNonBlank(_ bytes: ArraySlice<UInt8>, from start: Int) -> Int {
        var index = start
        while index < bytes.endIndex, isBlank(bytes[index]) { index += 1 }
        return min(index, bytes.endIndex)
    }

    /// The format of the regular file at `path`, judged by `detect` from its first
    /// `count` bytes (decompressed when it is compressed: then only a text format) and its name; a zip not named as
    /// a workbook is looked into for `xl/workbook.xml`. `.csv` for what is not a regular
    /// file here (a FIFO, a device, a missing file: opening it says why); a `.json` of
    /// another shape throws.
    package static func detect(path: String, count: Int = magicLength) throws(ShapeProblem) -> InputSpec.Format {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, let file = try? FileSource(path: path) else { return .csv }
        var magic = [UInt8](repeating: 0, count: Compression.magicLength)
        let got = max(0, magic.withUnsafeMutableBytes { file.read(at: 0, into: $0) })
        let compression = Compression.detect(magic[..<got], isWhole: got < Compression.magicLength)
        let (bytes, isWhole) = OpenedInput.firstText(of: file, compression: compression, count: count)
        let format = try detect(name: path, firstBytes: bytes, isWhole: isWhole) {
            compression == nil && (try? ZipArchive(file: nil, path: path))?.locate("xl/workbook.xml") != nil
        }
        // A compressed database or workbook is not opened as one (SQLite and libzip read
        // the file itself): its bytes are text to the reader, as before.
        return compression != nil && format.needsFile ? .csv : format
    }
}

extension InputSpec.Format {
    /// The format as a sentence names it: "an Excel workbook".
    package var noun: String {
        switch self {
        case .csv: return "delimited text"
        case .jsonLines: return "JSON lines"
        case .jsonArray: return "a JSON array"
        case .sqlite: return "a SQLite database"
        case .xlsx: return "an Excel workbook"
        }
    }
}
