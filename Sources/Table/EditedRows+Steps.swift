import CellStore

/// Why an edit is not made: one line for the status line.
package struct EditRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    package var description: String

    package init(_ description: String) { self.description = description }
}

extension EditedRows {
    /// Why this table's records cannot be edited at all, if they cannot.
    package var cannotEdit: EditRefusal? {
        if store.follows { return EditRefusal("a followed file is not edited: its end keeps moving") }
        if let encoding = store.encodingName {
            return EditRefusal("this file is read converted from \(encoding): only UTF-8 text is edited")
        }
        if store.dialect == nil { return EditRefusal("nothing to edit yet") }
        if store.inputPath != nil && baseline == nil && store.fingerprintIfUnchanged() == nil {
            return EditRefusal("the file changed on disk since it was read: R reloads it before editing")
        }
        return nil
    }

    /// Notes the file as it is now on the first edit: a save over it goes ahead only while
    /// it stays so.
    private func noteBaseline() {
        if baseline == nil, store.inputPath != nil { baseline = store.fingerprintIfUnchanged() }
    }

    /// The row of record `record` now, with the reason it cannot be edited if it cannot.
    private func editableRow(_ record: Int) throws(EditRefusal) -> Row {
        if let estimated = store.estimatedRows, estimated.contains(record) || record >= estimated.lowerBound {
            throw EditRefusal("this row's number is not known yet (still loading): edit it once the index reaches it")
        }
        guard let row = row(record) else { throw EditRefusal("this row is not read yet") }
        if row.isCut {
            throw EditRefusal("this record holds more than is kept in memory (a cell over 1 MiB, or too many cells): not edited here")
        }
        return row
    }

    /// The step that sets cell `column` of record `record` to `value`; nil when the cell
    /// holds it already.
    package func settingCell(record: Int, column: Int, to value: [UInt8]) throws(EditRefusal) -> EditStep? {
        if let refusal = cannotEdit { throw refusal }
        let current = try editableRow(record)
        let new = current.setting(column, to: value)
        guard new != current else { return nil }
        try checkEncodable(new)
        noteBaseline()
        switch place(ofRecord: record) {
        case .added(let group, let index):
            return .changeAdded(id: journal.groups[group].records[index].id, from: current, to: new)
        case .original(let original):
            if journal.deleted[original] != nil { throw EditRefusal("this record is deleted: U brings it back") }
            let before = journal.changed[original]
            guard let file = store.row(original) else { throw EditRefusal("this row is not read yet") }
            if new == file { return .change(record: original, from: before, to: nil) }
            guard let place = before?.place ?? bytes(ofRecord: original) else {
                throw EditRefusal("this record is not read whole yet: edit it once it is")
            }
            let columns = Set((0..<max(new.count, file.count)).filter { new.field($0) != file.field($0) })
            return .change(record: original, from: before, to: ChangedRecord(row: new, columns: columns, place: place))
        }
    }

    /// The step that adds an empty record of `columns` cells after record `record` (or
    /// before it); with no record, after the header records (a table of no data rows).
    package func addingRecord(near record: Int?, after: Bool, columns: Int, headerRows: Int) throws(EditRefusal) -> EditStep {
        if let refusal = cannotEdit { throw refusal }
        let empty = Row(bytes: [], ends: Array(repeating: 0, count: max(1, columns)))
        try checkEncodable(empty)
        let point: InsertionPoint, index: Int
        let target = record ?? (headerRows - 1)
        if let record, case .added(let group, let position) = place(ofRecord: record) {
            point = journal.groups[group].point
            index = after ? position + 1 : position
        } else {
            guard target >= 0 || !after else { throw EditRefusal("no record to add after") }
            let original: Int
            if case .original(let number) = place(ofRecord: max(0, target)) { original = number } else { original = 0 }
            if record != nil { _ = try editableRow(target) }
            if target < 0 {
                point = InsertionPoint(anchor: 0, offset: try start(ofRecord: 0))
            } else if after {
                guard let bytes = bytes(ofRecord: original) else { throw EditRefusal("this record is not read whole yet") }
                if bytes.terminator.isEmpty, !lineEndEnds(bytes) {
                    throw EditRefusal("the file's last record has a quote never closed: records after it would join it (e on it first)")
                }
                point = InsertionPoint(anchor: original + 1, offset: bytes.end, afterUnterminated: bytes.terminator.isEmpty)
            } else {
                point = InsertionPoint(anchor: original, offset: try start(ofRecord: original))
            }
            let existing = journal.group(at: point.anchor).map { journal.groups[$0] }
            index = after ? 0 : existing?.records.count ?? 0
            if let existing, existing.point != point {
                throw EditRefusal("the records around this one changed place: save first")
            }
        }
        noteBaseline()
        return .add(AddedRecord(id: newAddedID(), row: empty), at: point, index: index)
    }

    /// The step that deletes record `record` (an added one is taken away again).
    package func deletingRecord(_ record: Int) throws(EditRefusal) -> EditStep {
        if let refusal = cannotEdit { throw refusal }
        switch place(ofRecord: record) {
        case .added(let group, let index):
            let entry = journal.groups[group]
            return .remove(entry.records[index], at: entry.point, index: index)
        case .original(let original):
            if journal.deleted[original] != nil { throw EditRefusal("this record is deleted already: U brings it back") }
            _ = try editableRow(record)
            guard let place = journal.changed[original]?.place ?? bytes(ofRecord: original) else {
                throw EditRefusal("this record is not read whole yet: delete it once it is")
            }
            noteBaseline()
            return .delete(record: original, place: place)
        }
    }

    /// True when a line end after the last record's bytes (which end the input with no
    /// line end) ends it: false when the record ends inside quotes never closed.
    private func lineEndEnds(_ place: RecordBytes) -> Bool {
        guard let dialect = store.dialect, let reader = store.recordReader(patched: false) else { return false }
        var scanner = RecordScanner(dialect: dialect)
        let bytes = reader.bytes(place.start..<place.end) + dialect.lineEnding
        bytes.withUnsafeBytes { scanner.scan($0) }
        return scanner.recordCount == 1
    }

    private func start(ofRecord record: Int) throws(EditRefusal) -> Int64 {
        guard let bytes = bytes(ofRecord: record) else { throw EditRefusal("this record is not read whole yet") }
        return bytes.start
    }

    private func checkEncodable(_ row: Row) throws(EditRefusal) {
        guard let dialect = store.dialect else { throw EditRefusal("nothing to edit yet") }
        do {
            _ = try RecordEncoder(dialect: dialect).encode(row)
        } catch {
            throw EditRefusal(error.description)
        }
    }
}

extension Row {
    /// This row with cell `column` set to `value`; a shorter row grows, the cells between
    /// empty.
    package func setting(_ column: Int, to value: [UInt8]) -> Row {
        var cells = (0..<Swift.max(count, column + 1)).map { Array(field($0)) }
        cells[column] = value
        var bytes: [UInt8] = []
        var ends: [Int] = []
        for cell in cells {
            bytes += cell
            ends.append(bytes.count)
        }
        return Row(bytes: bytes, ends: ends)
    }
}
