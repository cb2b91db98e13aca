/// A compressed input as the loader sees it: decompressed in the background, and read
/// back at any offset from where its output goes.
///
/// gzip from a file goes nowhere: it is read back by inflating from access points
/// (`GzipSource`). Everything else (zstd, xz, bzip2, and gzip through a pipe) is spooled
/// like standard input.
package final class PackedInput: Sendable {
    package let compression: Compression
    /// The compressed file's size, or nil for a stream.
    package let compressedSize: Int64?
    let unpacker: Unpacker
    private let sink: Sink

    enum Sink: Sendable {
        case spool(SpooledOutput)
        case gzip(GzipSource)
    }

    /// Output between gzip access points (see DECISIONS.md).
    package static let accessPointSpacing: Int64 = 2 << 20

    /// Decompresses `raw`; a stream's output goes to `spool` (a new one when nil).
    package init(compression: Compression, raw: Unpacker.RawInput, compressedSize: Int64?, spool: SpoolSource? = nil,
                 accessPointSpacing: Int64 = PackedInput.accessPointSpacing) {
        self.compression = compression
        self.compressedSize = compressedSize
        if compression == .gzip && !raw.isStream && spool == nil {
            let index = GzipIndex(spacing: accessPointSpacing)
            unpacker = Unpacker(compression: compression, raw: raw, index: index)
            sink = .gzip(GzipSource(file: raw.file, index: index))
        } else {
            unpacker = Unpacker(compression: compression, raw: raw)
            sink = .spool(SpooledOutput(spool: spool ?? SpoolSource()))
        }
    }

    /// Reads a stream's first bytes and, when they are compressed data, returns a
    /// `PackedInput` that decompresses the stream into `spool`; otherwise puts them in
    /// `spool` and returns nil. It waits only as long as the bytes could still be magic.
    static func recognize(stream: FileSource, spool: SpoolSource, isStopped: () -> Bool,
                          waiting: (Bool) -> Void) -> PackedInput? {
        let prefix = OpenedInput.readMagic(from: stream, isStopped: isStopped, waiting: waiting)
        if let compression = Compression.detect(prefix) {
            let raw = Unpacker.RawInput(file: stream, prefix: prefix, isStream: true)
            return PackedInput(compression: compression, raw: raw, compressedSize: nil, spool: spool)
        }
        prefix.withUnsafeBytes { spool.append($0) }
        return nil
    }

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

    /// Starts decompressing.
    func start() { unpacker.start() }

    /// Stops decompressing and waits for the thread (the store is going away).
    func stop() { unpacker.stop() }

    /// Waits for the next decompressed chunk and makes it readable.
    func pull() -> Loader.Pulled {
        switch unpacker.take() {
        case .bytes(let chunk):
            switch sink {
            case .spool(let spool): spool.append(chunk)
            case .gzip(let gzip): gzip.append(chunk)
            }
            return .bytes(chunk.count)
        case .end:
            return .end
        case .damage(let damage):
            return .failed(damage.description + "; the rows before it are shown")
        }
    }
}
