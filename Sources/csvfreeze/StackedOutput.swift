#if canImport(Glibc)
import Glibc
#endif
import App
import CellStore
import Dispatch
import Export
import Query
import Scan
import Table
import Viewer

/// Several inputs written as one table, one after another, as `csvstack` does: one
/// header, a first column naming each record's input, and where the headers differ, the
/// union of their columns by name (first seen first) with empty cells where an input
/// lacks one. `--filter`, `--sort` and `--columns` name the columns of that one table.
///
/// Each input is read through its own store and the viewer's query engine, as one input
/// is with `--filter`: without a sort, one input is open at a time; with one, each input
/// is sorted by itself (its sort spills to temporary files past its budget) and the
/// sorted inputs are merged, so memory holds one row per input, not the rows.
enum StackedOutput {
    /// What the command line asks of the output.
    struct Settings {
        var request: OutputRequest
        var query: QueryOptions
        /// The name of the column naming each record's input; nil leaves it out.
        var sourceColumn: String?
    }

    /// The columns of the one table written.
    struct Columns {
        /// True when every input has the same header rows: columns go by position.
        var isPositional: Bool
        /// The columns' names (by union, in first-seen order; by position, the first
        /// input's header's unique names).
        var names: [String]
        /// For each input, each column's place in that input (nil where it has none);
        /// empty when positional.
        var maps: [[Int?]]
        /// For each input, the cells of its first header row.
        var headerCounts: [Int]

        /// The columns made from each input's header rows (`headers[i]`, none without
        /// header rows).
        init(headers: [[Row]], headerRows: Int) {
            headerCounts = headers.map { $0.first?.count ?? 0 }
            isPositional = headerRows == 0 || headers.allSatisfy { $0 == headers[0] }
            guard !isPositional else {
                names = ColumnNames(header: headers.first?.first).names(count: headerCounts.first ?? 0)
                maps = []
                return
            }
            var union: [String] = []
            var place: [String: Int] = [:]
            var maps: [[Int?]] = []
            let inputNames = headers.map { ColumnNames(header: $0.first).names(count: $0.first?.count ?? 0) }
            for names in inputNames {
                for name in names where place[name] == nil {
                    place[name] = union.count
                    union.append(name)
                }
            }
            for names in inputNames {
                var map = [Int?](repeating: nil, count: union.count)
                for (column, name) in names.enumerated() { if let index = place[name] { map[index] = column } }
                maps.append(map)
            }
            self.names = union
            self.maps = maps
        }

        /// A column with the source column's name: the input it is in, if known.
        struct Clash { var input: Int? }

        /// The clash of `source`, the name of the column naming each record's input, with
        /// the columns `written` (their `names`, and the header cells written for them): the
        /// input whose column has the name (nil without a header). Nil when none,
        /// so no name is taken twice or made again (`a,a`'s second column is `a_2`: that
        /// name clashes too). Without a header, the columns are `column N`, every N unless
        /// columns are `chosen`.
        func clash(of source: String, with written: [Int], names: ColumnNames, headers: [[Row]], headerRows: Int,
                   chosen: Bool) -> Clash? {
            guard headerRows > 0 else {
                let number = source.hasPrefix("column ") ? Int(source.dropFirst(7)) : nil
                guard let number, number >= 1, source == ColumnNames.numbered(number - 1),
                      !chosen || written.contains(number - 1) else { return nil }
                return Clash(input: nil)
            }
            /// The input whose header names column `column` `name`.
            func owner(of column: Int, named name: String) -> Int? {
                if isPositional { return 0 }
                return headers.indices.first { input in
                    guard let place = maps[input][column], let header = headers[input].first, place < header.count else { return false }
                    return String(decoding: header.field(place), as: UTF8.self) == name
                } ?? headers.indices.first { maps[$0][column] != nil }
            }
            for column in written {
                if names[column] == source { return Clash(input: owner(of: column, named: source)) }
                // The cell written may repeat an earlier one's text (its name made from it).
                if isPositional, let header = headers.first?.first, column < header.count,
                   String(decoding: header.field(column), as: UTF8.self) == source {
                    return Clash(input: 0)
                }
            }
            return nil
        }

        /// Input `input`'s column for column `column` of the table written, nil where it
        /// has none.
        func column(_ column: Int, in input: Int) -> Int? {
            isPositional ? column : maps[input][column]
        }
    }

    /// Writes `inputs` as one table on stdout; returns the exit status.
    static func write(inputs: [TableInput], settings: Settings) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let headerRows = settings.request.headerRows
        let sorts = !settings.query.sorts.isEmpty
        /// The output once begun: what it holds is written before an error ends the run
        /// (the records before a bad one are not lost).
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
        let columns = Columns(headers: headers, headerRows: headerRows)
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
            Part(input: inputs[index], index: index, columns: columns, resolved: resolved, headerRows: headerRows)
        }
        /// Writes one record of part `part`; false once the output is closed.
        func emit(_ row: Row?, record: Int, of part: Part) -> Bool {
            let name = part.input.name
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
            let cell = source.map { _ in Array(part.input.name.utf8) }
            return writer.write(project(row, sourceCell: cell, own: { columns.column($0, in: part.index) }))
        }
        func start(_ part: Part, kinds: inout [ColumnKind?]) {
            let store = open(part.input)
            part.start(store: store, kinds: &kinds, halt: halt) { wanted in waitFor(rows: wanted, in: store, of: part.input) }
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
            var heap = MergeHeap()
            /// Inputs that broke off: the others' records are merged on, then the first is said.
            var brokenOff: [String] = []
            func push(_ part: Part) {
                guard let (row, record) = part.next() else {
                    if let why = part.finish() { brokenOff.append(why) }
                    return
                }
                let made = key.key { column in
                    guard let row, let place = columns.column(column, in: part.index) else { return [] }
                    return row.field(place)
                }
                heap.push(MergeHeap.Entry(key: made, part: part.index, row: row, record: record))
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

/// One input of several being written: its store, and the filters and sort keys in its
/// own columns.
final class Part {
    let input: TableInput
    /// Its place among the inputs.
    let index: Int
    /// The filters in this input's columns; nil when no record of it can be kept (a
    /// filter on a column it lacks whose pattern an empty cell does not meet).
    let filters: [RecordFilter]?
    /// The sort keys in this input's columns, each with its place among the table's keys;
    /// a key on a column it lacks is left out (empty in every record, it orders nothing).
    let keys: [(key: SortKey, place: Int)]
    let headerRows: Int
    private var store: CellStore?
    private var view: TableView?
    private var sorted: SortedRecords?
    private var filtered: FilteredRecords?
    /// The next view row to read, and the rows read ahead of it.
    private var position = 0
    private var ahead: [(row: Row?, record: Int)] = []
    private var taken = 0

    /// Rows read from the store at a time.
    static let batch = 256

    init(input: TableInput, index: Int, columns: StackedOutput.Columns, resolved: QueryOptions.Resolved, headerRows: Int) {
        self.input = input
        self.index = index
        self.headerRows = headerRows
        var filters: [RecordFilter]? = []
        for filter in resolved.filters {
            guard let column = filter.column else {
                filters?.append(filter)
                continue
            }
            if let own = columns.column(column, in: index) {
                filters?.append(RecordFilter(pattern: filter.pattern, column: own, inverted: filter.inverted))
                continue
            }
            // Every record's cell there is empty: the filter holds for all or for none.
            let matchesEmpty = (try? SearchPattern(text: filter.pattern).compile()).map { PatternMatcher($0).matches([]) } ?? false
            if matchesEmpty == filter.inverted { filters = nil }
        }
        self.filters = filters
        keys = resolved.keys.enumerated().compactMap { place, key in
            columns.column(key.column, in: index).map { (SortKey(column: $0, descending: key.descending), place) }
        }
    }

    /// Starts reading `store`: its filters and sort run. `kinds` are the table's sort
    /// keys' kinds: those not judged yet are judged here (this is the first input with
    /// the column), so every input's keys compare alike. `waitForRows` waits until the
    /// store has that many records or is complete.
    func start(store: CellStore, kinds: inout [ColumnKind?], halt: (String, Int32) -> Never, waitForRows: (Int) -> Void) {
        self.store = store
        guard let filters else { return }
        if !keys.isEmpty {
            waitForRows(headerRows + ColumnKind.reach)
            for (key, place) in keys where kinds[place] == nil {
                kinds[place] = ColumnKind.judge(column: key.column, in: store, headerRows: headerRows)
            }
            sorted = SortedRecords.start(store: store, headerRows: headerRows, keys: keys.map(\.key),
                                         kinds: keys.map { kinds[$0.place] ?? .text })
        }
        if !filters.isEmpty {
            do {
                filtered = try FilteredRecords.start(store: store, headerRows: headerRows, filters: filters, over: sorted)
            } catch {
                halt(error.description, 2)
            }
        }
        let view = TableView(source: store, headerRows: headerRows)
        view.show(rows: filtered ?? sorted)
        self.view = view
    }

    /// Waits for the sort to end (its runs written; the merge is read as it is made).
    func waitForSort(halt: (String, Int32) -> Never) {
        sorted?.wait()
        if case .failed(let why) = sorted?.phase { halt("\(input.name): \(why)", 1) }
    }

    /// The next record kept, in order (its row, nil if it could not be read again, and its
    /// number), waiting for it as the passes find it; nil after the last.
    func next() -> (row: Row?, record: Int)? {
        if taken < ahead.count {
            taken += 1
            return ahead[taken - 1]
        }
        guard let store, let view else { return nil }
        // The view's passes publish on their sequence's signal as rows come; rows in the
        // file's order come with the index.
        let news = view.rows?.changes ?? store.progressSignal
        while true {
            // Read before looking: news after the look moves it on, and the wait returns.
            let version = news.version
            let complete = view.rows?.isComplete ?? store.isComplete
            let available = view.dataRowCount
            if position < available {
                let batch = position..<min(available, position + Part.batch)
                view.fetch(rows: [batch])
                ahead = batch.map { (view.row($0), view.record(ofRow: $0)) }
                position = batch.upperBound
                taken = 1
                return ahead[0]
            }
            if complete { return nil }
            news.wait(past: version)
        }
    }

    /// Closes the input; returns why it stopped early, if it did.
    func finish() -> String? {
        defer { close() }
        if let why = filtered?.failure { return "\(input.name): \(why)" }
        if let failure = store?.progress.failure { return "\(input.name): \(failure)" }
        return nil
    }

    private func close() {
        store?.stopLoading()
        view = nil
        filtered = nil
        sorted = nil
        store = nil
        ahead = []
    }
}

/// The next row of each sorted input, smallest key first (ties: the earlier input first,
/// as the inputs are stacked).
struct MergeHeap {
    struct Entry: HeapOrdered {
        var key: [UInt8]
        var part: Int
        var row: Row?
        var record: Int

        func precedes(_ other: Entry) -> Bool {
            let order = RowKey.compare(key, other.key)
            return order < 0 || (order == 0 && part < other.part)
        }
    }

    private var heap = MinHeap<Entry>()

    mutating func push(_ entry: Entry) { heap.push(entry) }

    mutating func pop() -> Entry? { heap.pop() }
}
