#if canImport(Glibc)
import Glibc
#endif

extension InputSpec.Format {
    /// The first 16 bytes of every SQLite 3 database file (`SQLite format 3` and a NUL).
    package static let sqliteHeader: [UInt8] = Array("SQLite format 3".utf8) + [0]

    /// Bytes of an input's start that `detect(name:prefix:)` needs at most.
    package static let prefixLength = 16

    /// The format of an input named `name` (a path, or nil for a stream) whose first bytes
    /// are `prefix`: what the bytes say wins over the name, and what says nothing is CSV.
    ///
    /// A workbook by its zip's or OLE file's magic and its name (`detectWorkbook`).
    /// A SQLite database is known by its header alone, whatever its name (`.db`,
    /// `.sqlite`, `.gpkg`, none); text cannot start with a NUL in its 16th byte, so no CSV
    /// or TSV that opened before opens differently now.
    package static func detect(name: String?, prefix: some Collection<UInt8>) -> InputSpec.Format {
        if prefix.count >= sqliteHeader.count && prefix.prefix(sqliteHeader.count).elementsEqual(sqliteHeader) { return .sqlite }
        return detectWorkbook(name: name, prefix: prefix) ?? .csv
    }

    /// The format of the regular file at `path`, by its first bytes and its name; `.csv`
    /// for what cannot be read here (a FIFO, a device, a missing file: opening it says why).
    package static func detect(path: String) -> InputSpec.Format {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return .csv }
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return .csv }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: prefixLength)
        let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, prefixLength, 0) }
        return detect(name: path, prefix: bytes.prefix(max(0, got)))
    }
}
