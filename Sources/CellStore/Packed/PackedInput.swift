import Synchronization

/// A compressed input, or one in another encoding, as the loader sees it: decoded in the
/// background (decompressed, then converted to UTF-8), and read back at any offset from
/// where its output goes.
///
/// gzip from a file, in UTF-8, goes nowhere: it is read back by inflating from access
/// points (`GzipSource`). Everything else (zstd, xz, bzip2, gzip through a pipe, any text
/// converted from another encoding) is spooled like standard input.
package final class PackedInput: Sendable {
    /// The compression, nil for a plain input that is only converted to UTF-8.
    package let compression: Compression?
    /// How the (decompressed) bytes become UTF-8.
    package let transcoding: Transcoding
    /// The compressed file's size, or nil for a stream.
    package let compressedSize: Int64?
    /// What the input is before it becomes CSV: `.csv` (compressed or in another
    /// encoding), or `.xlsx` (a workbook's sheet, turned into CSV).
    package let format: InputSpec.Format
    let unpacker: Unpacker
    private let sink: Sink
    /// The compressed file, when it is a regular file (not a stream).
    let file: FileSource?
    /// What the JSON conversion found, for JSON input (see `JSONStage`).
    package let json: JSONReport?
    /// The part of a chunk the spool had no room for yet (see `pull`).
    private let held = Mutex<ArraySlice<UInt8>>([])

    enum Sink: Sendable {
        case spool(SpooledOutput)
        case gzip(GzipSource)
    }

    /// Output between gzip access points (see DECISIONS.md).
    package static let accessPointSpacing: Int64 = 1 << 20

    /// Decompresses `raw`; a stream's output goes to `spool` (a new one, bounded by
    /// `spoolLimit`, when nil).
    package init(compression: Compression?, transcoding: Transcoding = .none, raw: Unpacker.RawInput, compressedSize: Int64?,
                 spool: SpoolSource? = nil, spoolLimit: SpoolLimit = .keepFree,
                 accessPointSpacing: Int64 = PackedInput.accessPointSpacing, json: JSONMode? = nil, follows: Bool = false) {
        self.compression = compression
        let report = json.map { JSONReport(mode: $0) }
        self.json = report
        self.transcoding = transcoding
        self.compressedSize = compressedSize
        format = .csv
        file = raw.isStream ? nil : raw.file
        // Access points give back inflated bytes, not converted ones: converted text (and
        // JSON made into CSV) is spooled.
        if compression == .gzip && !raw.isStream && spool == nil && transcoding == .none && json == nil {
            let index = GzipIndex(spacing: accessPointSpacing)
            unpacker = Unpacker(compression: compression, raw: raw, index: index)
            sink = .gzip(GzipSource(file: raw.file, index: index))
        } else {
            unpacker = Unpacker(compression: compression, transcoding: transcoding, raw: raw,
                                json: json.flatMap { mode in report.map { (mode, $0) } }, follows: follows)
            sink = .spool(SpooledOutput(spool: spool ?? SpoolSource(limit: spoolLimit)))
        }
    }

    /// Output of `unpacker` (a workbook's sheet as CSV), spooled; `file` is the input itself.
    init(unpacker: Unpacker, format: InputSpec.Format, file: FileSource, compressedSize: Int64?, spoolLimit: SpoolLimit) {
        compression = nil
        transcoding = .none
        self.compressedSize = compressedSize
        self.format = format
        self.file = file
        json = nil
        self.unpacker = unpacker
        sink = .spool(SpooledOutput(spool: SpoolSource(limit: spoolLimit)))
    }

    /// A decoder for a stream whose first bytes, `prefix`, have been read: when they are
    /// compressed data, or text to convert to UTF-8 (`encoding`, or a byte-order mark),
    /// one that decodes `raw` (the stream, those bytes first) into `spool`; otherwise nil,
    /// with the bytes put in `spool`.
    ///
    /// JSON is recognized too (see `jsonMode(name:prefix:)`): made into CSV records as it
    /// comes, and decided by its first line when its name does not say.
    static func recognized(prefix: [UInt8], raw: Unpacker.RawInput, spool: SpoolSource,
                           encoding: TextEncoding? = nil, name: String? = nil) -> PackedInput? {
        if let compression = Compression.detect(prefix, isWhole: prefix.count < Compression.magicLength) {
            return PackedInput(compression: compression, transcoding: .choose(named: encoding, prefix: nil), raw: raw,
                               compressedSize: nil, spool: spool, json: jsonMode(name: name, prefix: nil))
        }
        let transcoding = Transcoding.choose(named: encoding, prefix: prefix)
        let json = jsonMode(name: name, prefix: prefix)
        if transcoding != .none || json != nil {
            return PackedInput(compression: nil, transcoding: transcoding, raw: raw, compressedSize: nil, spool: spool, json: json)
        }
        prefix.withUnsafeBytes { spool.append($0) }
        return nil
    }

    /// How a stream named `name` (nil: standard input) whose first bytes are `prefix` (nil:
    /// not known, it is compressed) is made into a table: JSON lines for a `.jsonl` or
    /// `.ndjson` name, a JSON array for a `.json` one starting with `[`; when the bytes
    /// start with `{` or are blank so far (or are not known), decided by the first line
    /// (`.detect`); nil for CSV.
    static func jsonMode(name: String?, prefix: [UInt8]?) -> JSONMode? {
        guard let prefix else {
            let lowered = name.map { OpenedInput.tableName(of: $0).lowercased() } ?? ""
            return lowered.hasSuffix(".jsonl") || lowered.hasSuffix(".ndjson") ? .lines : .detect
        }
        // A first line not read whole yet is not judged here (`.detect` judges it).
        let format = try? InputSpec.Format.detect(name: name, firstBytes: prefix, isWhole: false)
        if format == .jsonLines { return .lines }
        if format == .jsonArray { return .array }
        if prefix.isEmpty { return nil }
        let start = InputSpec.Format.firstNonBlank(prefix[...], from: prefix.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0)
        return start == prefix.count || prefix[start] == UInt8(ascii: "{") ? .detect : nil
    }

    /// The encoding the text is converted from, once known.
    package var encodingName: String? { unpacker.encodingName }

    /// Where the text was not valid in its encoding, if it was not.
    package var encodingProblem: String? { unpacker.encodingProblem }

    /// The encoding named that a byte-order mark overruled, once known.
    package var overruledEncoding: String? { unpacker.overruledEncoding }

    /// Where readers find the decompressed bytes.
    package var source: ByteSource {
        switch sink {
        case .spool(let spool): return spool
        case .gzip(let gzip): return gzip
        }
    }

    /// The gzip access points, when the input is read through them.
    package var gzipIndex: GzipIndex? {
        if case .gzip(let gzip) = sink { return gzip.index }
        return nil
    }

    /// Compressed bytes read so far.
    package var compressedBytesRead: Int64 { unpacker.compressedBytesRead }

    /// True when a plain JSON lines file is followed as it grows (`--follow`).
    package var follows: Bool { unpacker.follows }

    /// Starts decompressing.
    func start() { unpacker.start() }

    /// Stops decompressing and waits for the thread (the store is going away).
    func stop() { unpacker.stop() }

    /// Ends a `pull` waiting for the next chunk now, so that it looks at its `isStopped`.
    func interrupt() { unpacker.interrupt() }

    /// The spool the output goes to, when it is spooled.
    var spool: SpoolSource? {
        if case .spool(let output) = sink { return output.spool }
        return nil
    }

    /// Waits for the next decompressed chunk and makes it readable. A spool takes no more
    /// than it has room for: the rest is held, and `pull` returns nil until there is room
    /// (the decompressing thread then waits too, a few chunks ahead). Nil as well once
    /// `isStopped`: whoever makes it hold calls `interrupt()`, which ends the wait.
    /// A followed file's end, once every byte before it is indexed, calls `caughtUp`.
    func pull(isStopped: () -> Bool = { false }, caughtUp: () -> Void = {}) -> Loader.Pulled? {
        var chunk = held.withLock { held -> ArraySlice<UInt8> in
            defer { held = [] }
            return held
        }
        while chunk.isEmpty {
            guard let item = unpacker.take(isStopped: isStopped) else { return nil }
            switch item {
            case .bytes(let bytes): chunk = bytes[...]
            case .caughtUp: caughtUp()
            case .end: return .end
            case .damage(let damage): return .failed(damage.description)
            }
        }
        switch sink {
        case .gzip(let gzip):
            gzip.append(Array(chunk))
        case .spool(let output):
            let room = Int(clamping: max(0, output.spool.room()))
            if room < chunk.count {
                held.withLock { $0 = chunk.dropFirst(room) }
                chunk = chunk.prefix(room)
                if chunk.isEmpty { return nil }
            }
            output.append(Array(chunk))
        }
        return .bytes(chunk.count)
    }
}
