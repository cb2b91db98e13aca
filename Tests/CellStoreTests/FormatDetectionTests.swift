import Foundation
import Testing
import TestSupport
@testable import CellStore

/// The one detection of every format (`InputSpec.Format.detect`): what the first bytes
/// say wins over the name, the name is a hint, and text that opened as CSV still does.
@Suite("Format detection", .timeLimit(.minutes(30)))
struct FormatDetectionTests {
    /// The outcome expected of one case: a format, or a `.json` of another shape.
    enum Outcome: Equatable {
        case format(InputSpec.Format)
        case refused
    }

    static let sqlite = InputSpec.Format.sqliteHeader + [0x10, 0x00, 0x01, 0x01]
    static let zip: [UInt8] = [0x50, 0x4B, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00]
    static let compound = Workbook.compoundFileMagic

    /// A zip's first local file header naming `name` (as a stream's first bytes show it).
    static func zipEntry(_ name: String) -> [UInt8] {
        let length = UInt16(name.utf8.count)
        return [0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 0, count: 22) + [UInt8(length & 0xFF), UInt8(length >> 8), 0, 0]
            + Array(name.utf8) + [0x01, 0x02, 0x03]
    }

    /// (name, first bytes, whole, expected): every format, names that lie, no name.
    static let cases: [(String?, [UInt8], Bool, Outcome)] = [
        // SQLite: by its header alone, whatever the name says.
        ("shop.db", sqlite, false, .format(.sqlite)),
        ("shop.csv", sqlite, false, .format(.sqlite)),
        ("shop.json", sqlite, false, .format(.sqlite)),
        ("shop.jsonl", sqlite, false, .format(.sqlite)),
        (nil, sqlite, false, .format(.sqlite)),
        ("x.db", Array("SQLite format 3".utf8), true, .format(.csv)),
        ("x.db", Array("SQLite format 3 is a header,b\n1,2\n".utf8), true, .format(.csv)),
        ("x.db", Array("a,b\n1,2\n".utf8), true, .format(.csv)),
        // Workbooks: a zip named so, or whose first entries are under xl/, or an OLE file
        // named as a workbook.
        ("a.xlsx", zip, false, .format(.xlsx)),
        ("A.XLSM", zip, false, .format(.xlsx)),
        ("a.zip", zip, false, .format(.csv)),
        ("a.zip", zipEntry("xl/workbook.xml"), false, .format(.xlsx)),
        (nil, zipEntry("[Content_Types].xml") + zipEntry("xl/theme/theme1.xml"), false, .format(.xlsx)),
        ("book.csv", zipEntry("xl/workbook.xml"), false, .format(.xlsx)),
        (nil, zipEntry("word/document.xml"), false, .format(.csv)),
        ("a.xls", compound, false, .format(.xlsx)),
        ("a.doc", compound, false, .format(.csv)),
        ("a.xlsx", Array("id,name\n".utf8), true, .format(.csv)),
        ("a.xls", Array("id\tname\n".utf8), true, .format(.csv)),
        ("a.csv", Array("PK,zip\n".utf8), true, .format(.csv)),
        // JSON lines: by the name, or by a first line that is one object.
        ("a.jsonl", Array("anything".utf8), true, .format(.jsonLines)),
        ("a.NDJSON.gz", [], true, .format(.jsonLines)),
        ("a.json", Array("{\"a\":1}\n{\"a\":2}\n".utf8), true, .format(.jsonLines)),
        ("a.json", [], true, .format(.jsonLines)),
        (nil, Array("{\"a\":1}\n{\"a\"".utf8), false, .format(.jsonLines)),
        ("data", Array("{\"a\":1}\n".utf8), true, .format(.jsonLines)),
        ("x.csv", Array("\u{FEFF}  {\"a\":1}\n".utf8), true, .format(.jsonLines)),
        // JSON arrays: `.json` starting `[`; no name or another name starting `[{`.
        ("a.json", Array(" \n[{\"a\":1}]".utf8), true, .format(.jsonArray)),
        (nil, Array(" \n[ {\"a\":1}".utf8), false, .format(.jsonArray)),
        ("export", Array("[{\"a\":1}]".utf8), true, .format(.jsonArray)),
        (nil, Array("[]\n".utf8), true, .format(.jsonArray)),
        (nil, Array("[]".utf8), false, .format(.csv)),
        // CSV as before: `{` or `[` that is not JSON of records, and a name saying text.
        ("x.csv", Array("[{\"a\":1}]".utf8), true, .format(.csv)),
        ("x.csv", Array("{id},name\n1,2\n".utf8), true, .format(.csv)),
        (nil, Array("{\"a\":1} x\n".utf8), true, .format(.csv)),
        (nil, Array("{\"a\":1".utf8), false, .format(.csv)),
        (nil, Array("[1,2]\n".utf8), true, .format(.csv)),
        (nil, Array("[2024-01-01] started\n".utf8), true, .format(.csv)),
        ("data.txt", Array("a,b\n1,2\n".utf8), true, .format(.csv)),
        (nil, [], true, .format(.csv)),
        // A `.json` of another shape is refused.
        ("x.json", Array("{\n \"a\": 1\n}\n".utf8), true, .refused),
        ("x.json", Array("\"text\"".utf8), true, .refused),
        ("x.json", Array("a,b\n1,2\n".utf8), true, .refused),
    ]

    @Test("one table: every format, names that lie, no name")
    func table() {
        for (name, bytes, isWhole, expected) in Self.cases {
            let outcome: Outcome
            do {
                outcome = .format(try InputSpec.Format.detect(name: name, firstBytes: bytes, isWhole: isWhole))
            } catch {
                outcome = .refused
            }
            #expect(outcome == expected, "\(name ?? "(no name)"): \(String(decoding: bytes.prefix(40), as: UTF8.self))")
        }
    }

    @Test("a zip not named as a workbook is looked into; a workbook's real first 4 KiB tell it")
    func zipLookedInto() throws {
        #expect(try InputSpec.Format.detect(name: "a.zip", firstBytes: Self.zip, isWhole: false, holdsWorkbook: { true }) == .xlsx)
        for book in ["values", "raw", "shared"] {
            let bytes = try Array(Data(contentsOf: WorkbookTests.directory.appendingPathComponent(book + ".xlsx")).prefix(4096))
            #expect(try InputSpec.Format.detect(name: nil, firstBytes: bytes, isWhole: false) == .xlsx, "\(book)")
        }
    }

    @Test("a stream is read on until its first bytes tell a database, a workbook or a JSON array")
    func needsMoreBytes() {
        #expect(InputSpec.Format.needsMoreBytes([]))
        #expect(InputSpec.Format.needsMoreBytes(Array("SQLite fo".utf8)))
        #expect(!InputSpec.Format.needsMoreBytes(Array("SQLite format 3".utf8) + [0]))
        #expect(!InputSpec.Format.needsMoreBytes(Array("SQL,x\n".utf8)))
        #expect(InputSpec.Format.needsMoreBytes(Self.zip))
        #expect(InputSpec.Format.needsMoreBytes(Array(" [ \n".utf8)))
        #expect(!InputSpec.Format.needsMoreBytes(Array(" [{".utf8)))
        #expect(!InputSpec.Format.needsMoreBytes(Array("id,name\n".utf8)))
        #expect(InputSpec.Format.needsMoreBytes([0xEF, 0xBB]))
    }
}
