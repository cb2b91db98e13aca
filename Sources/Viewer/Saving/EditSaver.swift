#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Export
import Scan
import Synchronization
import Table

/// Saves a table's edits to a file on a thread of its own: the input's bytes with the
/// edits spliced in (`EditedCopy`), to a temporary file beside the target that is flushed
/// to disk and renamed over it (git's lock file), keeping its permissions, owner where it
/// can, and symbolic links. Over the file the table reads it goes ahead only while that
/// file is unchanged on disk, looked at again just before the rename. An input that
/// arrives as it is read (a pipe, a compressed file) is waited for to its end first.
/// Dropping the saver cancels it: nothing is left at the target or beside it.
final class EditSaver {
    enum Outcome: Sendable, Equatable {
        case waiting(percent: Int)
        case writing(percent: Int)
        case saved(bytes: Int64)
        case failed(String)
        case cancelled
    }

    /// What Ctrl-S to a path comes to.
    enum Start {
        case nothing
        case refused(String)
        case asksOverwrite(String)
        case started(EditSaver)
    }

    let path: String
    /// The record the cursor is on, as the saved file numbers it.
    let savedRecord: Int?
    /// True when the file saved over is the table's own input.
    let isInput: Bool
    private let scan: BackgroundScan<Outcome>
    /// How far the input is read while the save waits for it (nil: it writes).
    private final class Waiting: Sendable {
        let percent = Mutex(Optional<Int>.some(0))
    }
    private let waiting = Waiting()

    private init(path: String, isInput: Bool, savedRecord: Int?, input: CellStore.InputHandle, patch: RecordPatch,
                 compression: Compression?, baseline: InputFingerprint?, wake: @escaping @Sendable () -> Void) {
        self.path = path
        self.isInput = isInput
        self.savedRecord = savedRecord
        let waiting = self.waiting
        scan = BackgroundScan(name: "csvfreeze save", total: 0, wake: wake) { control in
            // The whole input first: its bytes are what untouched records are saved as.
            while true {
                let version = input.changes.version
                let progress = input.progress
                if progress.isComplete { break }
                waiting.percent.withLock { $0 = Int((progress.fractionRead ?? 0) * 100) }
                wake()
                guard control.wait(for: input.changes, past: version) else { return nil }
            }
            if let failure = input.progress.failure { return .failed("the input is damaged (\(failure)): nothing saved") }
            waiting.percent.withLock { $0 = nil }
            return EditSaver.write(patch, input: input, to: path, isInput: isInput, compression: compression,
                                   baseline: baseline, control: control)
        }
    }

    /// Ctrl-S's path with edits: saves `edits` to `text` (`~/` is the home directory).
    /// Over the table's own file only while it is unchanged on disk, writable and not
    /// hard-linked elsewhere; over another file only when `overwrite` (the user said yes),
    /// and never over another table's input.
    static func start(to text: String, overwrite: Bool, edits: EditedRows, savedRecord: Int?) -> Start {
        var path = text.trimmingSpaces
        if path.hasPrefix("~/"), let home = getenv("HOME") { path = String(cString: home) + path.dropFirst() }
        guard !path.isEmpty else { return .nothing }
        guard !edits.journal.isEmpty else { return .refused("no edits to save") }
        let store = edits.store
        let patch: RecordPatch
        do {
            patch = try edits.makePatch(keepingDeleted: false)
        } catch {
            return .refused("not saved: \(error.description)")
        }
        var info = stat()
        let exists = stat(path, &info) == 0
        let isInput = store.isInput(path)
        if isInput && store.format != .csv {
            // A workbook's (or any converted input's) table is CSV: its bytes never go over the original.
            return .refused("not saved: \(path) is \(store.format.noun), and edits are saved as CSV: give a new name (a .csv)")
        }
        if isInput {
            guard let baseline = edits.baseline, let now = InputFingerprint(path: path), now.matches(baseline) else {
                return .refused("not saved: \(path) changed on disk since it was read; save the edits to another file")
            }
            if info.st_nlink > 1 {
                return .refused("not saved: \(path) has other hard links (a rename would split them); save to another file")
            }
        } else if OpenInputs.contains(path: path) {
            return .refused("not saved: that file is open here, the input of another table")
        }
        if exists {
            if (info.st_mode & S_IFMT) == S_IFDIR { return .refused("not saved: \(path) is a directory") }
            if access(path, W_OK) != 0 { return .refused("not saved: \(path) is read-only") }
            if !isInput && !overwrite { return .asksOverwrite(path) }
        }
        return .started(EditSaver(path: path, isInput: isInput, savedRecord: savedRecord, input: store.inputHandle,
                                  patch: patch, compression: store.compression, baseline: isInput ? edits.baseline : nil,
                                  wake: store.wake))
    }

    var outcome: Outcome {
        switch scan.status {
        case .running(let done, let total):
            if let percent = waiting.percent.withLock({ $0 }) { return .waiting(percent: percent) }
            return .writing(percent: Viewer.percent(done, of: total))
        case .finished(let outcome): return outcome
        case .cancelled: return .cancelled
        }
    }

    func cancel() { scan.cancel() }
    func wait() { scan.wait() }

    /// The pass: the edited bytes into a temporary file renamed over `path`.
    private static func write(_ patch: RecordPatch, input: CellStore.InputHandle, to path: String, isInput: Bool,
                              compression: Compression?, baseline: InputFingerprint?, control: ScanControl) -> Outcome? {
        let sink: ExportSink
        do {
            sink = try ExportSink(replacing: path)
        } catch {
            return .failed(error.description)
        }
        let (source, end, file) = input.bytes
        let counted = control.part(total: max(1, end), worth: max(1, end))
        if let failure = EditedCopy.write(patch, source: source, end: end, file: file, to: sink, compression: compression,
                                          control: counted) {
            sink.discard()
            return .failed(failure)
        }
        if control.isCancelled {
            sink.discard()
            return nil
        }
        let committed = sink.commit(durably: true) {
            // Looked at last: the file saved over must still be the one the edits were made on.
            guard isInput, let baseline else { return nil }
            guard let now = InputFingerprint(path: path), now.matches(baseline) else {
                return "\(path) changed on disk while saving: nothing replaced"
            }
            return nil
        }
        guard committed else { return .failed(sink.failure ?? "cannot write \(path)") }
        return .saved(bytes: sink.bytesWritten)
    }
}

extension EditedRows {
    /// Saves the edits to `path` at once, by the rules of Ctrl-S (over the input only
    /// while it is unchanged; any other file is replaced): nil when saved, else why not.
    /// For a session ended by a signal, and the command line's `--in-place`.
    package func save(to path: String) -> String? {
        switch EditSaver.start(to: path, overwrite: true, edits: self, savedRecord: nil) {
        case .started(let saver):
            saver.wait()
            switch saver.outcome {
            case .saved: return nil
            case .failed(let reason): return reason
            default: return "stopped"
            }
        case .refused(let reason): return reason
        case .nothing, .asksOverwrite: return "cannot write \(path)"
        }
    }
}
