#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import CellStore
import FreezeLayout
import Query
import Table
import TestSupport
@testable import Viewer

/// Results a session kept, found damaged when read: never a wrong row, said, made again.
@Suite("Kept results found damaged: dropped, said, made again, the cursor kept", .timeLimit(.minutes(30)))
struct SessionDamageTests {
    /// `words` written to a file of their own, as a session keeps filtered rows: their
    /// section (a checksum a block) and their members counted per block.
    static func write(_ words: [UInt64]) throws -> (path: String, section: KeptSection, counts: [Int]) {
        let bytes = words.map(\.littleEndian).withUnsafeBytes { Array($0) }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("csvfreeze-bitmap-\(UUID())").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return (path, KeptSection(id: 1, covering: bytes), StoredBitmap.blockCounts(of: words))
    }

    @Test("A kept order found damaged on reopening: the cursor stays on the record it was left on, in the file's order meanwhile and in the order made again")
    func damagedOrderKeepsTheCursorsRecord() throws {
        let csv = SessionCodecTests.amounts(20_000)
        let size = Size(width: 60, height: 12)
        let first = SessionCodecTests.sortedByAmount(csv, size: size)
        for key in "900j" { first.handle(key: .character(key)) }
        let left = first.table.record(ofRow: first.cursorRow)
        #expect(first.cursorRow == 900 && left > 0)
        let order = try #require(first.query.sorted)
        let (read, path) = try SessionCodecTests.kept(first, order: order)
        defer { unlink(path) }
        // The middle block: the first one the search for the cursor's record reads.
        #expect(damageByte(of: path, at: 2 * KeptSection.blockSize + 4_321))
        let second = Viewer(store: CellStore(bytes: Array(csv.utf8)), options: .plain, screenSize: size)
        waitUntil("the index") { second.handle(.refresh); return second.table.file?.isComplete == true }
        let said = second.restore(session: read)
        #expect(said.hasPrefix("the saved sort order is damaged: sorting again; restored: sorted by amount"), "\(said)")
        #expect(second.query.sorted?.stored == nil, "the kept order was dropped")
        #expect(second.table.record(ofRow: second.cursorRow) == left, "on its record while the sort is made again")
        if second.query.sorted?.phase != .done {
            #expect(second.cursorRow == left - 1, "the file's order on screen meanwhile")
        }
        waitUntil("the sort made again", timeout: 60) {
            second.handle(.refresh)
            return !second.query.isRunning && !second.query.isPending && second.query.sorted?.phase == .done
        }
        #expect(second.table.record(ofRow: second.cursorRow) == left, "on its record in the order made again")
        #expect(second.cursorRow == 900)
    }

    @Test("Kept filtered rows come back with no pass and their exact count; a block of them found damaged after the first screen: dropped, said, filtered again, no wrong row meanwhile")
    func damagedRowsAfterTheFirstScreen() throws {
        // 700,000 records: their bitmap takes two blocks (524,288 positions each).
        var csv = "id,city\n"
        csv.reserveCapacity(10_000_000)
        for index in 1...700_000 { csv += "\(index)," + (index % 3 == 0 ? "Oslo\n" : "Bergen\n") }
        let bytes = Array(csv.utf8)
        let size = Size(width: 60, height: 12)
        let first = Viewer(store: CellStore(bytes: bytes), options: .plain, screenSize: size)
        waitUntil("the index", timeout: 120) { first.handle(.refresh); return first.table.file?.isComplete == true }
        for key in "&Oslo\n" { first.handle(key: key == "\n" ? .enter : .character(key)) }
        waitUntil("the filter", timeout: 120) {
            first.handle(.refresh)
            return !first.query.isRunning && !first.query.isPending && first.dataRowCount == 233_333
        }
        for key in "4j" { first.handle(key: .character(key)) }
        var content = SessionContent(view: first.savedView(), index: nil)
        let words = try #require(content.view.filtered?.bitmap)
        content.view.filtered = nil
        let (path, section, counts) = try Self.write(words.words)
        defer { unlink(path) }
        #expect(counts.count == 2)
        // The second block: rows from record 524,288 on, far below the first screen.
        #expect(damageByte(of: path, at: KeptSection.blockSize + 1_000))
        content.keptBitmap = KeptBitmap(length: words.length, section: section, blockCounts: counts,
                                        bitmap: StoredBitmap(descriptor: open(path, O_RDONLY), length: words.length,
                                                             section: section, blockCounts: counts))

        let second = Viewer(store: CellStore(bytes: bytes), options: .plain, screenSize: size)
        waitUntil("the index", timeout: 120) { second.handle(.refresh); return second.table.file?.isComplete == true }
        let said = second.restore(session: content)
        #expect(said == "restored: 1 filter; Esc-Esc or --fresh starts clean", "\(said)")
        #expect(!second.query.isRunning && second.query.filtered?.stored != nil, "the rows as kept, with no pass")
        #expect(second.dataRowCount == 233_333, "the exact count before the second block is read")
        #expect(second.table.record(ofRow: second.cursorRow) == 15, "the cursor on its record")
        #expect((0..<12).map { second.table.record(ofRow: $0) } == (0..<12).map { 3 * ($0 + 1) })
        #expect(second.query.filtered?.stored?.hasFailed == false, "only the first screen's block read")

        // To the end: the damaged block is read. Every row read from it is none, never another.
        second.handle(key: .character("G"))
        for row in stride(from: second.dataRowCount - 12, to: second.dataRowCount, by: 1) {
            let record = second.table.record(ofRow: row)
            #expect(record < 0 || record % 3 == 0, "row \(row): record \(record)")
        }
        second.handle(.refresh)
        #expect(second.message == "the saved filtered rows are damaged: filtering again", "\(second.message ?? "")")
        #expect(second.query.filtered?.stored == nil, "the kept rows were dropped")
        // Meanwhile: real rows only, and the status line claims no filter it does not show.
        if second.query.isPending {
            #expect(second.query.note(naming: { _ in "" }) == nil)
            #expect((0..<12).map { second.table.record(ofRow: second.window.offset.y + $0) }.allSatisfy { $0 > 0 })
        }
        waitUntil("the filter made again", timeout: 120) {
            second.handle(.refresh)
            return !second.query.isRunning && !second.query.isPending
        }
        #expect(second.dataRowCount == 233_333)
        let all = second.query.rows.map { $0.records(in: 0..<$0.count).map(\.record) } ?? []
        #expect(all == (1...233_333).map { 3 * $0 }, "the rows filtered again are the right ones")
    }
}
