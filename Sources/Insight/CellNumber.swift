/// A cell read as a number exactly as the summary reads it, for other modules that type
/// cells (the SQL tables): one entry point, so a change to how numbers are read reaches
/// them too.
package enum CellNumber {
    /// The number written `bytes` (plain, or with thousands separators, a trailing `%` or a
    /// leading currency sign), or nil when it is not one. `small` is the value when it is an
    /// integer of at most 18 digits; `value` is the nearest Double.
    package static func read(_ bytes: UnsafeRawBufferPointer) -> (isInteger: Bool, small: Int64?, value: Double)? {
        guard let (kind, number) = CellReader.number(bytes) else { return nil }
        return (kind == .integer, number.small, number.value)
    }
}
