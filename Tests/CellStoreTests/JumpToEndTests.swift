import Foundation
import Testing
@testable import CellStore

@Suite("Jumping to the end before the index is complete", .timeLimit(.minutes(30)))
struct JumpToEndTests {
    /// A file of about `size` bytes whose records hold quoted line breaks, so a window into
    /// its middle may well start inside quotes.
    func file(size: Int, seed: UInt64, longQuotes: Bool) throws -> (URL, [UInt8]) {
        var generator = SeededGenerator(seed: seed)
        var text = "id,note,n\n"
        var index = 0
        while text.utf8.count < size {
            index += 1
            let lines = longQuotes ? Int(generator.next() % 40) : Int(generator.next() % 3)
            let note = (0..<lines).map { "line \($0), with \"quotes\"" }.joined(separator: "\n")
            text += "\(index),\"\(note.replacingOccurrences(of: "\"", with: "\"\""))\",\(generator.next() % 1000)\n"
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tail-\(UUID()).csv")
        try Data(text.utf8).write(to: url)
        return (url, Array(text.utf8))
    }

    @Test("the last rows are exactly the file's last records, numbered by estimate, then exactly",
          arguments: [(false, UInt64(1)), (true, UInt64(2)), (true, UInt64(3)), (true, UInt64(4))])
    func lastRows(longQuotes: Bool, seed: UInt64) throws {
        let (url, bytes) = try file(size: 3 << 20, seed: seed, longQuotes: longQuotes)
        defer { try? FileManager.default.removeItem(at: url) }
        let expected = try parseAll(bytes)
        let store = try CellStore.open(InputSpec(path: url.path), startsLoader: false)
        #expect(store.jumpToEnd(rows: 100))
        #expect(store.isApproximate)
        let estimated = try #require(store.estimatedRows)
        #expect(estimated.count == 100)
        #expect(store.rowCount == estimated.upperBound)
        let shown = estimated.compactMap { store.row($0)?.strings }
        #expect(shown == Array(expected.suffix(100)))
        // Rows between the indexed part and the tail are not parsed for.
        #expect(store.row(estimated.lowerBound - 5000) == nil)
        // The estimate is close.
        let error = abs(estimated.lowerBound - (expected.count - 100))
        #expect(Double(error) < Double(expected.count) * 0.1)
        store.loader.run()
        #expect(!store.isApproximate)
        let shift = try #require(store.settleEstimate())
        #expect(estimated.lowerBound + shift == expected.count - 100)
        #expect(store.row(expected.count - 1)?.strings == expected.last)
    }

    @Test("nothing to gain: a complete input, a small file, or a stream")
    func declined() throws {
        let store = CellStore(bytes: Array("a\n1\n".utf8))
        #expect(!store.jumpToEnd(rows: 10))
        let (url, _) = try file(size: 10_000, seed: 9, longQuotes: false)
        defer { try? FileManager.default.removeItem(at: url) }
        let small = try CellStore.open(InputSpec(path: url.path), startsLoader: false)
        #expect(!small.jumpToEnd(rows: 10))
    }
}
