import Testing
import CellStore
@testable import Insight
import Scan

@Suite("Stopping a count", .timeLimit(.minutes(30)))
struct CancellationTests {
    @Test("a record of many megabytes is parsed a chunk at a time, and a stop is heard between chunks")
    func hugeRecordStopsBetweenChunks() throws {
        // One record of 8 MiB: longer than a piece, so it is parsed rather than read raw.
        let store = CellStore(bytes: [UInt8](repeating: UInt8(ascii: "x"), count: 8 << 20))
        let input = try #require(ScanInput(store: store))
        let pass = Pass(input: input, columns: 0..<1, filter: RecordFilter(first: 0))
        let piece = try #require(pass.pieces.first)
        let reader = FieldReader(input: input, columns: 0..<1, filter: RecordFilter(first: 0), bufferSize: 1 << 21)
        var asked = 0
        reader.isCancelled = {
            asked += 1
            return asked > 1
        }
        var sink = FrequencySink(column: 0, counter: ValueCounter(budget: 1 << 20, kept: 64))
        reader.read(piece, into: &sink)
        #expect(asked == 2, "stopped after the first chunk, not at the end of the record")
        #expect(sink.counter.total == 0)
    }
}
