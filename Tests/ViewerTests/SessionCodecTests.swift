#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import CellStore
import FreezeLayout
import Query
import Scan
import Table
import TestSupport
@testable import Viewer

@Suite("Session files: written, read back, refused when wrong", .timeLimit(.minutes(30)))
struct SessionCodecTests {
    private static let key = SessionKey(device: 7, inode: 4242, size: 1000, modifiedSeconds: 1_700_000_000,
                                        modifiedNanoseconds: 5, headHash: 0xABCD, tailHash: 0x1234)

    private static func content() -> SessionContent {
        var view = SavedView()
        view.record = 17
        view.cursorColumn = 2
        view.frozenRows = 0..<1
        view.frozenColumns = 1
        view.widths = [0: 12, 2: 40]
        view.fullWidth = [1]
        view.columns = [2, 0, 1]
        view.sortKeys = [SortKey(column: 2, descending: true)]
        view.filters = [RecordFilter(pattern: "Oslo", column: 1, inverted: true, columns: nil)]
        view.search = SearchPattern(text: "ber", column: nil)
        view.marks = MarkSet([3, 9, 200])
        view.marksOnly = true
        let index = IndexSnapshot(checkpoints: [Checkpoint(offset: 15, row: 0), Checkpoint(offset: 500, row: 30)],
                                  available: 1000, rowCount: 61, widestRow: 3, tooWideRecord: nil, endsWithTerminator: true,
                                  wellQuotedRecords: 61, firstBlankRecord: 61,
                                  quotingProblem: QuotingProblem(kind: .unclosedQuote, record: 60, line: 61),
                                  quotingProblemCount: 1, delimiter: 0x2C, quote: 0x22)
        var content = SessionContent(view: view, index: index)
        content.keptBitmap = KeptBitmap(length: 128, section: KeptSection(id: 0xB17, length: 16, checksums: [0x5EED]), blockCounts: [5])
        content.keptSort = KeptSort(kinds: [.number], count: 5_000,
                                    section: KeptSection(id: 0x50A7, length: 80_000, checksums: [1, 2]))
        return content
    }

    @Test("What is written reads back the same")
    func roundTrip() throws {
        let bytes = SessionCodec.encode(Self.content(), key: Self.key)
        let read = try SessionCodec.decode(bytes, key: Self.key).get()
        let view = read.view
        #expect(view.record == 17 && view.cursorColumn == 2 && view.frozenRows == 0..<1 && view.frozenColumns == 1)
        #expect(view.widths == [0: 12, 2: 40] && view.fullWidth == [1] && view.columns == [2, 0, 1])
        #expect(view.sortKeys == [SortKey(column: 2, descending: true)])
        #expect(view.filters == [RecordFilter(pattern: "Oslo", column: 1, inverted: true, columns: nil)])
        #expect(view.search == SearchPattern(text: "ber", column: nil))
        #expect(view.marks.records == [3, 9, 200] && view.marksOnly)
        #expect(read.index == Self.content().index)
        #expect(read.keptBitmap?.length == 128 && read.keptBitmap?.section == KeptSection(id: 0xB17, length: 16, checksums: [0x5EED]))
        #expect(read.keptBitmap?.blockCounts == [5])
        #expect(read.keptSort?.count == 5_000 && read.keptSort?.kinds == [.number])
        #expect(read.keptSort?.section == KeptSection(id: 0x50A7, length: 80_000, checksums: [1, 2]))
        #expect(read.filterBitmap == nil && read.keptSort?.pairs == nil, "the results themselves are in their data files")
        // Small: the session read whole at opening holds no result, only where they lie.
        #expect(bytes.count < 1_000, "\(bytes.count)")
    }

    @Test("An index of many checkpoints reads back exactly, and a byte changed among them is refused")
    func manyCheckpoints() throws {
        var content = Self.content()
        let checkpoints = (0..<100_000).map { Checkpoint(offset: Int64($0) * 977 + 15, row: $0 * 31) }
        content.index?.checkpoints = checkpoints
        let bytes = SessionCodec.encode(content, key: Self.key)
        let read = try SessionCodec.decode(bytes, key: Self.key).get()
        #expect(read.index?.checkpoints == checkpoints)
        var damaged = bytes
        damaged[bytes.count / 2] ^= 0x40
        #expect(SessionCodec.decode(damaged, key: Self.key).refusal == .corrupt)
        #expect(SessionCodec.decode(Array(bytes.dropLast(16)), key: Self.key).refusal == .truncated)
    }

    @Test("A data file's place with too few or too many block checksums is refused as corrupt")
    func sectionChecked() {
        for sums in [[UInt64](), [1, 2, 3]] {
            var content = Self.content()
            content.keptSort?.section.checksums = sums
            #expect(SessionCodec.decode(SessionCodec.encode(content, key: Self.key), key: Self.key).refusal == .corrupt)
        }
    }

    @Test("Every truncation of a session file is refused, never read")
    func truncated() {
        let bytes = SessionCodec.encode(Self.content(), key: Self.key)
        for length in 0..<bytes.count {
            let result = SessionCodec.decode(Array(bytes[0..<length]), key: Self.key)
            guard case .failure(let refusal) = result else {
                Issue.record("a session cut to \(length) of \(bytes.count) bytes was read")
                continue
            }
            #expect([.truncated, .notASession].contains(refusal), "\(length): \(refusal)")
        }
    }

    @Test("Every byte changed, and bytes added, make the file refused")
    func corrupted() {
        let bytes = SessionCodec.encode(Self.content(), key: Self.key)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices {
            var damaged = bytes
            damaged[index] ^= UInt8.random(in: 1...255, using: &generator)
            if case .success = SessionCodec.decode(damaged, key: Self.key) {
                Issue.record("a session with byte \(index) changed was read")
            }
        }
        if case .success = SessionCodec.decode(bytes + [0], key: Self.key) { Issue.record("a byte added was read") }
        // Random bytes, with and without the magic in front: refused, and no crash.
        for length in [0, 1, 8, 20, 100, 1000] {
            for _ in 0..<50 {
                let noise = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                if case .success = SessionCodec.decode(noise, key: Self.key) { Issue.record("noise was read") }
                if case .success = SessionCodec.decode(SessionCodec.magic + noise, key: Self.key) { Issue.record("noise was read") }
            }
        }
    }

    @Test("A session of another version, for another file, or for the file before it changed is refused with its reason")
    func foreign() {
        var bytes = SessionCodec.encode(Self.content(), key: Self.key)
        bytes[8] = 1
        #expect(SessionCodec.decode(bytes, key: Self.key).refusal == .otherVersion)
        bytes = SessionCodec.encode(Self.content(), key: Self.key)
        var other = Self.key
        other.inode += 1
        #expect(SessionCodec.decode(bytes, key: other).refusal == .otherFile)
        for change in 0..<4 {
            var changed = Self.key
            switch change {
            case 0: changed.size += 1
            case 1: changed.modifiedNanoseconds += 1
            case 2: changed.headHash ^= 1
            default: changed.tailHash ^= 1
            }
            #expect(SessionCodec.decode(bytes, key: changed).refusal == .fileChanged, "change \(change)")
        }
        // A version-3 file (checksummed a byte at a time, FNV-1a), whole and sound in its day.
        bytes = SessionCodec.encode(Self.content(), key: Self.key)
        bytes[8] = 3
        let body = bytes.count - 8
        let old = SessionCodec.fnv(bytes[..<body])
        for index in 0..<8 { bytes[body + index] = UInt8(truncatingIfNeeded: old >> UInt64(8 * index)) }
        #expect(SessionCodec.decode(bytes, key: Self.key).refusal == .otherVersion)
        #expect(SessionCodec.Refusal.fileChanged.description == "file changed since last time: view not restored")
        #expect(SessionCodec.decode(Array("id,name\n1,a\n".utf8), key: Self.key).refusal == .notASession)
    }

    @Test("A view kept and taken back: the cursor's record, sort, filter rows kept as a result, marks, columns, freeze")
    func viewRestored() throws {
        var csv = "id,city,amount\n"
        for index in 1...50 { csv += "\(index),\(index % 5 == 0 ? "Oslo" : "Bergen"),\(1000 - index * 7)\n" }
        let size = Size(width: 60, height: 12)
        let first = Viewer(store: CellStore(bytes: Array(csv.utf8)), options: .plain, screenSize: size)
        for key in "&Oslo\n" { first.handle(key: key == "\n" ? .enter : .character(key)) }
        // Made, not only asked for: before its pass starts the filter is pending, not running.
        waitUntil("the filter", timeout: 60) {
            first.handle(.refresh)
            return !first.query.isRunning && !first.query.isPending && first.dataRowCount == 10
        }
        for key in "jjmjm" { first.handle(key: .character(key)) }
        // The amount column hidden (the filter looks at the city, which stays shown).
        for key in "ll-" { first.handle(key: .character(key)) }
        waitUntil("the filter again", timeout: 60) {
            first.handle(.refresh)
            return !first.query.isRunning && !first.query.isPending
        }
        let saved = first.savedView()
        let bitmap = try #require(saved.filtered?.bitmap)
        var kept = SessionContent(view: saved, index: nil)
        kept.view.filtered = nil
        let bytes = SessionCodec.encode(kept, key: Self.key)
        var read = try SessionCodec.decode(bytes, key: Self.key).get()
        // As the store gives it, read back from its data file.
        read.filterBitmap = bitmap

        let second = Viewer(store: CellStore(bytes: Array(csv.utf8)), options: .plain, screenSize: size)
        let said = second.restore(session: read)
        #expect(said == "restored: 1 filter, 2 marks, columns chosen; Esc-Esc or --fresh starts clean", "\(said)")
        #expect(!second.query.isRunning, "the filter's rows came back as kept, with no pass")
        #expect(second.dataRowCount == 10)
        #expect(second.table.marks.records == [15, 20])
        #expect(second.table.record(ofRow: second.cursorRow) == 20)
        #expect(second.table.columns.shown == [0, 1])
    }
}

extension SessionCodecTests {
    static func amounts(_ rows: Int) -> String {
        var csv = "id,city,amount\n"
        for index in 1...rows { csv += "\(index),\(index % 5 == 0 ? "Oslo" : "Bergen"),\((index * 7919) % 100_003)\n" }
        return csv
    }

    /// A viewer of `csv` whose index is complete and whose third column is sorted, whole.
    static func sortedByAmount(_ csv: String, size: Size) -> Viewer {
        let viewer = Viewer(store: CellStore(bytes: Array(csv.utf8)), options: .plain, screenSize: size)
        waitUntil("the index") { viewer.handle(.refresh); return viewer.table.file?.isComplete == true }
        for key in "ll]" { viewer.handle(key: .character(key)) }
        waitUntil("the sort", timeout: 60) {
            viewer.handle(.refresh)
            return !viewer.query.isRunning && !viewer.query.isPending && viewer.query.sorted?.phase == .done
        }
        return viewer
    }

    @Test("A complete sort is kept as its order and comes back complete, with no pass, the cursor on its record")
    func sortKeptAsItsOrder() throws {
        let csv = Self.amounts(3_000)
        let size = Size(width: 60, height: 12)
        let first = SessionCodecTests.sortedByAmount(csv, size: size)
        for key in "5j" { first.handle(key: .character(key)) }
        let order = try #require(first.query.sorted)
        let wanted = (0..<order.count).map { order.records(in: $0..<($0 + 1))[0].record }
        let (read, path) = try Self.kept(first, order: order)
        defer { unlink(path) }
        let sort = try #require(read.keptSort)
        #expect(sort.count == 3_000 && sort.kinds == order.kinds)

        let second = Viewer(store: CellStore(bytes: Array(csv.utf8)), options: .plain, screenSize: size)
        waitUntil("the index") { second.handle(.refresh); return second.table.file?.isComplete == true }
        let said = second.restore(session: read)
        #expect(said.hasPrefix("restored: sorted by amount"), "\(said)")
        #expect(!second.query.isRunning && second.query.sorted?.phase == .done, "the order came back as kept, with no pass")
        #expect(second.dataRowCount == 3_000)
        #expect((0..<3_000).map { second.table.record(ofRow: $0) } == wanted)
        #expect(second.cursorRow == 5 && second.table.record(ofRow: 5) == wanted[5])
        #expect(second.window.offset.y == 0, "the top of the sorted rows on screen, as they were")
    }

    /// `viewer`'s view kept with its sort `order` as a session would keep it: the order in a
    /// data file of its own (at the path returned), a checksum a block, read back.
    static func kept(_ viewer: Viewer, order: SortedRecords) throws -> (SessionContent, String) {
        var kept = SessionContent(view: viewer.savedView(), index: nil)
        kept.view.sorted = nil
        let pairs = order.pairs(in: 0..<order.count).map(\.littleEndian)
        let bytes = pairs.withUnsafeBytes { Array($0) }
        let sums = stride(from: 0, to: bytes.count, by: KeptSection.blockSize).map { start in
            bytes[start..<min(bytes.count, start + KeptSection.blockSize)].withUnsafeBytes { KeptSection.checksum($0) }
        }
        let section = KeptSection(id: 1, length: Int64(bytes.count), checksums: sums)
        kept.keptSort = KeptSort(kinds: order.kinds, count: order.count, section: section)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("csvfreeze-session-\(UUID())").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        var read = try SessionCodec.decode(SessionCodec.encode(kept, key: key), key: key).get()
        read.keptSort?.pairs = StoredPairs(descriptor: open(path, O_RDONLY), offset: 0, count: order.count,
                                           records: 0..<(order.count + 1), inputBytes: 1 << 40, section: section)
        return (read, path)
    }

    @Test("A byte changed in any block of a kept order: never a wrong row; the order is dropped, said in one line, sorted again")
    func damagedOrder() throws {
        let csv = Self.amounts(20_000)
        let size = Size(width: 60, height: 12)
        let first = SessionCodecTests.sortedByAmount(csv, size: size)
        let order = try #require(first.query.sorted)
        let wanted = (0..<order.count).map { order.records(in: $0..<($0 + 1))[0].record }
        // 20,000 pairs of 16 bytes: 5 blocks. A byte flipped in the first (what the first
        // screen reads), in a middle one (what the cursor's search or a scroll reads), in the
        // last, shorter one.
        for damaged in [100, 2 * KeptSection.blockSize + 4_321, 20_000 * 16 - 3] {
            let (read, path) = try Self.kept(first, order: order)
            defer { unlink(path) }
            #expect(damageByte(of: path, at: damaged))
            let second = Viewer(store: CellStore(bytes: Array(csv.utf8)), options: .plain, screenSize: size)
            waitUntil("the index") { second.handle(.refresh); return second.table.file?.isComplete == true }
            var said = second.restore(session: read)
            // Every row read is the right one or none (a row not there): never another.
            for row in stride(from: 0, to: 20_000, by: 97) + [19_999] {
                let record = second.table.record(ofRow: row)
                if second.query.sorted?.stored == nil { break }
                #expect(record == wanted[row] || record < 0, "row \(row): record \(record), not \(wanted[row])")
            }
            second.handle(.refresh)
            if !said.contains("damaged") { said = second.message ?? said }
            #expect(said.contains("the saved sort order is damaged: sorting again"), "byte \(damaged): \(said)")
            #expect(second.query.sorted?.stored == nil, "byte \(damaged): the kept order was dropped")
            waitUntil("the sort made again", timeout: 60) {
                second.handle(.refresh)
                return !second.query.isRunning && !second.query.isPending && second.query.sorted?.phase == .done
            }
            #expect((0..<20_000).map { second.table.record(ofRow: $0) } == wanted, "byte \(damaged)")
        }
    }

    @Test("A sort run again on restoring keeps the file's rows on screen until its first rows come: never 'no rows'")
    func noEmptyFlash() throws {
        let csv = Self.amounts(200_000)
        var view = SavedView()
        view.sortKeys = [SortKey(column: 2, descending: false)]
        view.record = 10
        let viewer = Viewer(store: CellStore(bytes: Array(csv.utf8)), options: .plain, screenSize: Size(width: 60, height: 12))
        waitUntil("the index", timeout: 60) { viewer.handle(.refresh); return viewer.table.file?.isComplete == true }
        _ = viewer.restore(session: SessionContent(view: view, index: nil))
        #expect(viewer.dataRowCount > 0, "rows on screen at once")
        waitUntil("the sort", timeout: 120) {
            viewer.handle(.refresh)
            #expect(viewer.dataRowCount > 0)
            return viewer.query.sorted?.phase == .done && !viewer.query.isRunning
        }
        #expect(viewer.table.record(ofRow: viewer.cursorRow) == 10, "the cursor on its record in the sorted rows")
    }
}

extension Result where Failure == SessionCodec.Refusal {
    var refusal: SessionCodec.Refusal? {
        if case .failure(let refusal) = self { return refusal }
        return nil
    }
}
