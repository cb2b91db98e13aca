import CellStore
import Table

/// A diff as a table on screen: one row per aligned record, the first column daff's
/// marker (`+++`, `---`, `->`, `+`, blank), then the key columns, then the others; a
/// changed cell reads `old→new`.
///
/// It starts comparing once both inputs are indexed, and takes the comparison's rows in
/// batches on news (`takeNews()`), so the screen shows the first rows while the rest are
/// compared. It keeps no cells: each aligned row is a record of the old table, of the new
/// one, or both, kept as runs (a run of rows whose records follow one another on both
/// sides costs one entry), and its cells are read from the inputs when shown, or by a
/// pass through `snapshot()`.
package final class DiffRows: PairedRows, SavedRows, MarkedRows {
    package let name: String
    package let wake: @Sendable () -> Void
    private let stores: [CellStore]
    private let inputHeaderRows: Int
    private let options: TableDiff.Options
    private var diff: TableDiff?
    private var inputs: [DiffInput] = []
    /// The columns as matched, and the order shown: places in `columns.columns`, the key's first.
    package private(set) var columns: DiffColumns?
    private var order: [Int] = []
    private var header = Row()
    private var entries: DiffEntries
    /// Stretches of data rows (by index from 0) of the records the status line counts
    /// (changed, added, removed, moved), in order, next ones joined: for `(` and `)`. A `+` row
    /// (a value only in an added column) is not one: its value is marked as a cell.
    private var differences: [Range<Int>] = []
    private var statistics = DiffStatistics()
    /// Why the comparison stopped, if it failed.
    package private(set) var failure: String?
    package private(set) var isComplete = false
    package private(set) var generation = 0
    /// A pass took the rows before they were all there: it is made again at the end.
    private var isSnapshotPartial = false
    /// Rows taken at most on one news, so a frame comes between batches however fast
    /// the comparison runs.
    let batchLimit: Int
    /// Rows made lately, with their marks.
    private var made: [Int: Made] = [:]
    static let madeLimit = 1024

    struct Made {
        let row: Row
        let kind: UInt8
        /// Shown columns (1 on) whose cells changed.
        let changed: Set<Int>
        /// The row as each side has it (side by side), nil where that side has no record.
        let old: Row?
        let new: Row?
    }

    /// A diff of `old` with `new` (both still loading, perhaps): it starts when both are
    /// read; `wake` wakes the event loop when rows come.
    package convenience init(old: CellStore, new: CellStore, headerRows: Int, options: TableDiff.Options,
                            wake: @escaping @Sendable () -> Void) {
        self.init(old: old, new: new, headerRows: headerRows, options: options, batchLimit: 1 << 18, entries: DiffEntries(),
                  wake: wake)
    }

    init(old: CellStore, new: CellStore, headerRows: Int, options: TableDiff.Options, batchLimit: Int,
         entries: DiffEntries, wake: @escaping @Sendable () -> Void) {
        self.batchLimit = max(1, batchLimit)
        self.entries = entries
        stores = [old, new]
        inputHeaderRows = headerRows
        var options = options
        options.context = 0
        // Only each row's kind and records are kept here (`append`).
        options.keepsCells = false
        self.options = options
        self.wake = wake
        name = "\(old.name) → \(new.name)"
        takeNews()
    }

    deinit { diff?.cancel() }

    /// The key's columns in the shown order (they come right after the marker).
    package var keyCount: Int { diff?.keyColumns.count ?? options.key.count }

    // MARK: Taking the comparison's rows

    package func takeNews() {
        guard !isComplete else { return }
        if diff == nil && failure == nil { start() }
        guard let diff else { return }
        var isOver = false
        var taken = 0
        while true {
            guard taken < batchLimit else {
                // More may be waiting: the loop comes back for them after a frame.
                wake()
                break
            }
            guard let rows = diff.poll(batch: min(65_536, batchLimit - taken)) else {
                isOver = true
                break
            }
            if rows.isEmpty { break }
            for row in rows { append(row) }
            taken += rows.count
        }
        statistics = diff.statistics
        if isOver {
            switch diff.phase {
            case .failed(let why): failure = why
            case .done, .cancelled: break
            case .reading, .aligning: return
            }
            isComplete = true
            if isSnapshotPartial {
                // A filter or sort taken while rows came covers only those: made again now.
                generation += 1
                made = [:]
            }
        }
    }

    /// Starts the comparison once both inputs are indexed.
    private func start() {
        for store in stores {
            if let failure = store.progress.failure {
                fail("\(store.name): \(failure)")
                return
            }
        }
        guard stores.allSatisfy(\.isComplete) else { return }
        guard let old = DiffInput(store: stores[0], headerRows: inputHeaderRows),
              let new = DiffInput(store: stores[1], headerRows: inputHeaderRows) else {
            fail("an input could not be read")
            return
        }
        do {
            let diff = try TableDiff(old: old, new: new, options: options, wake: wake)
            self.diff = diff
            inputs = [old, new]
            let columns = diff.columns
            self.columns = columns
            order = diff.keyColumns + columns.columns.indices.filter { !diff.keyColumns.contains($0) }
            header = Row(cells: ["@@"] + order.map { columns.columns[$0].name })
        } catch {
            fail(error.description)
        }
    }

    private func fail(_ why: String) {
        failure = why
        isComplete = true
    }

    private func append(_ row: DiffRow) {
        let kind: UInt8
        switch row.kind {
        case .same: kind = row.hasNewColumnValues ? DiffEntries.filled : DiffEntries.same
        case .changed: kind = DiffEntries.changed
        case .added: kind = DiffEntries.added
        case .removed: kind = DiffEntries.removed
        case .moved: kind = DiffEntries.moved
        }
        if kind != DiffEntries.same && kind != DiffEntries.filled {
            let index = entries.count
            if let last = differences.last, last.upperBound == index {
                differences[differences.count - 1] = last.lowerBound..<(index + 1)
            } else {
                differences.append(index..<(index + 1))
            }
        }
        entries.append(kind: kind, old: row.old, new: row.new)
    }

    // MARK: RowSource

    /// The header and the aligned rows taken so far.
    package var rowCount: Int { diff == nil ? 0 : 1 + entries.count }
    package var columnCount: Int { 1 + order.count }
    package var headerRows: Int? { 1 }
    package var file: CellStore? { nil }

    package func row(_ index: Int) -> Row? { rows([RecordRef(record: index)])[index] }

    package func rows(_ refs: [RecordRef]) -> [Int: Row] {
        var result: [Int: Row] = [:]
        var wanted: [Int] = []
        for ref in refs {
            if ref.record == 0 && diff != nil {
                result[0] = header
            } else if let made = made[ref.record] {
                result[ref.record] = made.row
            } else if ref.record > 0 && ref.record <= entries.count {
                wanted.append(ref.record)
            }
        }
        guard !wanted.isEmpty, let columns else { return result }
        let places = wanted.map { entries.entry($0 - 1) }
        var read: [[Int: Row]] = [[:], [:]]
        for side in 0..<2 {
            let refs = places.compactMap { side == 0 ? $0.old : $0.new }
            if !refs.isEmpty { read[side] = stores[side].rows(refs) }
        }
        if made.count + wanted.count > Self.madeLimit { made.removeAll(keepingCapacity: true) }
        for (record, entry) in zip(wanted, places) {
            let oldRow = entry.old.flatMap { read[0][$0.record] }
            let newRow = entry.new.flatMap { read[1][$0.record] }
            let shown = Self.display(kind: entry.kind, old: oldRow, new: newRow, columns: columns, order: order, sides: true)
            made[record] = Made(row: shown.row, kind: entry.kind, changed: shown.changed, old: shown.old, new: shown.new)
            result[record] = shown.row
        }
        return result
    }

    package func mark(record: Int, column: Int) -> RowMark {
        if record == 0 {
            guard let columns, column >= 1, column <= order.count else { return .none }
            switch columns.columns[order[column - 1]].status {
            case .common: return .none
            case .added: return .added
            case .removed: return .removed
            case .moved: return .changed
            }
        }
        guard record > 0 && record <= entries.count else { return .none }
        // The row's kind is in the runs; only which cells changed, or hold a value, needs the cells.
        let kind = entries.entry(record - 1).kind
        switch kind {
        case DiffEntries.added: return .added
        case DiffEntries.removed: return .removed
        case DiffEntries.changed where column <= 0: return .changed
        // A moved record's marker and number, as a changed one's; its cells are the same.
        case DiffEntries.moved where column <= 0: return .changed
        // A `+` row's marker; its number stays plain, as it is no change `)` goes to.
        case DiffEntries.filled where column <= 0: return column == 0 ? .added : .none
        default: break
        }
        // A record both tables have: its changed cells, and the values of a column only one
        // table has (an added column's in the added style, a removed one's in the removed).
        guard column >= 1, column <= order.count, let columns else { return .none }
        let status = columns.columns[order[column - 1]].status
        guard kind == DiffEntries.changed || status == .removed
                || (status == .added && (kind == DiffEntries.filled || kind == DiffEntries.moved)) else {
            return .none
        }
        guard let made = made[record] ?? (row(record) != nil ? made[record] : nil) else { return .none }
        if made.changed.contains(column) { return .changedCell }
        guard status == .added || status == .removed, !made.row.field(column).isEmpty else { return .none }
        return status == .added ? .added : .removed
    }

    package func row(_ record: Int, side: PairedSide) -> Row? {
        if record == 0 { return diff == nil ? nil : header }
        guard let made = made[record] ?? (row(record) != nil ? made[record] : nil) else { return nil }
        return side == .old ? made.old : made.new
    }

    package func markedRecord(from record: Int, forward: Bool) -> Int? {
        // Records are data rows from 1; `differences` holds data rows from 0.
        let index = record - 1
        let wanted = forward ? index + 1 : index - 1
        // The first stretch that ends after the row wanted (or at it, going back).
        var low = 0, high = differences.count
        while low < high {
            let middle = (low + high) / 2
            if differences[middle].upperBound <= wanted { low = middle + 1 } else { high = middle }
        }
        if forward {
            guard low < differences.count else { return nil }
            return max(wanted, differences[low].lowerBound) + 1
        }
        if low < differences.count && differences[low].contains(wanted) { return wanted + 1 }
        return low > 0 ? differences[low - 1].upperBound : nil
    }

    package var statusNote: String? {
        if let failure { return "diff stopped: " + failure }
        guard let diff else {
            // Both tables are indexed first: their bytes read so far, of both sizes.
            let progress = stores.map(\.progress)
            let parts = progress.compactMap { $0.fractionRead }
            guard parts.count == progress.count, !parts.isEmpty else { return "reading both tables…" }
            let sizes = progress.map { Double($0.packedSize ?? $0.totalBytes ?? 0) }
            let total = sizes.reduce(0, +)
            let done = zip(parts, sizes).map { $0 * $1 }.reduce(0, +)
            return "reading both tables… \(total > 0 ? Int(done / total * 100) : 0)%"
        }
        // Rows come once both tables are read (by position) or their keys matched (by
        // key); until then the stage under way and how far it is.
        if entries.count == 0 && !isComplete { return "comparing… " + stage(diff.progress) }
        let more = isComplete ? "" : "+"
        func grouped(_ value: Int) -> String {
            var digits = Array(String(value))
            var index = digits.count - 3
            while index > 0 {
                digits.insert(",", at: index)
                index -= 3
            }
            return String(digits)
        }
        var note = "\(grouped(statistics.changed))\(more) changed, \(grouped(statistics.added))\(more) added, "
            + "\(grouped(statistics.removed))\(more) removed"
        if statistics.moved > 0 { note += ", \(grouped(statistics.moved))\(more) moved" }
        // What --diff says on standard error, as asides the status line drops first when narrow.
        let repeated = statistics.duplicateKeys.reduce(0, +), empty = statistics.emptyKeys.reduce(0, +)
        if repeated > 0 { note += "  (\(grouped(repeated)) repeated keys, matched in order)" }
        if empty > 0 { note += "  (\(grouped(empty)) empty keys)" }
        if let (old, _) = statistics.approximateFrom {
            note += "  (alignment may not be minimal from old row \(grouped(old - inputHeaderRows + 1)))"
        }
        if !isComplete { note += "  (" + stage(diff.progress) + ")" }
        return note
    }

    /// The comparison's stage and how far it is: `aligning 45%`.
    private func stage(_ progress: DiffProgress) -> String {
        let percent = "\(Int(progress.fraction * 100))%"
        switch progress.stage {
        case .reading: return "reading " + percent
        case .matching: return "matching keys " + percent
        case .ordering: return "ordering rows " + percent
        case .aligning: return "aligning " + percent
        }
    }

    /// Runs the aligned rows are kept as (for tests).
    var entriesRunCount: Int { entries.runCount }

    /// The counts so far (all of them once complete).
    package var counts: DiffStatistics { statistics }

    package func snapshot() -> RowSnapshot? { snapshot(.shown) }

    /// A changed cell sorts by its new value: `891.57→999.99` is the number 999.99.
    package func sortSnapshot() -> RowSnapshot? { snapshot(.sorted) }

    /// How a snapshot's rows are made.
    private enum Form {
        /// As shown: a changed cell is `old→new`.
        case shown
        /// As daff's text has them (`DiffText`).
        case text
        /// As shown, a changed cell its new value.
        case sorted
    }

    private func snapshot(_ form: Form) -> RowSnapshot? {
        guard let columns, inputs.count == 2 else { return nil }
        if !isComplete { isSnapshotPartial = true }
        let entries = self.entries, header = self.header, order = self.order
        let readers = inputs.map(\.reader)
        return RowSnapshot(count: rowCount, columnCount: columnCount) { range in
            let places = range.map { $0 == 0 ? nil : entries.entry($0 - 1) }
            var read: [[Int: Row]] = [[:], [:]]
            for side in 0..<2 {
                read[side] = DiffRows.read(places.compactMap { side == 0 ? $0?.old : $0?.new }, from: readers[side])
            }
            return places.map { entry in
                guard let entry else { return header }
                let oldRow = entry.old.flatMap { read[0][$0.record] }
                let newRow = entry.new.flatMap { read[1][$0.record] }
                if form == .text { return DiffRows.text(kind: entry.kind, old: oldRow, new: newRow, columns: columns, order: order) }
                return DiffRows.display(kind: entry.kind, old: oldRow, new: newRow, columns: columns, order: order,
                                        changedAsNew: form == .sorted).row
            }
        }
    }

    /// Ctrl-S writes daff's text (see `SavedRows`).
    package func savedSnapshot() -> RowSnapshot? { snapshot(.text) }

    /// daff's `!` row in the shown order, when the columns differ.
    package var savedRowsAbove: [Row] {
        guard let columns, let schema = DiffText.schemaRow(columns, order: order) else { return [] }
        return [schema]
    }

    /// Records `refs` of one input, on any thread: each from its offset where it is known,
    /// the others by sweeps over the stretches they lie in (a run of the alignment is a
    /// stretch of consecutive records).
    static func read(_ refs: [RecordRef], from reader: RecordReader) -> [Int: Row] {
        var result: [Int: Row] = [:]
        var plain: [Int] = []
        for ref in refs {
            if let offset = ref.offset {
                if let row = reader.record(ref.record, at: offset) { result[ref.record] = row }
            } else {
                plain.append(ref.record)
            }
        }
        plain.sort()
        var start = 0
        while start < plain.count {
            // A stretch: records no more than a few thousand apart.
            var end = start + 1
            while end < plain.count && plain[end] - plain[end - 1] < 4096 { end += 1 }
            let wanted = Set(plain[start..<end])
            let last = plain[end - 1]
            reader.forEachRecord(from: plain[start]) { number, row in
                if wanted.contains(number) { result[number] = row }
                return number < last
            }
            start = end
        }
        return result
    }

    /// The row shown for an aligned record: the marker, then each shown column's cell (the
    /// new value, the old one where only the old table has the column or the record, and
    /// `old→new` where it changed); and the shown columns (from 1) that changed. With
    /// `sides`, also the row as each side shows it side by side: the marker, then that
    /// side's values (nil for the side without the record).
    static func display(kind: UInt8, old: Row?, new: Row?, columns: DiffColumns, order: [Int],
                        sides: Bool = false, changedAsNew: Bool = false) -> (row: Row, changed: Set<Int>, old: Row?, new: Row?) {
        var bytes: [UInt8] = []
        var ends: [Int] = []
        var changed = Set<Int>()
        // Each side's row, when asked for and that side has the record.
        var sideBytes: [[UInt8]] = [[], []], sideEnds: [[Int]] = [[], []]
        let hasSide = [sides && kind != DiffEntries.added, sides && kind != DiffEntries.removed]
        let marker: String
        switch kind {
        case DiffEntries.added: marker = "+++"
        case DiffEntries.removed: marker = "---"
        case DiffEntries.changed: marker = "->"
        case DiffEntries.moved: marker = ":"
        case DiffEntries.filled: marker = "+"
        default: marker = ""
        }
        bytes.append(contentsOf: marker.utf8)
        ends.append(bytes.count)
        for side in 0..<2 where hasSide[side] {
            sideBytes[side].append(contentsOf: marker.utf8)
            sideEnds[side].append(sideBytes[side].count)
        }
        for (index, place) in order.enumerated() {
            let column = columns.columns[place]
            let oldCell = column.old.flatMap { old?.field($0) }
            let newCell = column.new.flatMap { new?.field($0) }
            if sides {
                for (side, cell) in [oldCell, newCell].enumerated() where hasSide[side] {
                    if let cell { sideBytes[side].append(contentsOf: cell) }
                    sideEnds[side].append(sideBytes[side].count)
                }
            }
            if kind == DiffEntries.changed, let oldCell, let newCell, let oldColumn = column.old, let newColumn = column.new,
               oldCell != newCell || old?.fullLength(ofCell: oldColumn) != new?.fullLength(ofCell: newColumn) {
                changed.insert(index + 1)
                if !changedAsNew {
                    bytes.append(contentsOf: oldCell)
                    bytes.append(contentsOf: "→".utf8)
                }
                bytes.append(contentsOf: newCell)
            } else if let cell = kind == DiffEntries.removed ? oldCell : newCell ?? oldCell {
                bytes.append(contentsOf: cell)
            }
            ends.append(bytes.count)
        }
        let sideRows = (0..<2).map { hasSide[$0] ? Row(bytes: sideBytes[$0], ends: sideEnds[$0]) : nil }
        return (Row(bytes: bytes, ends: ends), changed, sideRows[0], sideRows[1])
    }
}
