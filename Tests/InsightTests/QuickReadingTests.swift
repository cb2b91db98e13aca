@testable import CellStore
import Foundation
@testable import Insight
import Scan
import Table
import Testing

/// The band's fast readings (`QuickNumber`, `QuickIndex`) and the summary's announced
/// lookups (`CellSink.willTake`) change no result: each is compared with the general way
/// over generated hostile cells and values.
@Suite("Fast readings agree with the general ones", .timeLimit(.minutes(30)))
struct QuickReadingTests {
    /// Cells of every shape a number reader meets: plain decimals near the 15-digit limit,
    /// signs, points at either end, leading zeros, separators, currency, exponents,
    /// percentages, spaces, dates, text, and bytes at random from the number alphabet.
    static func hostileCells(count: Int, seed: UInt64) -> [[UInt8]] {
        var generator = SeededGenerator(seed: seed)
        let fixed = ["0", "-0", "-0.0", "0.", ".5", "-.5", "5.", "-", ".", "-.", "+1", "+", "00", "007", "0.5", "00.5",
                     "123456789012345", "1234567890123456", "-999999999999999", "0.000000000000001", "1.00000000000000",
                     "123456789.123456", "12345678.1234567", "1e5", "1E-3", "1,234", "1,234.5", "12,34", "$12", "-$1.5",
                     "€3", "50%", "-12.5%", " 12", "12 ", " -1.5 ", "2024-2-27", "2024-02-27", "2024-02-27T10:00:00Z",
                     "12-", "-12-3", "1.2.3", "1..2", "alpha", "she said \"x\"", "9007199254740993", "0.1", "0.3",
                     "-426294.207", "426294.207", "1.7976931348623157", "4.9", "nan", "inf", "1e400", "--1", "1-", "٣",
                     // Longer than a plain decimal: refused by their first byte, or unsure.
                     "alpha naïve 北京 data 北京 point, etc.", "北京 œuvre beta, etc.", "   12345678901234567890  ",
                     "12345678901234567890123", "-1234567890.123456789", "$1,234,567,890.00", "€ 1 234 567 890,00",
                     "1.5e300000000000000", "she said \"delta\" twice", "  2024-02-27T10:00:00+01:00"]
        var cells = fixed.map { Array($0.utf8) }
        let alphabet = Array("0123456789-.+,e%$ 0000111".utf8)
        while cells.count < count {
            let length = Int(generator.next() % 18) + 1
            switch generator.next() % 3 {
            case 0:
                // A plain decimal of up to 17 digits, its point anywhere.
                let digits = Int(generator.next() % 17) + 1
                var text = generator.next() % 2 == 0 ? "-" : ""
                let point = Int(generator.next() % UInt64(digits + 2))
                for index in 0..<digits {
                    if index == point { text += "." }
                    text += String(generator.next() % 10)
                }
                cells.append(Array(text.utf8))
            case 1:
                cells.append((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
            default:
                // A double written in full, as a program would.
                let value = Double(bitPattern: generator.next() >> 2) * (generator.next() % 2 == 0 ? 1 : -1)
                cells.append(Array(String(value).utf8))
            }
        }
        return cells
    }

    @Test("QuickNumber gives CellValue.number's value and kind, or leaves the cell to it", arguments: [1, 2, 3])
    func quickNumberAgrees(seed: UInt64) {
        var quick = 0
        for cell in Self.hostileCells(count: 60_000, seed: seed) {
            cell.withUnsafeBytes { bytes in
                let general = CellValue.number(bytes)
                switch QuickNumber.read(bytes) {
                case .number(let value, let isInteger):
                    quick += 1
                    #expect(general != nil, "\(String(decoding: cell, as: UTF8.self))")
                    if let general {
                        #expect(value.bitPattern == general.value.bitPattern && isInteger == general.isInteger,
                                "\(String(decoding: cell, as: UTF8.self)): \(value) against \(general.value)")
                    }
                case .notNumber:
                    #expect(general == nil, "\(String(decoding: cell, as: UTF8.self))")
                case .unsure:
                    break
                }
            }
        }
        // Most plain decimals are read the fast way (the test reaches its fast path).
        #expect(quick > 10_000)
    }

    @Test("the band counts as instants exactly the cells CellValue reads as instants and not as numbers")
    func instantsAsCellValueReadsThem() {
        var cells = Self.hostileCells(count: 20_000, seed: 4)
        cells += ["2024-02-27", " 2024-02-27", "2024-02-27 ", "  2024-02-27T10:00Z", "2024-02-27T10:00:00.5+01:00", "2024-2-27",
                  "1970-01-01", "9999-12-31 23:59:60", "2024-02-30", " x2024-02-27", "2024-02-2", "\t2024-02-27"].map { Array($0.utf8) }
        var picture = ColumnPicture()
        var expected = 0
        for cell in cells {
            cell.withUnsafeBytes { bytes in
                if !bytes.isEmpty && CellValue.number(bytes) == nil && CellValue.instant(bytes) != nil { expected += 1 }
                picture.add(bytes)
            }
        }
        #expect(expected >= 7)
        #expect(picture.instantCount == expected)
    }

    @Test("QuickIndex gives BinScale.index(of:)'s bin, or leaves the value to it", arguments: [1, 2])
    func quickIndexAgrees(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        var decided = 0
        for level in -25...25 {
            for isTime in [false, true] where !isTime || level <= 1 {
                let scale = BinScale(level: level, isTime: isTime)
                let quick = QuickIndex(scale)
                for _ in 0..<2000 {
                    // Values on and beside bounds, and anywhere in the scale's reach.
                    let index = Int64(bitPattern: generator.next()) % 1_000_000_000_000
                    let bound = scale.start(of: index)
                    let candidates = [bound, bound.nextUp, bound.nextDown, Double(index) * pow(10, Double(level)),
                                      (Double(Int64(bitPattern: generator.next()) % (1 << 52)) / Double(1 << 20))
                                          * pow(10, Double(level)), 0, -0.0]
                    for value in candidates where value.isFinite {
                        if let fast = quick.index(of: value) {
                            decided += 1
                            #expect(fast == scale.index(of: value), "\(value) at level \(level)")
                        }
                    }
                }
            }
        }
        #expect(decided > 50_000)
    }

    @Test("a summary read with its lookups announced is the summary fed cell by cell", arguments: [1, 2])
    func announcedLookupsChangeNothing(seed: UInt64) throws {
        // Columns of many distinct values (past a small budget) and of few, numbers, text,
        // empty cells, and values with doubled quotes (joined, not announced).
        var generator = SeededGenerator(seed: seed)
        var text = "a,b,c,d,e\n"
        for row in 0..<20_000 {
            let cells = [String(generator.next() % 100_000), "w\(generator.next() % 7)", "\(row).\(generator.next() % 1000)",
                         "x\(generator.next() % 3000)y", generator.next() % 9 == 0 ? "" : "\"q \"\"\(generator.next() % 50)\"\"\""]
            text += cells.joined(separator: ",") + "\n"
        }
        let bytes = Array(text.utf8)
        let columns = 0..<5
        let profiles = columns.map { _ in
            ColumnProfile(counter: ValueCounter(budget: 8192, kept: 64, precision: 12), order: .text, quantileBudget: 1 << 14)
        }
        let store = CellStore(bytes: bytes, delimiter: UInt8(ascii: ","), checkpointSpacing: 1 << 12)
        let input = try #require(ScanInput(store: store))
        let reader = FieldReader(input: input, columns: columns, filter: RecordFilter(first: 1), bufferSize: 1 << 22)
        var announced = SummarySink(profiles: profiles, slots: Array(columns), first: 0)
        for piece in input.pieces(for: 0..<Int.max, limit: 1 << 22, raw: true) { reader.read(piece, into: &announced) }
        #expect(reader.parsedPieces == 0 && reader.rawFallbacks == 0)
        var plain = SummarySink(profiles: profiles, slots: Array(columns), first: 0)
        for (record, row) in referenceRows(bytes).enumerated() where record >= 1 {
            for column in columns { row.field(column).withUnsafeBytes { plain.cell($0, column: column, record: record) } }
        }
        for column in columns {
            let ours = announced.profiles[column].summary(column: column, name: "c", commonValues: 3, isComplete: true)
            let theirs = plain.profiles[column].summary(column: column, name: "c", commonValues: 3, isComplete: true)
            #expect(ours.cells(shape: nil) == theirs.cells(shape: nil), "column \(column)")
            #expect(ours.filled == 20_000 - (column == 4 ? ours.empty : 0))
        }
        #expect(!announced.profiles[0].counter.isExact && announced.profiles[1].counter.isExact)
    }
}
