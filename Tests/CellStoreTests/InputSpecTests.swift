#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import CellStore

/// One description of an input: where it is, and every way of reading it, reaches the store.
@Suite("Input specs", .timeLimit(.minutes(30)))
struct InputSpecTests {
    @Test("nil and '-' are standard input, named stdin; a path is a file, named as given")
    func locations() {
        #expect(InputSpec(path: nil).location == .standardInput)
        #expect(InputSpec(path: "-").location == .standardInput)
        #expect(InputSpec(path: "-").name == "stdin")
        #expect(InputSpec(path: "-").path == nil)
        #expect(InputSpec(path: "data/a.csv").location == .file("data/a.csv"))
        #expect(InputSpec(path: "data/a.csv").name == "data/a.csv")
        #expect(InputSpec(.url("https://example.com/a.csv")).path == nil)
    }

    @Test("another input read the same way keeps every option and changes only where it is")
    func readingAnother() {
        let spec = InputSpec(path: "a.csv", delimiter: 0x3B, quote: 0x27, encoding: try? TextEncoding(named: "latin1"),
                             preamble: .lines(2), spoolLimit: .bytes(100, label: "100"), follows: true)
        let other = spec.reading("-")
        #expect(other.location == .standardInput)
        var expected = spec
        expected.location = .standardInput
        #expect(other == expected)
        #expect(spec.reading("b.csv").path == "b.csv")
    }

    @Test("a URL is described but not read yet: opening one says so, and reads nothing else")
    func urlNotRead() {
        let spec = InputSpec(.url("https://example.com/a.csv"))
        #expect(throws: CellStoreError.unreadable("https://example.com/a.csv", "reading a URL is not supported yet")) {
            try CellStore.open(spec, startsLoader: false)
        }
        #expect(throws: CellStoreError.unreadable("https://example.com/a.csv", "reading a URL is not supported yet")) {
            try RecordStream.forEach(spec) { _ in true }
        }
    }

    @Test("the store reads as the spec says: delimiter, quote, preamble and encoding")
    func storeReadsAsSaid() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("spec-\(getpid()).txt")
        defer { try? FileManager.default.removeItem(at: url) }
        // Latin-1 bytes, two preamble lines, ';' between fields and a quote of its own.
        try Data([0x6E, 0x6F, 0x74, 0x65, 0x0A, 0x6D, 0x6F, 0x72, 0x65, 0x0A]
                 + Array("a;b\n'x;y';Z".utf8) + [0xFC] + [0x0A]).write(to: url)
        let spec = InputSpec(path: url.path, delimiter: 0x3B, quote: 0x27, encoding: try TextEncoding(named: "latin1"),
                             preamble: .lines(2))
        let store = try CellStore.open(spec, startsLoader: false)
        store.indexNow()
        #expect(store.preamble == ["note", "more"])
        #expect(store.row(0)?.strings == ["a", "b"])
        #expect(store.row(1)?.strings == ["x;y", "Zü"])
        var streamed: [[String]] = []
        try RecordStream.forEach(spec) { row in
            streamed.append(row.strings)
            return true
        }
        #expect(streamed == [["a", "b"], ["x;y", "Zü"]])
    }
}
