/// A column as a user names it on the command line or at a prompt: by its header name, or
/// by its number counting from 1.
package struct ColumnReference: Sendable, Equatable, CustomStringConvertible {
    package let text: String

    package init(_ text: String) { self.text = text }

    package var description: String { text }

    package enum Failure: Error, Equatable, CustomStringConvertible {
        case unknown(String, known: [String])
        case ambiguous(String, matches: [Int])
        case outOfRange(Int, columns: Int)

        package var description: String {
            switch self {
            case .unknown(let name, let known):
                let shown = known.prefix(8).map { "'\($0)'" }.joined(separator: ", ")
                return "no column '\(name)'" + (known.isEmpty ? "" : " (columns: \(shown)\(known.count > 8 ? ", …" : ""))")
            case .ambiguous(let name, let matches):
                return "'\(name)' names columns \(matches.map { String($0 + 1) }.joined(separator: ", ")): give a number"
            case .outOfRange(let number, let columns):
                return "column \(number) does not exist (there are \(columns))"
            }
        }
    }

    /// The column (from 0) this names among `names` (the header's cells; `columns` counts
    /// the columns when there is no header). An exact name wins, then a unique name that
    /// differs only in case, then a number.
    package func resolve(in names: [String], columns: Int? = nil) throws(Failure) -> Int {
        let total = max(columns ?? 0, names.count)
        let exact = names.indices.filter { names[$0] == text }
        if exact.count == 1 { return exact[0] }
        if exact.count > 1 { throw .ambiguous(text, matches: exact) }
        let folded = names.indices.filter { names[$0].lowercased() == text.lowercased() }
        if folded.count == 1 { return folded[0] }
        if folded.count > 1 { throw .ambiguous(text, matches: folded) }
        if let number = Int(text), !text.hasPrefix("+") {
            guard number >= 1 && number <= total else { throw .outOfRange(number, columns: total) }
            return number - 1
        }
        throw .unknown(text, known: names)
    }
}
