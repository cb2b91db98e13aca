#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TestSupport
@testable import CellStore

/// Workbooks that cannot be read, or not all of them: one sentence, after whatever rows
/// came before the damage, never a crash, a hang or a changed value.
@Suite("Damaged workbooks", .timeLimit(.minutes(30)))
struct WorkbookDamageTests {
    /// The store's rows and failure once it has read all it can, and the output stream's.
    static func read(_ path: String, spoolLimit: SpoolLimit = .keepFree) throws
        -> (rows: [[String]], failure: String?, streamed: [[String]], damage: String?) {
        let spec = InputSpec(.file(path), spoolLimit: spoolLimit)
        let store = try CellStore.open(spec)
        waitUntilComplete(store)
        var streamed: [[String]] = []
        let summary = try RecordStream.forEach(spec) { row in
            streamed.append(row.strings)
            return true
        }
        return (allRows(of: store), store.progress.failure, streamed, summary.damage)
    }

    @Test("an encrypted workbook or an old .xls (an OLE compound file) is refused in one sentence")
    func compoundFiles() throws {
        let directory = try Packed.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in ["secret.xlsx", "old.xls"] {
            let path = directory.appendingPathComponent(name).path
            try Data(Workbook.compoundFileMagic + [UInt8](repeating: 0, count: 504)).write(to: URL(fileURLWithPath: path))
            let error = CellStoreError.unsupported(path, "encrypted or an old .xls workbook: not read (Excel saves it as an .xlsx without a password)")
            #expect(throws: error) { try CellStore.open(InputSpec(.file(path))) }
            #expect(throws: error) { try RecordStream.forEach(InputSpec(.file(path))) { _ in true } }
            #expect(throws: error) { try Workbook.sheetNames(path: path) }
        }
    }

    @Test("a cut-off or damaged zip says so: nothing is made up")
    func damagedZip() throws {
        let directory = try Packed.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let whole = try Data(contentsOf: URL(fileURLWithPath: WorkbookTests.path("values")))
        // Cut in half: the zip's directory, at its end, is gone.
        let cut = directory.appendingPathComponent("cut.xlsx").path
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: cut))
        #expect(throws: CellStoreError.unsupported(cut, "not a zip archive, so not an .xlsx workbook (damaged or cut short?)")) {
            try CellStore.open(InputSpec(.file(cut)))
        }
        // Not a zip at all, yet named .xlsx.
        let text = directory.appendingPathComponent("text.xlsx").path
        try Data("PK\u{3}\u{4} but nothing after".utf8).write(to: URL(fileURLWithPath: text))
        #expect(throws: CellStoreError.self) { try CellStore.open(InputSpec(.file(text))) }
        // A zip without a workbook in it, named .xlsx.
        let empty = directory.appendingPathComponent("empty.xlsx").path
        try MadeWorkbook.zip(empty, [("readme.txt", Array("hello".utf8))])
        #expect(throws: CellStoreError.unsupported(empty, "a zip archive without xl/workbook.xml: not an Excel workbook")) {
            try CellStore.open(InputSpec(.file(empty)))
        }
        // The sheet's compressed bytes damaged in the middle: the rows before, then one sentence.
        let damaged = directory.appendingPathComponent("damaged.xlsx").path
        try MadeWorkbook.write(damaged, sheetData: MadeWorkbook.rows(20_000))
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: damaged)))
        let sheetStart = try #require(bytes.indices.first { bytes[$0...].starts(with: Array("xl/worksheets/sheet1.xml".utf8)) })
        for index in stride(from: sheetStart + 5_000, to: sheetStart + 5_400, by: 1) { bytes[index] ^= 0x5A }
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        let read = try WorkbookDamageTests.read(damaged)
        let failure = try #require(read.failure)
        #expect(failure.contains("xl/worksheets/sheet1.xml"))
        #expect(read.damage != nil)
        // What was read is what the sheet holds, row by row (none changed, none made up).
        #expect(read.rows.count < 20_000)
        for (index, row) in read.rows.enumerated().dropFirst() {
            #expect(row == ["\(index + 1)", "r\(index + 1)"])
        }
        #expect(read.streamed.count <= read.rows.count + 1)
    }

    @Test("malformed XML: the rows before it, then where and why, in one sentence")
    func malformedXML() throws {
        let directory = try Packed.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("bad.xlsx").path
        try MadeWorkbook.write(path, sheetData: MadeWorkbook.rows(3) + Array("<row r=\"4\"><c r=\"A4\"><v>4</c></row>".utf8))
        let read = try WorkbookDamageTests.read(path)
        #expect(read.rows == [["n", "text"], ["2", "r2"], ["3", "r3"]])
        #expect(read.streamed == read.rows)
        let failure = try #require(read.failure)
        #expect(failure.contains("xl/worksheets/sheet1.xml is not well-formed XML at line 1 (mismatched tag)"))
        #expect(read.damage == failure)
    }

    @Test("what no workbook holds is refused: a DTD (entity bombs), rows out of order or past Excel's last, a missing string")
    func impossibleSheets() throws {
        let directory = try Packed.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("odd.xlsx").path
        let cases: [(data: String, strings: String?, before: String, says: String)] = [
            ("<row r=\"3\"><c r=\"A3\"><v>1</v></c></row><row r=\"2\"><c r=\"A2\"><v>2</v></c></row>", nil, "",
             "has row 2 after row 3: rows out of order"),
            ("<row r=\"1048577\"><c r=\"A1048577\"><v>1</v></c></row>", nil, "", "past Excel's last (1,048,576)"),
            ("<row r=\"1\"><c r=\"XFE1\"><v>1</v></c></row>", nil, "", "past Excel's last column"),
            ("<row r=\"1\"><c r=\"B1\"><v>1</v></c><c r=\"A1\"><v>2</v></c></row>", nil, "", "cells out of order in row 1"),
            ("<row r=\"1\"><c r=\"A1\" t=\"s\"><v>5</v></c></row>", "<sst><si><t>only</t></si></sst>", "",
             "naming shared string '5', which the workbook does not have"),
        ]
        for item in cases {
            try MadeWorkbook.write(path, sheetData: Array(item.data.utf8), strings: item.strings, before: item.before)
            let read = try WorkbookDamageTests.read(path)
            #expect(read.failure?.contains(item.says) == true, "\(item.data): \(read.failure ?? "no failure")")
            #expect(read.damage?.contains(item.says) == true)
        }
        // Billion laughs: a DTD declaring entities is refused before any is expanded.
        let laughs = "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">]>"
            + "<worksheet><sheetData><row r=\"1\"><c r=\"A1\" t=\"inlineStr\"><is><t>&lol2;</t></is></c></row></sheetData></worksheet>"
        try MadeWorkbook.zip(path, [("xl/workbook.xml", Array(MadeWorkbook.workbook.utf8)),
                                    ("xl/_rels/workbook.xml.rels", Array(MadeWorkbook.relations.utf8)),
                                    ("xl/worksheets/sheet1.xml", Array(laughs.utf8))])
        let read = try WorkbookDamageTests.read(path)
        #expect(read.rows.isEmpty)
        #expect(read.failure == "xl/worksheets/sheet1.xml declares a DTD, which no workbook part has")
    }

    @Test("a sheet of Excel's most rows (1,048,576) is read whole, the last row where it belongs")
    func millionRows() throws {
        let directory = try Packed.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("tall.xlsx").path
        try MadeWorkbook.write(path, sheetData: MadeWorkbook.rows(SheetReader.maxRows))
        let store = try CellStore.open(InputSpec(.file(path)))
        waitUntilComplete(store, seconds: 600)
        #expect(store.progress.failure == nil)
        #expect(store.rowCount == SheetReader.maxRows)
        #expect(store.row(SheetReader.maxRows - 1)?.strings == ["1048576", "r1048576"])
        #expect(store.row(1)?.strings == ["2", "r2"])
    }

    @Test("a zip bomb (a sheet far larger than its zip) fills no more than the spool limit, and says so")
    func zipBomb() throws {
        let directory = try Packed.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("bomb.xlsx").path
        // 200,000 rows of a long cell: about 40 MB of CSV from well under 1 MB of zip.
        let long = String(repeating: "x", count: 200)
        var xml: [UInt8] = []
        xml.reserveCapacity(200_000 * 260)
        for row in 1...200_000 {
            xml += Array("<row r=\"\(row)\"><c r=\"A\(row)\" t=\"inlineStr\"><is><t>\(long)</t></is></c></row>".utf8)
        }
        try MadeWorkbook.write(path, sheetData: xml)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(size * 20 < xml.count)
        let store = try CellStore.open(InputSpec(.file(path), spoolLimit: .bytes(1 << 20, label: "1M")))
        // The spool fills to its limit and reading pauses, saying why.
        #expect(turn(within: 120, until: { store.progress.notice?.contains("--spool-limit 1M") == true }))
        #expect(!store.isComplete)
        #expect(store.rowCount > 0)
        #expect(store.row(1)?.strings == [long])
        store.stopLoading()
    }
}
