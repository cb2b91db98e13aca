import CellStore
import Scan
import Table

/// The columns of several inputs written as one table (`--output` over several inputs, as
/// csvstack writes them): by position when their headers are the same, else the union of
/// their columns by name, first seen first.
package struct StackedColumns: Sendable {
    /// True when every input has the same header rows: columns go by position.
    package var isPositional: Bool
    /// The columns' names (by union, in first-seen order; by position, the first
    /// input's header's unique names).
    package var names: [String]
    /// For each input, each column's place in that input (nil where it has none);
    /// empty when positional.
    package var maps: [[Int?]]
    /// For each input, the cells of its first header row.
    package var headerCounts: [Int]

    /// The columns made from each input's header rows (`headers[i]`, none without
    /// header rows).
    package init(headers: [[Row]], headerRows: Int) {
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
    package struct Clash { package var input: Int? }

    /// The clash of `source`, the name of the column naming each record's input, with
    /// the columns `written` (their `names`, and the header cells written for them): the
    /// input whose column has the name (nil without a header). Nil when none,
    /// so no name is taken twice or made again (`a,a`'s second column is `a_2`: that
    /// name clashes too). Without a header, the columns are `column N`, every N unless
    /// columns are `chosen`.
    package func clash(of source: String, with written: [Int], names: ColumnNames, headers: [[Row]], headerRows: Int,
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
    package func column(_ column: Int, in input: Int) -> Int? {
        isPositional ? column : maps[input][column]
    }
}

/// One input of several being written: its store, and the filters and sort keys in its
/// own columns.
package final class StackedPart {
    /// The input's name, for messages.
    package let name: String
    /// Its place among the inputs.
    package let index: Int
    /// The filters in this input's columns; nil when no record of it can be kept (a
    /// filter on a column it lacks whose pattern an empty cell does not meet).
    package let filters: [RecordFilter]?
    /// The sort keys in this input's columns, each with its place among the table's keys;
    /// a key on a column it lacks is left out (empty in every record, it orders nothing).
    package let keys: [(key: SortKey, place: Int)]
    package let headerRows: Int
    private var store: CellStore?
    private var view: TableView?
    private var sorted: SortedRecords?
    private var filtered: FilteredRecords?
    /// The next view row to read, and the rows read ahead of it.
    private var position = 0
    private var ahead: [(row: Row?, record: Int)] = []
    private var taken = 0

    /// Rows read from the store at a time.
    package static let batch = 256

    /// Input `index` of those `columns` were made from, named `name`: `filters` and sort
    /// `keys` name the table's columns, and are put in the input's own.
    package init(name: String, index: Int, columns: StackedColumns, filters tableFilters: [RecordFilter], keys tableKeys: [SortKey],
                 headerRows: Int) {
        self.name = name
        self.index = index
        self.headerRows = headerRows
        var filters: [RecordFilter]? = []
        for filter in tableFilters {
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
        keys = tableKeys.enumerated().compactMap { place, key in
            columns.column(key.column, in: index).map { (SortKey(column: $0, descending: key.descending), place) }
        }
    }

    /// Starts reading `store`: its filters and sort run. `kinds` are the table's sort
    /// keys' kinds: those not judged yet are judged here (this is the first input with
    /// the column), so every input's keys compare alike. `waitForRows` waits until the
    /// store has that many records or is complete.
    package func start(store: CellStore, kinds: inout [ColumnKind?], halt: (String, Int32) -> Never, waitForRows: (Int) -> Void) {
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
    package func waitForSort(halt: (String, Int32) -> Never) {
        sorted?.wait()
        if case .failed(let why) = sorted?.phase { halt("\(name): \(why)", 1) }
    }

    /// The next record kept, in order (its row, nil if it could not be read again, and its
    /// number), waiting for it as the passes find it; nil after the last.
    package func next() -> (row: Row?, record: Int)? {
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
                let batch = position..<min(available, position + StackedPart.batch)
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
    package func finish() -> String? {
        defer { close() }
        if let why = filtered?.failure { return "\(name): \(why)" }
        if let failure = store?.progress.failure { return "\(name): \(failure)" }
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
