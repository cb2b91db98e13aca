import CellStore
import Table

/// What a sort or a filter reads: an input's records through its index (followed while
/// it loads), or rows (a sheet's), cell by cell.
enum PassInput: Sendable {
    case readers(RecordReaders)
    case rows(RowSnapshot)
}
