#if canImport(Glibc)
import Glibc
#endif
import CZip
import Foundation

/// Workbooks made in a test, written with libzip: the parts a workbook needs around one
/// sheet's XML (and shared strings when given).
enum MadeWorkbook {
    struct Failure: Error {}

    /// Writes a zip of `entries` (deflated) at `path`.
    static func zip(_ path: String, _ entries: [(name: String, bytes: [UInt8])]) throws {
        var code: Int32 = 0
        guard let archive = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &code) else { throw Failure() }
        for entry in entries {
            // libzip frees the copy once it has written it (freep 1).
            guard let copy = malloc(max(1, entry.bytes.count)) else { throw Failure() }
            entry.bytes.withUnsafeBytes { if let base = $0.baseAddress { memcpy(copy, base, $0.count) } }
            guard let source = zip_source_buffer(archive, copy, UInt64(entry.bytes.count), 1),
                  zip_file_add(archive, entry.name, source, zip_flags_t(ZIP_FL_ENC_UTF_8)) >= 0 else { throw Failure() }
        }
        guard zip_close(archive) == 0 else { throw Failure() }
    }

    static let workbook = """
        <?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" \
        xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>\
        <sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>
        """
    static let relations = """
        <?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">\
        <Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>\
        <Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>\
        </Relationships>
        """

    /// A workbook at `path` of one sheet `S` whose XML is `sheet` (rows given whole, in
    /// `<sheetData>`), with `strings` as its shared strings' XML when given.
    static func write(_ path: String, sheetData: [UInt8], strings: String? = nil, before: String = "") throws {
        let sheet = Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?><worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\">\(before)<sheetData>".utf8)
            + sheetData + Array("</sheetData></worksheet>".utf8)
        var entries: [(name: String, bytes: [UInt8])] = [("xl/workbook.xml", Array(workbook.utf8)),
                                                         ("xl/_rels/workbook.xml.rels", Array(relations.utf8)),
                                                         ("xl/worksheets/sheet1.xml", sheet)]
        if let strings { entries.append(("xl/sharedStrings.xml", Array(strings.utf8))) }
        try zip(path, entries)
    }

    /// `count` rows from row 1: a header (`n`, `text`), then the number and a text per row.
    static func rows(_ count: Int) -> [UInt8] {
        var xml: [UInt8] = Array("<row r=\"1\"><c r=\"A1\" t=\"inlineStr\"><is><t>n</t></is></c><c r=\"B1\" t=\"inlineStr\"><is><t>text</t></is></c></row>".utf8)
        xml.reserveCapacity(count * 60)
        for row in stride(from: 2, through: count, by: 1) {
            xml += Array("<row r=\"\(row)\"><c r=\"A\(row)\"><v>\(row)</v></c><c r=\"B\(row)\" t=\"inlineStr\"><is><t>r\(row)</t></is></c></row>".utf8)
        }
        return xml
    }
}
