import CellStore
import CSQLite

/// A scan of one table in progress: SQLite's cursor. It takes rows from a feed a batch at
/// a time and answers `xColumn` from the batch's typed cells.
final class TableCursor {
    let table: InputTable
    private var source: BatchSource?
    private var batch: RowBatch?
    /// What the per-row callbacks read, behind a pointer: a class's stored properties pay
    /// an exclusivity check on each access, and these are read once per cell.
    private let state: UnsafeMutablePointer<State>
    /// Per table column, its slot in the scan's rows (-1: not read).
    private var slots: UnsafeMutablePointer<Int32>

    struct State {
        var row = 0
        var count = 0
        var width = 0
        var cells: UnsafeMutablePointer<SQLCell>?
        var records: UnsafeMutablePointer<Int>?
        var text: UnsafeMutablePointer<UInt8>?
        var isAtEnd = true
        var firstRowid = 1
    }

    init(table: InputTable) {
        self.table = table
        state = .allocate(capacity: 1)
        state.initialize(to: State())
        state.pointee.firstRowid = 1 - table.input.headerRows
        slots = .allocate(capacity: max(1, table.input.columns.count))
        slots.initialize(repeating: -1, count: max(1, table.input.columns.count))
    }

    deinit {
        source = nil
        state.deallocate()
        slots.deallocate()
    }

    var isAtEnd: Bool { state.pointee.isAtEnd }

    /// Starts a scan as `planText` says, with the constraints' values `arguments`.
    func filter(planText: String, arguments: [OpaquePointer?]) throws(SQLError) {
        source = nil   // a scan still running stops first
        batch = nil
        guard let plan = ScanPlan(text: planText) else { throw .engine("unknown scan plan '\(planText)'") }
        let input = table.input
        var request = ScanRequest(columns: plan.columns.filter { $0 < input.columns.count }, types: table.types,
                                  records: input.headerRows..<Int.max, headerRows: input.headerRows)
        request.pieceBytes = table.settings.pieceBytes
        for column in 0..<input.columns.count { slots[column] = -1 }
        for (slot, column) in request.columns.enumerated() { slots[column] = Int32(slot) }
        var literals: [(bytes: [UInt8], ignoresCase: Bool)] = []
        let quote = input.dialect.quote
        var lookupKeys: [[UInt8]] = []
        var lookupColumn: Int?
        for (index, constraint) in plan.constraints.enumerated() {
            guard index < arguments.count, let value = arguments[index] else { continue }
            switch constraint {
            case .rowid(let comparison):
                request.records = narrowed(request.records, comparison, value)
            case .equal(let column):
                guard let slot = request.slot(of: column) else { continue }
                if sqlite3_value_type(value) == SQLITE_NULL {
                    request.records = request.records.lowerBound..<request.records.lowerBound   // = NULL is never true
                    continue
                }
                // As SQLite compares them: a number column's affinity makes a text that reads
                // as a number one; a text column's makes a number text (left to SQLite: the
                // number's text is SQLite's to write).
                let compared = request.isNumber[slot] ? Self.numeric(value) : (value: value, copy: nil)
                switch sqlite3_value_type(compared.value) {
                case SQLITE_TEXT:
                    let text = Self.bytes(of: compared.value)
                    request.check.equalTexts.append((slot, text))
                    if let literal = RowCheck.literal(ofText: text, quote: quote) { literals.append((literal, false)) }
                case SQLITE_INTEGER where request.isNumber[slot]:
                    let number = sqlite3_value_int64(compared.value)
                    request.check.equalNumbers.append((slot, SQLCell(bits: UInt64(bitPattern: number), length: 0, kind: .integer)))
                case SQLITE_FLOAT where request.isNumber[slot]:
                    let number = sqlite3_value_double(compared.value)
                    request.check.equalNumbers.append((slot, SQLCell(bits: number.bitPattern, length: 0, kind: .real)))
                default:
                    break
                }
                sqlite3_value_free(compared.copy)
            case .like(let column), .glob(let column):
                guard let slot = request.slot(of: column), sqlite3_value_type(value) == SQLITE_TEXT else { continue }
                let isGlob = constraint == .glob(column)
                if let literal = RowCheck.literal(ofPattern: Self.bytes(of: value), isGlob: isGlob, quote: quote,
                                                  isNumber: request.isNumber[slot]) {
                    request.check.contains.append((slot, literal, !isGlob))
                    literals.append((literal, !isGlob))
                }
            case .lookup(let column):
                lookupColumn = column
                lookupKeys = Self.lookupKeys(for: value)
            case .lookupAll(let column):
                lookupColumn = column
                var item: OpaquePointer?
                var status = sqlite3_vtab_in_first(value, &item)
                while status == SQLITE_OK, let found = item {
                    lookupKeys += Self.lookupKeys(for: found)
                    status = sqlite3_vtab_in_next(value, &item)
                }
                guard status == SQLITE_DONE || status == SQLITE_OK else { throw .engine("cannot read the values of IN") }
            }
        }
        if let longest = literals.max(by: { $0.bytes.count < $1.bytes.count }) {
            request.check.literal = longest.bytes
            request.check.ignoresCase = longest.ignoresCase
        }
        for (index, column) in plan.groups.enumerated() {
            guard let slot = request.slot(of: column) else { continue }
            request.groupSlots.append(slot)
            request.groupDescending.append(index < plan.descending.count && plan.descending[index])
        }
        let settings = table.settings
        guard let scan = input.scan else { throw .engine("\(input.name): not readable") }
        if let lookupColumn {
            let index = try table.lookup(lookupColumn)
            source = try LookupSource(input: input, request: request, index: index, keys: lookupKeys)
        } else if !request.groupSlots.isEmpty {
            source = GroupFeed(input: scan, readers: input.readers, request: request, workers: settings.workers,
                               budget: settings.grouping, control: table.control)
        } else {
            source = RowFeed(input: scan, readers: input.readers, request: request, workers: settings.workers, control: table.control)
        }
        state.pointee.isAtEnd = false
        try nextBatch()
    }

    /// The records `range` narrowed by `rowid comparison value` (rowid 1 is the first data
    /// record); a value that is no number leaves it (SQLite checks every row again).
    private func narrowed(_ range: Range<Int>, _ comparison: ScanPlan.Comparison, _ value: OpaquePointer) -> Range<Int> {
        let type = sqlite3_value_numeric_type(value)
        guard type == SQLITE_INTEGER || type == SQLITE_FLOAT else { return range }
        let number = type == SQLITE_INTEGER ? Double(sqlite3_value_int64(value)) : sqlite3_value_double(value)
        let offset = Double(table.input.headerRows - 1)
        func record(_ rowid: Double) -> Int { Int(max(-1e15, min(1e15, rowid + offset))) }
        var low = range.lowerBound, high = range.upperBound
        switch comparison {
        case .equal:
            guard number == number.rounded() else { return low..<low }
            low = max(low, record(number))
            high = min(high, record(number) + 1)
        case .greater: low = max(low, record(number.rounded(.down) + 1))
        case .greaterOrEqual: low = max(low, record(number.rounded(.up)))
        case .less: high = min(high, record(number.rounded(.up) - 1) + 1)
        case .lessOrEqual: high = min(high, record(number.rounded(.down)) + 1)
        }
        return low..<max(low, high)
    }

    static func bytes(of value: OpaquePointer) -> [UInt8] {
        guard let text = sqlite3_value_text(value) else { return [] }
        return Array(UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value))))
    }

    /// `value` with numeric affinity, as SQLite compares it with a number column: a text
    /// that SQLite reads as a number becomes one (on a copy, freed by the caller; the
    /// argument stays as SQLite gave it).
    static func numeric(_ value: OpaquePointer) -> (value: OpaquePointer, copy: OpaquePointer?) {
        guard sqlite3_value_type(value) == SQLITE_TEXT, let copy = sqlite3_value_dup(value) else { return (value, nil) }
        _ = sqlite3_value_numeric_type(copy)
        return (copy, copy)
    }

    /// The keys a lookup of `value` tries (see `LookupIndex.key(ofCell:type:)`): its own,
    /// and the forms an affinity may compare it in: a text read as a number (SQLite's
    /// reading and the index's), and a number's text as SQLite writes it, read as the
    /// index reads a text column's cells.
    static func lookupKeys(for value: OpaquePointer) -> [[UInt8]] {
        var keys: [[UInt8]] = []
        let none = UnsafeRawBufferPointer(start: nil, count: 0)
        func add(_ kind: SQLKind, _ bits: UInt64, _ text: UnsafeRawBufferPointer) {
            if let key = LookupIndex.key(kind: kind, bits: bits, text: text), !keys.contains(key) { keys.append(key) }
        }
        func addLoose(_ text: [UInt8]) {
            text.withUnsafeBytes { raw in
                if let (kind, bits) = SQLTyping.looseNumber(raw) { add(kind, bits, none) }
            }
        }
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER:
            add(.integer, UInt64(bitPattern: sqlite3_value_int64(value)), none)
            if let copy = sqlite3_value_dup(value) {
                addLoose(bytes(of: copy))   // its text (sqlite3_value_text converts the copy)
                sqlite3_value_free(copy)
            }
        case SQLITE_FLOAT:
            add(.real, sqlite3_value_double(value).bitPattern, none)
            if let copy = sqlite3_value_dup(value) {
                addLoose(bytes(of: copy))
                sqlite3_value_free(copy)
            }
        case SQLITE_TEXT:
            let text = bytes(of: value)
            text.withUnsafeBytes { add(.text, 0, $0) }
            addLoose(text)
            let (converted, copy) = numeric(value)
            switch sqlite3_value_type(converted) {
            case SQLITE_INTEGER: add(.integer, UInt64(bitPattern: sqlite3_value_int64(converted)), none)
            case SQLITE_FLOAT: add(.real, sqlite3_value_double(converted).bitPattern, none)
            default: break
            }
            sqlite3_value_free(copy)
        default:
            break
        }
        return keys
    }

    /// Moves to the next row.
    @inline(__always)
    func next() throws(SQLError) {
        let state = self.state
        state.pointee.row += 1
        if state.pointee.row < state.pointee.count { return }
        try nextBatch()
    }

    private func nextBatch() throws(SQLError) {
        while true {
            guard let source, let batch = try source.next() else {
                self.batch = nil
                state.pointee = State(isAtEnd: true, firstRowid: state.pointee.firstRowid)
                return
            }
            guard batch.count > 0 else { continue }
            self.batch = batch
            state.pointee.row = 0
            state.pointee.count = batch.count
            state.pointee.width = batch.width
            state.pointee.cells = batch.cells
            state.pointee.records = batch.records
            state.pointee.text = batch.text
            state.pointee.isAtEnd = false
            return
        }
    }

    /// Gives SQLite the value of column `column` in the current row.
    @inline(__always)
    func column(_ column: Int32, context: OpaquePointer?) {
        let state = self.state.pointee
        let slot = column >= 0 && Int(column) < table.input.columns.count ? Int(slots[Int(column)]) : -1
        guard slot >= 0, let cells = state.cells, state.row < state.count else {
            sqlite3_result_null(context)
            return
        }
        let cell = cells[state.row * state.width + slot]
        switch cell.kind {
        case .null: sqlite3_result_null(context)
        case .integer: sqlite3_result_int64(context, cell.integer)
        case .real: sqlite3_result_double(context, cell.real)
        case .text: cf_sql_result_text(context, state.text.map { $0 + Int(cell.bits) }, cell.length)
        }
    }

    /// The current row's rowid: its data record's number from 1.
    var rowid: Int64 {
        let state = self.state.pointee
        guard let records = state.records, state.row < state.count else { return 0 }
        return Int64(records[state.row] + state.firstRowid)
    }
}

/// The rows a column's index finds for a value.
final class LookupSource: BatchSource {
    private var batch: RowBatch?

    init(input: SQLInput, request: ScanRequest, index: LookupIndex, keys: [[UInt8]]) throws(SQLError) {
        var places: [(record: Int, offset: Int64)] = []
        for key in keys { key.withUnsafeBytes { places += index.records(forKey: $0) } }
        places.sort { $0.record < $1.record }
        var sink = BatchSink(request: request)
        var last = -1
        guard let scan = input.scan else { throw .engine("\(input.name): not readable") }
        let fields = RecordFields(input: scan, request: request, bufferSize: 16)
        for place in places where place.record != last && request.records.contains(place.record) {
            last = place.record
            guard let row = scan.reader.record(place.record, at: place.offset >= 0 ? place.offset : nil) else { continue }
            fields.deliverParsed(row, record: place.record, into: &sink)
            if let failure = fields.failure { throw failure }
        }
        let batches = sink.finish()
        batch = batches.count == 1 ? batches[0] : Self.joined(batches, width: request.columns.count)
    }

    func next() throws(SQLError) -> RowBatch? {
        defer { batch = nil }
        return batch
    }

    /// One batch holding the rows of `batches` (a value found in many rows).
    static func joined(_ batches: [RowBatch], width: Int) -> RowBatch? {
        guard !batches.isEmpty else { return nil }
        let all = RowBatch(width: width, capacity: batches.reduce(0) { $0 + $1.count })
        for batch in batches {
            for row in 0..<batch.count {
                let cells = all.appendRow(record: batch.records[row])
                for slot in 0..<width {
                    var cell = batch.cells[row * width + slot]
                    if cell.kind == .text { cell.bits = UInt64(all.storeText(batch.bytes(of: cell))) }
                    cells[slot] = cell
                }
            }
        }
        return all
    }
}
