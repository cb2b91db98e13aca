import CellStore
import Table

/// Column widths from a sample of the rows, so widths stay put while scrolling.
///
/// A column's natural width is the widest cell in the sample (header included); what is
/// shown is capped by the screen so one column cannot take it all.
struct ColumnSizer {
    /// Data rows sampled at most.
    static let sampleRows = 1000
    /// Widest a column may be by default, before the screen's own cap.
    static let maximumWidth = 50
    /// Width given to a column no sampled row reaches.
    static let unsampledWidth = 8

    private(set) var natural: [Int] = []
    /// Records the sample covered when it was taken.
    private(set) var sampledRecords = -1
    private(set) var isFinal = false
    /// The source's generation the sample was taken from.
    private(set) var generation = 0

    /// Whether the last rows have been measured (once the whole input is known).
    private var hasSampledTail = false
    /// Whether rows shown under estimated numbers have been measured.
    private var hasSampledEstimatedRows = false

    /// Takes the sample again if the source has grown and the sample was not full; once
    /// it is complete, also measures its last rows (ids and totals grow there).
    mutating func update(from source: any RowSource, headerRows: Int) {
        if source.generation != generation {
            // The rows were replaced (a sheet's newer counts): measured again from scratch.
            self = ColumnSizer()
            generation = source.generation
        }
        if !isFinal {
            let available = source.rowCount
            guard available != sampledRecords || source.isComplete else { return }
            let limit = min(available, headerRows + ColumnSizer.sampleRows)
            var widths = [Int](repeating: 0, count: source.columnCount)
            measure(source, rows: 0..<limit, into: &widths)
            natural = widths.map { max(1, $0) }
            sampledRecords = available
            isFinal = limit >= headerRows + ColumnSizer.sampleRows || source.isComplete
        }
        if let estimated = source.file?.estimatedRows, !hasSampledEstimatedRows {
            // Rows shown after a jump to the end: ids and totals grow there too.
            hasSampledEstimatedRows = true
            var widths = natural
            measure(source, rows: max(estimated.lowerBound, estimated.upperBound - ColumnSizer.tailRows)..<estimated.upperBound,
                    into: &widths)
            natural = widths.map { max(1, $0) }
            sampledRecords = -3
        }
        if isFinal && !hasSampledTail && source.isComplete {
            hasSampledTail = true
            let count = source.rowCount
            let start = max(headerRows + ColumnSizer.sampleRows, count - ColumnSizer.tailRows)
            guard start < count else { return }
            var widths = natural
            measure(source, rows: start..<count, into: &widths)
            natural = widths.map { max(1, $0) }
            sampledRecords = -2   // a new layout key
        }
    }

    /// Rows at the end measured once the input is complete.
    static let tailRows = 200

    /// Bytes of cells measured at most per sample, so a very wide file (thousands of
    /// columns) costs no more to size than a narrow one.
    static let sampleBytes = 4 << 20

    private func measure(_ source: any RowSource, rows: Range<Int>, into widths: inout [Int]) {
        var bytes = 0
        for index in rows {
            guard bytes < ColumnSizer.sampleBytes, let row = source.row(index) else { break }
            bytes += row.bytes.count + row.count
            if row.count > widths.count { widths.append(contentsOf: repeatElement(0, count: row.count - widths.count)) }
            for column in 0..<row.count {
                let width = CellText.width(row.field(column), limit: 400)
                if width > widths[column] { widths[column] = width }
            }
        }
    }

    /// A column's width from the sample, uncapped.
    func naturalWidth(_ column: Int) -> Int {
        column < natural.count ? natural[column] : ColumnSizer.unsampledWidth
    }

    /// The widths to show for `count` columns on a screen `screenWidth` cells wide, each
    /// at least its width in `atLeast` (by column) under the same cap.
    func widths(count: Int, screenWidth: Int, atLeast: [Int: Int] = [:]) -> [Int] {
        let cap = max(8, min(ColumnSizer.maximumWidth, screenWidth / 2 - 2))
        return (0..<count).map { column in
            let sampled = column < natural.count ? natural[column] : ColumnSizer.unsampledWidth
            return min(max(sampled, atLeast[column] ?? 0), cap)
        }
    }
}
