import CellStore
import Table

/// A query's answer written out (`--sql`): its column names, then every row, made as the
/// exporter asks for them. Nothing caps it and nothing holds it: memory keeps one batch
/// (the viewer's `QueryRows` keeps its rows, so it stops at a cap the screen can hold).
package final class AnswerStream: RowStream {
    private let open: () throws(SQLError) -> QueryAnswer
    /// Each cell's type comes with it (JSON writes numbers bare and NULL as null).
    private let typed: Bool
    private var answer: QueryAnswer?
    private var started = false
    /// What stopped the statement, once something has.
    package private(set) var error: SQLError?

    /// The answer `open` prepares (the database it opens, and the statement), prepared when
    /// the first rows are asked for.
    package init(typed: Bool, open: @escaping () throws(SQLError) -> QueryAnswer) {
        self.open = open
        self.typed = typed
    }

    package var failure: String? { error?.description }

    package func next(batch: Int) -> StreamedRows? {
        do throws(SQLError) {
            guard started else {
                started = true
                let answer = try open()
                self.answer = answer
                return StreamedRows(rows: [Row(cells: answer.columns)])
            }
            guard let answer else { return nil }
            if typed {
                guard let (rows, types) = try answer.nextTyped(batch: batch) else { return nil }
                return StreamedRows(rows: rows, types: types)
            }
            return try answer.next(batch: batch).map { StreamedRows(rows: $0) }
        } catch {
            self.error = error
            answer = nil
            return nil
        }
    }

    /// Ends the statement (the output stopped taking rows).
    package func stop() { answer = nil }
}
