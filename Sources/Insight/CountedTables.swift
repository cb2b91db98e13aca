import CellStore
import Table

/// The tables `--frequency`, `--histogram` and `--summary` write, as rows in memory: the
/// export pipeline writes them as it writes a sheet's (Ctrl-S), in any format.
///
/// What is not data is not in the rows: the estimate of a count that is not exact and the
/// values in no bin are said on stderr (`note`); a summary's shape is drawn only for a
/// table, which is for reading.
package struct CountedTable {
    /// The header (record 0), then a row per value, bin or column.
    package let rows: MemoryRows
    /// Records whose first cell holds only the start of a value over 1 MiB, and the
    /// input's record where the count first met the value: written whole from there.
    package var wholeValues: [Int: Int] = [:]
    /// What the user should know beside the rows, for stderr.
    package var note: String?

    /// `--frequency`: value, count and percent, most frequent first. `forReading` (a table):
    /// the empty value as `(empty)`, a value too long shown by its start, and the values
    /// not listed in one row; otherwise the values as they are, written whole.
    package init(frequency table: FrequencyTable, forReading: Bool) {
        let entries = table.rows
        rows = MemoryRows(name: "frequency", columns: ["value", "count", "percent"])
        rows.append(count: entries.count, columns: 3) { index in
            let entry = entries[index]
            let value = forReading ? Array(CountedTable.tableText(of: entry).utf8) : entry.value
            var bytes = value
            var ends = [bytes.count]
            for cell in ["\(entry.count)", entry.percentText] {
                bytes += Array(cell.utf8)
                ends.append(bytes.count)
            }
            return Row(bytes: bytes, ends: ends)
        }
        if !forReading {
            for (index, entry) in entries.enumerated() where entry.isShortened {
                if let first = entry.firstRecord { wholeValues[index + 1] = first }
            }
        }
        if !table.isExact {
            if forReading {
                rows.append(count: 1, columns: 3) { _ in
                    Row(cells: ["(other values, ≈\(table.distinct - entries.count))", "\(table.unlistedCount)",
                                FrequencyRow.text(ofPercent: Double(table.unlistedCount) * 100 / Double(max(1, table.total)))])
                }
            }
            // Machine formats keep their rows to true values; the estimate goes to stderr.
            note = table.areAllUnique ? "all \(table.total) values are unique (≈\(table.distinct) estimated)"
                : "≈\(table.distinct) distinct values: those not listed occur at most \(table.unlistedAtMost) times each,"
                  + " in \(table.unlistedCount) records together"
        }
        rows.finish()
    }

    /// `--histogram`, `--frequency --bins`: `low,high,count,percent` a bin; what is in no
    /// bin is the note.
    package init(histogram table: HistogramTable) {
        let bins = table.rows
        rows = MemoryRows(name: "bins", columns: ["low", "high", "count", "percent"])
        rows.append(count: bins.count, columns: 4) { index in
            let bin = bins[index]
            return Row(cells: [bin.low, bin.high, "\(bin.count)", FrequencyRow.text(ofPercent: bin.percent)])
        }
        rows.finish()
        let counts = table.counts
        var apart: [String] = []
        if counts.others > 0 { apart.append("\(counts.others) not \(table.isTime ? "dates" : "numbers")") }
        if counts.infinities > 0 { apart.append("\(counts.infinities) past a double's range") }
        if counts.empty > 0 { apart.append("\(counts.empty) empty") }
        if counts.bins.total == 0 { apart.insert("no \(table.isTime ? "date" : "number") to bin", at: 0) }
        if !apart.isEmpty { note = apart.joined(separator: ", ") + (counts.bins.total > 0 ? ": in no bin" : "") }
    }

    /// `--summary`: a row per column; `shape`, the column's picture, ends each row when
    /// given (a table), and is left out otherwise (a picture is not data).
    package init(summary: [ColumnSummary], shape glyphs: PictureGlyphs?) {
        rows = MemoryRows(name: "summary", columns: ColumnSummary.header(withShape: glyphs != nil))
        rows.append(count: summary.count, columns: ColumnSummary.header(withShape: glyphs != nil).count) { index in
            Row(cells: summary[index].cells(shape: glyphs))
        }
        rows.finish()
    }

    /// A value as a table shows it: the empty value as `(empty)`; a value that reads so
    /// itself, or that starts with a double quote, in double quotes as CSV quotes it
    /// (`"(empty)"`), so no value passes for the empty one.
    package static func tableText(of row: FrequencyRow) -> String {
        if row.value.isEmpty { return "(empty)" }
        let text = row.shownText
        guard text == "(empty)" || text.hasPrefix("\"") else { return text }
        return "\"" + String(decoding: Array(text.utf8).replacing([0x22], with: [0x22, 0x22]), as: UTF8.self) + "\""
    }
}
