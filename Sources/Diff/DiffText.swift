import CellStore
import Table

/// A diff's rows as daff's highlighter text has them (what `daff patch` reads): one
/// maker for `--diff --output` and for Ctrl-S of a diff on screen, so both write the same
/// bytes. `order` is the columns written, as places in `DiffColumns.columns`.
package enum DiffText {
    /// The `!` row (`+++` an added column, `---` a removed one, `:` a moved one), written
    /// above the `@@` header; nil when both tables have the same columns in the same order.
    package static func schemaRow(_ columns: DiffColumns, order: [Int]) -> Row? {
        guard !columns.isSameSchema else { return nil }
        return Row(cells: ["!"] + order.map { place in
            switch columns.columns[place].status {
            case .common: return ""
            case .added: return "+++"
            case .removed: return "---"
            case .moved: return ":"
            }
        })
    }

    /// The places (in `columns.columns`) whose cells differ between `old` and `new`.
    package static func changedColumns(old: Row, new: Row, columns: DiffColumns) -> Set<Int> {
        var changed = Set<Int>()
        for (place, column) in columns.columns.enumerated() {
            guard let oldColumn = column.old, let newColumn = column.new else { continue }
            if old.field(oldColumn) != new.field(newColumn) || old.fullLength(ofCell: oldColumn) != new.fullLength(ofCell: newColumn) {
                changed.insert(place)
            }
        }
        return changed
    }

    /// One row: daff's action (`+++`, `---`, `->`, `:` for a moved record, `+` for a
    /// record that only fills added columns, blank), then each column's cell: `old->new` where it changed (the arrow
    /// lengthened to `-->`, `--->`… while any value of the row holds it, in the action
    /// too: `daff patch` splits every cell of the row that holds its action's arrow), the
    /// old value where only the old table has the record or the column, else the new.
    package static func row(kind: DiffRow.Kind, fillsAddedColumns: Bool, old: Row?, new: Row?, changed: Set<Int>,
                            columns: DiffColumns, order: [Int]) -> Row {
        var arrow: [UInt8] = Array("->".utf8)
        if kind == .changed, let old, let new {
            func holdsArrow(_ place: Int) -> Bool {
                let column = columns.columns[place]
                return [old.field(column.old ?? -1), new.field(column.new ?? -1)].contains { contains($0, arrow) }
            }
            while order.contains(where: holdsArrow) { arrow.insert(UInt8(ascii: "-"), at: 0) }
        }
        var bytes: [UInt8] = []
        var ends: [Int] = []
        switch kind {
        case .same: if fillsAddedColumns { bytes.append(UInt8(ascii: "+")) }
        case .changed: bytes.append(contentsOf: arrow)
        case .added: bytes.append(contentsOf: "+++".utf8)
        case .removed: bytes.append(contentsOf: "---".utf8)
        case .moved: bytes.append(UInt8(ascii: ":"))
        }
        ends.append(bytes.count)
        for place in order {
            let column = columns.columns[place]
            let oldCell = column.old.flatMap { old?.field($0) }
            let newCell = column.new.flatMap { new?.field($0) }
            if changed.contains(place), let oldCell, let newCell {
                bytes.append(contentsOf: oldCell)
                bytes.append(contentsOf: arrow)
                bytes.append(contentsOf: newCell)
            } else if let cell = kind == .removed ? oldCell : newCell ?? oldCell {
                bytes.append(contentsOf: cell)
            }
            ends.append(bytes.count)
        }
        return Row(bytes: bytes, ends: ends)
    }

    static func contains(_ cell: ArraySlice<UInt8>, _ arrow: [UInt8]) -> Bool {
        guard cell.count >= arrow.count else { return false }
        var index = cell.startIndex
        while index + arrow.count <= cell.endIndex {
            if cell[index..<(index + arrow.count)].elementsEqual(arrow) { return true }
            index += 1
        }
        return false
    }
}
