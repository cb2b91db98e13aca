import CellStore
@testable import Insight
import Query
import Testing

/// The summary's shortcuts answer as the long ways they stand for: the quantiles' radix
/// sort as `sort()`, a cell placed between a column's ends by its first bytes as by its
/// key, a plain decimal read quickly as `CellValue.number` reads it.
@Suite(.timeLimit(.minutes(30)))
struct SummaryShortcutTests {
    @Test("the quantiles' radix sort orders as sort() does, -0 and 0 kept in their order")
    func radixSortIsSort() {
        var generator = SeededGenerator(seed: 41)
        let pool: [Double] = [0, -0.0, 1, -1, .infinity, -.infinity, 1e-310, -1e-310, .greatestFiniteMagnitude, 2.5, -2.5]
        for size in [0, 1, 255, 256, 1000, 8192] {
            var values: [Double] = (0..<size).map { index in
                switch generator.next() % 4 {
                case 0: return pool[Int(generator.next() % UInt64(pool.count))]
                case 1: return Double(Int64(bitPattern: generator.next()) % 1000)
                default: return Double(bitPattern: generator.next() & ~(0x7FF << 52)) * (index % 2 == 0 ? 1 : -1)
                }
            }
            var expected = values
            expected.sort()
            QuantileSketch.sortAsStable(&values)
            // Bit for bit: -0 and 0 are equal to `==`, not to their bit patterns.
            #expect(values.map(\.bitPattern) == expected.map(\.bitPattern), "\(size) values")
        }
        var withNaN: [Double] = (0..<300).map { Double($0 % 17) }
        withNaN[100] = .nan
        var expected = withNaN
        expected.sort()
        QuantileSketch.sortAsStable(&withNaN)
        #expect(withNaN.map(\.bitPattern) == expected.map(\.bitPattern))
    }

    func key(_ text: String) -> [UInt8] {
        var key: [UInt8] = []
        Array(text.utf8).withUnsafeBytes { KeyEncoding.appendSortKey($0, kind: .text, to: &key) }
        return key
    }

    func liesBetween(_ cell: String, _ least: String, _ greatest: String) -> Bool {
        let (low, high) = (key(least), key(greatest))
        return Array(cell.utf8).withUnsafeBytes { bytes in
            low.withUnsafeBufferPointer { low in high.withUnsafeBufferPointer { ColumnProfile.liesBetween(bytes, low, $0) } }
        }
    }

    @Test func keyClassesAsKeyEncodingHasThem() {
        #expect(ColumnProfile.valueKeyClass == KeyEncoding.valueClass && ColumnProfile.textKeyClass == KeyEncoding.textClass)
    }

    @Test("a cell is between a text column's ends by its first bytes only when its key is")
    func placedByFirstBytesAsByKey() {
        #expect(liesBetween("alpha beta", "alpha alpha", "zulu"))
        #expect(liesBetween("Alpha Beta", "alpha alpha", "北京"))
        #expect(!liesBetween("alpha alpha", "alpha alpha", "zulu"), "a tie with the least is no strict order")
        #expect(!liesBetween("alpha", "alpha alpha", "zulu"), "a prefix of the least sorts before it")
        #expect(!liesBetween("file10", "file2", "zulu"), "digit runs compare as numbers: undecided by bytes")
        let pieces = ["a", "B", "al", "Al", "alpha", "ALPHA", " ", "-", ".", "z", "Zoe", "9", "10", "é", "北", "_", "~", "\u{1}"]
        var generator = SeededGenerator(seed: 7)
        func text() -> String {
            (0..<Int(generator.next() % 4)).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
        }
        var decided = 0
        for _ in 0..<20_000 {
            let (cell, one, other) = (text(), text(), text())
            guard !cell.isEmpty, !one.isEmpty, !other.isEmpty else { continue }
            let (low, high) = key(one).lexicographicallyPrecedes(key(other)) ? (one, other) : (other, one)
            let byKeys = key(cell).withUnsafeBytes { cellKey in
                key(low).withUnsafeBytes { KeyEncoding.order(cellKey, $0) } > 0
                    && key(high).withUnsafeBytes { KeyEncoding.order(cellKey, $0) } < 0
            }
            if liesBetween(cell, low, high) {
                decided += 1
                #expect(byKeys, "\(cell) between \(low) and \(high)")
            }
        }
        #expect(decided > 1000)
    }

    @Test("a plain decimal is classified with the value and kind CellValue.number reads")
    func quickClassifyAsGeneral() {
        var generator = SeededGenerator(seed: 3)
        let odd = ["-0", "0", "00", "007", "1.", ".5", "-.5", "1e3", "12%", "$5", " 7", "1,000", "123456789012345",
                   "1234567890123456", "0.1234567890123456", "-", ".", "2024-2-27", "+3", "9007199254740993"]
        var cells = odd
        for _ in 0..<5000 {
            let digits = String(generator.next() % 1_000_000_000_000)
            let point = Int(generator.next() % UInt64(digits.count + 1))
            var cell = generator.next() % 2 == 0 ? "-" : ""
            cell += String(digits.prefix(point)) + (point < digits.count ? "." + digits.dropFirst(point) : "")
            cells.append(cell)
        }
        for cell in cells {
            let (quick, general) = Array(cell.utf8).withUnsafeBytes { bytes in
                (CellReader.classify(bytes), CellValue.number(bytes))
            }
            #expect(quick.number?.value.bitPattern == general?.value.bitPattern, "\(cell)")
            if let general {
                #expect(quick.kind == (general.isInteger ? .integer : .decimal), "\(cell)")
            }
        }
    }
}
