#if canImport(Glibc)
import Glibc
#endif
import App
import CellStore
import Export
import SQL
import Table
import Terminal
import Viewer


/// What a session leaves of unsaved edits, and `--recover` taking them back.
extension Session {
    /// Keeps each table's unsaved edits in a new file in the state folder's `recovery/`,
    /// and says where on stderr: a session ended by SIGTERM, SIGHUP or the terminal's
    /// going away loses nothing typed. A file's edits are kept as a journal (the edits and
    /// the file's fingerprint: `csvfreeze --recover JOURNAL FILE` makes them again);
    /// standard input's, which no journal could be applied to again, as the whole table
    /// with them, as Ctrl-S would save it.
    static func keepUnsavedEdits(of viewers: [Viewer]) {
        for viewer in viewers where viewer.keepsEditsOnExit {
            let name = viewer.file?.name ?? "table"
            let edits = viewer.unsavedEdits == 1 ? "1 unsaved edit" : "\(viewer.unsavedEdits) unsaved edits"
            do {
                let folder = try StateDirectory.folder("recovery")
                var base = String(name.split(separator: "/").last ?? "").filter { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
                if base.isEmpty || base.hasPrefix(".") { base = "table" + base }
                let journal = viewer.recoveryJournal()
                if journal != nil { base += ".edits" }
                var now = time(nil)
                var parts = tm()
                localtime_r(&now, &parts)
                func two(_ number: Int32) -> String { number < 10 ? "0\(number)" : "\(number)" }
                let stamp = "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))-\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))"
                var path = folder + "/" + stamp + "-" + base
                var suffix = 2
                while access(path, F_OK) == 0 {
                    path = folder + "/" + stamp + "-\(suffix)-" + base
                    suffix += 1
                }
                if let journal {
                    if let failure = journal.write(to: path) {
                        say("\(edits) of \(name) could not be kept: \(failure)")
                    } else {
                        say("\(edits) of \(name) kept in \(path) (csvfreeze --recover \(path) \(name) opens them again)")
                    }
                } else if let failure = viewer.writeEditsForRecovery(to: path) {
                    say("\(edits) of \(name) could not be kept: \(failure)")
                } else {
                    say("\(edits) of \(name) kept in \(path) (the table with them applied)")
                }
            } catch {
                say("\(edits) of \(name) could not be kept: \(error.description)")
            }
        }
    }

    /// `--recover JOURNAL FILE`'s journal, when it is sound and FILE is still the file its
    /// edits were made on; else one line and exit (1: it cannot be read; 65: it does not fit).
    static func recovery(_ journalPath: String, file: String) -> RecoveryJournal {
        let journal: RecoveryJournal
        switch RecoveryJournal.read(path: journalPath) {
        case .success(let read): journal = read
        case .failure(let failure):
            if case .cannotRead = failure { fail("--recover \(journalPath): \(failure)", status: 1) }
            fail("--recover \(journalPath): \(failure): nothing applied", status: 65)
        }
        guard let now = InputFingerprint(path: file) else { fail("--recover: cannot read \(file)", status: 1) }
        // A copy put back in place (another inode) is the same file when all else is.
        guard now.matches(journal.fingerprint, sameFile: false) else {
            fail("--recover: \(file) changed since the edits in \(journalPath) were made: nothing applied", status: 65)
        }
        return journal
    }
}
