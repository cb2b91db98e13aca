#if canImport(Glibc)
import Glibc
#endif

/// An input opened and recognized: a file or standard input, plain or compressed (known
/// by its magic bytes, never by its name). The viewer, output modes and every scan start
/// here, so they all read the same bytes.
package struct OpenedInput {
    /// What the input turned out to be.
    package enum Kind: Equatable {
        /// A regular file of this size.
        case file(size: Int64)
        /// A pipe, FIFO or device, read once in order.
        case stream
        /// Compressed data; the size is the compressed file's, nil for a stream.
        case packed(Compression, size: Int64?)
    }

    package let kind: Kind
    /// The path as given, or `stdin`.
    package let name: String
    let file: FileSource
    /// Bytes already read from a stream to recognize it; they come first.
    let prefix: [UInt8]
    /// How its (decompressed) bytes become UTF-8.
    package var transcoding: Transcoding = .none

    /// Opens `path`, or standard input when it is nil or `-`, and looks at its first bytes
    /// (a stream's only when `looksIntoStreams`, since that may wait for the producer).
    /// Its text is converted from `encoding`, or from what a byte-order mark says.
    package static func open(path: String?, looksIntoStreams: Bool = true,
                             encoding: TextEncoding? = nil) throws(CellStoreError) -> OpenedInput {
        var opened = try open(path: path, looksIntoStreams: looksIntoStreams)
        if opened.compression != nil || (opened.isStream && !looksIntoStreams) {
            opened.transcoding = .choose(named: encoding, prefix: nil)
        } else if opened.isStream {
            opened.transcoding = .choose(named: encoding, prefix: opened.prefix)
        } else {
            var start = [UInt8](repeating: 0, count: 4)
            let got = start.withUnsafeMutableBytes { opened.file.read(at: 0, into: $0) }
            opened.transcoding = .choose(named: encoding, prefix: Array(start[..<max(0, got)]))
        }
        return opened
    }

    private static func open(path: String?, looksIntoStreams: Bool) throws(CellStoreError) -> OpenedInput {
        let file: FileSource
        let name: String
        if let path, path != "-" {
            file = try FileSource(path: path)
            name = path
        } else {
            file = FileSource(descriptor: dup(0))
            name = "stdin"
        }
        if let size = file.regularFileSize {
            var magic = [UInt8](repeating: 0, count: Compression.magicLength)
            let got = magic.withUnsafeMutableBytes { file.read(at: 0, into: $0) }
            if let compression = Compression.detect(magic[..<max(0, got)], isWhole: got < Compression.magicLength) {
                return OpenedInput(kind: .packed(compression, size: size), name: name, file: file, prefix: [])
            }
            return OpenedInput(kind: .file(size: size), name: name, file: file, prefix: [])
        }
        // A stream cannot be looked at without reading it: the bytes read come first. The
        // viewer leaves that to its loader, so that opening a quiet pipe does not wait.
        // Standard input's first bytes may have been read already, to tell its format.
        var prefix = path == nil || path == "-" ? StandardInput.takePeeked() ?? [] : []
        guard looksIntoStreams else { return OpenedInput(kind: .stream, name: name, file: file, prefix: prefix) }
        _ = readMagic(from: file, into: &prefix, isStopped: { false }, waiting: { _ in })
        if let compression = Compression.detect(prefix, isWhole: prefix.count < Compression.magicLength) {
            return OpenedInput(kind: .packed(compression, size: nil), name: name, file: file, prefix: prefix)
        }
        return OpenedInput(kind: .stream, name: name, file: file, prefix: prefix)
    }

    /// Reads a stream's first bytes, as many as it takes to tell whether they are a
    /// compression format's magic (fewer at the end of the input, on a read error, or
    /// once `isStopped`: the stream is polled, so a silent producer cannot hold it).
    /// `waiting` is told when nothing came for a while (true) and when bytes come (false).
    static func readMagic(from file: FileSource, isStopped: () -> Bool = { false },
                          waiting: (Bool) -> Void = { _ in }) -> [UInt8] {
        var prefix: [UInt8] = []
        _ = readMagic(from: file, into: &prefix, isStopped: isStopped, waiting: waiting)
        return prefix
    }

    /// Reads on after `prefix`, the first bytes read so far, until they tell whether they
    /// are a compression format's magic or a byte-order mark, and are enough for
    /// `InputSpec.Format.detect` (`needsMoreBytes`) (true: they do, or the input
    /// ended, or a read failed) or until `isStopped` (false: read on later).
    static func readMagic(from file: FileSource, into prefix: inout [UInt8], isStopped: () -> Bool,
                          waiting: (Bool) -> Void) -> Bool {
        /// True once no format's magic (nor a longer byte-order mark) can match: a slow pipe
        /// is not waited for.
        func tells(_ bytes: [UInt8]) -> Bool {
            (bytes.count >= Compression.magicLength || Compression.detect(bytes) != nil
                || !(mayBeMagic(bytes) || TextEncoding.mayBeLongerByteOrderMark(bytes)))
                && !InputSpec.Format.needsMoreBytes(bytes)
        }
        if !prefix.isEmpty && tells(prefix) { return true }
        var bytes = [UInt8](repeating: 0, count: 64)
        var isWaiting = false
        defer { if isWaiting { waiting(false) } }
        while !isStopped() {
            var descriptor = pollfd(fd: file.descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 200)
            if ready < 0 && errno != EINTR { return true }
            if ready <= 0 {
                if !isWaiting && prefix.isEmpty { waiting(true) }
                isWaiting = isWaiting || prefix.isEmpty
                continue
            }
            // The magic's bytes only, then a few at a time (a JSON array's first `{`).
            let wanted = prefix.count < Compression.magicLength ? Compression.magicLength - prefix.count : bytes.count
            let count = bytes.withUnsafeMutableBytes { file.readNext(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<wanted])) }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { continue }
            if count <= 0 { return true }
            prefix.append(contentsOf: bytes[..<count])
            if tells(prefix) { return true }
        }
        return false
    }

    /// True while `bytes` could still be the start of some format's magic.
    static func mayBeMagic(_ bytes: [UInt8]) -> Bool {
        // nil: any byte (a skippable zstd frame's first, bzip2's block size).
        let magics: [[UInt8?]] = [[0x1F, 0x8B, 0x08], [0x28, 0xB5, 0x2F, 0xFD], [nil, 0x2A, 0x4D, 0x18],
                                  [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00],
                                  [0x42, 0x5A, 0x68, nil, 0x31, 0x41, 0x59, 0x26, 0x53, 0x59],
                                  [0x42, 0x5A, 0x68, nil, 0x17, 0x72, 0x45, 0x38, 0x50, 0x90]]
        return magics.contains { magic in
            bytes.count < magic.count && zip(magic, bytes).allSatisfy { $0 == nil || $0 == $1 }
        }
    }

    /// The name that says what the table is: without a compression suffix, so that
    /// `data.tsv.gz` is read as a `.tsv` (the suffix itself decides nothing).
    package var tableName: String { OpenedInput.tableName(of: name) }

    /// `name` without a compression suffix.
    static func tableName(of name: String) -> String {
        for suffix in [".gz", ".bgz", ".zst", ".zstd", ".xz", ".bz2"] where name.lowercased().hasSuffix(suffix) {
            return String(name.dropLast(suffix.count))
        }
        return name
    }

    /// The compression, if any.
    package var compression: Compression? {
        if case .packed(let compression, _) = kind { return compression }
        return nil
    }

    /// True for a pipe, FIFO or device (read in order, once).
    package var isStream: Bool {
        switch kind {
        case .file: return false
        case .stream: return true
        case .packed(_, let size): return size == nil
        }
    }

    var raw: Unpacker.RawInput { Unpacker.RawInput(file: file, prefix: prefix, isStream: isStream) }

    /// The viewer's input with compression recognized: a regular file whose first bytes
    /// are a format's magic is decompressed in the background (streams are recognized by
    /// the loader as it reads them, so that opening never waits).
    /// With `readsAtRandom`, a gzip file is spooled too: reading every record in a sorted
    /// order would inflate from an access point for each.
    /// A file in another encoding (`encoding`, or a UTF-16 or UTF-32 byte-order mark, also
    /// inside a compressed file) is converted to UTF-8 in the background the same way.
    /// JSON (`json`: lines or an array) is made into CSV records as it is read, into a
    /// spool, compressed or not.
    static func recognizing(_ input: Loader.Input, spoolLimit: SpoolLimit, readsAtRandom: Bool = false,
                            encoding: TextEncoding? = nil, json: JSONMode? = nil, follows: Bool = false) -> Loader.Input {
        guard case .file(let file, let size) = input else { return input }
        var magic = [UInt8](repeating: 0, count: Compression.magicLength)
        let got = magic.withUnsafeMutableBytes { file.read(at: 0, into: $0) }
        let raw = Unpacker.RawInput(file: file, prefix: [], isStream: false)
        guard let compression = Compression.detect(magic[..<max(0, got)], isWhole: got < Compression.magicLength) else {
            let transcoding = Transcoding.choose(named: encoding, prefix: Array(magic[..<max(0, got)]))
            if transcoding == .none && json == nil { return input }
            return .packed(PackedInput(compression: nil, transcoding: transcoding, raw: raw, compressedSize: size,
                                       spoolLimit: spoolLimit, json: json, follows: follows && json == .lines))
        }
        if let json {
            return .packed(PackedInput(compression: compression, transcoding: .choose(named: encoding, prefix: nil), raw: raw,
                                       compressedSize: size, spool: SpoolSource(limit: spoolLimit), json: json))
        }
        var transcoding = Transcoding.choose(named: encoding, prefix: nil)
        if compression == .gzip && !readsAtRandom {
            // Read through access points unless its text must be converted: look now.
            transcoding = Transcoding.choose(named: encoding, prefix: firstBytes(of: raw, compression: compression))
        }
        let spool = readsAtRandom ? SpoolSource(limit: spoolLimit) : nil
        return .packed(PackedInput(compression: compression, transcoding: transcoding, raw: raw, compressedSize: size,
                                   spool: spool, spoolLimit: spoolLimit))
    }

    /// The first `count` bytes of a regular file's text (decompressed), and whether that is
    /// all of it; empty for a stream, which is not looked into here.
    package func firstText(count: Int) -> (bytes: [UInt8], isWhole: Bool) {
        guard !isStream else { return ([], false) }
        return OpenedInput.firstText(of: file, compression: compression, count: count)
    }

    /// The first `count` bytes of the regular file `file`'s text, decompressed when it is
    /// `compression` (nil: looked at), and whether that is all of it.
    static func firstText(of file: FileSource, compression known: Compression? = nil, count: Int) -> (bytes: [UInt8], isWhole: Bool) {
        var compression = known
        if compression == nil {
            var magic = [UInt8](repeating: 0, count: Compression.magicLength)
            let got = magic.withUnsafeMutableBytes { file.read(at: 0, into: $0) }
            compression = Compression.detect(magic[..<max(0, got)], isWhole: got < Compression.magicLength)
        }
        let raw = Unpacker.RawInput(file: file, prefix: [], isStream: false)
        if let compression {
            let bytes = OpenedInput.firstBytes(of: raw, compression: compression, count: count + 1)
            return (Array(bytes.prefix(count)), bytes.count <= count)
        }
        var bytes = [UInt8](repeating: 0, count: count + 1)
        let got = max(0, bytes.withUnsafeMutableBytes { file.read(at: 0, into: $0) })
        return (Array(bytes[..<min(got, count)]), got <= count)
    }

    /// The first `count` (four unless said) decompressed bytes of `raw` (fewer when there
    /// are not that many).
    static func firstBytes(of raw: Unpacker.RawInput, compression: Compression, count wanted: Int = 4) -> [UInt8] {
        guard let decoder = try? compression.makeDecoder() else { return [] }
        let reader = PackedReader(decoder: decoder, readRaw: raw.makeReader())
        var bytes = [UInt8](repeating: 0, count: wanted)
        var count = 0
        while count < bytes.count {
            let got = (try? bytes.withUnsafeMutableBytes { try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[count...])) }) ?? 0
            if got <= 0 { break }
            count += got
        }
        return Array(bytes[..<count])
    }

    /// How this input is made into a table, when it is JSON (see `InputSpec.Format.detect`;
    /// a stream by its first bytes read, decided by its first line): nil for CSV.
    /// `format` is what the spec says (`.csv`: not said, looked at).
    package func jsonMode(format: InputSpec.Format = .csv) throws(CellStoreError) -> JSONMode? {
        guard format == .csv else { return format.jsonMode }
        if isStream { return PackedInput.jsonMode(name: name == "stdin" ? nil : name, prefix: compression == nil ? prefix : nil) }
        let (bytes, isWhole) = firstText(count: InputSpec.Format.detectionLength)
        do {
            return try InputSpec.Format.detect(name: name, firstBytes: bytes[...], isWhole: isWhole).jsonMode
        } catch {
            throw .notATable(name, error.found)
        }
    }

    /// Reads the input's (decompressed, converted) text once, in order; JSON (`json`) made
    /// into CSV records.
    package func sequentialReader(json: JSONMode? = nil) throws(CellStoreError) -> TextReader {
        let read = raw.makeReader()
        let transcoder: Transcoder?
        do {
            transcoder = transcoding == .none ? nil : try Transcoder(transcoding)
        } catch {
            throw CellStoreError.unreadable(name, error.description)
        }
        let stage = json.map { JSONStage($0, report: JSONReport(mode: $0)) }
        guard let compression else {
            return TextReader(transcoder: transcoder, json: stage) { buffer throws(PackedDamage) in
                let count = read(buffer)
                if count < 0 { throw PackedDamage(.unreadable(String(cString: strerror(errno))), at: 0) }
                return count
            }
        }
        let decoder: PackedDecoder
        do {
            decoder = try compression.makeDecoder()
        } catch {
            throw CellStoreError.unreadable(name, error.description)
        }
        let reader = PackedReader(decoder: decoder, readRaw: read)
        return TextReader(transcoder: transcoder, json: stage) { buffer throws(PackedDamage) in try reader.read(into: buffer) }
    }
}

/// An input's text in order, decompressed and converted to UTF-8: what output modes read,
/// in constant memory.
package final class TextReader {
    private let readBytes: (UnsafeMutableRawBufferPointer) throws(PackedDamage) -> Int
    private let transcoder: Transcoder?
    /// JSON made into CSV records, after conversion to UTF-8.
    private var json: JSONStage?
    private var converted: [UInt8] = []
    private var position = 0
    private var ended = false
    /// Damage met under JSON: thrown once the records held back before it are delivered.
    private var damage: PackedDamage?
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 16)

    init(transcoder: Transcoder?, json: JSONStage? = nil,
         read: @escaping (UnsafeMutableRawBufferPointer) throws(PackedDamage) -> Int) {
        self.transcoder = transcoder
        self.json = json
        readBytes = read
    }

    /// What the JSON conversion found, when the input is JSON (nil for CSV).
    package var jsonReport: JSONReport? {
        guard let report = json?.report, report.isJSON else { return nil }
        return report
    }

    deinit { scratch.deallocate() }

    /// Fills `buffer` with the next bytes: a count, 0 at the end. Throws where compressed
    /// data is damaged, after delivering all before it.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(PackedDamage) -> Int {
        if json?.passesThrough == true { json = nil }
        guard transcoder != nil || json != nil else { return try readBytes(buffer) }
        while position == converted.count {
            if ended {
                if let damage { throw damage }
                return 0
            }
            var count = 0
            do {
                count = try readBytes(scratch)
            } catch {
                guard json != nil else { throw error }
                damage = error
            }
            ended = count == 0
            let chunk = UnsafeRawBufferPointer(rebasing: scratch[..<count])
            let text = transcoder?.pass(chunk, isLast: ended) ?? Array(chunk)
            converted = json?.pass(text, isLast: ended) ?? text
            position = 0
        }
        let count = min(buffer.count, converted.count - position)
        converted[position..<(position + count)].withUnsafeBytes { buffer.copyMemory(from: $0) }
        position += count
        return count
    }

    /// The encoding the text is converted from, once known.
    package var encodingName: String? { transcoder?.encoding?.name }

    /// The encoding named that a byte-order mark overruled, once known.
    package var overruledEncoding: String? { transcoder?.overruled?.name }

    /// Where the text was not valid in its encoding, once read that far.
    package var encodingProblem: String? { transcoder?.problem }
}
