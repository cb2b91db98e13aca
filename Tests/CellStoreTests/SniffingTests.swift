import Foundation
import Testing
@testable import CellStore

@Suite("Sniffing delimiters with quotes inside cells", .timeLimit(.minutes(30)))
struct SniffingQuotesTests {
    func sniffed(_ text: String) -> UInt8 {
        Dialect.detect(sample: ArraySlice(text.utf8), fileName: nil).delimiter
    }

    @Test("a quote that does not start a cell is data, and does not count against the delimiter", arguments: [
        ("id|payload|score\na|{\"x\": \"y\"}|0.5\nb|{\"x\": \"z\", \"n\": 2}|0.7\n", UInt8(ascii: "|")),
        ("1|k \"x\" \"y\"|2\n3|m \"p\"|4\n5|q|6\n", UInt8(ascii: "|")),
        ("id\tjson\n1\t{\"a\": 1, \"b\": 2}\n2\t{\"a\": 3, \"b\": 4}\n", UInt8(0x09)),
        ("size;label\n12\";screen 12\" wide\n15\";screen 15\" wide\n", UInt8(ascii: ";")),
    ])
    func quotesInsideCells(text: String, delimiter: UInt8) {
        #expect(sniffed(text) == delimiter)
    }

    @Test("between two delimiters that split equally well, the one whose quotes start cells wins", arguments: [
        ("x;\"a, b, c\";w\ny;\"d, e, f\";v\n", UInt8(ascii: ";")),
        ("\"id\",\"text\"\n\"1\",\"a; b \"\"x, y\"\" c\"\n\"2\",\"d; e \"\"z, w\"\" f\"\n", UInt8(ascii: ",")),
    ])
    func wellQuotedWins(text: String, delimiter: UInt8) {
        #expect(sniffed(text) == delimiter)
    }

    @Test("the store reads the JSON column as one cell")
    func storeReadsJSON() {
        let store = CellStore(bytes: Array("a|{\"x\": \"y\"}|0.5\nb|{\"x\": \"z\"}|0.7\n".utf8), name: "data.txt")
        #expect(store.dialect?.delimiter == UInt8(ascii: "|"))
        #expect(allRows(of: store) == [["a", "{\"x\": \"y\"}", "0.5"], ["b", "{\"x\": \"z\"}", "0.7"]])
    }
}

/// The public suites read with the command line's defaults: delimiter sniffed, a '#'
/// preamble looked for. None of their files has a preamble; each must read as without.
@Suite("Conformance with the command line's defaults", .timeLimit(.minutes(30)))
struct ConformanceDefaultsTests {
    static let files: [URL] = {
        let spectrum = Fixtures.conformance.appendingPathComponent("csv-spectrum/csvs")
        let csvw = Fixtures.conformance.appendingPathComponent("w3c-csvw")
        var files: [URL] = []
        for directory in [spectrum, csvw] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            files += names.filter { $0.hasSuffix(".csv") }.sorted().map { directory.appendingPathComponent($0) }
        }
        return files
    }()

    @Test("every case reads the same with preamble detection as with none, and as comma-separated")
    func sameAsPlain() throws {
        #expect(Self.files.count >= 20)
        for url in Self.files {
            let bytes = Array(try Data(contentsOf: url))
            let detected = CellStore(bytes: bytes, name: url.lastPathComponent, preamble: .detect)
            let plain = CellStore(bytes: bytes, name: url.lastPathComponent, delimiter: UInt8(ascii: ","), preamble: .none)
            #expect(detected.preamble.isEmpty, "\(url.lastPathComponent)")
            #expect(detected.dialect?.delimiter == UInt8(ascii: ","), "\(url.lastPathComponent)")
            #expect(allRows(of: detected) == allRows(of: plain), "\(url.lastPathComponent)")
        }
    }
}
