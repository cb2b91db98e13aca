/// An Excel workbook (`.xlsx`): a zip archive of XML parts. What is read at once is its
/// table of contents: the sheets' names and parts, in order (`xl/workbook.xml` and its
/// relations), the date system, and where the shared strings and styles are. A sheet's
/// cells are read later, streamed (`SheetReader`).
package final class Workbook {
    /// A worksheet: its name as the workbook's tabs show it, and the part holding its cells.
    package struct Sheet: Sendable, Equatable {
        package var name: String
        package var part: String
    }

    /// The path as given, for messages.
    package let name: String
    /// The worksheets, in the workbook's order (chart sheets, which hold no cells, are left out).
    package private(set) var sheets: [Sheet] = []
    /// True when serial dates count from 1904-01-01 (old Mac workbooks), not 1900.
    package private(set) var uses1904: Bool = false
    /// The parts of the shared strings and of the styles, when the workbook has them.
    package private(set) var sharedStringsPart: String?
    package private(set) var stylesPart: String?
    let archive: ZipArchive

    /// The largest workbook.xml, relations or styles part read (they are tables of
    /// contents: a few KB, or MB with thousands of styles).
    static let contentsLimit: Int64 = 64 << 20

    /// Opens the workbook at `path` (through `file` when it is already open) and reads its
    /// table of contents.
    package init(file: FileSource? = nil, path: String) throws(CellStoreError) {
        name = path
        if Workbook.isCompoundFile(file: file, path: path) {
            throw .unsupported(path, "encrypted or an old .xls workbook: not read (Excel saves it as an .xlsx without a password)")
        }
        archive = try ZipArchive(file: file, path: path)
        guard let workbookIndex = archive.locate("xl/workbook.xml") else {
            if archive.locate("xl/workbook.bin") != nil {
                throw .unsupported(path, "a binary workbook (.xlsb): not read (Excel saves it as an .xlsx)")
            }
            throw .unsupported(path, "a zip archive without xl/workbook.xml: not an Excel workbook")
        }
        do throws(ZipEntryError) {
            let contents = WorkbookContents()
            try XMLReader.readWhole(archive.open(workbookIndex, part: "xl/workbook.xml"), handler: contents,
                                    limit: Workbook.contentsLimit)
            let relations = Relations()
            if let index = archive.locate("xl/_rels/workbook.xml.rels") {
                try XMLReader.readWhole(archive.open(index, part: "xl/_rels/workbook.xml.rels"), handler: relations,
                                        limit: Workbook.contentsLimit)
            }
            uses1904 = contents.uses1904
            for (sheetName, id) in contents.sheets {
                guard let relation = relations.byID[id] else {
                    throw ZipEntryError("xl/workbook.xml names sheet '\(sheetName)' with no part in its relations")
                }
                if relation.type.hasSuffix("/worksheet") {
                    sheets.append(Sheet(name: sheetName, part: Workbook.resolve(relation.target)))
                }
            }
            func part(_ type: String, _ fallback: String) -> String? {
                if let relation = relations.byID.values.first(where: { $0.type.hasSuffix(type) }) {
                    return Workbook.resolve(relation.target)
                }
                return archive.locate(fallback) != nil ? fallback : nil
            }
            sharedStringsPart = part("/sharedStrings", "xl/sharedStrings.xml")
            stylesPart = part("/styles", "xl/styles.xml")
        } catch {
            throw .unsupported(path, error.message)
        }
    }

    /// The first bytes of an OLE compound file: an old binary workbook (`.xls`), or an
    /// `.xlsx` encrypted with a password (Office wraps those in one).
    static let compoundFileMagic: [UInt8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]

    /// True when the file starts as an OLE compound file does.
    static func isCompoundFile(file: FileSource?, path: String) -> Bool {
        var bytes = [UInt8](repeating: 0, count: compoundFileMagic.count)
        let got: Int
        if let file {
            got = bytes.withUnsafeMutableBytes { file.read(at: 0, into: $0) }
        } else {
            guard let opened = try? FileSource(path: path, waitsForWriter: false) else { return false }
            got = bytes.withUnsafeMutableBytes { opened.read(at: 0, into: $0) }
        }
        return got == bytes.count && bytes == compoundFileMagic
    }

    /// The names of the worksheets of the workbook at `path`, in order: the tables it holds.
    package static func sheetNames(path: String) throws(CellStoreError) -> [String] {
        try Workbook(path: path).sheets.map(\.name)
    }

    /// The sheet named `name` (exactly, else ignoring case, as Excel does), or the first
    /// when `name` is nil.
    package func sheet(named name: String?) throws(CellStoreError) -> Sheet {
        guard let name else {
            guard let first = sheets.first else { throw .unsupported(self.name, "the workbook has no worksheet") }
            return first
        }
        if let sheet = sheets.first(where: { $0.name == name })
            ?? sheets.first(where: { $0.name.lowercased() == name.lowercased() }) {
            return sheet
        }
        let names = sheets.map { "'\($0.name)'" }.joined(separator: ", ")
        throw .unsupported(self.name, "no sheet named '\(name)' (the sheets: \(names))")
    }

    /// A relation's target as a part name: relative to `xl/`, or from the root when it
    /// starts with `/`; `..` and `.` resolved.
    static func resolve(_ target: String) -> String {
        var parts: [Substring] = target.hasPrefix("/") ? [] : ["xl"]
        for piece in target.split(separator: "/", omittingEmptySubsequences: true) {
            if piece == ".." {
                if !parts.isEmpty { parts.removeLast() }
            } else if piece != "." {
                parts.append(piece)
            }
        }
        return parts.joined(separator: "/")
    }
}

/// `xl/workbook.xml`: the sheets (name and relation id) and the date system.
private final class WorkbookContents: XMLHandler {
    var sheets: [(name: String, id: String)] = []
    var uses1904 = false

    func start(_ name: XMLName, _ attributes: XMLAttributes, _ reader: XMLReader) {
        if name == "sheet" {
            guard let sheetName = attributes.string("name"), let id = attributes.string("id") else {
                reader.fail("has a sheet without a name or a relation id")
                return
            }
            sheets.append((sheetName, id))
        } else if name == "workbookPr", let value = attributes.string("date1904") {
            uses1904 = value == "1" || value == "true"
        }
    }

    func end(_ name: XMLName, _ reader: XMLReader) {}
    func text(_ bytes: UnsafeRawBufferPointer, _ reader: XMLReader) {}
}

/// A part's relations (`_rels/*.rels`): each id's type and target.
private final class Relations: XMLHandler {
    var byID: [String: (type: String, target: String)] = [:]

    func start(_ name: XMLName, _ attributes: XMLAttributes, _ reader: XMLReader) {
        guard name == "Relationship", let id = attributes.string("Id"), let target = attributes.string("Target") else { return }
        // An external target (a linked file) is no part of this archive.
        if attributes.string("TargetMode") == "External" { return }
        byID[id] = (attributes.string("Type") ?? "", target)
    }

    func end(_ name: XMLName, _ reader: XMLReader) {}
    func text(_ bytes: UnsafeRawBufferPointer, _ reader: XMLReader) {}
}
