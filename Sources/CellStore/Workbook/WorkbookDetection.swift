#if canImport(Glibc)
import Glibc
#endif

extension InputSpec {
    /// The same spec with its format found from the file's name and first bytes, when
    /// it says `.csv` (the default) and names a regular file (a stream is never looked
    /// into here: its bytes are read once, by its reader). A workbook's sheet is read as
    /// the CSV it is turned into: commas, double quotes, no preamble, never followed.
    /// A SQLite database throws: its tables are read through SQLite, never as a store's text.
    package func resolvingFormat() throws(CellStoreError) -> InputSpec {
        var spec = self
        if format == .csv, case .file(let path) = location {
            let detected = (try? Format.detect(path: path)) ?? .csv
            // A database is never a store's text: read as CSV, an edit saved over it, or
            // written out, would be its pages as text. It is a table through SQLite only.
            if detected == .sqlite {
                throw .unsupported(path, "a SQLite database is read through SQLite, as its tables (not here)")
            }
            if detected == .xlsx { spec.format = .xlsx }
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
