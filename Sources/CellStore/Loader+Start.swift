/// How an input starts: its dialect, byte-order mark and preamble, judged from its first bytes.
extension Loader {
    /// Judges a file's start on the calling thread, so its first screen can be read at once.
    package func prepareFile() {
        guard case .file(let file, let size) = input else { return }
        let start = judgeStart(source: file, available: size)
        shared.withLock {
            $0.available = size
            $0.progress.totalBytes = size
            $0.dialect = start.dialect
            $0.preamble = start.preamble
            $0.checkpoints = [Checkpoint(offset: start.bomLength, row: 0)]
        }
    }

    /// Where the table starts (past a BOM and the preamble), the dialect, and the
    /// preamble's lines, from the first 64 KiB that exist.
    func judgeStart(source: ByteSource, available: Int64) -> (dialect: Dialect, bomLength: Int64, preamble: [String]) {
        let prelude = Loader.prelude(source: source, available: available)
        let judged = Loader.judgeStart(prelude, fileName: fileName, delimiter: forcedDelimiter, quote: forcedQuote,
                                       preamble: preambleRule)
        return (judged.dialect, Int64(judged.dataStart), judged.preamble)
    }

    /// The same, for bytes in hand (also used by `RecordStream`). `preambleStart` is past
    /// the byte-order mark and an Excel `sep=X` line, which names the delimiter (unless
    /// `delimiter` is given) and is neither a record nor part of the preamble.
    static func judgeStart(_ prelude: [UInt8], fileName: String?, delimiter: UInt8?, quote: UInt8? = nil,
                           preamble rule: PreambleRule) -> (dialect: Dialect, dataStart: Int, preamble: [String], preambleStart: Int) {
        let bomLength = prelude.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let separator = Dialect.separatorLine(in: prelude[bomLength...])
        let preambleStart = bomLength + (separator?.length ?? 0)
        var (preambleLength, preamble) = rule.split(prelude[preambleStart...])
        var dataStart = preambleStart + preambleLength
        // Sniffed from the data after the `#` lines; from those lines when nothing follows.
        let hasData = prelude[dataStart...].contains { ![0x0A, 0x0D, 0x20, 0x09].contains($0) }
        let sample = hasData ? prelude[dataStart...] : prelude[preambleStart...]
        var dialect = Dialect.detect(sample: sample, fileName: fileName, quote: quote ?? UInt8(ascii: "\""))
        if let chosen = delimiter ?? separator?.delimiter { dialect.delimiter = chosen }
        dialect.hasSeparatorLine = separator != nil
        if case .detect = rule, !preamble.isEmpty,
           let start = PreambleRule.tableStart(in: prelude[preambleStart...], candidatesEnd: dataStart, dialect: dialect) {
            // `#id,name` over rows of two fields is the header, `#N/A,3` a record: not comments.
            preamble.removeLast(preamble.count - start.line)
            dataStart = start.offset
            // Sniffed again with those lines in: `#N/A<TAB>#REF!` over `New York, NY<TAB>3`.
            if delimiter == nil && separator == nil {
                dialect.delimiter = Dialect.detect(sample: prelude[dataStart...], fileName: fileName, quote: dialect.quote).delimiter
            }
        }
        // NUL bytes do not occur in text: say so, and show them (as symbols) all the same.
        dialect.looksBinary = prelude[dataStart...].contains(0)
        // From the input's first byte: a UTF-16 character is two bytes from there.
        if dialect.looksBinary { dialect.likelyUTF16 = Dialect.likelyUTF16(prelude[...]) }
        return (dialect, dataStart, preamble, preambleStart)
    }

    static func prelude(source: ByteSource, available: Int64) -> [UInt8] {
        let wanted = Int(min(available, 1 << 16))
        var bytes = [UInt8](repeating: 0, count: wanted)
        let got = bytes.withUnsafeMutableBytes { source.read(at: 0, into: $0) }
        bytes.removeLast(wanted - max(0, got))
        return bytes
    }

    /// True when enough of a stream's start is in to judge it: a first line of data
    /// after the preamble (or 64 KiB).
    func hasFirstLine(source: ByteSource, available: Int64) -> Bool {
        let bytes = Loader.prelude(source: source, available: available)
        if bytes.count >= 1 << 16 { return true }
        // A preamble counts as seen only when the line after it has started (and an Excel
        // `sep=` line is not the first line of data).
        let separator = Dialect.separatorLine(in: bytes[...])?.length ?? 0
        let (length, _) = preambleRule.split(bytes[separator...])
        let rest = bytes[(separator + length)...]
        if case .detect = preambleRule, rest.isEmpty { return false }
        return rest.contains(0x0A) || rest.contains(0x0D)
    }
}
