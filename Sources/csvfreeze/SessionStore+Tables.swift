#if canImport(Glibc)
import Glibc
#endif
import App
import Viewer

/// What is kept of several tables opened together beside each file's own session: which
/// table was shown and whether they were stacked, in a small file named by the inputs
/// (their real paths and table names, in order), checked as a session file is.
extension SessionStore {
    static let tablesMagic = Array("CSVFTABS".utf8)

    /// The file that keeps the state of `inputs` opened together.
    func tablesPath(for inputs: [TableInput]) -> String {
        var identity = Array("tables".utf8)
        for input in inputs {
            let path = input.path ?? "-"
            let real = realpath(path, nil).map { pointer in
                defer { free(pointer) }
                return String(cString: pointer)
            } ?? path
            identity += Array(real.utf8) + [0] + Array((input.table ?? "").utf8) + [0]
        }
        let hex = String(SessionCodec.fnv(identity[...]), radix: 16)
        return directory + "/" + Self.prefix + "tables-" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Which of `count` tables was shown and whether they were stacked, as kept (nil: none
    /// kept, `--fresh`, or a file that is not one such, whole).
    func loadTables(for inputs: [TableInput]) -> (shown: Int, stacked: Bool)? {
        guard !fresh else { return nil }
        let path = tablesPath(for: inputs)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == getuid(), info.st_size == 29 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 29)
        guard bytes.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, 29) }) == 29,
              Array(bytes[0..<8]) == Self.tablesMagic else { return nil }
        func number(_ at: Int, _ width: Int) -> UInt64 {
            (0..<width).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << UInt64(8 * $1) }
        }
        guard number(8, 4) == 1, number(12, 4) == UInt64(inputs.count), number(21, 8) == SessionCodec.fnv(bytes[0..<21]),
              number(16, 4) < UInt64(inputs.count), bytes[20] <= 1 else { return nil }
        _ = utimensat(AT_FDCWD, path, nil, 0)
        return (Int(number(16, 4)), bytes[20] == 1)
    }

    /// Keeps which of `inputs` was shown and whether they were stacked.
    func saveTables(shown: Int, stacked: Bool, for inputs: [TableInput]) {
        var bytes = Self.tablesMagic
        for (value, width) in [(UInt64(1), 4), (UInt64(inputs.count), 4), (UInt64(max(0, shown)), 4)] {
            for shift in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(8 * shift))) }
        }
        bytes.append(stacked ? 1 : 0)
        let sum = SessionCodec.fnv(bytes[...])
        for shift in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: sum >> UInt64(8 * shift))) }
        let path = tablesPath(for: inputs)
        if writePrivately(bytes, to: path) { trim(keeping: path) }
    }

    /// Writes `bytes` to `path` in the state folder (made 0700): to a temporary file of
    /// this process's, 0600, renamed into place, so a reader sees the old file or the new
    /// one, whole. False when it could not be written.
    func writePrivately(_ bytes: [UInt8], to path: String) -> Bool {
        HistoryFile.makeDirectories(for: directory + "/x")
        _ = chmod(directory, 0o700)
        let temporary = path + ".\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return false }
        var done = 0
        while done < bytes.count {
            let wrote = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + done, bytes.count - done) }
            if wrote <= 0 { break }
            done += wrote
        }
        _ = fchmod(descriptor, 0o600)
        close(descriptor)
        guard done == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }
}
