import Foundation
import Testing
import TestSupport
@testable import CellStore

@Suite("Compressed input", .timeLimit(.minutes(30)))
struct PackedInputTests {
    @Test("formats are known by their magic bytes, not their names")
    func magic() throws {
        let text = Packed.table(rows: 10)
        for compression in Compression.allCases {
            #expect(Compression.detect(try Packed.compress(text, compression)) == compression)
        }
        #expect(Compression.detect(text) == nil)
        #expect(Compression.detect([0x1F]) == nil)
        #expect(Compression.detect([]) == nil)
        #expect(Compression.detect(Array("BZh,x\n".utf8)) == nil)
        // bzip2's `BZh` and a digit can start a line of text: its block magic must follow.
        #expect(Compression.detect(Array("BZh9 ticker,price\nAAPL,1\n".utf8)) == nil)
        #expect(Compression.detect(try Packed.compress([], .bzip2)) == .bzip2)
        // A bzip2 file cut inside its magic is a cut bzip2 file, not text.
        let cut = Array(try Packed.compress(text, .bzip2).prefix(8))
        #expect(Compression.detect(cut) == nil, "more may come")
        #expect(Compression.detect(cut, isWhole: true) == .bzip2)
        let cutStore = try CellStore.open(InputSpec(path: try Packed.file(cut, name: "cut.bz2")))
        waitUntilComplete(cutStore)
        #expect(cutStore.progress.failure?.contains("ends early") == true)
        let text9 = Array("BZh9 ticker,price\nAAPL,1\n".utf8)
        let store = try CellStore.open(InputSpec(path: try Packed.file(text9, name: "tickers.csv")))
        waitUntilComplete(store)
        #expect(store.compressionName == nil && store.progress.failure == nil)
        #expect(allRows(of: store) == [["BZh9 ticker", "price"], ["AAPL", "1"]])
    }

    @Test("a compressed file changed on disk is noticed, as a plain one is", arguments: [Compression.gzip, .zstd])
    func changedOnDisk(compression: Compression) throws {
        let packed = try Packed.compress(Packed.table(rows: 500), compression)
        let path = try Packed.file(packed, name: "changing")
        let store = try CellStore.open(InputSpec(path: path))
        waitUntilComplete(store)
        #expect(!store.noticeChangeOnDisk())
        #expect(store.isInput(path))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(packed))
        try handle.close()
        #expect(store.noticeChangeOnDisk())
        #expect(store.progress.notice == "file changed on disk: R reloads")
    }

    @Test("the viewer's store shows exactly the uncompressed table", arguments: Compression.allCases)
    func storeMatches(compression: Compression) throws {
        let text = Packed.table(rows: 30_000)
        let path = try Packed.file(try Packed.compress(text, compression), name: "table")
        let store = try CellStore.open(InputSpec(path: path), checkpointSpacing: 4096)
        waitUntilComplete(store)
        #expect(store.compressionName == compression.name)
        #expect(store.progress.failure == nil)
        #expect(store.progress.fractionRead == 1)
        #expect(allRows(of: store) == (try parseAll(text)))
    }

    @Test("a gzip file to be read at random (a sorted output) is spooled, not read through access points")
    func gzipReadAtRandom() throws {
        let text = Packed.table(rows: 20_000, seed: 4)
        let path = try Packed.file(try Packed.compress(text, .gzip), name: "sorted.gz")
        let viewed = try CellStore.open(InputSpec(path: path))
        let sorted = try CellStore.open(InputSpec(path: path), readsAtRandom: true)
        waitUntilComplete(viewed)
        waitUntilComplete(sorted)
        #expect(viewed.packedIndexBytes != nil)
        #expect(sorted.packedIndexBytes == nil)
        #expect(sorted.compressionName == "gzip")
        #expect(allRows(of: sorted) == (try parseAll(text)))
    }

    @Test("many gzip members (pigz, bgzip) read as one file, in order and at random")
    func multiMember() throws {
        let text = Packed.table(rows: 20_000)
        let path = try Packed.file(try Packed.multiMemberGzip(text, memberSize: 50_000), name: "members.csv.gz")
        let store = try CellStore.open(InputSpec(path: path), checkpointSpacing: 4096, cacheCapacity: 2)
        waitUntilComplete(store)
        let expected = try parseAll(text)
        #expect(allRows(of: store) == expected)
        #expect((0..<store.rowCount).reversed().compactMap { store.row($0)?.strings } == expected.reversed())
    }

    @Test("output modes read the same bytes through the same opener", arguments: Compression.allCases)
    func streamMatches(compression: Compression) throws {
        let text = Packed.table(rows: 5_000)
        let path = try Packed.file(try Packed.compress(text, compression), name: "t.tsv.x")
        var rows: [[String]] = []
        let summary = try RecordStream.forEach(InputSpec(path: path, delimiter: nil)) { rows.append($0.strings); return true }
        #expect(summary.damage == nil)
        #expect(rows == (try parseAll(text)))
    }

    @Test("a truncated file shows every row before the cut and says where it breaks",
          arguments: Compression.allCases)
    func truncated(compression: Compression) throws {
        let text = Packed.table(rows: 40_000)
        let packed = try Packed.compress(text, compression)
        let path = try Packed.file(Array(packed[..<(packed.count * 2 / 3)]), name: "cut")
        let store = try CellStore.open(InputSpec(path: path))
        waitUntilComplete(store)
        let failure = try #require(store.progress.failure)
        #expect(failure.contains("ends early"))
        let expected = try parseAll(text)
        let rows = allRows(of: store)
        try #require(rows.count > 1000 && rows.count < expected.count)
        // Every row is the file's own: the record the cut splits is left out, not shown
        // as if whole.
        #expect(rows == Array(expected[..<rows.count]))
        // Also when the screen parsed that record while the input was arriving.
        let watched = try CellStore.open(InputSpec(path: path), checkpointSpacing: 4096)
        #expect(turn(pausing: {}, { _ = watched.row(max(0, watched.readRowCount - 1)) }, until: { watched.isComplete }))
        #expect(watched.rowCount == rows.count)
        #expect(watched.row(rows.count) == nil)

        var streamed = 0
        let summary = try RecordStream.forEach(InputSpec(path: path, delimiter: nil)) { _ in streamed += 1; return true }
        #expect(summary.damage?.contains("ends early") == true)
        #expect(streamed == rows.count)
    }

    @Test("damaged zstd keeps every block before the damage, says the same place from a file, a pipe and the viewer")
    func zstdDamage() throws {
        let text = Packed.table(rows: 20_000, seed: 17)
        var flipped = try Packed.compress(text, .zstd)
        flipped[flipped.count / 2] ^= 0x55
        var checksum = try Packed.compress(text, .zstd)
        checksum[checksum.count - 1] ^= 0x55
        let expected = try parseAll(text)
        for (packed, name) in [(flipped, "flip.zst"), (checksum, "check.zst")] {
            let path = try Packed.file(packed, name: name)
            // What zstd's own tool recovers, as whole records.
            let recovered = try Packed.shell("zstd -q -dc 2>/dev/null", input: packed)
            let whole = try parseAll(Array(recovered[..<((recovered.lastIndex(of: 0x0A) ?? -1) + 1)]))
            var streamed: [[String]] = []
            let summary = try RecordStream.forEach(InputSpec(path: path, delimiter: nil)) { streamed.append($0.strings); return true }
            let damage = try #require(summary.damage)
            #expect(streamed.count >= whole.count, "\(name): \(streamed.count) rows, zstd gives \(whole.count)")
            #expect(streamed == Array(expected[..<streamed.count]))
            let store = try CellStore.open(InputSpec(path: path))
            waitUntilComplete(store)
            #expect(allRows(of: store) == streamed)
            #expect(store.progress.failure == damage)
            if name == "check.zst" { #expect(streamed == expected, "only the checksum is wrong: every row is whole") }
        }
    }

    @Test("a wrong gzip checksum is reported after the data it covers")
    func badChecksum() throws {
        let text = Packed.table(rows: 2_000)
        var packed = try Packed.compress(text, .gzip)
        packed[packed.count - 8] ^= 0xFF
        let path = try Packed.file(packed, name: "crc.gz")
        var rows: [[String]] = []
        let summary = try RecordStream.forEach(InputSpec(path: path, delimiter: nil)) { rows.append($0.strings); return true }
        #expect(summary.damage?.contains("incorrect data check") == true)
        #expect(rows == (try parseAll(text)))
    }

    @Test("garbage is damage, never a crash or a hang", arguments: Compression.allCases)
    func garbage(compression: Compression) throws {
        var packed = try Packed.compress(Packed.table(rows: 3_000), compression)
        var generator = SeededGenerator(seed: 99)
        for index in stride(from: 40, to: packed.count, by: 97) { packed[index] = UInt8(truncatingIfNeeded: generator.next()) }
        let path = try Packed.file(packed, name: "garbage")
        let store = try CellStore.open(InputSpec(path: path))
        waitUntilComplete(store)
        #expect(store.isComplete)
        #expect(store.progress.failure != nil)
        _ = allRows(of: store)
    }

    @Test("a compressed file that expands past --spool-limit pauses exactly there, says so, and still stops at once",
          arguments: [Compression.zstd, .xz, .bzip2])
    func spoolLimit(compression: Compression) throws {
        // 8 MiB of `a,b` lines: a small file that would fill the spool on its own.
        let bomb = [UInt8](repeating: 0, count: 2 << 20).flatMap { _ in Array("a,b\n".utf8) }
        let path = try Packed.file(try Packed.compress(bomb, compression), name: "bomb")
        var store: CellStore? = try CellStore.open(InputSpec(path: path, spoolLimit: .bytes(1 << 20, label: "1M")))
        #expect(turn(until: { store?.progress.notice != nil }), "the spool pauses")
        let progress = try #require(store?.progress)
        #expect(progress.notice == "paused at 1 MiB: --spool-limit 1M")
        #expect(progress.bytesRead == 1 << 20)
        #expect(!progress.isComplete)
        #expect(store?.row(262_000)?.strings == ["a", "b"])
        // Dropping the store joins its unpacker, paused on the full spool: a thread that did
        // not stop would hang here, and the suite's time limit fails it.
        store = nil
    }

    @Test("a store dropped while decompressing stops and joins its thread", arguments: [Compression.gzip, .zstd])
    func stopsWithTheStore(compression: Compression) throws {
        let path = try Packed.file(try Packed.compress(Packed.table(rows: 200_000), compression), name: "drop")
        for _ in 0..<3 {
            var store: CellStore? = try CellStore.open(InputSpec(path: path))
            store?.prefetch(upTo: 10)
            #expect(turn(until: { store?.row(5) != nil }), "the unpacker is running")
            store = nil   // deinit cancels the unpacker and waits for it: a hang fails the suite
        }
    }

    @Test("a search's reader on another thread reads a compressed file's records through the store's source",
          arguments: [Compression.gzip, .xz])
    func recordReader(compression: Compression) throws {
        let text = Packed.table(rows: 20_000, seed: 9)
        let path = try Packed.file(try Packed.compress(text, compression), name: "search")
        let store = try CellStore.open(InputSpec(path: path), checkpointSpacing: 8192)
        waitUntilComplete(store)
        let reader = try #require(store.recordReader())
        let expected = try parseAll(text)
        var rows: [[String]] = []
        reader.forEachRecord(from: 12_345) { _, row in
            rows.append(row.strings)
            return true
        }
        #expect(rows == Array(expected[12_345...]))
    }
}
