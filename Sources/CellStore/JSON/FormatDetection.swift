/// Which format an input is in, from its name and its first bytes (decompressed).
extension InputSpec.Format {
    /// A `.json` that does not hold what a table can be made of: one object, a string,
    /// a number, text that is not JSON. Said in one line, exit 65.
    package struct ShapeProblem: Error, Equatable, Sendable {
        /// What was found, e.g. `holds one JSON object, not an array of objects`.
        package var found: String
    }

    /// How many first bytes `detect` wants (fewer when the input has fewer).
    package static let detectionLength = 1 << 20

    /// The format of an input named `name` (nil: standard input; a compression suffix is
    /// looked through) whose first bytes are `bytes` (all of it when `isWhole`).
    ///
    /// - `.jsonl`, `.ndjson`: JSON lines, whatever the bytes.
    /// - `.json`: a JSON array when the first non-blank byte is `[`; JSON lines when it is
    ///   `{` and the first line is a whole object with more after it; empty: JSON lines
    ///   (an empty table). Anything else throws.
    /// - any other name: JSON lines when the first non-blank byte is `{` and the first line
    ///   is one JSON object; else CSV, as before (a CSV cannot start that way unless its
    ///   first line is JSON).
    package static func detect(name: String?, firstBytes bytes: ArraySlice<UInt8>, isWhole: Bool) throws(ShapeProblem) -> InputSpec.Format {
        let lowered = name.map { OpenedInput.tableName(of: $0).lowercased() } ?? ""
        if lowered.hasSuffix(".jsonl") || lowered.hasSuffix(".ndjson") { return .jsonLines }
        var start = bytes.startIndex
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start += 3 }
        while start < bytes.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        let lineEnd = bytes[start...].firstIndex(of: 0x0A) ?? bytes.endIndex
        let firstLineIsObject = start < bytes.endIndex && bytes[start] == UInt8(ascii: "{")
            && (lineEnd < bytes.endIndex || isWhole) && JSONStage.isObject(bytes[start..<lineEnd])
        guard lowered.hasSuffix(".json") else { return firstLineIsObject ? .jsonLines : .csv }
        guard start < bytes.endIndex else { return .jsonLines }
        switch bytes[start] {
        case UInt8(ascii: "["):
            return .jsonArray
        case UInt8(ascii: "{"):
            let rest = bytes[lineEnd...]
            if firstLineIsObject && rest.contains(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) { return .jsonLines }
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

    /// The JSON conversion this format needs, nil for one read as it is.
    var jsonMode: JSONMode? {
        switch self {
        case .jsonLines: return .lines
        case .jsonArray: return .array
        case .csv, .sqlite, .xlsx: return nil
        }
    }
}

extension InputSpec {
    /// The format of this input as its name and first bytes say (see `Format.detect`),
    /// reading no more than `Format.detectionLength` of it (decompressed). A stream is
    /// not looked into (that may wait): `.csv`, and its loader decides as it reads.
    package func detectFormat() throws(CellStoreError) -> Format {
        guard case .file(let path) = location else { return format }
        let opened = try OpenedInput.open(path: path, looksIntoStreams: false)
        guard !opened.isStream else { return format }
        let (bytes, isWhole) = opened.firstText(count: Format.detectionLength)
        do {
            return try Format.detect(name: path, firstBytes: bytes[...], isWhole: isWhole)
        } catch {
            throw .notATable(path, error.found)
        }
    }
}
