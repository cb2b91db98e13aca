#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Table

/// The unsaved edits of a table, kept when a signal ended the session: the file they were
/// made on (its `InputFingerprint`), the cells of each record changed, the records
/// deleted and those added, by their numbers in the file. `--recover` makes them again
/// through the journal's own steps (`EditedRows.replay`), so each is checked against the
/// file's index as an edit typed is; nothing in the file is trusted as a place.
///
/// Bytes: `CSVFEDIT`, a version, the whole length, the fingerprint, the edits, and an
/// FNV-1a checksum of all before it (as a session file: `SessionCodec`).
package struct RecoveryJournal: Equatable, Sendable {
    package struct Change: Equatable, Sendable {
        package var record: Int
        package var cells: [[UInt8]]
    }

    package struct Addition: Equatable, Sendable {
        /// The file's record the rows come before (the record count: at the end).
        package var anchor: Int
        package var rows: [[[UInt8]]]
    }

    package var fingerprint: InputFingerprint
    package var changed: [Change] = []
    package var deleted: [Int] = []
    package var added: [Addition] = []

    package static let magic = Array("CSVFEDIT".utf8)
    package static let version: UInt32 = 1

    package init(fingerprint: InputFingerprint) { self.fingerprint = fingerprint }

    /// The edits of `edits`, made on the file of `fingerprint`.
    package init(_ edits: EditedRows, fingerprint: InputFingerprint) {
        self.fingerprint = fingerprint
        let journal = edits.journal
        changed = journal.changed.keys.sorted().compactMap { record in
            journal.changed[record].map { Change(record: record, cells: Self.cells($0.row)) }
        }
        deleted = journal.deleted.keys.sorted()
        added = journal.groups.map { Addition(anchor: $0.point.anchor, rows: $0.records.map { Self.cells($0.row) }) }
    }

    /// How many edits the status line would count.
    package var count: Int { changed.count + deleted.count + added.reduce(0) { $0 + $1.rows.count } }

    static func cells(_ row: Row) -> [[UInt8]] { (0..<row.count).map { Array(row.field($0)) } }

    /// Why a journal file is not used.
    package enum Refusal: Error, Equatable, CustomStringConvertible {
        case truncated, notAJournal, otherVersion, corrupt

        package var description: String {
            switch self {
            case .truncated: return "it is truncated"
            case .notAJournal: return "it is not a journal of csvfreeze's edits"
            case .otherVersion: return "it is from another version of csvfreeze"
            case .corrupt: return "it is corrupt"
            }
        }
    }

    package func encoded() -> [UInt8] {
        var out = SessionCodec.Writer()
        out.bytes.append(contentsOf: Self.magic)
        out.u32(Self.version)
        out.u64(0)  // the length, filled in below
        out.u64(fingerprint.device)
        out.u64(fingerprint.inode)
        out.i64(fingerprint.size)
        out.int(fingerprint.seconds)
        out.int(fingerprint.nanoseconds)
        out.u64(fingerprint.checksum)
        func row(_ cells: [[UInt8]]) {
            out.int(cells.count)
            for cell in cells {
                out.int(cell.count)
                out.bytes.append(contentsOf: cell)
            }
        }
        out.int(changed.count)
        for change in changed {
            out.int(change.record)
            row(change.cells)
        }
        out.ints(deleted)
        out.int(added.count)
        for addition in added {
            out.int(addition.anchor)
            out.int(addition.rows.count)
            addition.rows.forEach(row)
        }
        let length = UInt64(out.bytes.count + 8)
        for index in 0..<8 { out.bytes[12 + index] = UInt8(truncatingIfNeeded: length >> (8 * UInt64(index))) }
        out.u64(SessionCodec.fnv(out.bytes[...]))
        return out.bytes
    }

    /// The journal `bytes` hold, when they are a whole, sound one: magic, version, length
    /// and checksum checked, and every count against the bytes left.
    package static func decode(_ bytes: [UInt8]) -> Result<RecoveryJournal, Refusal> {
        guard bytes.count >= magic.count + 4 + 8 else {
            return .failure(bytes.isEmpty || Array(bytes.prefix(magic.count)) == Array(magic.prefix(bytes.count)) ? .truncated : .notAJournal)
        }
        guard Array(bytes[0..<magic.count]) == magic else { return .failure(.notAJournal) }
        return bytes.withUnsafeBytes { raw in
            var reader = SessionCodec.Reader(bytes: raw, at: magic.count)
            guard let version = reader.u32(), version == Self.version else { return .failure(.otherVersion) }
            guard let length = reader.u64() else { return .failure(.truncated) }
            guard length == UInt64(bytes.count) else { return .failure(length > UInt64(bytes.count) ? .truncated : .corrupt) }
            guard bytes.count >= 8 + reader.position else { return .failure(.truncated) }
            var tail = SessionCodec.Reader(bytes: raw, at: bytes.count - 8)
            guard tail.u64() == SessionCodec.fnv(bytes[..<(bytes.count - 8)]) else { return .failure(.corrupt) }
            reader.end = bytes.count - 8
            guard let journal = reader.journal(), reader.position == reader.end else { return .failure(.corrupt) }
            return .success(journal)
        }
    }

    /// Reads the journal file at `path`: only a regular file, of at most 1 GiB.
    package static func read(path: String) -> Result<RecoveryJournal, ReadFailure> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(.cannotRead(String(cString: strerror(errno)))) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return .failure(.cannotRead("not a file")) }
        guard info.st_size <= 1 << 30 else { return .failure(.refused(.corrupt)) }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + done, $0.count - done) }
            if got < 0 && errno == EINTR { continue }
            if got <= 0 { break }
            done += got
        }
        if done < bytes.count { bytes.removeLast(bytes.count - done) }
        return decode(bytes).mapError { .refused($0) }
    }

    package enum ReadFailure: Error, Equatable, CustomStringConvertible {
        case cannotRead(String)
        case refused(Refusal)

        package var description: String {
            switch self {
            case .cannotRead(let reason): return reason
            case .refused(let refusal): return refusal.description
            }
        }
    }

    /// Writes the journal to a new file `path`, private to the user (0600), flushed to
    /// disk; nil when written, else why not.
    package func write(to path: String) -> String? {
        let bytes = encoded()
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return "cannot make \(path): \(String(cString: strerror(errno)))" }
        var done = 0
        while done < bytes.count {
            let wrote = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + done, bytes.count - done) }
            if wrote < 0 && errno == EINTR { continue }
            if wrote <= 0 { break }
            done += wrote
        }
        let flushed = done == bytes.count && fsync(descriptor) == 0
        let failure = flushed ? nil : "cannot write \(path): \(String(cString: strerror(errno == 0 ? ENOSPC : errno)))"
        close(descriptor)
        if failure != nil { unlink(path) }
        return failure
    }
}

extension SessionCodec.Reader {
    mutating func cells() -> [[UInt8]]? {
        guard let count = count(each: 8) else { return nil }
        var cells: [[UInt8]] = []
        cells.reserveCapacity(count)
        for _ in 0..<count {
            guard let length = self.count(each: 1) else { return nil }
            cells.append(Array(UnsafeRawBufferPointer(rebasing: bytes[position..<(position + length)])))
            position += length
        }
        return cells
    }

    mutating func journal() -> RecoveryJournal? {
        guard let device = u64(), let inode = u64(), let size = i64(), let seconds = int(), let nanoseconds = int(),
              let checksum = u64() else { return nil }
        var journal = RecoveryJournal(fingerprint: InputFingerprint(device: device, inode: inode, size: size, seconds: seconds,
                                                                    nanoseconds: nanoseconds, checksum: checksum))
        guard let changes = count(each: 16) else { return nil }
        for _ in 0..<changes {
            guard let record = int(), record >= 0, let cells = cells() else { return nil }
            journal.changed.append(.init(record: record, cells: cells))
        }
        guard let deleted = ints(), deleted.allSatisfy({ $0 >= 0 }), let additions = count(each: 16) else { return nil }
        journal.deleted = deleted
        for _ in 0..<additions {
            guard let anchor = int(), anchor >= 0, let rows = count(each: 8) else { return nil }
            var addition = RecoveryJournal.Addition(anchor: anchor, rows: [])
            for _ in 0..<rows {
                guard let cells = cells() else { return nil }
                addition.rows.append(cells)
            }
            journal.added.append(addition)
        }
        return journal
    }
}

extension EditedRows {
    /// Makes the edits of `journal` again, as steps of this table's journal (applied, and
    /// returned for the undo history), each checked as a typed edit is: the record must
    /// exist and be read whole. The index must be complete. Throws the first that cannot
    /// be made.
    package func replay(_ journal: RecoveryJournal) throws(EditRefusal) -> [EditStep] {
        let records = store.rowCount
        var steps: [EditStep] = []
        func take(_ step: EditStep?) {
            guard let step else { return }
            apply([step], splicing: false)
            steps.append(step)
        }
        func check(_ record: Int) throws(EditRefusal) {
            if record >= records { throw EditRefusal("the journal names record \(record + 1), past the file's \(records)") }
        }
        // Changes and deletions first, while the file's numbers are the table's.
        for change in journal.changed {
            try check(change.record)
            for (column, cell) in change.cells.enumerated() {
                take(try settingCell(record: change.record, column: column, to: cell))
            }
        }
        for record in Set(journal.deleted).sorted() {
            try check(record)
            take(try deletingRecord(record))
        }
        for addition in journal.added.sorted(by: { $0.anchor < $1.anchor }) {
            if addition.anchor > records { try check(addition.anchor) }
            var previous: Int?
            for cells in addition.rows {
                let step: EditStep
                if let previous, let record = virtualRecord(ofAdded: previous) {
                    step = try addingRecord(near: record, after: true, columns: cells.count, headerRows: 0)
                } else if addition.anchor < records {
                    step = try addingRecord(near: virtualRecord(ofOriginal: addition.anchor), after: false, columns: cells.count,
                                            headerRows: 0)
                } else if addition.anchor > 0 {
                    step = try addingRecord(near: virtualRecord(ofOriginal: addition.anchor - 1), after: true, columns: cells.count,
                                            headerRows: 0)
                } else {
                    throw EditRefusal("the journal adds records to a file with none")
                }
                take(step)
                guard case .add(let added, _, _) = step, let record = virtualRecord(ofAdded: added.id) else { continue }
                previous = added.id
                for (column, cell) in cells.enumerated() where !cell.isEmpty {
                    take(try settingCell(record: record, column: column, to: cell))
                }
            }
        }
        apply([], splicing: true)
        return steps
    }
}
