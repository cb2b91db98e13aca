#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Foundation
import Scan
import Synchronization

/// A search running on a thread of its own over the records known when it started.
///
/// Forward, it looks after the cursor's cell to the end, then wraps to the first data row;
/// backward, it finds the last match before the cursor, else wraps to the last one after.
/// It publishes progress and its result behind a `Mutex` and wakes the event loop.
final class Searcher: Sendable {
    struct Found: Sendable, Equatable {
        var row: Int
        var column: Int
        var wrapped: Bool
    }

    enum Outcome: Sendable, Equatable {
        case running(scanned: Int, total: Int)
        case found(Found)
        case notFound
        case cancelled
    }

    let pattern: SearchPattern
    let compiled: CompiledPattern
    let forward: Bool
    private let state = Mutex<Outcome>(.running(scanned: 0, total: 0))
    private let isCancelled = Atomic<Bool>(false)

    init(pattern: SearchPattern, compiled: CompiledPattern, forward: Bool) {
        self.pattern = pattern
        self.compiled = compiled
        self.forward = forward
    }

    var outcome: Outcome { state.withLock { $0 } }

    func cancel() { isCancelled.store(true, ordering: .relaxed) }

    /// Starts from data row `row`, column `column`, over `rows` data rows after `headerRows`.
    func start(reader: RecordReader, headerRows: Int, rows: Int, row: Int, column: Int, wake: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            let result = run(reader: reader, headerRows: headerRows, rows: rows, row: row, column: column, wake: wake)
            state.withLock { $0 = result }
            wake()
        }
        thread.name = "csvfreeze search"
        thread.start()
    }

    private func run(reader: RecordReader, headerRows: Int, rows: Int, row cursorRow: Int, column cursorColumn: Int,
                     wake: @escaping @Sendable () -> Void) -> Outcome {
        let matcher = PatternMatcher(compiled)
        var scanned = 0
        var lastReport = 0
        /// The first matching column of a row, after `after` (or any when nil).
        func match(_ row: Row, after: Int?, before: Int?) -> Int? {
            let columns: [Int] = pattern.column.map { [$0] } ?? Array(0..<row.count)
            if forward {
                return columns.first { column in
                    (after.map { column > $0 } ?? true) && (before.map { column < $0 } ?? true) && matcher.matches(row.field(column))
                }
            }
            return columns.last { column in
                (after.map { column > $0 } ?? true) && (before.map { column < $0 } ?? true) && matcher.matches(row.field(column))
            }
        }
        func progress() -> Bool {
            scanned += 1
            if scanned - lastReport >= 20_000 {
                lastReport = scanned
                state.withLock { $0 = .running(scanned: scanned, total: rows) }
                wake()
            }
            return !isCancelled.load(ordering: .relaxed)
        }
        var found: Found?
        if forward {
            // From the cursor to the end, then from the top to the cursor.
            reader.forEachRecord(from: headerRows + cursorRow) { number, row in
                guard progress() else { return false }
                let dataRow = number - headerRows
                if dataRow >= rows { return false }
                if let column = match(row, after: dataRow == cursorRow ? cursorColumn : nil, before: nil) {
                    found = Found(row: dataRow, column: column, wrapped: false)
                    return false
                }
                return true
            }
            if found == nil && !isCancelled.load(ordering: .relaxed) {
                reader.forEachRecord(from: headerRows) { number, row in
                    guard progress() else { return false }
                    let dataRow = number - headerRows
                    if dataRow > cursorRow { return false }
                    if let column = match(row, after: nil, before: dataRow == cursorRow ? cursorColumn + 1 : nil) {
                        found = Found(row: dataRow, column: column, wrapped: true)
                        return false
                    }
                    return true
                }
            }
        } else {
            // The last match before the cursor; else the last one after it (wrapping).
            reader.forEachRecord(from: headerRows) { number, row in
                guard progress() else { return false }
                let dataRow = number - headerRows
                if dataRow > cursorRow { return false }
                if let column = match(row, after: nil, before: dataRow == cursorRow ? cursorColumn : nil) {
                    found = Found(row: dataRow, column: column, wrapped: false)
                }
                return true
            }
            if found == nil && !isCancelled.load(ordering: .relaxed) {
                reader.forEachRecord(from: headerRows + cursorRow) { number, row in
                    guard progress() else { return false }
                    let dataRow = number - headerRows
                    if dataRow >= rows { return false }
                    if let column = match(row, after: dataRow == cursorRow ? cursorColumn - 1 : nil, before: nil) {
                        found = Found(row: dataRow, column: column, wrapped: true)
                    }
                    return true
                }
            }
        }
        if isCancelled.load(ordering: .relaxed) { return .cancelled }
        return found.map(Outcome.found) ?? .notFound
    }
}
