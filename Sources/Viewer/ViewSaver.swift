#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Scan
import Table

/// Writes the current view (its header rows, its rows in its order, its columns) to a
/// file, on a thread of its own that the viewer owns: dropping the saver cancels it and
/// waits. It writes to a temporary file beside the target and renames it at the end, so
/// the target is never left half written; a cancelled or failed save removes it.
final class ViewSaver {
    enum Outcome: Sendable, Equatable {
        case running(rows: Int, of: Int)
        case finished(rows: Int)
        case failed(String)
        case cancelled
    }

    /// What the pass hands back.
    private enum Result: Sendable {
        case wrote(Int)
        case failed(String)
    }

    /// Where the records are read again: a file's bytes, or a snapshot of rows (a sheet's).
    enum Records: Sendable {
        case file(RecordReader)
        case rows(RowSnapshot)

        /// Record `number`, read alone (from `offset` when known).
        func record(_ number: Int, at offset: Int64?) -> Row? {
            switch self {
            case .file(let reader): return reader.record(number, at: offset)
            case .rows(let rows): return rows.row(number)
            }
        }

        /// Calls `body` with each record from `first` on, in order, until it returns false.
        func forEach(from first: Int, _ body: (Int, Row) -> Bool) {
            switch self {
            case .file(let reader): reader.forEachRecord(from: first, body)
            case .rows(let rows): rows.forEachRow(in: first..<rows.count, body)
            }
        }
    }

    /// Everything the pass needs, taken on the UI thread.
    struct Plan: Sendable {
        var path: String
        var reader: Records
        var headers: [Row]
        /// The view's records, in order (nil: every data record from `firstRecord` on).
        var rows: (any RecordSequence)?
        var firstRecord: Int
        var rowCount: Int
        /// Input columns to write, in order (nil: every cell of each record).
        var columns: [Int]?
        var delimiter: UInt8
        /// Records whose first cell is written empty (a sheet's `(empty)`: see `SheetSaving`).
        var emptiedFirstCells: Set<Int> = []
    }

    let path: String
    /// The pass counts rows as its progress.
    private let scan: BackgroundScan<Result>

    init(_ plan: Plan, wake: @escaping @Sendable () -> Void) {
        path = plan.path
        scan = BackgroundScan(name: "csvfreeze save", total: Int64(plan.rowCount), wake: wake) { control in
            ViewSaver.write(plan, control: control)
        }
    }

    var outcome: Outcome {
        switch scan.status {
        case .running(let done, let total): return .running(rows: Int(done), of: Int(total))
        case .finished(.wrote(let rows)): return .finished(rows: rows)
        case .finished(.failed(let reason)): return .failed(reason)
        case .cancelled: return .cancelled
        }
    }

    func cancel() { scan.cancel() }
    func wait() { scan.wait() }

    /// The pass: header rows, then each row of the view, through a buffer, into a
    /// temporary file renamed over `path` at the end.
    private static func write(_ plan: Plan, control: ScanControl) -> Result? {
        let directory = plan.path.contains("/") ? String(plan.path[..<plan.path.lastIndex(of: "/")!]) : "."
        var template = Array((directory.isEmpty ? "/" : directory) .utf8CString.dropLast()) + Array("/.csvfreeze-save-XXXXXX".utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else { return .failed("cannot write in \(directory): \(String(cString: strerror(errno)))") }
        let temporary = String(cString: template)
        var done = false
        defer {
            close(descriptor)
            if !done { unlink(temporary) }
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        func flush() -> Bool {
            var start = 0
            while start < buffer.count {
                let count = buffer[start...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { return false }
                start += count
            }
            buffer.removeAll(keepingCapacity: true)
            return true
        }
        var failure: String?
        func append(_ row: Row, number: Int) -> Bool {
            guard !row.isCut else {
                failure = row.omittedCells > 0
                    ? "record \(number + 1) has more fields than are kept in memory: --output writes it whole"
                    : "record \(number + 1) has a cell longer than what is kept in memory: --output writes it whole"
                return false
            }
            var row = row
            if plan.emptiedFirstCells.contains(number) && row.count > 0 {
                let cut = row.ends[0]
                row.bytes.removeFirst(cut)
                row.ends = row.ends.map { $0 - cut }
            }
            let projected = plan.columns.map { row.projected($0) } ?? row
            OutputWriter.appendDelimited(projected, delimiter: plan.delimiter, lineEnding: [0x0A], to: &buffer)
            if buffer.count >= 1 << 20 && !flush() {
                failure = "cannot write \(plan.path): \(String(cString: strerror(errno)))"
                return false
            }
            return true
        }
        for (index, header) in plan.headers.enumerated() where !append(header, number: index) { return .failed(failure!) }
        var rows = 0
        if let sequence = plan.rows {
            var index = 0
            while index < plan.rowCount {
                if control.isCancelled { return nil }
                let refs = sequence.records(in: index..<min(plan.rowCount, index + 4096))
                if refs.isEmpty { break }
                for ref in refs {
                    guard let row = plan.reader.record(ref.record, at: ref.offset) else { continue }
                    if !append(row, number: ref.record) { return .failed(failure!) }
                    rows += 1
                }
                index += refs.count
                control.advance(by: Int64(refs.count))
            }
        } else {
            let end = plan.firstRecord + plan.rowCount
            var stopped = false
            plan.reader.forEach(from: plan.firstRecord) { number, row in
                guard number < end else { return false }
                if !append(row, number: number) { stopped = true; return false }
                rows += 1
                if rows % 4096 == 0 {
                    control.advance(by: 4096)
                    if control.isCancelled { stopped = true; return false }
                }
                return true
            }
            if control.isCancelled { return nil }
            if stopped { return .failed(failure ?? "stopped") }
        }
        guard flush() else { return .failed("cannot write \(plan.path): \(String(cString: strerror(errno)))") }
        if control.isCancelled { return nil }
        _ = fchmod(descriptor, 0o644 & ~currentUmask())
        guard rename(temporary, plan.path) == 0 else {
            return .failed("cannot write \(plan.path): \(String(cString: strerror(errno)))")
        }
        done = true
        return .wrote(rows)
    }

    private static func currentUmask() -> mode_t {
        let mask = umask(0)
        umask(mask)
        return mask
    }
}

extension Row {
    /// The cells `columns` of this row, in that order (a column it lacks is empty).
    func projected(_ columns: [Int]) -> Row {
        var bytes: [UInt8] = []
        var ends: [Int] = []
        for column in columns {
            bytes.append(contentsOf: field(column))
            ends.append(bytes.count)
        }
        return Row(bytes: bytes, ends: ends)
    }
}
