/// `xl/styles.xml` as far as values need it: for each cell format (a cell's `s`), whether
/// its number format shows a date, a time, both or a duration.
final class CellStyles: XMLHandler {
    /// The kind of each cell format, by its index; nil where it shows a plain number.
    private(set) var kinds: [DateKind?] = []
    /// The workbook's own number formats, by id.
    private var codes: [Int: String] = [:]
    private var formatIDs: [Int] = []
    private var inCellFormats = false

    /// The kind of cell format `index` (a cell's `s`).
    func kind(_ index: Int) -> DateKind? { index >= 0 && index < kinds.count ? kinds[index] : nil }

    /// Reads the styles part of `workbook`, when there is one.
    static func read(_ workbook: Workbook) throws(ZipEntryError) -> CellStyles {
        let styles = CellStyles()
        if let part = workbook.stylesPart, let index = workbook.archive.locate(part) {
            try XMLReader.readWhole(workbook.archive.open(index, part: part), handler: styles, limit: Workbook.contentsLimit)
        }
        styles.kinds = styles.formatIDs.map { id in
            if let code = styles.codes[id] { return DateKind.of(formatCode: code) }
            return DateKind.builtIn(id)
        }
        return styles
    }

    func start(_ name: XMLName, _ attributes: XMLAttributes, _ reader: XMLReader) {
        if name == "numFmt" {
            if let id = attributes.string("numFmtId").flatMap({ Int($0) }), let code = attributes.string("formatCode") {
                codes[id] = code
            }
        } else if name == "cellXfs" {
            inCellFormats = true
        } else if name == "xf" && inCellFormats {
            formatIDs.append(attributes.string("numFmtId").flatMap { Int($0) } ?? 0)
        }
    }

    func end(_ name: XMLName, _ reader: XMLReader) {
        if name == "cellXfs" { inCellFormats = false }
    }

    func text(_ bytes: UnsafeRawBufferPointer, _ reader: XMLReader) {}
}
