import CellStore

/// Values from `low` (in) to `high` (out), read as numbers or as instants as `CellValue`
/// reads them: what a filter made from a histogram's bin keeps (a typed filter).
public struct ValueRange: Sendable, Hashable {
    package var low: Double
    package var high: Double
    /// Instants (seconds since 1970, UTC), else numbers.
    package var isTime: Bool
    /// How the range is written for people (`[10, 20)`).
    package var label: String

    package init(low: Double, high: Double, isTime: Bool, label: String) {
        self.low = low
        self.high = high
        self.isTime = isTime
        self.label = label
    }

    /// True when `cell` reads as a value in the range (a cell that is not a number, or
    /// not an instant, never is).
    @inline(__always)
    package func contains(_ cell: UnsafeRawBufferPointer) -> Bool {
        let value: Double?
        if isTime { value = CellValue.instant(cell) } else { value = CellValue.number(cell)?.value }
        guard let value else { return false }
        return value >= low && value < high
    }
}
