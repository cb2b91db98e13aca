#if canImport(Glibc)
import Glibc
#endif

/// What can be known of an input without reading it: its size and its compression (by
/// its first bytes). Cheap enough to take for each of a thousand files before the first
/// screen, and it leaves no descriptor open.
package struct InputFacts: Sendable, Equatable {
    /// Bytes in the file, or nil for what is not a regular file (a FIFO, a device).
    package var size: Int64?
    /// `gzip`, `zstd`, `xz` or `bzip2`, known by the first bytes; nil for plain text.
    package var compression: String?
    /// `.sqlite` or `.xlsx` when its first bytes and name say so (`InputSpec.Format.detect`);
    /// `.csv` for text, whose format (CSV or JSON) the store tells as it reads.
    package var format: InputSpec.Format

    package init(size: Int64?, compression: String?, format: InputSpec.Format = .csv) {
        self.size = size
        self.compression = compression
        self.format = format
    }

    /// The facts of the file at `path`, opening it as the viewer would (a FIFO without
    /// waiting for a writer), so a path that cannot be read fails here with the same
    /// message (`no such file`, `permission denied`, `is a directory`).
    ///
    /// What is not a regular file (a FIFO, a device) is not opened, only looked at: a
    /// writer waiting on a FIFO would take even a look as its reader, write into a pipe
    /// this closes, and be gone before the table is read.
    package static func probe(path: String) throws(CellStoreError) -> InputFacts {
        var info = stat()
        if stat(path, &info) != 0 { throw FileSource.error(for: errno, path: path) }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: throw .isDirectory(path)
        case S_IFREG: break
        default:
            if access(path, R_OK) != 0 { throw FileSource.error(for: errno, path: path) }
            return InputFacts(size: nil, compression: nil)
        }
        let file = try FileSource(path: path, waitsForWriter: false)
        guard let size = file.regularFileSize else { return InputFacts(size: nil, compression: nil) }
        var magic = [UInt8](repeating: 0, count: InputSpec.Format.magicLength)
        let got = max(0, magic.withUnsafeMutableBytes { file.read(at: 0, into: $0) })
        let compression = Compression.detect(magic.prefix(min(got, Compression.magicLength)),
                                             isWhole: Int64(min(got, Compression.magicLength)) == size)
        // Only what is read from a file of its own (a database, a workbook) is told here;
        // text formats (CSV, JSON) are told by the store, which reads further.
        var format = InputSpec.Format.csv
        if compression == nil {
            let detected = try? InputSpec.Format.detect(name: path, firstBytes: magic.prefix(got), isWhole: Int64(got) == size) {
                (try? ZipArchive(file: file, path: path))?.locate("xl/workbook.xml") != nil
            }
            if let detected, detected.needsFile { format = detected }
        }
        return InputFacts(size: size, compression: compression?.name, format: format)
    }

    /// True when `name` (a file's name) says delimited text: `.csv`, `.tsv`, `.tab`,
    /// `.psv`, `.dsv`, `.ssv`, `.txt`, `.dat`, in any case, also before a compression
    /// suffix (`sales.csv.gz`).
    package static func hasDelimitedName(_ name: String) -> Bool {
        let bare = OpenedInput.tableName(of: name).lowercased()
        guard let dot = bare.lastIndex(of: "."), dot != bare.startIndex else { return false }
        return delimitedExtensions.contains(String(bare[bare.index(after: dot)...]))
    }

    /// JSON lines count as tables too; `.json` does not (a directory's `.json` files are
    /// more often settings than arrays of records).
    static let delimitedExtensions: Set<String> = ["csv", "tsv", "tab", "psv", "dsv", "ssv", "txt", "dat", "jsonl", "ndjson"]
}
