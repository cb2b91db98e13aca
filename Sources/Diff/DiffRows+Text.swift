import CellStore
import Table

extension DiffRows {
    /// An aligned record as daff's text has it (`DiffText.row`), in the shown columns:
    /// what Ctrl-S writes, byte for byte what `--diff --output` writes for the same record.
    static func text(kind: UInt8, old: Row?, new: Row?, columns: DiffColumns, order: [Int]) -> Row {
        let rowKind: DiffRow.Kind
        switch kind {
        case DiffEntries.added: rowKind = .added
        case DiffEntries.removed: rowKind = .removed
        case DiffEntries.changed: rowKind = .changed
        case DiffEntries.moved: rowKind = .moved
        default: rowKind = .same
        }
        var changed = Set<Int>()
        if rowKind == .changed, let old, let new { changed = DiffText.changedColumns(old: old, new: new, columns: columns) }
        var row = DiffText.row(kind: rowKind, fillsAddedColumns: kind == DiffEntries.filled, old: old, new: new, changed: changed,
                               columns: columns, order: order)
        // A record the parser kept only in part (a cell over 1 MiB, or more fields than a
        // row keeps) cannot be written whole from here: marked so, the writer refuses it.
        if old?.isCut == true || new?.isCut == true { row.omittedCells = max(1, row.omittedCells) }
        return row
    }
}
