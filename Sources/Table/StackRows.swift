import CellStore

/// What a stacked view needs of the tables it stacks; the event loop's container gives it.
///
/// Tables are opened only when their rows are wanted, so a stack over a thousand files
/// holds what is on screen, not a thousand stores.
package protocol StackSections: AnyObject {
    /// Tables, in order.
    var count: Int { get }
    /// Table `index`'s name, as the status line shows it.
    func name(_ index: Int) -> String
    /// Table `index`'s records (header records included) once they are all known and
    /// will not change for the stack; nil while they are still being counted.
    func settledCount(_ index: Int) -> Int?
    /// Table `index`'s columns, once counted (nil before).
    func columnCount(_ index: Int) -> Int?
    /// Why table `index` cannot be read, once that is known (nil while it can be).
    func failure(_ index: Int) -> String?
    /// Table `index`'s rows, opened if need be; nil when it cannot be read.
    func source(_ index: Int) -> (any RowSource)?
    /// Reads records of table `index` from any thread (for a pass over the stack: a
    /// search); a range past what the table holds gives fewer rows.
    func reader(_ index: Int) -> @Sendable (Range<Int>) -> [Row]
    /// Table `index`'s input for a search on another thread, as a table's own search
    /// reads it (its raw bytes and index): an open table's as it is now, a table no one
    /// holds opened and indexed on the thread that calls it, its indexing run through
    /// `running` (which stops it when the search is cancelled); nil when it cannot be read.
    func searchInput(_ index: Int) -> StackSearchInput
    /// Wakes the event loop (from any thread).
    var wake: @Sendable () -> Void { get }
}

/// A stacked table's input as a search reads it (see `StackSections.searchInput`): given
/// a way to run work that stops when the search does (the work, what stops it).
package typealias StackSearchInput =
    @Sendable (_ running: (_ work: () -> Void, _ stop: @escaping @Sendable () -> Void) -> Void) -> (reader: RecordReader, progress: LoadProgress)?

/// Several tables in one vertical scroll, one after another: a row source over the
/// tables' row sources, not a copy of their rows.
///
/// Its records are each table's records in turn, header records included: table 0's
/// header records are the stack's own (the viewer's header rows), a later table's come
/// before its data, where the viewer shows them as a section's header (pinned at the top
/// while the section is under it). A table takes its place once its count is settled
/// (counted to its end); until then it is the last table of the stack and grows as it is
/// read, so records already handed out never move: the stack only grows, like a file
/// being loaded. Tables after it wait (the census counts them in order). Two things move
/// its `generation` on: rows of a table that were not read yet when asked for (a
/// compressed table still being decompressed) have come, and a table whose file changed
/// on disk is taken out to be counted again (`unsettle(from:)`), moving those after it.
///
/// - Complexity: locating a record's table is a binary search over the settled tables.
package final class StackRows: RowSource {
    package let sections: any StackSections
    /// Header records at the top of each table (the user's `-r`, the same for all).
    package let sectionHeaderRows: Int
    /// The first record of each settled table; the last entry is where the next begins.
    private var starts: [Int] = [0]
    /// The most columns of any settled table.
    private var settledColumns = 0
    /// Moved on when records already handed out may read differently.
    private var changes = 0
    /// Tables asked for a record they did not have yet, with the records they had then:
    /// once they have more, the rows shown are read again.
    private var awaited: [Int: Int] = [:]

    package init(sections: any StackSections, headerRows: Int) {
        self.sections = sections
        sectionHeaderRows = max(0, headerRows)
        settle()
    }

    /// Takes the tables whose counts settled since, in order (called as news comes).
    package func settle() {
        while starts.count - 1 < sections.count, let count = sections.settledCount(starts.count - 1) {
            settledColumns = max(settledColumns, sections.columnCount(starts.count - 1) ?? 0)
            starts.append(starts[starts.count - 1] + max(0, count))
        }
    }

    /// Takes table `section` and those after it out of the stack, to come in again as
    /// their counts settle anew (its file changed on disk): records from there on may
    /// move, so the generation moves on.
    package func unsettle(from section: Int) {
        guard section >= 0, section < settledSections || section == growing else { return }
        starts.removeLast(max(0, starts.count - 1 - section))
        settledColumns = (0..<section).map { sections.columnCount($0) ?? 0 }.max() ?? 0
        awaited = awaited.filter { $0.key < section }
        changes += 1
        settle()
    }

    /// Notes that table `section` lacked local record `record` when asked, though the
    /// stack counts it: it is still being read (decompressed), or it changed on disk.
    private func noteMissing(_ record: Int, in section: Int, of source: any RowSource) {
        guard section < settledSections, record < starts[section + 1] - starts[section], awaited[section] == nil else { return }
        awaited[section] = source.isComplete ? Int.max : source.rowCount
    }

    /// Tables whose place is settled.
    package var settledSections: Int { starts.count - 1 }
    /// Tables in the stack.
    package var sectionCount: Int { sections.count }
    /// The table still growing at the end of the stack, if any.
    private var growing: Int? { settledSections < sections.count ? settledSections : nil }

    /// Records of the growing table known now (0 while it is not open yet).
    private var growingCount: Int {
        guard let growing, let source = sections.source(growing) else { return 0 }
        return source.rowCount
    }

    /// The table that record `record` belongs to (the last table for a record past the end).
    package func section(ofRecord record: Int) -> Int {
        settle()
        guard record >= 0 else { return 0 }
        if record >= starts[starts.count - 1] { return min(settledSections, max(0, sections.count - 1)) }
        var low = 0, high = starts.count - 2
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= record { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The first record of table `section` in the stack (its place once it has one).
    package func start(ofSection section: Int) -> Int {
        settle()
        return starts[min(max(0, section), starts.count - 1)]
    }

    /// Records of table `section` in the stack so far (header records included).
    package func recordCount(ofSection section: Int) -> Int {
        settle()
        if section < settledSections { return starts[section + 1] - starts[section] }
        return section == growing ? growingCount : 0
    }

    /// True while table `section` has come into the stack (settled, or growing at its end).
    package func contains(section: Int) -> Bool { section >= 0 && section <= settledSections && section < sections.count }

    /// Record `record`'s number within its own table.
    package func localRecord(_ record: Int) -> Int { record - start(ofSection: section(ofRecord: record)) }

    /// True for a header record of a table (its place within its table is a header row's).
    package func isHeader(record: Int) -> Bool { localRecord(record) < sectionHeaderRows }

    /// A test, for a pass on another thread, of whether a record is a data record (not a
    /// table's header record): a search over the stack passes over the headers.
    package func dataRecordTest() -> @Sendable (Int) -> Bool {
        let bounds = starts + (growing.map { _ in [Int.max] } ?? [])
        let headerRows = sectionHeaderRows
        return { record in
            var low = 0, high = bounds.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if bounds[middle] <= record { low = middle } else { high = middle - 1 }
            }
            return record - bounds[low] >= headerRows
        }
    }

    /// Table `section`'s name.
    package func name(ofSection section: Int) -> String { sections.name(section) }

    // MARK: RowSource

    package var name: String { "\(sections.count) tables stacked" }

    package var rowCount: Int {
        settle()
        return starts[starts.count - 1] + growingCount
    }

    package var isComplete: Bool {
        settle()
        return settledSections >= sections.count
    }

    package var columnCount: Int {
        settle()
        guard let growing, let source = sections.source(growing) else { return settledColumns }
        return max(settledColumns, source.columnCount)
    }

    /// The user says how many header rows each table has.
    package var headerRows: Int? { nil }
    /// Records never change place while their tables' files do not (a table comes in only
    /// once the ones before it settled); see `unsettle(from:)` and `takeNews()`.
    package var generation: Int { changes }

    /// Looks whether tables asked for rows they did not have yet have more now: then the
    /// rows shown are read again (a compressed table fills in without the cursor going
    /// there). A table complete when asked had all it will have.
    package func takeNews() {
        var arrived = false
        for (section, had) in awaited {
            guard let source = sections.source(section) else { continue }
            if had != Int.max && (source.rowCount > had || source.isComplete) {
                awaited[section] = nil
                arrived = true
            }
        }
        if arrived { changes += 1 }
    }
    package var wake: @Sendable () -> Void { sections.wake }
    package var file: CellStore? { nil }

    package func row(_ index: Int) -> Row? {
        guard index >= 0, index < rowCount else { return nil }
        let section = section(ofRecord: index)
        guard let source = sections.source(section) else { return nil }
        let local = index - starts[min(section, starts.count - 1)]
        guard let row = source.row(local) else {
            noteMissing(local, in: section, of: source)
            return nil
        }
        return row
    }

    /// - Complexity: one batch per table the refs fall in.
    package func rows(_ refs: [RecordRef]) -> [Int: Row] {
        var bySection: [Int: [RecordRef]] = [:]
        for ref in refs where ref.record >= 0 {
            let section = section(ofRecord: ref.record)
            bySection[section, default: []].append(RecordRef(record: ref.record - start(ofSection: section)))
        }
        var result: [Int: Row] = [:]
        for (section, local) in bySection {
            guard let source = sections.source(section) else { continue }
            let base = start(ofSection: section)
            let found = source.rows(local)
            for (record, row) in found { result[base + record] = row }
            if let missing = local.first(where: { found[$0.record] == nil }) { noteMissing(missing.record, in: section, of: source) }
        }
        return result
    }

    /// The stack as it is now, as a search on another thread reads it: each table's place
    /// (its first record and its records) with its input, opened by the searching thread.
    package func searchParts() -> [(start: Int, count: Int, input: StackSearchInput,
                                    rows: @Sendable (Range<Int>) -> [Row])] {
        let bounds = starts + (growing == nil ? [] : [starts[starts.count - 1] + growingCount])
        return (0..<(bounds.count - 1)).map { section in
            (bounds[section], bounds[section + 1] - bounds[section], sections.searchInput(section), sections.reader(section))
        }
    }

    /// The stack as it is now, read table by table through each table's own reader.
    package func snapshot() -> RowSnapshot? {
        let count = rowCount
        let bounds = starts + (growing == nil ? [] : [starts[starts.count - 1] + growingCount])
        let readers = (0..<(bounds.count - 1)).map { sections.reader($0) }
        return RowSnapshot(count: count, columnCount: columnCount) { range in
            var rows: [Row] = []
            rows.reserveCapacity(range.count)
            var low = 0, high = bounds.count - 2
            while low < high {
                let middle = (low + high + 1) / 2
                if bounds[middle] <= range.lowerBound { low = middle } else { high = middle - 1 }
            }
            var section = low
            var next = range.lowerBound
            while next < range.upperBound && section < readers.count {
                let end = min(range.upperBound, bounds[section + 1])
                if next < end {
                    let local = (next - bounds[section])..<(end - bounds[section])
                    var got = readers[section](local)
                    // A table read short (it changed on disk): empty rows keep the places.
                    if got.count < local.count { got += Array(repeating: Row(), count: local.count - got.count) }
                    rows += got.prefix(local.count)
                    next = end
                }
                section += 1
            }
            if rows.count < range.count { rows += Array(repeating: Row(), count: range.count - rows.count) }
            return rows
        }
    }
}
