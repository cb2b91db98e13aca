#if canImport(Glibc)
import Glibc
#endif
import CLibCSV
import Synchronization

/// Rows of a delimited input on demand, for inputs of any size.
///
/// A background `Loader` indexes the input once into checkpoints; a row is read by
/// parsing from the nearest checkpoint before it, and parsed blocks are kept in a small
/// LRU cache. Nothing here holds the whole input. Use it from one thread (the UI's);
/// the loader shares only its `Mutex`-guarded `IndexState`.
public final class CellStore {
    /// Counters for tests and `--debug-stats`: work done, not time taken.
    public struct Statistics: Sendable, Equatable {
        package var blocksParsed = 0
        package var bytesParsed: Int64 = 0
        package var cachedBlocks = 0
        package var checkpoints = 0
        /// `row(_:)` calls for a record that does not exist (negative, or past the end of
        /// a complete input). A well-behaved caller makes none.
        package var outOfRangeRequests = 0
    }

    /// The C libraries this module runs on, with their versions, for `--version`.
    package static var libraryVersions: [String] {
        ["libcsv \(CSV_MAJOR).\(CSV_MINOR).\(CSV_RELEASE)"] + Compression.libraryVersions
    }

    /// What the input is called on screen: the path as given, or `stdin`.
    public let name: String
    /// The worksheet read, for a workbook's sheet.
    package let sheetName: String?
    let loader: Loader
    private var cache: RecentCache<Block>
    /// Single records read from where they start: the rows of a sorted or filtered view,
    /// which lie anywhere in the input, cost one record's parse each instead of a block's.
    /// Cells are bounded, so 4,096 rows and 16 MiB bound its memory.
    var singleRecords = RecentCache<Row>(capacity: 4096, budget: 16 << 20, eviction: .oldestHalf)
    private var rowsSeen = 0
    /// The table's edits as bytes spliced into the input: every reader handed out for a
    /// pass reads them (see `RecordPatch`); the store's own rows are the file's.
    package var patch = RecordPatch.empty
    private var counters = Statistics()
    /// The file's last rows under estimated numbers, after `jumpToEnd` (see CellStore+Tail).
    var provisionalTail: ProvisionalTail?
    /// How many rows past the requested one a cut-short block parses, so that scrolling
    /// on does not parse again at once.
    let lookahead = 256
    /// How far one block parse reads at most: a record that does not end within it is
    /// shown as far as it was read (see DECISIONS.md).
    var parseBudget: Int64 = 32 << 20

    /// The file read, as it was when opened (see `OpenInputs`); nil for bytes in memory.
    private let inputIdentity: FileIdentity?

    /// The store owns its loader's thread: it stops, and is waited for, when the store goes.
    deinit {
        // Decompression stops first: the loader may be waiting for its next chunk.
        loader.stopUnpacking()
        loader.stopAndJoin()
        if let inputIdentity { OpenInputs.remove(inputIdentity) }
    }

    init(name: String, loader: Loader, cacheCapacity: Int, inputIdentity: FileIdentity? = nil, sheetName: String? = nil) {
        self.name = name
        self.sheetName = sheetName
        self.loader = loader
        self.cache = RecentCache<Block>(capacity: cacheCapacity, budget: 48 << 20, eviction: .oldest)
        self.inputIdentity = inputIdentity
        if let inputIdentity { OpenInputs.add(inputIdentity) }
    }

    /// Opens the input `spec` describes (read as it says) and starts indexing it in the
    /// background. `onChange` is called (from the loader's thread) when there is news.
    /// `readsAtRandom` says that every record will be read in some other order (a sorted
    /// output): compressed input is then always spooled, where gzip is otherwise read
    /// through access points. An input that can be read only once (a pipe, a FIFO,
    /// standard input) and that other stores read too is `shared`: every store over it
    /// reads the one stream opened on it (`SharedStream`).
    package static func open(_ spec: InputSpec, shared: SharedStream.Slot? = nil, readsAtRandom: Bool = false,
                            checkpointSpacing: Int64 = 64 << 10,
                            cacheCapacity: Int = 32, startsLoader: Bool = true,
                            onChange: @escaping @Sendable () -> Void = {}) throws(CellStoreError) -> CellStore {
        let spec = try spec.resolvingFormat()
        if spec.format == .xlsx {
            return try openSheet(spec, checkpointSpacing: checkpointSpacing, cacheCapacity: cacheCapacity,
                                 startsLoader: startsLoader, onChange: onChange)
        }
        let path = try spec.readablePath()
        let (opened, name) = try InputOpener.open(path: path, follows: spec.follows, spoolLimit: spec.spoolLimit,
                                                  encoding: spec.encoding, shared: shared)
        // The file itself, compressed or not (standard input too, when it is a file).
        let identity: FileIdentity?
        switch opened {
        case .file(let file, _): identity = FileIdentity(file)
        case .stream(let stream): identity = FileIdentity(stream.file)
        case .memory, .packed: identity = nil
        }
        // A file is recognized here by its first bytes; a stream by the loader, as it reads.
        var json: JSONMode?
        if case .file(let file, _) = opened, spec.format == .csv || spec.format.jsonMode != nil {
            let (bytes, isWhole) = OpenedInput.firstText(of: file, count: InputSpec.Format.detectionLength)
            let format: InputSpec.Format
            do {
                format = try InputSpec.Format.detect(name: name, firstBytes: bytes[...], isWhole: isWhole)
            } catch {
                throw .notATable(name, error.found)
            }
            // A database or workbook inside a compressed file (read as it is, one is caught
            // before): SQLite and libzip read a file, and its pages are not text.
            if format.needsFile {
                throw .unsupported(name, "holds \(format.noun), compressed: decompress it first (its tables are read from the file itself)")
            }
            json = format.jsonMode
        }
        let input = OpenedInput.recognizing(opened, spoolLimit: spec.spoolLimit, readsAtRandom: readsAtRandom,
                                            encoding: spec.encoding, json: json, follows: spec.follows)
        let loader = Loader(input: input, spacing: checkpointSpacing, fileName: OpenedInput.tableName(of: name),
                            forcedDelimiter: spec.delimiter, forcedQuote: spec.quote, preambleRule: spec.preamble,
                            follows: spec.follows, followedPath: path == "-" ? nil : path, onChange: onChange)
        let store = CellStore(name: spec.shownName ?? name, loader: loader, cacheCapacity: cacheCapacity, inputIdentity: identity)
        if case .file = input {
            // The first screen must not wait for the loader: judge the dialect here and
            // let rows be parsed from offset zero straight away.
            loader.prepareFile()
        }
        // Tests may run the loader themselves, to see the store before and after it.
        if startsLoader { loader.start() }
        return store
    }

    /// A store over bytes in memory, indexed on the calling thread before it returns.
    package convenience init(bytes: [UInt8], name: String = "memory", delimiter: UInt8? = nil, quote: UInt8? = nil,
                            preamble: PreambleRule = .none, checkpointSpacing: Int64 = 64 << 10, cacheCapacity: Int = 32,
                            onChange: @escaping @Sendable () -> Void = {}) {
        let loader = Loader(input: .memory(MemorySource(bytes)), spacing: checkpointSpacing,
                            fileName: name, forcedDelimiter: delimiter, forcedQuote: quote, preambleRule: preamble, onChange: onChange)
        self.init(name: name, loader: loader, cacheCapacity: cacheCapacity)
        loader.run()
    }

    /// The loader's progress now.
    package var progress: LoadProgress { loader.shared.withLock { $0.progress } }

    /// The dialect in use, once the start of the input has been seen.
    package var dialect: Dialect? { loader.shared.withLock { $0.dialect } }

    /// True when the input can be opened again (a file, not a stream).
    package var isReloadable: Bool {
        switch loader.input {
        case .file: return true
        case .packed(let packed): return packed.compressedSize != nil
        case .stream, .memory: return false
        }
    }

    /// The compression the input was read through (`gzip`, `zstd`, `xz`, `bzip2`), if any.
    /// A file's is known at once; a stream's once its first bytes are read.
    package var compressionName: String? {
        if case .packed(let packed) = loader.input { return packed.compression?.name }
        return progress.compression
    }

    /// The encoding the text is converted from to UTF-8, once known (nil: read as UTF-8).
    package var encodingName: String? { dialect?.encoding }

    /// True when the input is decoded in the background (converted from another encoding,
    /// or decompressed): it is read once, to its end, and cannot be followed. A JSON lines
    /// file made into CSV is followed (`--follow`), and is not counted.
    package var isConverted: Bool {
        if case .packed(let packed) = loader.input { return !packed.follows }
        return progress.compression != nil || encodingName != nil
    }

    /// Bytes kept in the temporary file of gzip access points, for gzip files.
    package var packedIndexBytes: Int64? {
        if case .packed(let packed) = loader.input { return packed.gzipIndex?.storedBytes }
        return nil
    }


    /// The lines before the table, if any (shown above the header, never parsed as CSV).
    package var preamble: [String] { loader.shared.withLock { $0.preamble } }

    /// Records known to exist: indexed ones, and any parsed ahead of the loader.
    public var rowCount: Int {
        let progress = progress
        // Once the input is read, the loader's count is exact: rows parsed for the screen
        // before then may include a record the input's damage cut short (left out).
        if progress.isComplete { return progress.rowCount }
        let known = max(progress.rowCount, rowsSeen)
        if let tail = provisionalTail, !isComplete {
            return max(known, tail.estimatedFirstRecord + tail.rows.count)
        }
        return known
    }

    /// Records read so far, not counting an estimated tail (rows between are not known yet).
    package var readRowCount: Int { max(progress.rowCount, rowsSeen) }

    /// Records shown under estimated numbers after `jumpToEnd`, while the index is not complete.
    package var estimatedRows: Range<Int>? {
        guard let tail = provisionalTail, !isComplete else { return nil }
        return tail.estimatedFirstRecord..<(tail.estimatedFirstRecord + tail.rows.count)
    }

    /// True once every record is known.
    public var isComplete: Bool { progress.isComplete }

    /// The number of columns: the most cells of any record known so far.
    public var columnCount: Int {
        max(progress.widestRow, widestSeen)
    }
    private var widestSeen = 0

    /// Work counters.
    package var statistics: Statistics {
        var result = counters
        result.cachedBlocks = cache.count
        result.checkpoints = loader.shared.withLock { $0.checkpoints.count }
        return result
    }

    /// Record `index`, or nil when no such record is known (yet).
    ///
    /// - Complexity: O(log c) for c checkpoints when cached, else one block parse
    ///   (about the checkpoint spacing in bytes).
    public func row(_ index: Int) -> Row? {
        guard index >= 0 else {
            counters.outOfRangeRequests += 1
            return nil
        }
        if isComplete && index >= rowCount {
            counters.outOfRangeRequests += 1
            return nil
        }
        if let tail = provisionalTail, !isComplete {
            if index >= tail.estimatedFirstRecord {
                let local = index - tail.estimatedFirstRecord
                return local < tail.rows.count ? tail.rows[local] : nil
            }
            // Between the indexed part and the tail: not known yet, and not worth parsing
            // gigabytes for; these rows show once the index reaches them.
            if index >= max(progress.rowCount, rowsSeen) + lookahead { return nil }
        }
        guard index == 0, let json = jsonReport, json.isJSON, let header = fetch(0) else { return fetch(index) }
        // Keys first met after the header was written name the columns past its end.
        return json.extending(header: header)
    }

    /// What the JSON conversion found, when the input is JSON made into CSV records (nil
    /// for CSV, and for a stream not known to be JSON yet).
    package var jsonReport: JSONReport? {
        guard let report = loader.jsonReport, report.isJSON else { return nil }
        return report
    }

    /// The input's format as read: JSON lines or a JSON array, a workbook's sheet, else
    /// CSV (also compressed). Only a `.csv` input can take CSV bytes back (saved edits).
    package var format: InputSpec.Format {
        if let report = jsonReport { return report.mode == .array ? .jsonArray : .jsonLines }
        if case .packed(let packed) = loader.input { return packed.format }
        return .csv
    }

    /// What the status line says of a format that is not delimited text, in place of the
    /// dialect (which is only how it was made into CSV): `JSON lines`, `JSON array`,
    /// `workbook sheet Sales`. Nil for CSV.
    package var formatLabel: String? {
        switch format {
        case .csv, .sqlite: return nil
        case .jsonLines: return "JSON lines"
        case .jsonArray: return "JSON array"
        case .xlsx: return "workbook sheet " + (sheetName ?? "")
        }
    }

    /// What the status line says of the input's format, once read (records that were not
    /// JSON objects, columns found late), or nil.
    package var formatNote: String? { jsonReport?.note }

    /// Parses ahead so that records up to `index` are known, if they exist, even before
    /// the loader reaches them (the first screen, and the width sample).
    package func prefetch(upTo index: Int) {
        guard !isComplete || index < rowCount else { return }
        // With an estimated tail shown, nothing past the indexed part is parsed ahead: the
        // tail's rows are in hand, and those between are not worth a long parse.
        if provisionalTail != nil, !isComplete, index >= max(progress.rowCount, rowsSeen) + lookahead {
            return
        }
        _ = fetch(max(0, index))
    }

    private func fetch(_ index: Int) -> Row? {
        let (key, start, end, endIsFinal, hasNext) = loader.shared.withLock { state -> (Int?, Checkpoint?, Int64, Bool, Bool) in
            guard let key = state.checkpointIndex(for: index) else { return (nil, nil, 0, false, false) }
            if key + 1 < state.checkpoints.count {
                return (key, state.checkpoints[key], state.checkpoints[key + 1].offset, true, true)
            }
            return (key, state.checkpoints[key], state.available, state.progress.isComplete, false)
        }
        guard let key, let start else { return nil }
        if let block = cache.value(at: key) {
            // A record shown as far as it was read is read again once a checkpoint follows
            // it (it has ended, and the next records are indexed): its cells after a long
            // one, and the long one's length, are known then. One that runs to the end of
            // the input (`/dev/zero`) is not: reading it through would hold the screen.
            let isStale = block.endsInPartialRecord && index == block.firstRow + block.rows.count - 1
                && hasNext && block.parsedEnd != end
            if let row = block.row(index), !isStale { return row }
            if block.isComplete { return nil }
            // Parsing again would find nothing new: no more bytes, or a record still open
            // that no checkpoint says has ended since (its start, all that is shown of it,
            // is the same). Unless the end became final since the parse: the input's last
            // record, with no line end, ends only there, and was left out until then.
            if block.sawFinalEnd || !endIsFinal {
                if block.readUpTo >= end { return nil }
                if block.endsInPartialRecord && (!hasNext || end == block.parsedEnd) { return nil }
            }
        }
        // A block whose end is not indexed yet is parsed only a little past the row asked
        // for: the loader may be far behind, and the rest of the file is not needed now.
        let block = parseBlock(from: start, to: end, endIsFinal: endIsFinal, wanted: index,
                               stopAfter: hasNext ? nil : index + lookahead)
        cache.insert(block, at: key)
        return block.row(index)
    }

    /// Runs the whole index on the calling thread (for a store opened with `startsLoader: false`).
    package func indexNow() { loader.run() }

    private func isCompleteRead(endIsFinal: Bool, reachedEnd: Bool, offset: Int64, end: Int64) -> Bool {
        endIsFinal && reachedEnd && offset >= end
    }

    private func parseBlock(from start: Checkpoint, to end: Int64, endIsFinal: Bool, wanted: Int, stopAfter: Int?) -> Block {
        counters.blocksParsed += 1
        guard let dialect, let parser = try? RecordParser(dialect: dialect) else {
            return Block(firstRow: start.row, rows: [], isComplete: false)
        }
        let source = loader.source
        let chunkSize = 1 << 18
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var offset = start.offset
        var reachedEnd = true
        var overBudget = false
        while offset < end {
            // A block whose end is indexed may read further (its records do end): a cell of
            // 50 MB is read through, so the cells after it show; one of gigabytes is not.
            if offset - start.offset >= (stopAfter == nil ? 8 * parseBudget : parseBudget) {
                // Far enough for one frame; the record asked for may not have ended yet.
                overBudget = start.row + parser.recordCount <= wanted
                reachedEnd = false
                break
            }
            let length = Int(min(Int64(chunkSize), end - offset))
            let count = source.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<length]))
            if count <= 0 { break }
            parser.parse(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            offset += Int64(count)
            counters.bytesParsed += Int64(count)
            if let stopAfter, start.row + parser.recordCount > stopAfter {
                reachedEnd = offset >= end
                break
            }
        }
        if endIsFinal && reachedEnd && offset >= end { parser.finish() }
        var rows = parser.takeRecords()
        // A record too long to read through now is shown as far as it was read: past the
        // budget, or past a cell's worth of bytes of an input still arriving.
        let recordStillOpen = !isCompleteRead(endIsFinal: endIsFinal, reachedEnd: reachedEnd, offset: offset, end: end)
            && start.row + rows.count <= wanted && offset - start.offset >= Int64(RecordParser.Limits().cell)
        var partial: Row?
        if overBudget || recordStillOpen { partial = parser.partialRecord() }
        if let partial { rows.append(partial) }
        rows.noteOrigins(from: start.offset)
        rowsSeen = max(rowsSeen, start.row + rows.count)
        widestSeen = max(widestSeen, parser.widestRecord)
        var block = Block(firstRow: start.row, rows: rows,
                          isComplete: isCompleteRead(endIsFinal: endIsFinal, reachedEnd: reachedEnd, offset: offset, end: end) && !overBudget)
        block.readUpTo = offset
        block.parsedEnd = end
        block.endsInPartialRecord = partial != nil
        block.sawFinalEnd = endIsFinal
        return block
    }
}
