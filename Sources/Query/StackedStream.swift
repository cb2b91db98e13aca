import CellStore
import Table

/// Several inputs written as one table (see `StackedColumns`), made as the exporter asks
/// for rows: the header rows, then without a sort each input after the other (one open
/// at a time), with one each sorted by itself and merged, so memory holds a row per
/// input, not the rows.
package final class StackedStream: RowStream {
    private let parts: [StackedPart]
    private let columns: StackedColumns
    /// The table's columns written (nil: all).
    private let chosen: [Int]?
    /// The source column's name, when there is one: each record's first cell is its input's name.
    private let source: [UInt8]?
    private let headers: [[Row]]
    private let headerRows: Int
    private let sorts: Bool
    private let keys: [SortKey]
    /// Opens a part's input and starts its passes (`kinds`: the sort keys' kinds judged so far).
    private let start: (StackedPart, inout [ColumnKind?]) -> Void
    /// Ends the run with a message and an exit status (the rows before it written).
    private let halt: (String, Int32) -> Never
    private var kinds: [ColumnKind?]
    private var key: RowKey?
    /// The next row of each sorted input: the stack's one merge.
    private var heap = MinHeap<MergeEntry>()
    /// Inputs that broke off: the others' records are merged on, then the first is said.
    private var brokenOff: [String] = []
    /// The part being written (without a sort), and the next to start.
    private var current: StackedPart?
    private var nextPart = 0
    private var begun = false
    private var ended = false
    package private(set) var failure: String?

    package init(parts: [StackedPart], columns: StackedColumns, chosen: [Int]?, sourceColumn: String?, headers: [[Row]],
                 headerRows: Int, keys: [SortKey], start: @escaping (StackedPart, inout [ColumnKind?]) -> Void,
                 halt: @escaping (String, Int32) -> Never) {
        self.parts = parts
        self.columns = columns
        self.chosen = chosen
        source = sourceColumn.map { Array($0.utf8) }
        self.headers = headers
        self.headerRows = headerRows
        sorts = !keys.isEmpty
        self.start = start
        self.halt = halt
        kinds = [ColumnKind?](repeating: nil, count: keys.count)
        self.keys = keys
    }

    package func next(batch: Int) -> StreamedRows? {
        guard !ended else { return nil }
        guard begun else {
            begun = true
            return StreamedRows(rows: headerLines())
        }
        var rows: [Row] = []
        if sorts {
            if key == nil {
                // Each input sorted by itself, one at a time, then all merged.
                for part in parts {
                    start(part, &kinds)
                    part.waitForSort(halt: halt)
                }
                key = RowKey(keys: keys, kinds: kinds.map { $0 ?? .text })
                for part in parts { push(part) }
            }
            while rows.count < batch {
                guard let entry = heap.pop() else {
                    ended = true
                    failure = brokenOff.first
                    break
                }
                let part = parts[entry.part]
                guard let row = shape(entry.row, record: entry.record, of: part) else { break }
                rows.append(row)
                push(part)
            }
        } else {
            while rows.count < batch {
                guard let part = current ?? nextStarted() else {
                    ended = true
                    break
                }
                if let (row, record) = part.next() {
                    guard let shaped = shape(row, record: record, of: part) else { break }
                    rows.append(shaped)
                } else {
                    current = nil
                    if let why = part.finish() {
                        failure = why
                        ended = true
                        break
                    }
                }
            }
        }
        return rows.isEmpty && ended ? nil : StreamedRows(rows: rows)
    }

    /// The output stopped: the input being written is closed (and what stopped it said).
    package func stop() {
        if let why = current?.finish() { failure = why }
        current = nil
    }

    private func nextStarted() -> StackedPart? {
        guard nextPart < parts.count else { return nil }
        let part = parts[nextPart]
        nextPart += 1
        start(part, &kinds)
        current = part
        return part
    }

    private func push(_ part: StackedPart) {
        guard let (row, record) = part.next() else {
            if let why = part.finish() { brokenOff.append(why) }
            return
        }
        let made = key?.key { column in
            guard let row, let place = columns.column(column, in: part.index) else { return [] }
            return row.field(place)
        } ?? []
        heap.push(MergeEntry(key: made, part: part.index, row: row, record: record))
    }

    /// The header rows: the first input's, or the union's names and the further header
    /// rows of the first input that has them, in their columns. An input may have fewer
    /// header rows than asked (an empty file has none), so each row is looked for.
    private func headerLines() -> [Row] {
        var rows: [Row] = []
        for index in 0..<min(headerRows, headers.map(\.count).max() ?? 0) {
            let cell = source.map { index == 0 ? $0 : [] }
            if index == 0 && !columns.isPositional {
                rows.append(project(Row(cells: columns.names), sourceCell: cell, own: { $0 }))
            } else if let input = headers.firstIndex(where: { $0.count > index }) {
                rows.append(project(headers[input][index], sourceCell: cell, own: { columns.column($0, in: input) }))
            }
        }
        return rows
    }

    /// A record of part `part` as the table writes it; nil (with `failure`) when it cannot be.
    private func shape(_ row: Row?, record: Int, of part: StackedPart) -> Row? {
        let name = part.name
        // Named only for a message: a name per row would cost a string each.
        var place: String { RecordPlace.name(record, headerRows: part.headerRows) }
        var why: String?
        if let row {
            if row.omittedCells > 0 {
                why = "\(name): \(place) has more than \(RecordParser.Limits.fieldLimit) fields, the most a record read "
                    + "again may have; several inputs cannot be written as one with it"
            } else if row.isCut {
                why = "\(name): \(place) has a cell longer than the parser keeps; several inputs cannot be written as one with it"
            } else if !columns.isPositional {
                // A record may be shorter than its header (its missing cells are empty).
                let named = columns.headerCounts[part.index]
                if named < row.count, (named..<row.count).contains(where: { !row.field($0).isEmpty }) {
                    why = "\(name): \(place) has more cells than its header names, and the inputs' headers differ: "
                        + "its columns past the header have no name to be placed by (give the header names, or --no-header)"
                }
            }
        } else {
            why = "\(name): \(place) could not be read again"
        }
        guard let row, why == nil else {
            failure = why
            ended = true
            return nil
        }
        return project(row, sourceCell: source.map { _ in Array(part.name.utf8) }, own: { columns.column($0, in: part.index) })
    }

    /// A row as the table writes it: the input's name first, then its cells in the table's
    /// columns (`own` gives a column's place in the row, nil for none).
    private func project(_ row: Row, sourceCell: [UInt8]?, own: (Int) -> Int?) -> Row {
        var bytes: [UInt8] = []
        var ends: [Int] = []
        if let sourceCell {
            bytes.append(contentsOf: sourceCell)
            ends.append(bytes.count)
        }
        let shown = chosen ?? Array(0..<(columns.isPositional ? row.count : columns.names.count))
        for column in shown {
            if let place = own(column) { bytes.append(contentsOf: row.field(place)) }
            ends.append(bytes.count)
        }
        return Row(bytes: bytes, ends: ends)
    }
}

/// A sorted input's next row in the merge: smallest key first, ties the earlier input
/// first (as the inputs are stacked).
private struct MergeEntry: HeapOrdered {
    var key: [UInt8]
    var part: Int
    var row: Row?
    var record: Int

    func precedes(_ other: MergeEntry) -> Bool {
        let order = RowKey.compare(key, other.key)
        return order < 0 || (order == 0 && part < other.part)
    }
}
