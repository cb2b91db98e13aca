import Foundation
import Testing
@testable import CellStore

/// Excel's `sep=;` first line names the delimiter and is not a record.
@Suite("Excel's sep= line", .timeLimit(.minutes(30)))
struct SeparatorLineTests {
    @Test("sep=; sets the delimiter, and is neither a record nor part of the preamble")
    func setsTheDelimiter() {
        let store = CellStore(bytes: Array("sep=;\r\nNom;Ville\r\nJosé;Zürich, Schweiz\r\n".utf8), name: "export.csv",
                              preamble: .detect)
        #expect(store.dialect?.delimiter == UInt8(ascii: ";"))
        #expect(store.dialect?.hasSeparatorLine == true)
        #expect(store.preamble.isEmpty)
        #expect(allRows(of: store) == [["Nom", "Ville"], ["José", "Zürich, Schweiz"]])
        let tab = CellStore(bytes: Array("SEP=\t\nid\tname\n1\tx\n".utf8), name: "x.csv")
        #expect(tab.dialect?.delimiter == 0x09)
        #expect(allRows(of: tab) == [["id", "name"], ["1", "x"]])
    }

    @Test("a preamble may follow it; --delimiter wins over it; other first lines are records")
    func around() {
        let noted = CellStore(bytes: Array("sep=,\n# exported today\n\nid,name\n1,x\n".utf8), preamble: .detect)
        #expect(noted.preamble == ["# exported today", ""])
        #expect(allRows(of: noted) == [["id", "name"], ["1", "x"]])
        let forced = CellStore(bytes: Array("sep=;\na|b\n".utf8), delimiter: UInt8(ascii: "|"))
        #expect(allRows(of: forced) == [["a", "b"]])
        for text in ["sep=ab\n1,2\n", "sep;\n1,2\n", "separator=;\n1,2\n", "sep=\n1,2\n"] {
            let store = CellStore(bytes: Array(text.utf8))
            #expect(store.dialect?.hasSeparatorLine == false, "\(text)")
            #expect(allRows(of: store).count == 2, "\(text)")
        }
    }

    @Test("output modes leave it out (their delimiter is their own); quoting problems count it as a line")
    func outputAndLines() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sep-\(UUID().uuidString).csv")
        try Data("sep=;\n# note\nid;v\n1;\"x\"y\n".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        var start: RecordStream.Start?
        var rows: [[String]] = []
        try RecordStream.forEach(InputSpec(path: url.path, delimiter: nil, preamble: .detect), started: { start = $0 }) {
            rows.append($0.strings)
            return true
        }
        #expect(start.map { String(decoding: $0.preamble, as: UTF8.self) } == "# note\n")
        #expect(rows == [["id", "v"], ["1", "xy"]])
        let store = try CellStore.open(InputSpec(path: url.path, preamble: .detect))
        waitUntilComplete(store)
        #expect(store.progress.quotingProblem?.line == 4)
    }
}
