import CExport

/// An aligned table's lines made in bulk from well-quoted records by `cx_table_lines`:
/// each record split and laid out in C, without a row, a string or a glyph, exactly as
/// `OutputWriter` lays out a row (the export's differential tests hold the two together).
/// A record the C code leaves aside (a character of no width, invalid UTF-8, a cell to cut,
/// a record of very many cells) is the caller's, written as a row.
///
/// The widths of the code points below U+10000 are taken once, when it is made (wcwidth
/// per character cost more than the rest of a cell), so it is made once per export and
/// shared by the cores; it never changes after.
package final class TableLines: Sendable {
    /// The sampled widths of the columns.
    let widths: [Int32]
    /// How wide a column no sampled row reached is at most.
    let limit: Int32
    /// Cells wider are cut (by the caller); 0: none is.
    let maximumWidth: Int32
    private let narrowWidths: [Int8]
    /// The widths added up (room a line may need for its padding).
    private let totalWidth: Int

    /// Bytes a chunk of lines is made in (one record may need more).
    static let chunkBytes = 256 << 10
    /// Cells of one record the C code lays out at most (a wider record is left aside).
    static let fieldCapacity = 4096

    package init(widths: [Int], limit: Int, maximumWidth: Int?) {
        self.widths = widths.map { Int32(clamping: $0) }
        self.limit = Int32(clamping: limit)
        self.maximumWidth = Int32(clamping: maximumWidth ?? 0)
        totalWidth = widths.reduce(0) { $0 + max(0, $1) }
        narrowWidths = [Int8](unsafeUninitializedCapacity: 0x10000) { buffer, count in
            cx_fill_widths(buffer.baseAddress)
            count = 0x10000
        }
    }

    /// Appends `bytes` (a whole cell, or a piece of one that ends on a character) as the
    /// screen shows them, as `CellText.appendShown` does; returns their display width, or
    /// nil (nothing appended) when the screen lays them out by grapheme cluster (a
    /// character of no width, invalid UTF-8): the caller does.
    package func appendShown(_ bytes: ArraySlice<UInt8>, to buffer: inout [UInt8]) -> Int? {
        var width = 0
        var refused = false
        let shown = [UInt8](unsafeUninitializedCapacity: 3 * bytes.count + 16) { out, count in
            count = 0
            bytes.withUnsafeBufferPointer { cell in
                narrowWidths.withUnsafeBufferPointer { narrow in
                    let written = cx_table_shown(cell.baseAddress, cell.count, narrow.baseAddress, out.baseAddress, &width)
                    if written < 0 { refused = true } else { count = written }
                }
            }
        }
        if refused { return nil }
        buffer.append(contentsOf: shown)
        return width
    }

    /// Appends `row` (its cells, already chosen) as one line of the table, as
    /// `OutputWriter` lays out a row; false (nothing appended) when a cell is the row
    /// writer's to lay out (see the type's note).
    package func appendRow(cells: [UInt8], ends: [Int], isHeader: Bool, to buffer: inout [UInt8]) -> Bool {
        let room = 4 * cells.count + totalWidth + 19 * ends.count + 20
        var length = -1
        let line = [UInt8](unsafeUninitializedCapacity: room) { out, count in
            count = 0
            cells.withUnsafeBufferPointer { cells in
                ends.withUnsafeBufferPointer { ends in
                    widths.withUnsafeBufferPointer { widths in
                        narrowWidths.withUnsafeBufferPointer { narrow in
                            var layout = cx_table_layout(widths: widths.baseAddress, width_count: widths.count, columns: nil,
                                                         column_count: 0, limit: limit, maximum_width: maximumWidth,
                                                         delimiter: 0, quote: 0x22, narrow_widths: narrow.baseAddress)
                            length = cx_table_row(&layout, cells.baseAddress, ends.baseAddress, ends.count, isHeader ? 1 : 0,
                                                  out.baseAddress)
                        }
                    }
                }
            }
            count = max(0, length)
        }
        guard length >= 0 else { return false }
        buffer.append(contentsOf: line)
        return true
    }

    /// True when `cell` reads as a number to the C code (`CellValue.isNumber`'s reading).
    package static func isNumber(_ cell: [UInt8]) -> Bool {
        cell.withUnsafeBufferPointer { cx_is_number($0.baseAddress, $0.count) != 0 }
    }

    /// Writes the data lines of the records at the start of `bytes`, `columns` of each (nil:
    /// every cell), handing them to `emit` a chunk at a time; stops at the end, before a
    /// record left aside, or when `emit` refuses a chunk.
    package func write(_ bytes: UnsafeRawBufferPointer, delimiter: UInt8, quote: UInt8, columns: [Int]?,
                       emit: ([UInt8]) -> Bool) -> BulkWrite {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), !bytes.isEmpty else {
            return BulkWrite(consumed: 0, records: 0, aside: nil)
        }
        // A column past the chosen ones keeps the pointer valid when none is chosen.
        let chosen = (columns ?? []).map { Int32(clamping: $0) } + [0]
        var progress = cx_table_progress()
        var status = Int32(CX_TABLE_END)
        var room = Self.chunkBytes
        let fields = UnsafeMutablePointer<Int>.allocate(capacity: 3 * Self.fieldCapacity)
        defer { fields.deallocate() }
        widths.withUnsafeBufferPointer { widths in
            narrowWidths.withUnsafeBufferPointer { narrow in
                chosen.withUnsafeBufferPointer { chosenColumns in
                    var layout = cx_table_layout(widths: widths.baseAddress, width_count: widths.count,
                                                 columns: columns == nil ? nil : chosenColumns.baseAddress,
                                                 column_count: chosenColumns.count - 1, limit: limit, maximum_width: maximumWidth,
                                                 delimiter: delimiter, quote: quote, narrow_widths: narrow.baseAddress)
                    while progress.at < bytes.count {
                        progress.written = 0
                        let chunk = [UInt8](unsafeUninitializedCapacity: room) { out, count in
                            status = cx_table_lines(&layout, base, bytes.count, out.baseAddress, room, fields,
                                                    Self.fieldCapacity, &progress)
                            count = progress.written
                        }
                        if !chunk.isEmpty && !emit(chunk) {
                            status = Int32(CX_TABLE_END)
                            break
                        }
                        if status == CX_TABLE_ROOM {
                            // One record larger than the room left: a chunk of its own.
                            room = chunk.isEmpty ? max(progress.need, Self.chunkBytes) : Self.chunkBytes
                            continue
                        }
                        room = Self.chunkBytes
                        if status != CX_TABLE_END { break }
                    }
                }
            }
        }
        return BulkWrite(consumed: progress.at, records: progress.records,
                         aside: status == CX_TABLE_ASIDE ? progress.record_end - progress.at : nil)
    }
}
