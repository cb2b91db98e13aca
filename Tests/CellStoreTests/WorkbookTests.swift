#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TestSupport
@testable import CellStore

/// Excel workbooks read as tables: each sheet's cells against what openpyxl reads from the
/// same file (`scripts/make-xlsx-fixtures.py` made both), through the viewer's store and
/// through the output modes' stream.
@Suite("Workbooks", .timeLimit(.minutes(30)))
struct WorkbookTests {
    static let directory = Fixtures.root.appendingPathComponent("xlsx")

    /// Each workbook and sheet with an expected CSV beside it.
    static let sheets: [(book: String, sheet: String)] = [
        ("values", "Values"), ("values", "Second sheet"), ("values", "Header only"),
        ("shared", "Values"), ("shared", "Second sheet"), ("shared", "Header only"),
        ("dates1904", "Mac"), ("raw", "Raw"),
    ]

    static func path(_ book: String) -> String { directory.appendingPathComponent(book + ".xlsx").path }

    static func expected(_ book: String, _ sheet: String) throws -> [[String]] {
        try parseAll(Array(Data(contentsOf: directory.appendingPathComponent("\(book).\(sheet).csv"))))
    }

    @Test("every sheet reads as openpyxl reads it, in the viewer's store and in the output stream",
          arguments: WorkbookTests.sheets.indices)
    func sheetMatchesOpenpyxl(_ index: Int) throws {
        let (book, sheet) = WorkbookTests.sheets[index]
        let expected = try WorkbookTests.expected(book, sheet)
        // The first sheet also without naming it.
        let names: [String?] = sheet == "Values" || sheet == "Mac" || sheet == "Raw" ? [sheet, nil] : [sheet]
        for name in names {
            let spec = InputSpec(.file(WorkbookTests.path(book)), table: name)
            let store = try CellStore.open(spec)
            waitUntilComplete(store)
            #expect(store.progress.failure == nil)
            #expect(allRows(of: store) == expected, "\(book) \(name ?? "first sheet")")
            var streamed: [[String]] = []
            let summary = try RecordStream.forEach(spec) { row in
                streamed.append(row.strings)
                return true
            }
            #expect(summary.damage == nil)
            #expect(streamed == expected, "\(book) \(name ?? "first sheet") streamed")
        }
    }

    @Test("a workbook's sheets are listed by name, in order; a name not there says which are")
    func sheetNames() throws {
        #expect(try Workbook.sheetNames(path: WorkbookTests.path("values")) == ["Values", "Second sheet", "Header only"])
        #expect(try Workbook.sheetNames(path: WorkbookTests.path("raw")) == ["Raw"])
        let path = WorkbookTests.path("values")
        #expect(throws: CellStoreError.unsupported(path, "no sheet named 'Nope' (the sheets: 'Values', 'Second sheet', 'Header only')")) {
            try CellStore.open(InputSpec(.file(path), table: "Nope"))
        }
        // A name differing only in case is the sheet, as in Excel.
        let store = try CellStore.open(InputSpec(.file(path), table: "second SHEET"))
        waitUntilComplete(store)
        #expect(allRows(of: store) == (try WorkbookTests.expected("values", "Second sheet")))
    }

    @Test("a workbook is known by its zip and its name, or by the workbook inside; text never changes format")
    func detection() throws {
        // The bytes alone: FormatDetectionTests. Here the files, and what opens them.
        let directory = try Packed.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A workbook under another name is still one; a CSV named .xls stays a CSV.
        let renamed = directory.appendingPathComponent("book.bin")
        try FileManager.default.copyItem(atPath: WorkbookTests.path("values"), toPath: renamed.path)
        #expect(try InputSpec(.file(renamed.path)).resolvingFormat().format == .xlsx)
        let store = try CellStore.open(InputSpec(.file(renamed.path)))
        waitUntilComplete(store)
        #expect(allRows(of: store) == (try WorkbookTests.expected("values", "Values")))
        let text = directory.appendingPathComponent("export.xls")
        try Data("id\tname\n1\tAda\n".utf8).write(to: text)
        #expect(try InputSpec(.file(text.path)).resolvingFormat().format == .csv)
        let textStore = try CellStore.open(InputSpec(.file(text.path)))
        waitUntilComplete(textStore)
        #expect(allRows(of: textStore) == [["id", "name"], ["1", "Ada"]])
    }

    @Test("serial dates in both systems, the 1900 leap-year bug, times to the millisecond, durations")
    func serialDates() {
        func date(_ serial: Double, _ kind: DateKind = .date, mac: Bool = false) -> String? {
            ExcelDate.text(serial: serial, kind: kind, uses1904: mac)
        }
        #expect(date(1) == "1900-01-01")
        #expect(date(59) == "1900-02-28")
        #expect(date(60) == "1900-02-29")
        #expect(date(61) == "1900-03-01")
        #expect(date(45_351) == "2024-02-29")
        #expect(date(2_958_465) == "9999-12-31")
        #expect(date(2_958_466) == nil)
        #expect(date(-1) == nil)
        #expect(date(0) == nil)
        #expect(date(.nan) == nil)
        #expect(date(0, mac: true) == "1904-01-01")
        #expect(date(43_830, mac: true) == "2024-01-01")
        #expect(date(0.5208333333333334, .time) == "12:30:00")
        #expect(date(0.999999999, .time) == "1900-01-01T00:00:00")
        #expect(date(45_351.25, .dateTime) == "2024-02-29T06:00:00")
        #expect(date(45_351.25) == "2024-02-29T06:00:00")
        #expect(date(45_351, .dateTime) == "2024-02-29T00:00:00")
        #expect(date(1.5 / 86_400, .time) == "00:00:01.500")
        #expect(date(1.5, .duration) == "36:00:00")
        #expect(date(0.25, .time, mac: true) == "06:00:00")
    }

    @Test("number formats: y, m, d, h and s outside quotes and brackets make a date or time")
    func formatCodes() {
        #expect(DateKind.of(formatCode: "yyyy-mm-dd") == .date)
        #expect(DateKind.of(formatCode: "mmm") == .date)
        #expect(DateKind.of(formatCode: "[$-409]mmmm d, yyyy;@") == .date)
        #expect(DateKind.of(formatCode: "h:mm AM/PM") == .time)
        #expect(DateKind.of(formatCode: "mm:ss") == .time)
        #expect(DateKind.of(formatCode: "[h]:mm:ss") == .duration)
        #expect(DateKind.of(formatCode: "d/m/yyyy h:mm") == .dateTime)
        #expect(DateKind.of(formatCode: "General") == nil)
        #expect(DateKind.of(formatCode: "0.00E+00") == nil)
        #expect(DateKind.of(formatCode: "\"days\" 0.0") == nil)
        #expect(DateKind.of(formatCode: "[Red]0;[Blue]-0") == nil)
        #expect(DateKind.of(formatCode: "0\\h") == nil)
        #expect(DateKind.of(formatCode: "#,##0.00_);[Red](#,##0.00)") == nil)
        #expect(DateKind.builtIn(14) == .date)
        #expect(DateKind.builtIn(22) == .dateTime)
        #expect(DateKind.builtIn(46) == .duration)
        #expect(DateKind.builtIn(2) == nil)
    }

    @Test("shared strings past the memory cap go to a temporary file and read back the same")
    func spilledStrings() throws {
        let path = WorkbookTests.path("shared")
        let workbook = try Workbook(path: path)
        let reader = try SheetReader(workbook: workbook, sheet: try workbook.sheet(named: nil), stringsMemoryLimit: 64,
                                     stringsLimit: 1 << 30)
        #expect(reader.stringsAreSpilled)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 100)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
            if count == 0 { break }
            bytes += buffer[..<count]
        }
        #expect(try parseAll(bytes) == (try WorkbookTests.expected("values", "Values")))
    }

    @Test("Excel's escapes of control characters become the characters; other underscores stay")
    func escapes() {
        func unescaped(_ text: String) -> String { String(decoding: XMLText.unescaped(Array(text.utf8)), as: UTF8.self) }
        #expect(unescaped("a_x000D_b") == "a\rb")
        #expect(unescaped("_x005F_x000D_") == "_x000D_")
        #expect(unescaped("snake_case_x") == "snake_case_x")
        #expect(unescaped("_xD83D__xDE00_") == "😀")
        #expect(unescaped("_xZZZZ_") == "_xZZZZ_")
    }
}
