/// Why a sort or a filter could not be made, in words a user can act on.
package enum QueryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A temporary file could not be made or written.
    case spill(String)
    /// A filter's pattern does not compile.
    case pattern(String)
    /// The input cannot be read.
    case input(String)

    package var description: String {
        switch self {
        case .spill(let why), .pattern(let why), .input(let why): return why
        }
    }
}
