@testable import Insight
import Testing

/// The most common values a count past its budget proves without a second pass: never
/// other values or other counts than counting every value exactly gives.
@Suite("Common values proved by the count alone", .timeLimit(.minutes(30)))
struct ProvenCommonValuesTests {
    /// Values of a column: `frequent` values drawn often, the rest near-unique, in
    /// proportions and orders that vary with `seed` (frequent ones early, late, or both).
    static func column(seed: UInt64, length: Int) -> [String] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        func next() -> UInt64 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return state
        }
        let frequent = Int(next() % 6) + 1
        let share = Double(next() % 90 + 5) / 100
        let lateFrom = next() % 3 == 0 ? Int(next() % UInt64(length)) : 0
        return (0..<length).map { index in
            let draw = Double(next() % 10_000) / 10_000
            if index >= lateFrom && draw < share {
                // Skewed: value 0 most often, then 1…
                return next() % 4 == 0 ? "" : "common \(Int(next() % UInt64(frequent)) % (Int(next() % UInt64(frequent)) + 1))"
            }
            return next() % 5 == 0 ? "rare \(next() % 50)" : "unique \(index)"
        }
    }

    /// The `limit` most frequent values counting everything: count, then first seen.
    static func reference(_ values: [String], limit: Int) -> [(String, Int)] {
        var counts: [String: (count: Int, first: Int)] = [:]
        for (record, value) in values.enumerated() { counts[value, default: (0, record)].count += 1 }
        return counts.sorted { $0.value.count != $1.value.count ? $0.value.count > $1.value.count : $0.value.first < $1.value.first }
            .prefix(limit).map { ($0.key, $0.value.count) }
    }

    /// Counted in `parts` parts, merged: even ones, or (`firstPart`) a first part of that
    /// many values and the rest in one.
    static func counted(_ values: [String], parts: Int, firstPart: Int? = nil, bounds: Bool = false) -> (ValueCounter, empty: Int) {
        var counters: [ValueCounter] = []
        let size = (values.count + parts - 1) / parts
        let ranges = firstPart.map { [0..<$0, $0..<values.count] }
            ?? (0..<parts).map { ($0 * size)..<min(values.count, ($0 + 1) * size) }
        for range in ranges {
            var counter = ValueCounter(budget: 4096, kept: 16, precision: 12, bounds: bounds)
            for record in range {
                var text = values[record]
                _ = text.withUTF8 { counter.add(UnsafeRawBufferPointer($0), record: record) }
            }
            counters.append(counter)
        }
        var whole = counters[0]
        for other in counters.dropFirst() { whole.merge(other) }
        return (whole, values.filter(\.isEmpty).count)
    }

    @Test("proved values are the exact top values, with their exact counts, on one part or merged from several",
          arguments: [false, true])
    func provedAreExact(bounds: Bool) {
        var proved = 0, refused = 0
        for seed in 1...200 {
            let values = Self.column(seed: UInt64(seed), length: 3_000 + seed * 7)
            for parts in [1, 2, 3, 0, -1] {
                // 0: a first part too small to pass the budget, the rest past it; -1: the
                // other way round.
                let small = 20 + seed % 60
                let (counter, empty) = parts == 0 ? Self.counted(values, parts: 2, firstPart: small, bounds: bounds)
                    : parts < 0 ? Self.counted(values, parts: 2, firstPart: values.count - small, bounds: bounds)
                    : Self.counted(values, parts: parts, bounds: bounds)
                #expect(!counter.isExact, "seed \(seed): the budget was passed")
                guard let top = counter.provenTop(3, empty: empty) else {
                    refused += 1
                    continue
                }
                proved += 1
                let got = top.map { (String(decoding: $0.value, as: UTF8.self), $0.count) }
                let wanted = Self.reference(values, limit: 3).filter { $0.1 > counter.undercount }
                #expect(got.map(\.0) == wanted.map(\.0) && got.map(\.1) == wanted.map(\.1),
                        "seed \(seed), \(parts) parts: \(got) but \(wanted)")
            }
        }
        // Both ways are taken: a check that is never reached proves nothing.
        #expect(proved > 100 && refused > 20, "\(proved) proved, \(refused) refused")
    }

    @Test("a column of unique values: its buckets prove that none is listed, with no second pass")
    func uniqueValuesProvedByBuckets() {
        let values = (0..<20_000).map { "id \($0)" }
        let (plain, blank) = Self.counted(values, parts: 2)
        #expect(!plain.isExact && plain.provenTop(3, empty: blank) == nil, "without buckets, a second pass")
        for (parts, firstPart) in [(1, nil), (2, nil), (3, nil), (2, 50), (2, 19_950)] as [(Int, Int?)] {
            let (bounded, none) = Self.counted(values, parts: parts, firstPart: firstPart, bounds: true)
            #expect(bounded.undercount > 1)
            #expect(bounded.provenTop(3, empty: none)?.isEmpty == true, "\(parts) parts from \(firstPart ?? 0)")
        }
        // A value past the undercount among them is not proved away.
        var repeated = values
        for index in stride(from: 0, to: 20_000, by: 25) { repeated[index] = "again" }
        let (counter, empty) = Self.counted(repeated, parts: 2, bounds: true)
        #expect(counter.provenTop(3, empty: empty)?.isEmpty != true)
    }

    @Test("a value counted whole in a part that never cut, dropped in another that did, is not proved")
    func droppedInAnotherPart() {
        let first = Array(repeating: "x", count: 60) + (0..<10).map { "a\($0)" }
        let second = ["x", "x", "x"] + (0..<5_000).map { "unique \($0)" }
        let (counter, empty) = Self.counted(first + second, parts: 2, firstPart: first.count)
        #expect(counter.undercount > 0)
        let top = counter.provenTop(1, empty: empty)
        #expect(top == nil || top?.map(\.count) == [63], "\(top ?? [])")
    }

    @Test("a frequent value that first comes after a cut is not proved: its earlier rows may have been dropped")
    func lateValueNotProved() {
        var values = (0..<5_000).map { "unique \($0)" }
        values += Array(repeating: "late", count: 400)
        let (counter, empty) = Self.counted(values, parts: 1)
        #expect(counter.undercount > 0)
        #expect(counter.provenTop(1, empty: empty) == nil)
        // Seen from the start and often enough never to be dropped, it is proved with its whole count.
        let often = (0..<5_000).map { $0 % 4 == 0 ? "early" : "unique \($0)" }
        let (early, none) = Self.counted(often, parts: 1)
        #expect(early.undercount > 0)
        #expect(early.provenTop(1, empty: none)?.map(\.count) == [1_250])
    }
}
