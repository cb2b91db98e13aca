/// What can go wrong when opening or reading an input; each message names the path.
package enum CellStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    case notFound(String)
    case isDirectory(String)
    case permissionDenied(String)
    case unreadable(String, String)
    case parserSetup
    /// Standard input was to be read, but the shell closed it (`csvfreeze <&-`).
    case closedInput
    /// `--encoding` named something iconv cannot convert from.
    case unknownEncoding(String)
    /// The input is in a format whose content is not a table (a `.json` holding one
    /// object): what was found.
    case notATable(String, String)
    /// The file is of a kind that is not read (an encrypted or old binary workbook), or is
    /// damaged in a way that stops it from being read at all; the reason is said whole.
    case unsupported(String, String)

    package var description: String {
        switch self {
        case .notFound(let path): return "\(path): no such file"
        case .isDirectory(let path): return "\(path): is a directory, not a file"
        case .permissionDenied(let path): return "\(path): permission denied"
        case .unreadable(let path, let why): return "\(path): cannot read (\(why))"
        case .parserSetup: return "could not set up the CSV parser (out of memory)"
        case .closedInput: return "standard input is closed: give a FILE, or pipe data in"
        case .unknownEncoding(let name): return "unknown encoding '\(name)' (iconv -l lists the names known)"
        case .notATable(let path, let found): return "\(path): \(found)"
        case .unsupported(let path, let why): return "\(path): \(why)"
        }
    }
}
