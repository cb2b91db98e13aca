/// Why an export could not be carried out, in one line a user can act on.
public enum ExportError: Error, Equatable, CustomStringConvertible {
    /// The output cannot be written (no permission, a directory, the disk full).
    case unwritable(String)
    /// The input cannot be read again (a record that was indexed is gone).
    case unreadable(String)
    /// A pass the export reads from (a sort, a filter) failed.
    case pass(String)

    public var description: String {
        switch self {
        case .unwritable(let why), .unreadable(let why), .pass(let why): return why
        }
    }
}
