import App
import CellStore

extension CSVFreezeCommand {
    /// The line that refuses to write one of several tables of one input (a database's
    /// tables, a workbook's sheets) without `--table`: it names them.
    static func severalTables(_ path: String, _ noun: String, names: [String]) -> String {
        "\(path) holds \(names.count) \(noun): --table NAME writes one ("
            + names.prefix(20).joined(separator: ", ") + (names.count > 20 ? ", …" : "") + ")"
    }

    /// The line that refuses (exit 2) a workbook at `path` of several sheets when no
    /// `--table` chose one: what writes or compares one table never takes the first
    /// silently. Nil for anything else.
    static func severalSheets(_ path: String?, table: String?) -> String? {
        guard table == nil, let path, (try? InputSpec.Format.detect(path: path)) == .xlsx,
              let sheets = try? Workbook.sheetNames(path: path), sheets.count > 1 else { return nil }
        return severalTables(path, "sheets", names: sheets)
    }

    /// Why several inputs, among them a database's `tables`, are not written (or counted)
    /// as one: one database without `--table` names its tables; a database's table among
    /// other inputs is not stacked (`--sql` joins them).
    func severalWithTables(_ inputs: [TableInput], _ tables: [TableInput]) -> String {
        if files.count <= 1, let table = tables.first, inputs.allSatisfy({ $0.path == table.path }) {
            return Self.severalTables(table.shownPath, "tables", names: tables.compactMap(\.table))
        }
        let named = tables.prefix(3).map(\.name).joined(separator: ", ") + (tables.count > 3 ? ", …" : "")
        return "several inputs are written as one table from text files, not a database's tables (\(named)): "
            + "--sql can join them"
    }
}
