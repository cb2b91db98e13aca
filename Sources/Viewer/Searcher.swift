import Scan

/// A search from the cursor, run as a background scan the viewer owns.
///
/// Forward, it looks after the cursor's cell to the end, then wraps to the first data row
/// and on to the cursor; backward, it finds the last match before the cursor, else wraps
/// to the last one after it. Both directions read only from the cursor to the hit, so `N`
/// is as fast as `n`. Dropping the searcher cancels its scan and waits for its thread.
final class Searcher {
    struct Found: Sendable, Equatable {
        var row: Int
        var column: Int
        var wrapped: Bool
    }

    enum Outcome: Sendable, Equatable {
        case running(scanned: Int64, total: Int64)
        case found(Found)
        case notFound
        case cancelled
    }

    let pattern: SearchPattern
    let forward: Bool
    private let scan: BackgroundScan<Found?>

    /// Starts from data row `row`, column `column`, over `rows` data rows after `headerRows`.
    /// `shows` says whether a record is in the view (a filtered view's); matches in records
    /// it hides are passed over.
    init(pattern: SearchPattern, compiled: CompiledPattern, forward: Bool, input: ScanInput,
         headerRows: Int, rows: Int, row: Int, column: Int, shows: (@Sendable (Int) -> Bool)? = nil,
         wake: @escaping @Sendable () -> Void) {
        self.pattern = pattern
        self.forward = forward
        let search = CellSearch(input: input, pattern: compiled, column: pattern.column)
        let cursor = headerRows + row
        let first = headerRows, end = headerRows + rows
        scan = BackgroundScan(name: "csvfreeze search", total: input.byteCount, wake: wake) { control in
            func find(_ range: Range<Int>, forward: Bool, wrapped: Bool,
                      _ choose: @escaping @Sendable (Int, [Int]) -> Int?) -> Found? {
                guard !range.isEmpty else { return nil }
                let chooseShown: @Sendable (Int, [Int]) -> Int? = { record, columns in
                    if let shows, !shows(record) { return nil }
                    return choose(record, columns)
                }
                return search.find(in: range, forward: forward, control: control, choose: chooseShown)
                    .map { Found(row: $0.record - headerRows, column: $0.column, wrapped: wrapped) }
            }
            var found: Found?
            if forward {
                found = find(cursor..<end, forward: true, wrapped: false) { record, columns in
                    record == cursor ? columns.first { $0 > column } : columns.first
                }
                if found == nil && !control.isCancelled {
                    found = find(first..<min(end, cursor + 1), forward: true, wrapped: true) { record, columns in
                        record == cursor ? columns.first { $0 <= column } : columns.first
                    }
                }
            } else {
                found = find(first..<min(end, cursor + 1), forward: false, wrapped: false) { record, columns in
                    record == cursor ? columns.last { $0 < column } : columns.last
                }
                if found == nil && !control.isCancelled {
                    found = find(cursor..<end, forward: false, wrapped: true) { record, columns in
                        record == cursor ? columns.last { $0 >= column } : columns.last
                    }
                }
            }
            return control.isCancelled ? nil : .some(found)
        }
    }

    var outcome: Outcome {
        switch scan.status {
        case .running(let done, let total): return .running(scanned: done, total: total)
        case .finished(let found): return found.map(Outcome.found) ?? .notFound
        case .cancelled: return .cancelled
        }
    }

    func cancel() { scan.cancel() }
}
