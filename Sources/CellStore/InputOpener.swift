#if canImport(Glibc)
import Glibc
#endif

/// Opens what the user named as the loader's input, deciding how it is read: a regular
/// file with `pread`, anything else as a stream spooled as it arrives.
enum InputOpener {
    /// The input for `path` (nil or `-` for standard input) and its name on screen.
    ///
    /// A FIFO is opened without waiting for a writer, so the screen comes up and says it
    /// waits. A regular file that reports size 0 yet has bytes to read (files under
    /// `/proc` and `/sys` do) is read as a stream; a truly empty one, or a followed one,
    /// stays a file, to be read again (`R`) or followed once it is written. An input that
    /// can be read only once and is `shared` among stores is the one stream opened on it.
    static func open(path: String?, follows: Bool, spoolLimit: SpoolLimit, encoding: TextEncoding?,
                     shared: SharedStream.Slot? = nil) throws(CellStoreError) -> (input: Loader.Input, name: String) {
        let name = path.flatMap { $0 == "-" ? nil : $0 } ?? "stdin"
        if let shared {
            let stream = try shared.stream { () throws(CellStoreError) in
                try SharedStream(path: path, spoolLimit: spoolLimit, encoding: encoding)
            }
            return (.stream(stream), name)
        }
        guard let path, path != "-" else {
            return (.stream(try SharedStream(path: nil, spoolLimit: spoolLimit, encoding: encoding)), name)
        }
        let file = try FileSource(path: path, waitsForWriter: false)
        if let size = file.regularFileSize, size > 0 || follows || !hasContentBeyondItsSize(file) {
            return (.file(file, size: size), path)
        }
        return (.stream(SharedStream(file: file, path: path, spoolLimit: spoolLimit, encoding: encoding)), path)
    }

    /// True when a file of size 0 still gives bytes (a pseudo-file made when read).
    static func hasContentBeyondItsSize(_ file: FileSource) -> Bool {
        var byte: UInt8 = 0
        return withUnsafeMutableBytes(of: &byte) { file.read(at: 0, into: $0) } > 0
    }
}
