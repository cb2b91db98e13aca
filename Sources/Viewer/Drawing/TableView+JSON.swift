import CellStore
import Table

/// What a table read from JSON knows of its records beyond their cells: which are shown
/// whole (not a JSON object: marked in the grid), which repeat a key (said in the record
/// view), and which empty cells are null (the record view shows `null`).
extension TableView {
    /// The JSON conversion's report and the data record (from 0) that source record
    /// `record` is in it; nil when the table is not read from JSON, or for an added record.
    func jsonRecord(_ record: Int) -> (report: JSONReport, record: Int)? {
        guard let file, let report = file.jsonReport else { return nil }
        var input = record
        if let edited = source as? EditedRows {
            guard case .original(let original) = edited.place(ofRecord: record) else { return nil }
            input = original
        }
        // Record 0 of the CSV made from JSON is the header (the keys).
        return input >= 1 ? (report, input - 1) : nil
    }

    /// True when source record `record` was not a JSON object (or not UTF-8), shown whole
    /// in the first column.
    func isWholeJSONRecord(_ record: Int) -> Bool {
        guard let (report, data) = jsonRecord(record) else { return false }
        return report.isWhole(record: data)
    }

    /// What the record view says of the keys source record `record` named more than once
    /// (the last value is the one shown), or nil.
    func repeatedKeysNote(_ record: Int) -> String? {
        guard let (report, data) = jsonRecord(record) else { return nil }
        let repeats = report.repeatedKeys(record: data)
        guard let first = repeats.first else { return nil }
        let names = columnNames
        let name = { (column: Int) in names[column] }
        if repeats.count == 1 { return "key `\(name(first.column))` appears \(first.times) times; the last is shown" }
        return "keys " + repeats.map { "`\(name($0.column))`" }.joined(separator: ", ") + " appear more than once; the last of each is shown"
    }
}
