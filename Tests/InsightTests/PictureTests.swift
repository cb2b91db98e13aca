@testable import CellStore
import Synchronization
import Foundation
@testable import Insight
import Scan
import Table
import Testing

@Suite("Exact bins of growing range, quantiles and pictures", .timeLimit(.minutes(30)))
struct PictureTests {
    /// Counts by bin of `values` as the bins' scale places them, done the slow way.
    static func reference(_ values: [Double], scale: BinScale) -> [Int64: Int] {
        var counts: [Int64: Int] = [:]
        for value in values {
            // The bin whose start is at or before the value and whose next start is after it.
            let index = scale.index(of: value) ?? 0
            #expect(scale.start(of: index) <= value && value < scale.start(of: index + 1), "\(value) in bin \(index)")
            counts[index, default: 0] += 1
        }
        return counts
    }

    @Test("an instant is a midnight exactly when its remainder by a day is 0")
    func midnights() {
        var generator = SeededGenerator(seed: 11)
        var instants: [Double] = [0, -0.0, 86_400, -86_400, 86_399, 86_401, 43_200, 0.5, -0.5, 86_400.000_000_1,
                                  0x1p53, -0x1p53, 0x1p53 - 1, 0x1p52 + 0.5, 9_007_199_254_700_800, 1e300, -1e300,
                                  .infinity, -.infinity, .leastNonzeroMagnitude]
        for _ in 0..<20_000 {
            let days = Double(Int64(generator.next() % 2_000_000)) - 1_000_000
            let seconds = Double(generator.next() % 86_400)
            instants += [days * 86_400, days * 86_400 + seconds, days * 86_400 + seconds / 1000, (days * 86_400).nextUp,
                         (days * 86_400).nextDown, Double(bitPattern: generator.next() >> 2)]
        }
        for instant in instants where !instant.isNaN {
            #expect(ColumnPicture.isMidnight(instant) == (instant.truncatingRemainder(dividingBy: 86_400) == 0), "\(instant)")
        }
        #expect(instants.filter { ColumnPicture.isMidnight($0) }.count > 20_000, "many midnights among them")
    }

    @Test("counts stay exact while the range grows and bins join; any order, any split", arguments: [1, 2, 3, 4])
    func exactWhileGrowing(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let values: [Double] = (0..<5000).map { index in
            switch seed {
            case 1: return Double(Int(generator.next() % 2000) - 1000)
            case 2: return Double(generator.next() % 1_000_000) / 1000 * (index % 7 == 0 ? 1e6 : 1)
            case 3: return [0.1, 0.2, 0.3, 0.7, 1e-9, -2.5e-3][Int(generator.next() % 6)] * Double(1 + index % 5)
            default: return Double(index) * 86_400 + (index % 3 == 0 ? 3600.5 : 0)
            }
        }
        let isTime = seed == 4
        var whole = ValueBins(capacity: 256, isTime: isTime)
        var first = ValueBins(capacity: 256, isTime: isTime), second = ValueBins(capacity: 256, isTime: isTime)
        for (index, value) in values.enumerated() {
            whole.add(value, isWhole: false)
            if index < 1700 { first.add(value, isWhole: false) } else { second.add(value, isWhole: false) }
        }
        first.merge(second)
        for bins in [whole, first] {
            #expect(bins.total == values.count)
            #expect(bins.usedBins <= bins.capacity)
            #expect(bins.minimum == values.min() && bins.maximum == values.max())
            let expected = Self.reference(values, scale: bins.scale)
            var seen = 0
            for index in bins.low...bins.high where bins.count(at: index) > 0 {
                #expect(bins.count(at: index) == expected[index], "bin \(index) at \(bins.scale)")
                seen += bins.count(at: index)
            }
            #expect(seen == values.count)
        }
        #expect(whole.scale == first.scale || whole.usedBins > 0)
    }

    @Test("a value on a decimal bound starts its bin: 0.3 is in [0.3, 0.4), not [0.2, 0.3)")
    func decimalBounds() {
        let scale = BinScale(level: -1, isTime: false)
        for (text, bin) in [("0.3", Int64(3)), ("0.29999999999999999", 3), ("-0.1", -1), ("0.7", 7), ("-0.30000000000000004", -4)] {
            let value = CellValue.number(ArraySlice(text.utf8))!.value
            #expect(scale.index(of: value) == bin, "\(text)")
        }
    }

    @Test("months and years are calendar bins, whole days joined exactly")
    func calendarBins() {
        let month = BinScale(level: BinScale.monthLevel, isTime: true)
        let feb29 = Double(CellValue.daysFromCivil(year: 2024, month: 2, day: 29)) * 86_400 + 86_399
        #expect(month.index(of: feb29) == Int64(2024 * 12 + 1))
        #expect(month.start(of: 2024 * 12 + 2) == Double(CellValue.daysFromCivil(year: 2024, month: 3, day: 1)) * 86_400)
        let decade = BinScale(level: BinScale.firstYearLevel + 1, isTime: true)
        #expect(decade.index(of: Double(CellValue.daysFromCivil(year: 1969, month: 12, day: 31)) * 86_400) == 196)
        for day in stride(from: Int64(-800_000), through: 800_000, by: 997) {
            let (y, m, d) = BinScale.civil(fromDays: day)
            #expect(Int64(CellValue.daysFromCivil(year: Int(y), month: Int(m), day: Int(d))) == day)
        }
    }

    @Test("quantiles are exact within the budget and within the stated rank error past it")
    func quantiles() throws {
        var generator = SeededGenerator(seed: 9)
        let values = (0..<300_000).map { _ in Double(generator.next() % 1_000_000) / 7 }
        let sorted = values.sorted()
        var exact = QuantileSketch(budget: 1_000_000)
        var sketch = QuantileSketch(budget: 10_000), other = QuantileSketch(budget: 10_000)
        for (index, value) in values.enumerated() {
            exact.add(value)
            if index % 3 == 0 { other.add(value) } else { sketch.add(value) }
        }
        sketch.merge(other)
        #expect(exact.isExact && !sketch.isExact)
        let ps = [0.05, 0.25, 0.5, 0.75, 0.95]
        let exactAnswers = try #require(exact.quantiles(ps))
        for (p, answer) in zip(ps, exactAnswers) {
            let position = p * Double(sorted.count - 1)
            let below = Int(position)
            let expected = sorted[below] + (sorted[min(below + 1, sorted.count - 1)] - sorted[below]) * (position - Double(below))
            #expect(abs(answer - expected) <= 1e-9 * max(1, abs(expected)))
        }
        #expect(sketch.rankError > 0 && sketch.rankError <= 0.005)
        for (p, answer) in zip(ps, try #require(sketch.quantiles(ps))) {
            // Its rank among the values, against the rank asked for.
            let low = sorted.firstIndex { $0 >= answer } ?? sorted.count
            let high = sorted.lastIndex { $0 <= answer } ?? 0
            let target = p * Double(sorted.count - 1)
            let off = target < Double(low) ? Double(low) - target : (target > Double(high) ? target - Double(high) : 0)
            #expect(off <= sketch.rankError * Double(sorted.count), "p\(p): rank off by \(off)")
        }
    }

    @Test("the sketch's rank error stays within its bound whatever the order: ascending, descending, repeated, random",
          arguments: ["ascending", "descending", "repeated", "random"])
    func sketchOrders(order: String) throws {
        // Two million values: eight levels of compactors, far past any budget a test would.
        let n = 2_000_000
        var generator = SeededGenerator(seed: 12)
        let values: [Double] = switch order {
        case "ascending": (0..<n).map(Double.init)
        case "descending": (0..<n).reversed().map(Double.init)
        case "repeated": (0..<n).map { Double($0 % 1000) }
        default: (0..<n).map { _ in Double(generator.next() % 100_000_000) }
        }
        let sorted = values.sorted()
        var sketch = QuantileSketch(budget: 0)
        for value in values { sketch.add(value) }
        #expect(!sketch.isExact && sketch.rankError > 0 && sketch.rankError <= 0.005)
        let ps = [0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99]
        for (p, answer) in zip(ps, try #require(sketch.quantiles(ps))) {
            // The ranks the answer holds among the values, against the rank asked for.
            var low = 0, high = sorted.count
            while low < high { let middle = (low + high) / 2; if sorted[middle] < answer { low = middle + 1 } else { high = middle } }
            var last = low
            while last + 1 < sorted.count && sorted[last + 1] == answer { last += 1 }
            let target = p * Double(n - 1)
            let off = target < Double(low) ? Double(low) - target : (target > Double(last) ? target - Double(last) : 0)
            #expect(off <= sketch.rankError * Double(n), "\(order) p\(p): rank off by \(off) of \(n)")
            #expect(off <= 0.005 * Double(n))
        }
    }

    @Test("one value is the bin it starts in a round width, not one as narrow as the finest bins",
          arguments: [("5", false, "[5, 6)"), ("1500", false, "[1500, 1600)"), ("7.5", false, "[7.5, 7.6)"), ("0", false, "[0, 1)"),
                      ("-0.25", false, "[-0.25, -0.24)"), ("2024-03-01", true, "[2024-03-01, 2024-03-02)"),
                      ("2024-03-01T10:00", true, "[2024-03-01T10:00Z, 2024-03-01T11:00Z)")])
    func oneValue(cell: String, isTime: Bool, range: String) {
        var counts = HistogramCounts(isTime: isTime)
        for _ in 0..<10 { Array(cell.utf8).withUnsafeBytes { counts.add($0) } }
        let table = counts.table(bins: 20)
        #expect(table.rows.map(\.range) == [range])
        #expect(table.rows.first?.count == 10)
    }

    @Test("whole values get no bin narrower than their unit: integers bins of 1 or more, dates of a day or more",
          arguments: [(["1", "2", "3", "3", "5"], false, ["[1, 2)", "[2, 3)", "[3, 4)", "[4, 5)", "[5, 6)"], [1, 1, 2, 0, 1]),
                      (["1.0", "2.0", "3.0", "3.0", "5.0"], false, ["[1, 2)", "[2, 3)", "[3, 4)", "[4, 5)", "[5, 6)"], [1, 1, 2, 0, 1]),
                      (["1e0", "2", "300%", "3", "5"], false, ["[1, 2)", "[2, 3)", "[3, 4)", "[4, 5)", "[5, 6)"], [1, 1, 2, 0, 1]),
                      (["2024-01-01", "2024-01-02", "2024-01-03", "2024-01-03", "2024-01-05"], true,
                       ["[2024-01-01, 2024-01-02)", "[2024-01-02, 2024-01-03)", "[2024-01-03, 2024-01-04)",
                        "[2024-01-04, 2024-01-05)", "[2024-01-05, 2024-01-06)"], [1, 1, 2, 0, 1])])
    func wholeValuesWholeBins(cells: [String], isTime: Bool, ranges: [String], counts expected: [Int]) {
        var counts = HistogramCounts(isTime: isTime)
        for cell in cells { Array(cell.utf8).withUnsafeBytes { counts.add($0) } }
        for wanted in [20, 1000] {
            let table = counts.table(bins: wanted)
            #expect(table.rows.map(\.range) == ranges, "\(wanted) bins")
            #expect(table.rows.map(\.count) == expected)
        }
        // One value that is not whole and the bins may be as fine as it needs.
        Array((isTime ? "2024-01-01T12:00" : "1.5").utf8).withUnsafeBytes { counts.add($0) }
        #expect(counts.table(bins: 20).rows.count > 5)
    }

    /// A source that counts the bytes read from it.
    final class CountingSource: ByteSource {
        let bytes: [UInt8]
        let read = Atomic<Int>(0)
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
            let start = min(bytes.count, Int(offset)), count = min(buffer.count, bytes.count - start)
            bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[start..<(start + count)])) }
            read.add(count, ordering: .relaxed)
            return count
        }
    }

    @Test("a round over a file still loading reads its records, not the rest of the file after them")
    func roundStopsAtItsEnd() throws {
        // 10 MB of records, indexed (as if) to the second checkpoint only, all of it readable:
        // the round's last piece runs to the end of the file and is parsed.
        let text = "n,word\n" + (0..<1_000_000).map { "\($0),w\($0 % 7)" }.joined(separator: "\n") + "\n"
        let store = CellStore(bytes: Array(text.utf8), delimiter: UInt8(ascii: ","), checkpointSpacing: 64 << 10)
        let whole = try #require(store.recordReader())
        let source = CountingSource(Array(text.utf8))
        let reader = RecordReader(source: source, checkpoints: Array(whole.checkpoints.prefix(2)), dialect: whole.dialect,
                                  end: Int64(text.utf8.count), isFinal: false, wellQuotedRecords: whole.checkpoints[1].row,
                                  firstBlankRecord: .max)
        let input = ScanInput(reader: reader, progress: LoadProgress())
        let end = whole.checkpoints[1].row + 100
        var pass = Pass(input: input, columns: 0..<2, filter: RecordFilter(first: 1))
        pass.filter.end = end
        let make: @Sendable (Int) -> PictureSink = { _ in PictureSink(pictures: [ColumnPicture(), ColumnPicture()], first: 0) }
        let ran = pass.run(control: ScanControl(), make: make)
        let sinks = try #require(ran)
        #expect(sinks.map { $0.pictures[0].filled }.reduce(0, +) == end - 1)
        // What the records need, and a parser's chunk past them: not the 10 MB after.
        #expect(source.read.load(ordering: .relaxed) <= Int(whole.checkpoints[1].offset) + (2 << 20))
    }

    @Test("a picture's kind is the one nine in ten cells have; the rest are counted apart")
    func pictureKinds() {
        func picture(_ cells: [String]) -> ColumnPicture {
            var picture = ColumnPicture()
            for cell in cells { Array(cell.utf8).withUnsafeBytes { picture.add($0) } }
            return picture
        }
        let numbers = picture((1...95).map(String.init) + ["n/a", "x", "y", "z", "-"] + ["", ""])
        #expect(numbers.kind == .numbers && numbers.others == 5 && numbers.empty == 2)
        let dates = picture((1...28).map { "2024-01-\($0 < 10 ? "0" : "")\($0)" })
        #expect(dates.kind == .instants && dates.bins?.allWhole == true)
        let text = picture(["a", "b", "a", "1"])
        #expect(text.kind == .text && text.distinct.count == 3)
        #expect(picture(["5", "5", "5"]).isFlat && picture([]).isFlat && picture(["", ""]).kind == .empty)
        #expect(picture(["5", "5", "5"]).sparkline(width: 4, glyphs: .blocks) == ["▁", "▁", "▁", "▁"])
        #expect(numbers.sparkline(width: 5, glyphs: .ascii).allSatisfy { PictureGlyphs.ascii.levels.contains($0) })
    }

    @Test("values near the least doubles are binned as finely as others: tiny ones, and subnormal ones",
          arguments: [(["1e-308", "2.5e-308", "3e-308", "4.75e-308", "9e-308"], 40),
                      // Subnormal: the finest bins are 10^-320 (a double there has few digits).
                      (["1e-320", "2e-320", "3e-320", "9e-320"], 9)])
    func tinyValues(cells: [String], fewestBins: Int) {
        var counts = HistogramCounts(isTime: false)
        for cell in cells { Array(cell.utf8).withUnsafeBytes { counts.add($0) } }
        let table = counts.table(bins: 100)
        // As many bins as round widths allow between the least and the greatest, not the
        // handful of bins of 10^-308 a double's powers of ten stop at.
        #expect(table.rows.count >= fewestBins, "\(table.rows.map(\.range))")
        #expect(table.rows.count <= 100)
        let values = cells.compactMap { CellValue.number(ArraySlice($0.utf8))?.value }
        for row in table.rows {
            #expect(row.count == values.filter { $0 >= row.lowValue && $0 < row.highValue }.count, "\(row.range)")
        }
        #expect(table.rows.reduce(0) { $0 + $1.count } == cells.count)
        var picture = ColumnPicture()
        for cell in cells { Array(cell.utf8).withUnsafeBytes { picture.add($0) } }
        // The band draws the range across its cells, the last value in the last one.
        #expect(picture.bins?.groups(cells: 16).counts.count ?? 0 >= min(12, fewestBins))
    }

    @Test("a quantile between values of Double's two ends is between them: the median of -1e308 and 1e308 is 0, not inf")
    func quantilesAcrossTheRange() throws {
        var sketch = QuantileSketch(budget: 100)
        for value in [-1e308, 1e308] { sketch.add(value) }
        let values = try #require(sketch.quantiles(percents: [50, 25, 75, 5, 95]))
        #expect(values == [0, -5e307, 5e307, -1e308 * 0.95 + 1e308 * 0.05, -1e308 * 0.05 + 1e308 * 0.95], "\(values)")
        let median = try #require(sketch.quantiles([0.5]))
        #expect(median == [0])
        #expect(values.allSatisfy { $0.isFinite })
    }

    @Test("a text bar starts full and no two segments side by side share a shade, when values are too rare for a cell")
    func sharesInTurn() {
        // Seven values of a seventh each in three cells: the first ends before a cell's middle.
        let narrow = ColumnShape.shares(counts: Array(repeating: 10, count: 7), total: 70, distinct: 7, isEstimate: false)
        #expect(narrow.cells(width: 3, glyphs: .blocks) == ["█", "▓", "▒"])
        // Values 2 and 3 have no cell: 4 and 5 must not both be drawn in the shade of 1 and 2.
        let skipping = ColumnShape.shares(counts: [40, 20, 2, 2, 20, 16], total: 100, distinct: 6, isEstimate: false)
        let cells = skipping.cells(width: 10, glyphs: .blocks)
        #expect(cells.first == "█")
        #expect(cells == ["█", "█", "█", "▓", "▓", "▒", "▒", "█", " ", "6"], "\(cells)")
    }

    @Test("an ASCII picture is ASCII through: an estimated distinct count is marked ~, not ≈")
    func asciiEstimate() {
        let shares = ColumnShape.shares(counts: [50, 30], total: 100, distinct: 20_000, isEstimate: true)
        let ascii = shares.text(width: 16, glyphs: .ascii)
        #expect(ascii.utf8.allSatisfy { $0 < 0x80 } && ascii.hasSuffix(" ~20k"), "\(ascii)")
        #expect(shares.text(width: 16, glyphs: .blocks).hasSuffix(" ≈20k"))
    }

    @Test("whole values never straddle two cells: ratings 1 to 5 in five cells")
    func wholeGroups() {
        var bins = ValueBins(capacity: 2048)
        for (value, times) in [(1.0, 10), (2, 20), (3, 40), (4, 20), (5, 10)] {
            for _ in 0..<times { bins.add(value, isWhole: true) }
        }
        let (counts, _, _) = bins.groups(cells: 5)
        #expect(counts == [10, 20, 40, 20, 10])
        let picture = ColumnShape.histogram(counts).cells(width: 5, glyphs: .blocks)
        #expect(picture == ["▂", "▄", "█", "▄", "▂"])
    }

    @Test("the band's pass reads every record once and ends exact")
    func followsInput() throws {
        var text = "n,word\n"
        for index in 0..<20_000 { text += "\(index % 100),w\(index % 7)\n" }
        let store = CellStore(bytes: Array(text.utf8), delimiter: UInt8(ascii: ","), checkpointSpacing: 512)
        let scan = PictureScan(readers: store.recordReaders, headerRows: 1)
        scan.wait()
        let snapshot = try #require(scan.snapshot)
        #expect(snapshot.isComplete && snapshot.records == 20_000)
        let numbers = snapshot.pictures[0]
        #expect(numbers.kind == .numbers && numbers.bins?.total == 20_000)
        #expect(snapshot.pictures[1].kind == .text && snapshot.pictures[1].distinct.count == 7)
    }

    @Test("the summary's quantiles: exact within the budget, marked ≈ from the sketch past it; shape for every kind")
    func summaryQuantiles() throws {
        var generator = SeededGenerator(seed: 3)
        var values = Array(1...40_000)
        values.shuffle(using: &generator)
        // `mostly`: numbers but one cell in a hundred, a text column to the summary.
        let text = "n,word,mostly\n" + values.map { "\($0),w\($0 % 3),\($0 % 100 == 0 ? "n/a" : String($0))" }
            .joined(separator: "\n") + "\n"
        func summarised(_ budget: InsightBudget) throws -> [ColumnSummary] {
            let store = CellStore(bytes: Array(text.utf8), delimiter: UInt8(ascii: ","), checkpointSpacing: 4096)
            let scan = SummaryScan(input: try #require(ScanInput(store: store)), names: ["n", "word", "mostly"], headerRows: 1, budget: budget)
            scan.wait()
            guard case .finished(let rows) = scan.status else { throw CancellationError() }
            return rows
        }
        let exact = try summarised(.standard)
        #expect(exact[0].quantiles == [20_000.5, 10_000.75, 30_000.25, 2_000.95, 38_000.05])
        #expect(Array(exact[0].cells.suffix(5)) == ["20000.5", "10000.75", "30000.25", "2000.95", "38000.05"])
        #expect(exact[1].quantiles == nil && exact[1].cells.suffix(5).allSatisfy(\.isEmpty))
        let sketched = try summarised(InsightBudget(quantileBytes: 0))
        let median = try #require(sketched[0].quantiles?.first)
        #expect(sketched[0].quantilesAreEstimates && abs(median - 20_000) <= 0.005 * 40_000)
        #expect(sketched[0].cells.suffix(5).allSatisfy { $0.hasPrefix("≈") })
        // The shape: a flat histogram for numbers spread evenly, three equal shares for words.
        #expect(exact[0].cells(shape: .blocks).last?.hasPrefix(String(repeating: "█", count: 15)) == true)
        #expect(exact[1].cells(shape: .ascii).last == "#####====----- 3")
        #expect(exact[0].cells(shape: nil) == exact[0].cells)
        // Drawn as the band draws it: a histogram, though its kind is text and it has no quantiles.
        let mostly = try #require(exact[2].cells(shape: .blocks).last)
        #expect(exact[2].quantiles == nil && mostly.count == 16 && mostly.allSatisfy { "▇█".contains($0) }, "\(mostly)")
    }
}
