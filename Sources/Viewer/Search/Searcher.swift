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

    /// Runs `search` (over a file's bytes, or rows; `total` is what its progress counts)
    /// from data row `row`, input column `column`, over `rows` data rows after
    /// `headerRows`. `shows` says whether a record is in the view (a filtered view's);
    /// matches in records it hides are passed over. `columns` are the input columns the
    /// view shows, in its order (nil: all, in the file's): a match in a hidden column is
    /// out of the view, and a row's matches are visited in the order they show.
    init(pattern: SearchPattern, search: some RecordFinder, total: Int64, forward: Bool,
         headerRows: Int, rows: Int, row: Int, column: Int, columns: [Int]? = nil,
         shows: (@Sendable (Int) -> Bool)? = nil, wake: @escaping @Sendable () -> Void) {
        self.pattern = pattern
        self.forward = forward
        let cursor = headerRows + row
        let first = headerRows, end = headerRows + rows
        let order = ViewOrder(columns)
        let here = order.position(of: column) ?? -1
        scan = BackgroundScan(name: "csvfreeze search", total: total, wake: wake) { control in
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
                    order.first(of: columns) { record != cursor || $0 > here }
                }
                if found == nil && !control.isCancelled {
                    found = find(first..<min(end, cursor + 1), forward: true, wrapped: true) { record, columns in
                        order.first(of: columns) { record != cursor || $0 <= here }
                    }
                }
            } else {
                found = find(first..<min(end, cursor + 1), forward: false, wrapped: false) { record, columns in
                    order.last(of: columns) { record != cursor || $0 < here }
                }
                if found == nil && !control.isCancelled {
                    found = find(cursor..<end, forward: false, wrapped: true) { record, columns in
                        order.last(of: columns) { record != cursor || $0 >= here }
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

/// What a search looks through: one input (`CellSearch`), or stacked tables (`StackSearch`).
protocol RecordFinder: Sendable {
    /// The first record (forward) or the last (backward) in `range` for which `choose`
    /// picks a column among its matching ones; nil when none, or when cancelled.
    func find(in range: Range<Int>, forward: Bool, control: ScanControl,
              choose: @escaping @Sendable (_ record: Int, _ columns: [Int]) -> Int?) -> CellSearch.Hit?
}

extension CellSearch: RecordFinder {}

/// Where input columns stand in a view: hidden ones nowhere, the others in the view's order.
struct ViewOrder: Sendable {
    /// For each input column, its place in the view, or -1 when hidden; nil: every column
    /// in the file's order.
    private let places: [Int]?

    init(_ shown: [Int]?) {
        guard let shown else {
            places = nil
            return
        }
        var places = [Int](repeating: -1, count: (shown.max() ?? -1) + 1)
        for (place, column) in shown.enumerated() where column >= 0 { places[column] = place }
        self.places = places
    }

    /// The view place of input column `column`, or nil when it is hidden.
    func position(of column: Int) -> Int? {
        guard let places else { return column }
        return column >= 0 && column < places.count && places[column] >= 0 ? places[column] : nil
    }

    /// Of `columns` (input columns), the shown one earliest in the view whose place
    /// passes `isWanted`.
    func first(of columns: [Int], where isWanted: (Int) -> Bool) -> Int? {
        pick(columns, isWanted, earlier: true)
    }

    /// The same, latest in the view.
    func last(of columns: [Int], where isWanted: (Int) -> Bool) -> Int? {
        pick(columns, isWanted, earlier: false)
    }

    private func pick(_ columns: [Int], _ isWanted: (Int) -> Bool, earlier: Bool) -> Int? {
        var best: (column: Int, place: Int)?
        for column in columns {
            guard let place = position(of: column), isWanted(place) else { continue }
            if let current = best, earlier ? current.place <= place : current.place >= place { continue }
            best = (column, place)
        }
        return best?.column
    }
}
