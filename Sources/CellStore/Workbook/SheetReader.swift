#if canImport(Glibc)
import Glibc
#endif

/// A worksheet's cells as CSV, streamed: the sheet's XML is decompressed from the zip
/// (libzip) a chunk at a time and parsed (expat) into records, one per row, with a comma
/// between cells and quotes where a cell needs them (RFC 4180). The loader indexes them
/// as it indexes any CSV, so every feature reads a sheet unchanged.
///
/// Cells are placed by their reference (`r="C7"`): a cell left out is an empty field, a
/// row left out an empty record, and every record is as wide as the sheet's dimension
/// says (or wider, where a row is). What a cell shows:
/// - a shared string (`s`), an inline string, a formula's string (`str`): the text;
/// - a number: the text Excel stored, unchanged; a date, time or duration by the cell's
///   number format: ISO 8601 (`ExcelDate`);
/// - a boolean: `TRUE` or `FALSE`, as Excel shows it; an error (`#N/A`): its text;
/// - a formula: its cached value; the formula (`=A1+B1`) when none was cached.
/// Merged cells: the value is in the first cell; Excel keeps the others empty.
///
/// Output is handed over only by whole records, at most about a MiB at a time (the
/// parser pauses), so memory stays bounded and damage never leaves half a record.
final class SheetReader: XMLHandler {
    /// Excel's limits: past them a reference is damage, not a wider sheet.
    static let maxRows = 1_048_576
    static let maxColumns = 16_384
    static let pauseSize = 1 << 20

    let sheet: Workbook.Sheet
    private let entry: ZipEntry
    private var parser: XMLReader?
    private let strings: SharedStrings
    private let styles: CellStyles
    private let uses1904: Bool
    /// The part's sizes in the zip, for progress.
    let compressedSize: Int64
    let xmlSize: Int64

    private let xmlBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
    private var out: [UInt8] = []
    private var delivered = 0
    /// Where the last whole record ends in `out`.
    private var complete = 0
    private var isPaused = false
    private var ended = false
    private var latched: String?

    private var width = 0
    private var nextRow = 1
    private var inRow = false
    private var column = 0
    /// The cell being read.
    private enum Target { case none, value, formula, inline }
    private var target = Target.none
    private var cellColumn = 0
    private var cellType: UInt8 = 0x6E   // n
    private var cellKind: DateKind?
    private var value: [UInt8] = []
    private var formula: [UInt8] = []
    private var inlineText: [UInt8] = []
    private var inInline = false
    private var phoneticDepth = 0

    init(workbook: Workbook, sheet: Workbook.Sheet, stringsMemoryLimit: Int = SharedStrings.defaultMemoryLimit,
         stringsLimit: Int64) throws(ZipEntryError) {
        self.sheet = sheet
        guard let index = workbook.archive.locate(sheet.part) else {
            throw ZipEntryError("sheet '\(sheet.name)' has no part \(sheet.part) in the zip")
        }
        (compressedSize, xmlSize) = workbook.archive.sizes(of: index)
        styles = try CellStyles.read(workbook)
        strings = try SharedStrings.read(workbook, memoryLimit: stringsMemoryLimit, textLimit: stringsLimit)
        uses1904 = workbook.uses1904
        entry = try workbook.archive.open(index, part: sheet.part)
        parser = try XMLReader(part: sheet.part, handler: self)
    }

    deinit { xmlBuffer.deallocate() }

    /// True when the shared strings went to temporary files (too many to keep in memory).
    var stringsAreSpilled: Bool { strings.isSpilled }

    /// XML bytes read so far; with `xmlSize` and `compressedSize`, how far along it is.
    var xmlBytesRead: Int64 { entry.bytesRead }

    /// Compressed bytes read so far, estimated from the XML read (libzip does not say).
    var compressedBytesRead: Int64 {
        guard xmlSize > 0 else { return 0 }
        return Int64(Double(compressedSize) * min(1, Double(entry.bytesRead) / Double(xmlSize)))
    }

    /// Fills `buffer` with the next CSV bytes: a count, 0 at the end. Throws where the
    /// sheet is damaged, once every whole record before it has been handed over.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZipEntryError) -> Int {
        while delivered == complete {
            if let latched { throw ZipEntryError(latched) }
            if ended { return 0 }
            if delivered > 0 {
                out.removeFirst(delivered)
                complete -= delivered
                delivered = 0
            }
            do {
                try step()
            } catch {
                latched = error.message
            }
        }
        let count = min(buffer.count, complete - delivered)
        out[delivered..<(delivered + count)].withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        delivered += count
        return count
    }

    /// Parses on: the rest of a paused chunk, or the next one.
    private func step() throws(ZipEntryError) {
        guard let parser else { return }
        let status: XMLReader.Status
        var isFinal = false
        if isPaused {
            status = parser.resume()
        } else {
            let count = try entry.read(into: xmlBuffer)
            isFinal = count == 0
            status = parser.parse(UnsafeRawBufferPointer(rebasing: xmlBuffer[..<count]), isFinal: isFinal)
        }
        switch status {
        case .paused: isPaused = true
        case .done:
            isPaused = false
            if isFinal {
                ended = true
                complete = out.count
            }
        case .failed(let why): throw ZipEntryError(why)
        }
    }

    // MARK: The sheet's XML

    func start(_ name: XMLName, _ attributes: XMLAttributes, _ reader: XMLReader) {
        if name == "c" {
            guard inRow else { return reader.fail("has a cell outside a row at line \(reader.line)") }
            // One pass over the attributes (a cell's are unprefixed: r, t, s).
            var place = column
            cellType = 0x6E
            cellKind = nil
            var index = 0
            while let pairs = attributes.pairs, let attribute = pairs[index], let value = pairs[index + 1] {
                index += 2
                guard attribute[1] == 0 else { continue }
                switch UInt8(bitPattern: attribute[0]) {
                case 0x72:   // r
                    guard let parsed = SheetReader.column(of: value) else {
                        return reader.fail("has a cell reference '\(String(cString: value))' that is not one (line \(reader.line))")
                    }
                    place = parsed
                case 0x74: cellType = SheetReader.typeCode(value)   // t
                case 0x73: cellKind = SheetReader.integer(value).flatMap { styles.kind($0) }   // s
                default: break
                }
            }
            guard place >= column else {
                return reader.fail("has cells out of order in row \(nextRow.grouped) (line \(reader.line)): not read further")
            }
            cellColumn = place
            value.removeAll(keepingCapacity: true)
            formula.removeAll(keepingCapacity: true)
            inlineText.removeAll(keepingCapacity: true)
        } else if name == "v" {
            target = .value
        } else if name == "f" {
            target = .formula
        } else if name == "is" {
            inInline = true
        } else if name == "t" && inInline && phoneticDepth == 0 {
            target = .inline
        } else if name == "rPh" {
            phoneticDepth += 1
        } else if name == "row" {
            startRow(attributes, reader)
        } else if name == "dimension", let reference = attributes.string("ref") {
            // `A1:D100`: as wide as D (a bad one is only a hint lost).
            let last = reference.split(separator: ":").last.map(String.init) ?? reference
            if let columnIndex = last.withCString({ SheetReader.column(of: $0) }) { width = columnIndex + 1 }
        }
    }

    func end(_ name: XMLName, _ reader: XMLReader) {
        if name == "c" {
            endCell(reader)
        } else if name == "v" || name == "f" || name == "t" {
            target = .none
        } else if name == "is" {
            inInline = false
        } else if name == "rPh" {
            phoneticDepth = max(0, phoneticDepth - 1)
        } else if name == "row" {
            endRow()
            if out.count - delivered >= SheetReader.pauseSize { reader.pause() }
        }
    }

    func text(_ bytes: UnsafeRawBufferPointer, _ reader: XMLReader) {
        switch target {
        case .none: return
        case .value: value.append(contentsOf: bytes)
        case .formula: formula.append(contentsOf: bytes)
        case .inline: inlineText.append(contentsOf: bytes)
        }
        if value.count + formula.count + inlineText.count > SharedStrings.cellLimit {
            reader.fail("has a cell longer than \(SpoolLimit.describe(Int64(SharedStrings.cellLimit))) in row \(nextRow.grouped): not read further")
        }
    }

    private func startRow(_ attributes: XMLAttributes, _ reader: XMLReader) {
        var number = nextRow
        if let text = attributes.string("r") {
            guard let parsed = Int(text), parsed >= 1 else { return reader.fail("has a row numbered '\(text)' (line \(reader.line))") }
            number = parsed
        }
        guard number <= SheetReader.maxRows else {
            return reader.fail("has a row numbered \(number.grouped), past Excel's last (\(SheetReader.maxRows.grouped))")
        }
        guard number >= nextRow else {
            return reader.fail("has row \(number.grouped) after row \((nextRow - 1).grouped): rows out of order, not read further")
        }
        while nextRow < number {
            emptyRecord()
            nextRow += 1
        }
        inRow = true
        column = 0
    }

    private func endRow() {
        guard inRow else { return }
        if column == 0 {
            emptyRecord()
        } else {
            while column < width { emptyField() }
            out.append(0x0A)
        }
        inRow = false
        nextRow += 1
        complete = out.count
    }

    /// A record of empty fields: commas, or `""` when one field wide (a record, not a blank line).
    private func emptyRecord() {
        if width > 1 {
            out.append(contentsOf: repeatElement(0x2C, count: width - 1))
        } else {
            out.append(0x22)
            out.append(0x22)
        }
        out.append(0x0A)
        complete = out.count
    }

    private func endCell(_ reader: XMLReader) {
        let text: [UInt8]
        switch cellType {
        case 0x73:   // s: a shared string, written from where it is kept
            guard !value.isEmpty else { return }
            guard cellColumn < SheetReader.maxColumns else {
                return reader.fail("has a cell past Excel's last column (XFD) in row \(nextRow)")
            }
            let found = SheetReader.integer(value).map { index in
                strings.withString(index) { string in
                    guard !string.isEmpty else { return }
                    while column < cellColumn { emptyField() }
                    field(string)
                }
            } ?? false
            if !found {
                let shown = String(decoding: value.prefix(40), as: UTF8.self)
                reader.fail("has a cell naming shared string '\(shown)', which the workbook does not have (row \(nextRow))")
            }
            return
        case 0x69:   // inlineStr
            text = XMLText.unescaped(inlineText)
        case 0x74:   // str: a formula's string
            text = XMLText.unescaped(value)
        case 0x62:   // b
            text = value == [0x31] ? Array("TRUE".utf8) : value == [0x30] ? Array("FALSE".utf8) : value
        default:     // n, e (an error's text), d (an ISO date as written)
            if value.isEmpty && !formula.isEmpty {
                text = [0x3D] + formula
            } else if cellType == 0x6E, let kind = cellKind, let serial = SheetReader.number(value),
                      let date = ExcelDate.text(serial: serial, kind: kind, uses1904: uses1904) {
                text = Array(date.utf8)
            } else {
                text = value
            }
        }
        guard !text.isEmpty else { return }
        guard cellColumn < SheetReader.maxColumns else {
            return reader.fail("has a cell past Excel's last column (XFD) in row \(nextRow)")
        }
        while column < cellColumn { emptyField() }
        text.withUnsafeBytes { field($0) }
    }

    private func emptyField() {
        if column > 0 { out.append(0x2C) }
        column += 1
    }

    /// Writes one field (quoted when it must be) and moves to the next column.
    private func field(_ text: UnsafeRawBufferPointer) {
        if column > 0 { out.append(0x2C) }
        column += 1
        guard text.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else {
            out.append(contentsOf: text)
            return
        }
        out.append(0x22)
        for byte in text {
            if byte == 0x22 { out.append(0x22) }
            out.append(byte)
        }
        out.append(0x22)
    }

    /// The type letter of `t` (`s`, `inlineStr`, `str`, `b`, `e`, `n`, `d`): its first
    /// byte, with `str` told from `s` by its length.
    static func typeCode(_ type: UnsafePointer<CChar>) -> UInt8 {
        let first = UInt8(bitPattern: type[0])
        if first == 0x73 && type[1] != 0 { return 0x74 }   // str
        return first
    }

    /// The column (from 0) of a reference such as `AB12`, or nil when it is not one.
    static func column(of reference: UnsafePointer<CChar>) -> Int? {
        var index = 0, column = 0
        while true {
            let byte = UInt8(bitPattern: reference[index])
            let letter: Int
            switch byte {
            case 0x41...0x5A: letter = Int(byte - 0x40)
            case 0x61...0x7A: letter = Int(byte - 0x60)
            case 0x24 where index == 0: index += 1; continue   // $A$1
            default:
                return index > 0 && column > 0 ? column - 1 : nil
            }
            column = column * 26 + letter
            if column > maxColumns { return SheetReader.maxColumns }
            index += 1
        }
    }

    /// The integer of decimal digits `bytes` holds (spaces around allowed), or nil.
    static func integer(_ bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBytes { digits(UnsafeRawBufferPointer($0)) }
    }

    static func integer(_ text: UnsafePointer<CChar>) -> Int? {
        digits(UnsafeRawBufferPointer(start: text, count: strlen(text)))
    }

    private static func digits(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var value = 0, seen = 0, index = 0
        while index < bytes.count && (bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x09 || bytes[index] == 0x0D) { index += 1 }
        while index < bytes.count, bytes[index] >= 0x30 && bytes[index] <= 0x39 {
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow, seen < 18 else { return nil }
            value = times + Int(bytes[index] - 0x30)
            seen += 1
            index += 1
        }
        while index < bytes.count && (bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x09 || bytes[index] == 0x0D) { index += 1 }
        return seen > 0 && index == bytes.count ? value : nil
    }

    static func number(_ bytes: [UInt8]) -> Double? {
        Double(String(decoding: bytes, as: UTF8.self).trimmingWhitespace)
    }
}

private extension String {
    var trimmingWhitespace: String {
        String(drop { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }.reversed()
            .drop { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }.reversed())
    }
}
