import CellStore
import Scan

/// For the benchmark: the cost the band's pass cannot go below, every cell of an indexed
/// input's data records read as the pass reads them (pieces, field kernel, values handed
/// to a sink) into a sink that only adds up their lengths, on `workers` threads.
package enum PictureFloor {
    /// The bytes of every cell of `columns` columns from record `headerRows` on (nil when
    /// nothing is indexed).
    package static func visitEveryCell(readers: RecordReaders, headerRows: Int, columns: Int, workers: Int,
                                      byColumn: Bool = false) -> Int? {
        guard let input = ScanInput(readers: readers) else { return nil }
        var pass = Pass(input: input, columns: 0..<max(1, columns), filter: RecordFilter(first: headerRows))
        pass.workers = max(1, workers)
        pass.byColumn = byColumn
        let sinks = pass.run(control: ScanControl(), make: { _ in LengthSink() })
        return sinks?.reduce(0) { $0 + $1.bytes }
    }
}

/// Adds up the lengths of the cells it is handed.
struct LengthSink: CellSink, Sendable {
    var bytes = 0

    @inline(__always)
    mutating func cell(_ bytes: UnsafeRawBufferPointer, column: Int, record: Int) { self.bytes &+= bytes.count }

    mutating func longCell(_ value: LongValue, column: Int, record: Int) { bytes &+= value.length }
}
