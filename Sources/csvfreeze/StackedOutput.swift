#if canImport(Glibc)
import Glibc
#endif
import App
import CellStore
import Export
import Query
import Table

/// Several inputs written as one table, one after another, as `csvstack` does: one
/// header, a first column naming each record's input, and where the headers differ, the
/// union of their columns by name (first seen first) with empty cells where an input
/// lacks one. `--filter`, `--sort` and `--columns` name the columns of that one table.
///
/// Each input is read through its own store and the query engine (`StackedPart`): without
/// a sort one input is open at a time; with one, each is sorted by itself (spilling past
/// its budget) and they are merged, so memory holds a row per input, not the rows.
enum StackedOutput {
    /// What the command line asks of the output.
    struct Settings {
        var request: OutputRequest
        var query: QueryOptions
        /// The name of the column naming each record's input; nil leaves it out.
        var sourceColumn: String?
    }

    /// Writes `inputs` as one table on stdout; returns the exit status.
    static func write(inputs: [TableInput], settings: Settings) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let headerRows = settings.request.headerRows
        let sorts = !settings.query.sorts.isEmpty
        /// The output once begun: written out before an error ends the run (no record lost).
        var begun: OutputWriter?
        func halt(_ message: String, status: Int32) -> Never {
            begun?.finish()
            fail(message, status: status)
        }
        func open(_ input: TableInput) -> CellStore {
            do {
                return try settings.request.reading.open(input, readsAtRandom: sorts)
            } catch {
                halt(error.description, status: 1)
            }
        }
        func waitFor(rows wanted: Int, in store: CellStore, of input: TableInput) {
            store.waitForIndex { store.rowCount >= max(1, wanted) }
            if let failure = store.progress.failure, store.rowCount == 0 { halt("\(input.name): \(failure)", status: 1) }
        }

        // Every input's header first, to know the columns; each is closed again (what is
        // read once is read again from its spool: see `SharedStream`).
        var headers: [[Row]] = []
        var widest = 0
        var lineEnding: [UInt8]?
        for input in inputs {
            let store = open(input)
            waitFor(rows: headerRows, in: store, of: input)
            headers.append((0..<min(headerRows, store.rowCount)).compactMap { store.row($0) })
            widest = max(widest, store.columnCount)
            if lineEnding == nil { lineEnding = store.dialect?.lineEnding }
            noteStart(in: store.dialect, of: input.name)
            store.stopLoading()
        }
        let columns = StackedColumns(headers: headers, headerRows: headerRows)
        let names = columns.isPositional ? ColumnNames(header: headers.first?.first) : ColumnNames(columns.names)
        let resolved: QueryOptions.Resolved
        do {
            resolved = try settings.query.resolve(names: names,
                                                  columnCount: columns.isPositional ? max(widest, columns.names.count) : columns.names.count)
        } catch {
            fail(error.description, status: 2)
        }

        let sourceKey = settings.sourceColumn.map { [$0] } ?? []
        // The columns written, and the names the table gives them.
        let written = resolved.columns ?? Array(0..<(columns.isPositional ? max(widest, columns.names.count) : columns.names.count))
        if let sourceName = settings.sourceColumn,
           let clash = columns.clash(of: sourceName, with: written, names: names, headers: headers, headerRows: headerRows,
                                     chosen: resolved.columns != nil) {
            let owner = clash.input.map { " of \(inputs[$0].name)" } ?? ""
            fail("'\(sourceName)', the name of the column naming each record's input, is also a column\(owner): "
                 + "--source-column NAME picks another, --no-source-column leaves it out", status: 2)
        }
        // JSON lines key each column by the name the table gives it, the source column by
        // its own (the header row written, the source cell first, would name them again);
        // without a header, the input's columns are `column N` by their place in the input.
        let chosenKeys = resolved.columns?.map { headerRows == 0 ? ColumnNames.numbered($0) : names[$0] }
        let keys: [String]?
        if headerRows == 0 {
            keys = !(sourceKey + (chosenKeys ?? [])).isEmpty ? sourceKey + (chosenKeys ?? []) : nil
        } else {
            keys = sourceKey.isEmpty && chosenKeys == nil ? nil : sourceKey + (chosenKeys ?? written.map { names[$0] })
        }
        let writer = OutputWriter(format: settings.request.format, lineEnding: lineEnding ?? [0x0A], headerRows: headerRows,
                                  maximumWidth: settings.request.maximumWidth, keys: keys, keysLead: sourceKey.count,
                                  sink: Output.writeToStandardOutput)
        begun = writer
        let source = settings.sourceColumn.map { Array($0.utf8) }
        /// A row as the table writes it: the input's name first, then its cells in the
        /// table's columns (`own` gives a column's place in the row, nil for none).
        func project(_ row: Row, sourceCell: [UInt8]?, own: (Int) -> Int?) -> Row {
            var bytes: [UInt8] = []
            var ends: [Int] = []
            if let sourceCell {
                bytes.append(contentsOf: sourceCell)
                ends.append(bytes.count)
            }
            let shown = resolved.columns ?? Array(0..<(columns.isPositional ? row.count : columns.names.count))
            for column in shown {
                if let place = own(column) { bytes.append(contentsOf: row.field(place)) }
                ends.append(bytes.count)
            }
            return Row(bytes: bytes, ends: ends)
        }

        // The header rows: the first input's, or the union's names and the further header
        // rows of the first input that has them, in their columns. An input may have fewer
        // header rows than asked (an empty file has none), so each row is looked for.
        for index in 0..<min(headerRows, headers.map(\.count).max() ?? 0) where writer.isOpen {
            let cell = source.map { index == 0 ? $0 : [] }
            if index == 0 && !columns.isPositional {
                _ = writer.write(project(Row(cells: columns.names), sourceCell: cell, own: { $0 }))
            } else if let input = headers.firstIndex(where: { $0.count > index }) {
                _ = writer.write(project(headers[input][index], sourceCell: cell, own: { columns.column($0, in: input) }))
            }
        }

        let parts = inputs.indices.map { index in
            StackedPart(name: inputs[index].name, index: index, columns: columns, filters: resolved.filters, keys: resolved.keys,
                        headerRows: headerRows)
        }
        /// Writes one record of part `part`; false once the output is closed.
        func emit(_ row: Row?, record: Int, of part: StackedPart) -> Bool {
            let name = part.name
            guard let row else { halt("\(name): \(RecordPlace.name(record, headerRows: part.headerRows)) could not be read again", status: 1) }
            if row.omittedCells > 0 {
                halt("\(name): \(RecordPlace.name(record, headerRows: part.headerRows)) has more than \(RecordParser.Limits.fieldLimit) fields, the most a record read "
                     + "again may have; several inputs cannot be written as one with it", status: 1)
            }
            if row.isCut { halt("\(name): \(RecordPlace.name(record, headerRows: part.headerRows)) has a cell longer than the parser keeps; several inputs cannot be written as one with it", status: 1) }
            if !columns.isPositional {
                // A record may be shorter than its header (its missing cells are empty).
                let named = columns.headerCounts[part.index]
                if named < row.count, (named..<row.count).contains(where: { !row.field($0).isEmpty }) {
                    halt("\(name): \(RecordPlace.name(record, headerRows: part.headerRows)) has more cells than its header names, and the inputs' headers differ: "
                         + "its columns past the header have no name to be placed by (give the header names, or --no-header)", status: 1)
                }
            }
            let cell = source.map { _ in Array(part.name.utf8) }
            return writer.write(project(row, sourceCell: cell, own: { columns.column($0, in: part.index) }))
        }
        func start(_ part: StackedPart, kinds: inout [ColumnKind?]) {
            let store = open(inputs[part.index])
            part.start(store: store, kinds: &kinds, halt: halt) { wanted in waitFor(rows: wanted, in: store, of: inputs[part.index]) }
        }
        var kinds = [ColumnKind?](repeating: nil, count: resolved.keys.count)
        if resolved.keys.isEmpty {
            // One input after another, each closed when written.
            for part in parts where writer.isOpen {
                start(part, kinds: &kinds)
                while writer.isOpen, let (row, record) = part.next() {
                    if !emit(row, record: record, of: part) { break }
                }
                if let why = part.finish() { halt(why, status: 1) }
            }
        } else {
            // Each input sorted by itself, one at a time, then all merged.
            for part in parts {
                start(part, kinds: &kinds)
                part.waitForSort(halt: halt)
            }
            var key = RowKey(keys: resolved.keys, kinds: kinds.map { $0 ?? .text })
            var heap = StackMergeHeap()
            /// Inputs that broke off: the others' records are merged on, then the first is said.
            var brokenOff: [String] = []
            func push(_ part: StackedPart) {
                guard let (row, record) = part.next() else {
                    if let why = part.finish() { brokenOff.append(why) }
                    return
                }
                let made = key.key { column in
                    guard let row, let place = columns.column(column, in: part.index) else { return [] }
                    return row.field(place)
                }
                heap.push(StackMergeHeap.Entry(key: made, part: part.index, row: row, record: record))
            }
            for part in parts { push(part) }
            while writer.isOpen, let entry = heap.pop() {
                let part = parts[entry.part]
                if !emit(entry.row, record: entry.record, of: part) { break }
                push(part)
            }
            if writer.isOpen, let why = brokenOff.first { halt(why, status: 1) }
        }
        writer.finish()
        Output.checkStandardOutput()
        return 0
    }
}

