#if canImport(Glibc)
import Glibc
#endif

extension InputSpec.Format {
    /// Bytes of an input's start that decide its format.
    static let magicLength = 8

    /// The format an input named `name` is in, judged from its first bytes `prefix` and its
    /// name; nil when they say nothing (it is read as delimited text, as before: no CSV or
    /// TSV starts with these bytes). `holdsWorkbook` looks into a zip not named `.xlsx`.
    ///
    /// - A zip (`PK\3\4`) named `.xlsx` or `.xlsm`, or any zip holding `xl/workbook.xml`:
    ///   an Excel workbook.
    /// - An OLE compound file (`D0 CF 11 E0`) named `.xls`, `.xlsx`, `.xlsm` or `.xlsb`:
    ///   an old binary workbook or an encrypted one, which the workbook reader refuses
    ///   with a sentence (a `.xls` that is really text, as some web sites export, stays text).
    package static func detectWorkbook(name: String?, prefix: some Collection<UInt8>,
                                       holdsWorkbook: () -> Bool = { false }) -> InputSpec.Format? {
        let bytes = Array(prefix.prefix(magicLength))
        let suffix = name.map { $0.lowercased() }.flatMap { name in name.lastIndex(of: ".").map { String(name[$0...]) } }
        if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            if suffix == ".xlsx" || suffix == ".xlsm" || holdsWorkbook() { return .xlsx }
        }
        if bytes.starts(with: Workbook.compoundFileMagic),
           [".xls", ".xlsx", ".xlsm", ".xlsb"].contains(suffix ?? "") {
            return .xlsx
        }
        return nil
    }
}

extension InputSpec.Format {
    /// The format as a sentence names it: "an Excel workbook".
    package var noun: String {
        switch self {
        case .csv: return "delimited text"
        case .jsonLines: return "JSON lines"
        case .jsonArray: return "a JSON array"
        case .sqlite: return "a SQLite database"
        case .xlsx: return "an Excel workbook"
        }
    }
}

extension InputSpec {
    /// The same spec with its format found from the file's name and first bytes, when
    /// it says `.csv` (the default) and names a regular file (a stream is never looked
    /// into here: its bytes are read once, by its reader). A workbook's sheet is read as
    /// the CSV it is turned into: commas, double quotes, no preamble, never followed.
    /// A SQLite database throws: its tables are read through SQLite, never as a store's text.
    package func resolvingFormat() throws(CellStoreError) -> InputSpec {
        var spec = self
        if format == .csv, case .file(let path) = location {
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return self }
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return self }
            var bytes = [UInt8](repeating: 0, count: max(Format.magicLength, Format.prefixLength))
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
            close(descriptor)
            // A database is never a store's text: read as CSV, an edit saved over it, or
            // written out, would be its pages as text. It is a table through SQLite only.
            if got >= Format.sqliteHeader.count, bytes.starts(with: Format.sqliteHeader) {
                throw .unsupported(path, "a SQLite database is read through SQLite, as its tables (not here)")
            }
            let detected = Format.detectWorkbook(name: path, prefix: bytes.prefix(max(0, got))) {
                (try? ZipArchive(file: nil, path: path))?.locate("xl/workbook.xml") != nil
            }
            guard let detected else { return self }
            spec.format = detected
        }
        if spec.format == .xlsx {
            spec.delimiter = UInt8(ascii: ",")
            spec.quote = UInt8(ascii: "\"")
            spec.preamble = .none
            spec.encoding = nil
            spec.follows = false
        }
        return spec
    }
}
