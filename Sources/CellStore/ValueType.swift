/// What a cell of a typed row (an SQL answer) holds, for formats that tell them apart:
/// JSON writes a number bare, text as a string and NULL as `null`. Its text is the same
/// whatever the type (NULL's is empty), so CSV, TSV, a table and the screen need no type.
public enum ValueType: UInt8, Sendable {
    case text
    /// An integer, or a finite real: its text is a JSON number.
    case number
    case null
}
