import Foundation
import TestSupport
import Testing
@testable import CellStore

@Suite("Sparse store", .timeLimit(.minutes(30)))
struct CellStoreTests {
    @Test("rows read on demand equal a full parse, whatever the checkpoint spacing",
          arguments: [16, 100, 1000, 1 << 16])
    func matchesFullParse(spacing: Int) throws {
        for seed in 0..<5 {
            let bytes = hostileCSV(length: 20_000, seed: UInt64(seed * 31 + spacing))
            // Random bytes have no delimiter to sniff: the one the reference parse uses.
            let store = CellStore(bytes: bytes, delimiter: UInt8(ascii: ","), checkpointSpacing: Int64(spacing), cacheCapacity: 4)
            let expected = try parseAll(bytes)
            #expect(store.isComplete)
            #expect(store.rowCount == expected.count)
            #expect(allRows(of: store) == expected)
            // Backwards too, so blocks are parsed again after eviction.
            let backwards = (0..<store.rowCount).reversed().compactMap { store.row($0)?.strings }
            #expect(backwards == expected.reversed())
        }
    }

    @Test("a UTF-8 BOM is skipped; one later in the data is kept")
    func byteOrderMark() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("a,b\n\u{FEFF}c,d\n".utf8)
        let store = CellStore(bytes: bytes)
        #expect(allRows(of: store) == [["a", "b"], ["\u{FEFF}c", "d"]])
    }

    @Test("checkpoints fall only on record starts, about every spacing bytes")
    func checkpoints() throws {
        var text = "id,text\n"
        for index in 0..<2000 { text += "\(index),\"line one\nline two, \"\"quoted\"\"\"\r\n" }
        let store = CellStore(bytes: Array(text.utf8), checkpointSpacing: 1024)
        let state = store.loader.shared.withLock { $0 }
        #expect(state.checkpoints.count > text.utf8.count / 1024 - 10)
        #expect(state.checkpoints.count < text.utf8.count / 1024 + 10)
        let expected = try parseAll(text)
        for checkpoint in state.checkpoints {
            // Parsing from a checkpoint yields exactly the records from its row on.
            let tail = Array(text.utf8)[Int(checkpoint.offset)...]
            let rows = try RecordParser.records(in: Array(tail), dialect: Dialect()).map(\.strings)
            #expect(rows == Array(expected[checkpoint.row...]))
        }
    }

    @Test("memory is bounded: the cache never holds more blocks than its capacity")
    func boundedCache() {
        var text = ""
        for index in 0..<20_000 { text += "\(index),some text,\(index * 7)\n" }
        let store = CellStore(bytes: Array(text.utf8), checkpointSpacing: 4096, cacheCapacity: 8)
        for index in stride(from: 0, to: store.rowCount, by: 37) { _ = store.row(index) }
        #expect(store.statistics.cachedBlocks <= 8)
        #expect(store.statistics.checkpoints > 100)
        #expect(store.row(19_999)?.strings == ["19999", "some text", "139993"])
    }

    @Test("reading one row parses one block, not the file")
    func oneBlockPerRead() {
        var text = ""
        for index in 0..<50_000 { text += "\(index),value\n" }
        let store = CellStore(bytes: Array(text.utf8), checkpointSpacing: 8192)
        _ = store.row(40_000)
        #expect(store.statistics.blocksParsed == 1)
        #expect(store.statistics.bytesParsed <= 8192 + 64)
        _ = store.row(40_001)
        #expect(store.statistics.blocksParsed == 1)
    }

    @Test("columns count the widest record")
    func widestRecord() {
        let store = CellStore(bytes: Array("a\nb,c,d\ne,f\n".utf8))
        #expect(store.columnCount == 3)
    }

    @Test("a file opens, is indexed in the background, and reads like memory")
    func fileInput() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cellstore-\(UUID()).csv")
        let bytes = hostileCSV(length: 300_000, seed: 99)
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let store = try CellStore.open(InputSpec(path: url.path, delimiter: UInt8(ascii: ",")), checkpointSpacing: 4096)
        // The first rows are readable at once, before the loader is done.
        let expected = try parseAll(bytes)
        #expect(store.row(0)?.strings == expected[0])
        #expect(turn(until: { store.isComplete }))
        #expect(store.rowCount == expected.count)
        #expect(allRows(of: store) == expected)
    }

    @Test("a missing file, a directory and an unreadable file are clear errors")
    func openErrors() throws {
        #expect(throws: CellStoreError.notFound("/nonexistent/x.csv")) {
            try CellStore.open(InputSpec(path: "/nonexistent/x.csv"))
        }
        #expect(throws: CellStoreError.isDirectory("/tmp")) { try CellStore.open(InputSpec(path: "/tmp")) }
        #expect(CellStoreError.notFound("a.csv").description == "a.csv: no such file")
        if getuid() != 0 {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("locked-\(UUID()).csv")
            try Data("a\n".utf8).write(to: url)
            chmod(url.path, 0)
            defer { try? FileManager.default.removeItem(at: url) }
            #expect(throws: CellStoreError.permissionDenied(url.path)) { try CellStore.open(InputSpec(path: url.path)) }
        }
    }
}

@Suite("Dialect", .timeLimit(.minutes(30)))
struct DialectTests {
    @Test("the delimiter is sniffed by consistent field counts", arguments: [
        ("a,b,c\n1,2,3\n4,5,6\n", UInt8(ascii: ",")),
        ("a\tb\tc\n1\t2\t3\n", UInt8(0x09)),
        ("a;b;c\n1,5;2;3\n4;5,5;6\n", UInt8(ascii: ";")),
        ("a|b\n1|2\n", UInt8(ascii: "|")),
        ("name,note\n\"x; y; z\",1\n\"p; q\",2\n", UInt8(ascii: ",")),
        // Every field quoted, with the other delimiter and doubled quotes inside.
        ("\"id\",\"text\"\n\"1\",\"a; b \"\"x, y\"\" c\"\n\"2\",\"d; e \"\"z, w\"\" f\"\n", UInt8(ascii: ",")),
        ("\"id\";\"text\"\n\"1\";\"a, b \"\"x; y\"\" c\"\n\"2\";\"d, e \"\"z; w\"\" f\"\n", UInt8(ascii: ";")),
        ("\"a\"\t\"b|c\"\r\n\"1\"\t\"\"\"2|3\"\"\"\r\n", UInt8(0x09)),
        ("one line,no end", UInt8(ascii: ",")),
    ])
    func sniff(text: String, delimiter: UInt8) {
        #expect(Dialect.detect(sample: ArraySlice(text.utf8), fileName: nil).delimiter == delimiter)
    }

    @Test("a .tsv or .tab name means tab")
    func byName() {
        #expect(Dialect.detect(sample: ArraySlice("a,b\n".utf8), fileName: "x.TSV").delimiter == 0x09)
        #expect(Dialect.detect(sample: ArraySlice("a,b\n".utf8), fileName: "x.tab").delimiter == 0x09)
    }

    @Test("the line ending is the first one outside quotes")
    func lineEnding() {
        #expect(Dialect.detectLineEnding(ArraySlice("\"a\nb\",c\r\n".utf8)) == [0x0D, 0x0A])
        #expect(Dialect.detectLineEnding(ArraySlice("a\rb".utf8)) == [0x0D])
        #expect(Dialect.detectLineEnding(ArraySlice("a,b".utf8)) == [0x0A])
    }
}
