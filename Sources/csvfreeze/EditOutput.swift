#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Table
import Viewer

/// `--set` and `--delete-row`: edits made through the journal `e` and `x` use, on the
/// whole index, then the table written with `--output` (the edits spliced into the bytes
/// the export pipeline reads: every other record leaves as its own bytes) or saved over
/// the file with `--in-place` (Ctrl-S's save).
enum EditOutput {
    /// Edits the input at `path` and writes or saves it; returns the exit status.
    static func run(path: String?, _ request: OutputRequest, query: QueryOptions, edits: EditOptions,
                    recovery: (journal: RecoveryJournal, path: String)? = nil) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let name = Output.inputName(path)
        let store: CellStore
        do {
            store = try request.reading.open(path, readsAtRandom: !query.sorts.isEmpty)
        } catch {
            fail(error.description, status: 1)
        }
        // Every record's place: a row number past the end is known as such.
        store.waitForIndex { false }
        if let failure = store.progress.failure { fail("\(name): \(failure)", status: 1) }
        let rows = EditedRows(store: store)
        if let recovery {
            do {
                _ = try rows.replay(recovery.journal)
            } catch {
                fail("--recover \(recovery.path): \(error.description): nothing applied", status: 65)
            }
        }
        do {
            try apply(edits, to: rows, headerRows: request.headerRows, name: name)
        } catch {
            fail(error.description, status: 65)
        }
        if edits.inPlace {
            // Nothing changed (every value was there already): the file stays as it is.
            guard !rows.journal.isEmpty, let path else { return 0 }
            if let failure = rows.save(to: path) {
                fail(failure.hasPrefix("not saved") ? failure : "not saved: \(failure)", status: 1)
            }
            return 0
        }
        do {
            store.patch = try rows.makePatch(keepingDeleted: false)
        } catch {
            fail("\(name): not written: \(error.description)", status: 65)
        }
        return Output.write(store: store, name: name, request, query: query)
    }

    /// Applies `edits` to `rows`: every `--set` in order (a later one on the same cell
    /// wins), then every `--delete-row`; rows are numbered as the margin numbers them,
    /// before any deletion. Throws the first that cannot be made, in one line.
    static func apply(_ edits: EditOptions, to rows: EditedRows, headerRows: Int, name: String) throws(EditRefusal) {
        let store = rows.store
        let header = headerRows > 0 ? store.row(0) : nil
        let columnNames = ColumnNames(header: header)
        let columnCount = max(store.columnCount, header?.count ?? 0)
        let names = columnNames.names(count: columnCount)
        let dataRows = max(0, rows.rowCount - headerRows)
        func record(_ row: Int, option: String, given: String) throws(EditRefusal) -> Int {
            guard row <= dataRows else {
                throw EditRefusal("\(option) '\(given)': there is no row \(row): \(name) has \(dataRows == 1 ? "1 data row" : "\(dataRows) data rows")")
            }
            return headerRows + row - 1
        }
        let settings = (try? edits.settings()) ?? []
        for setting in settings {
            let target = try record(setting.row, option: "--set", given: setting.given)
            let column: Int
            do {
                column = try ColumnReference(setting.column).resolve(in: names, columns: columnCount)
            } catch {
                throw EditRefusal("--set '\(setting.given)': "
                    + QueryOptions.explain(error, text: setting.column, names: columnNames, columnCount: columnCount))
            }
            do {
                guard let step = try rows.settingCell(record: target, column: column, to: Array(setting.value.utf8)) else { continue }
                rows.apply([step], splicing: false)
            } catch {
                throw EditRefusal("--set '\(setting.given)': \(error.description)")
            }
        }
        for row in Set((try? edits.deletedRows()) ?? []).sorted() {
            let target = try record(row, option: "--delete-row", given: String(row))
            do {
                rows.apply([try rows.deletingRecord(target)], splicing: false)
            } catch {
                throw EditRefusal("--delete-row '\(row)': \(error.description)")
            }
        }
        rows.apply([], splicing: true)
    }
}
