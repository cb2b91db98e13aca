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

    /// Opens `path`, or standard input when it is nil or `-`, and looks at its first bytes
    /// (a stream's only when `looksIntoStreams`, since that may wait for the producer).
    package static func open(path: String?, looksIntoStreams: Bool = true) throws(CellStoreError) -> OpenedInput {
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
        guard looksIntoStreams else { return OpenedInput(kind: .stream, name: name, file: file, prefix: []) }
        let prefix = readMagic(from: file)
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
        var bytes = [UInt8](repeating: 0, count: Compression.magicLength)
        var isWaiting = false
        defer { if isWaiting { waiting(false) } }
        while prefix.count < Compression.magicLength && !isStopped() {
            var descriptor = pollfd(fd: file.descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 200)
            if ready < 0 && errno != EINTR { break }
            if ready <= 0 {
                if !isWaiting && prefix.isEmpty { waiting(true) }
                isWaiting = isWaiting || prefix.isEmpty
                continue
            }
            let wanted = Compression.magicLength - prefix.count
            let count = bytes.withUnsafeMutableBytes { file.readNext(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<wanted])) }
            if count <= 0 { break }
            prefix.append(contentsOf: bytes[..<count])
            // Once no format's magic can match, do not wait for more of a slow pipe.
            if Compression.detect(prefix) != nil || !mayBeMagic(prefix) { break }
        }
        return prefix
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
    static func recognizing(_ input: Loader.Input, spoolLimit: SpoolLimit, readsAtRandom: Bool = false) -> Loader.Input {
        guard case .file(let file, let size) = input else { return input }
        var magic = [UInt8](repeating: 0, count: Compression.magicLength)
        let got = magic.withUnsafeMutableBytes { file.read(at: 0, into: $0) }
        guard let compression = Compression.detect(magic[..<max(0, got)], isWhole: got < Compression.magicLength) else { return input }
        let raw = Unpacker.RawInput(file: file, prefix: [], isStream: false)
        let spool = readsAtRandom ? SpoolSource(limit: spoolLimit) : nil
        return .packed(PackedInput(compression: compression, raw: raw, compressedSize: size, spool: spool, spoolLimit: spoolLimit))
    }

    /// Reads the input's (decompressed) bytes once, in order: a count, 0 at the end;
    /// throws where compressed data is damaged, after delivering all before it.
    package func sequentialReader() throws(CellStoreError) -> (UnsafeMutableRawBufferPointer) throws(PackedDamage) -> Int {
        let read = raw.makeReader()
        guard let compression else {
            return { buffer throws(PackedDamage) in
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
        return { buffer throws(PackedDamage) in try reader.read(into: buffer) }
    }
}
