import CellStore
import Foundation
@testable import Insight
import Scan
import Testing

/// Bins checked against a reference that reads every cell and counts by comparing with the
/// bins' bounds, over generated columns of every sort a histogram meets.
@Suite("Histogram bins against a reference", .timeLimit(.minutes(30)))
struct HistogramReferenceTests {
    /// A generated column: its cells, and whether it holds instants.
    struct Column: CustomStringConvertible {
        var name: String
        var cells: [String]
        var isTime = false
        var description: String { name }
    }

    static func columns() -> [Column] {
        var generator = SeededGenerator(seed: 33)
        func next(_ bound: UInt64) -> Int { Int(generator.next() % bound) }
        let count = 3000
        var columns: [Column] = []
        columns.append(Column(name: "integers", cells: (0..<count).map { _ in String(next(2001) - 1000) }))
        columns.append(Column(name: "floats with exponents", cells: (0..<count).map { _ in
            ["\(next(1000)).\(next(100))e\(next(7) - 3)", "-\(next(99)).5E+\(next(3))", "\(next(10))e-\(next(4))"][next(3)]
        }))
        columns.append(Column(name: "negatives", cells: (0..<count).map { _ in "-\(next(500)).\(next(1000))" }))
        columns.append(Column(name: "percentages", cells: (0..<count).map { _ in "\(next(200) - 50).\(next(10))%" }))
        columns.append(Column(name: "currency", cells: (0..<count).map { _ in
            ["$\(next(9)),\(100 + next(900)).\(10 + next(90))", "€\(next(5000))", "-£\(next(300)).5", "¥\(next(100_000))"][next(4)]
        }))
        columns.append(Column(name: "dates", cells: (0..<count).map { _ in
            String(format: "%04d-%02d-%02d", 1990 + next(40), 1 + next(12), 1 + next(28))
        }, isTime: true))
        columns.append(Column(name: "dates with times and offsets", cells: (0..<count).map { _ in
            let date = String(format: "2024-%02d-%02d", 1 + next(12), 1 + next(28))
            let time = String(format: "%02d:%02d:%02d", next(24), next(60), next(60))
            return [date + "T" + time, date + " " + time + "Z", date + "T" + time + "+02:00", date + "T" + time + ".25-0530", date][next(5)]
        }, isTime: true))
        columns.append(Column(name: "hours of one day", cells: (0..<count).map { _ in
            String(format: "2024-05-17T%02d:%02d", next(24), next(60))
        }, isTime: true))
        columns.append(Column(name: "mixed and empty cells", cells: (0..<count).map { _ in
            ["\(next(100))", "", "n/a", "\(next(50)).25", "007", "1,2345", "12 apples"][next(7)]
        }))
        columns.append(Column(name: "one value", cells: ["42"]))
        columns.append(Column(name: "all equal", cells: (0..<count).map { index in index % 10 == 0 ? "" : "7.5" }))
        columns.append(Column(name: "nan and inf", cells: (0..<count).map { _ in
            ["NaN", "inf", "1e400", "-1e400", "\(next(10))", "-0"][next(6)]
        }))
        columns.append(Column(name: "tiny and huge", cells: (0..<count).map { _ in
            ["\(1 + next(9))e-30", "\(1 + next(9))e25", "0"][next(3)]
        }))
        return columns
    }

    /// What the reference reads a cell as: nil for an empty cell, .nan for one that is not of
    /// the column's kind, ±infinity past a double's range.
    static func reading(_ cell: String, isTime: Bool) -> Double? {
        if cell.isEmpty { return nil }
        let bytes = ArraySlice(cell.utf8)
        if isTime { return CellValue.instant(bytes) ?? .nan }
        return CellValue.number(bytes)?.value ?? .nan
    }

    @Test("every count is the number of values between the bounds; bounds are round and read back; the rest apart",
          arguments: columns())
    func exact(column: Column) throws {
        let text = "v\n" + column.cells.map { $0.contains(",") ? "\"\($0)\"" : $0 }.joined(separator: "\n") + "\n"
        let store = CellStore(bytes: Array(text.utf8), delimiter: UInt8(ascii: ","), checkpointSpacing: 1024)
        let count = HistogramCount(input: try #require(ScanInput(store: store)), column: 0, isTime: column.isTime, headerRows: 1)
        count.wait()
        guard case .finished(let counts) = count.status else { throw CancellationError() }
        let values = column.cells.map { Self.reading($0, isTime: column.isTime) }
        let finite = values.compactMap { $0 }.filter(\.isFinite)
        #expect(counts.empty == values.filter { $0 == nil }.count)
        #expect(counts.others == values.filter { $0?.isNaN == true }.count, "not of the column's kind, counted apart")
        #expect(counts.infinities == values.filter { $0?.isInfinite == true }.count)
        #expect(counts.bins.total == finite.count)
        for wanted in [2, 3, 7, 20, 100, 1000] {
            let table = counts.table(bins: wanted)
            guard !finite.isEmpty else {
                #expect(table.rows.isEmpty)
                continue
            }
            #expect(table.rows.count <= wanted, "\(column) in \(wanted) bins: \(table.rows.count)")
            #expect(table.rows.reduce(0) { $0 + $1.count } == finite.count)
            for (index, row) in table.rows.enumerated() {
                let expected = finite.filter { $0 >= row.lowValue && $0 < row.highValue }.count
                #expect(row.count == expected, "\(column), \(wanted) bins: \(row.range) holds \(row.count), the reference \(expected)")
                if index > 0 { #expect(table.rows[index - 1].highValue == row.lowValue) }
                // The bounds as written read back as the doubles values are compared with.
                let back = column.isTime ? CellValue.instant(ArraySlice(row.low.utf8)) : CellValue.number(ArraySlice(row.low.utf8))?.value
                #expect(back == row.lowValue, "\(row.low) reads back as \(String(describing: back)), not \(row.lowValue)")
            }
            #expect(table.rows.first!.lowValue <= finite.min()! && finite.max()! < table.rows.last!.highValue)
            if finite.min()! == finite.max()! { #expect(table.rows.count == 1) }
        }
    }

    @Test("a value written on a bound is in the bin it starts: 0.3 in [0.3, 0.4)")
    func onTheBound() throws {
        let cells = ["0.1", "0.2", "0.3", "0.30000000000000004", "0.7", "1"]
        let text = "v\n" + cells.joined(separator: "\n") + "\n"
        let store = CellStore(bytes: Array(text.utf8), delimiter: UInt8(ascii: ","))
        let count = HistogramCount(input: try #require(ScanInput(store: store)), column: 0, isTime: false, headerRows: 1)
        count.wait()
        guard case .finished(let counts) = count.status else { throw CancellationError() }
        let table = counts.table(bins: 10)
        #expect(table.rows.map(\.range) == ["[0.1, 0.2)", "[0.2, 0.3)", "[0.3, 0.4)", "[0.4, 0.5)", "[0.5, 0.6)", "[0.6, 0.7)",
                                            "[0.7, 0.8)", "[0.8, 0.9)", "[0.9, 1)", "[1, 1.1)"])
        #expect(table.rows.map(\.count) == [1, 1, 2, 0, 0, 0, 1, 0, 0, 1])
    }

    @Test("the band's cells count exactly what lies between their bounds", arguments: columns())
    func bandCells(column: Column) {
        var picture = ColumnPicture()
        for cell in column.cells { Array(cell.utf8).withUnsafeBytes { picture.add($0) } }
        guard let bins = picture.bins else { return }
        for width in [1, 5, 12, 50] {
            let (counts, first, step) = bins.groups(cells: width)
            #expect(counts.count <= width)
            #expect(counts.reduce(0, +) == bins.total)
            let values = column.cells.compactMap { Self.reading($0, isTime: picture.kind == .instants) }.filter(\.isFinite)
            for (index, count) in counts.enumerated() {
                let low = bins.scale.start(of: first + Int64(index) * step)
                let high = bins.scale.start(of: first + Int64(index + 1) * step)
                #expect(count == values.filter { $0 >= low && $0 < high }.count, "\(column) cell \(index) of \(width)")
            }
        }
    }
}
