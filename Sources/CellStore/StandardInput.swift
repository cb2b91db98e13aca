#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import CThread

/// Standard input looked at before anything reads it, so that a database, a workbook or
/// a JSON array piped in (`cat shop.db | csvfreeze`) is told as a file of that name would
/// be. The bytes looked at are kept and handed to the one reader of the stream.
package enum StandardInput {
    /// Bytes read from a stream on standard input to tell its format, not yet handed on.
    private static let peeked = Mutex<[UInt8]?>(nil)

    /// The bytes read to tell the format of a stream on standard input, once: its reader
    /// puts them before what it reads next. Nil when none were read (or already taken).
    package static func takePeeked() -> [UInt8]? {
        peeked.withLock { kept in
            defer { kept = nil }
            return kept
        }
    }

    /// The format standard input's first bytes say (`InputSpec.Format.detect`, no name):
    /// read until they tell a database, a workbook or a JSON array from text, or the input
    /// ends. A regular file is read where it is, a stream's bytes are kept for its reader
    /// (`takePeeked`). This waits for the producer's first bytes.
    package static func detectFormat() -> InputSpec.Format {
        // A zip is a workbook here by its first entries' names only (there is no name, and
        // its end has not come): one whose first 4 KiB name no `xl/` part is read as text.
        (try? InputSpec.Format.detect(name: nil, firstBytes: firstBytes(), isWhole: false)) ?? .csv
    }

    /// Standard input's first bytes, enough to tell its format (see `detectFormat`).
    private static func firstBytes() -> [UInt8] {
        var info = stat()
        guard fstat(0, &info) == 0 else { return [] }
        var bytes: [UInt8]
        if info.st_mode & S_IFMT == S_IFREG {
            bytes = [UInt8](repeating: 0, count: InputSpec.Format.magicLength)
            let got = bytes.withUnsafeMutableBytes { pread(0, $0.baseAddress, $0.count, 0) }
            bytes.removeSubrange(max(0, got)...)
        } else {
            bytes = peeked.withLock { $0 } ?? []
            sayWaiting(before: bytes)
            var chunk = [UInt8](repeating: 0, count: 64)
            while InputSpec.Format.needsMoreBytes(bytes) {
                let got = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
                if got < 0 && errno == EINTR { continue }
                if got <= 0 { break }
                bytes += chunk[..<got]
            }
            let kept = bytes
            peeked.withLock { $0 = kept }
        }
        return bytes
    }

    /// True when standard input may hold JSON: its format says so, or its first byte
    /// after blanks (and a byte-order mark) opens an object or an array (a first line not
    /// read whole yet). Looks as `detectFormat` does, so nothing is lost to the reader.
    package static func mayHoldJSON() -> Bool {
        let bytes = firstBytes()
        if (try? InputSpec.Format.detect(name: nil, firstBytes: bytes, isWhole: false))?.jsonMode != nil { return true }
        let start = InputSpec.Format.firstNonBlank(bytes[...], from: bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0)
        return start < bytes.count && (bytes[start] == UInt8(ascii: "{") || bytes[start] == UInt8(ascii: "["))
    }

    /// Says on the terminal, before the screen is drawn, that the viewer waits for the
    /// producer's first bytes (a silent `tail -f` or a slow query): a blank terminal
    /// would look hung. Only for the viewer (standard output and error a terminal), only
    /// when nothing is there to read yet; the screen then draws over it.
    private static func sayWaiting(before bytes: [UInt8]) {
        guard bytes.isEmpty, isatty(1) == 1, isatty(2) == 1 else { return }
        var ready = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 0) == 0 else { return }
        let note = "csvfreeze: waiting for input on stdin (Ctrl-C stops)\n"
        _ = note.withCString { write(2, $0, strlen($0)) }
    }

    /// Copies standard input (the bytes `detectFormat` kept first) into a private file
    /// (mode 0600, in a new 0700 directory in `$TMPDIR`) and returns its path: what SQLite
    /// and libzip need, which read a file, not a stream (SQLite cannot open an unlinked
    /// file through `/proc/self/fd`). The file and its directory are removed when the
    /// process exits or a signal ends it (`ct_remove_at_exit`). At most what `limit` lets a
    /// spool hold; past it, throws one line saying so.
    package static func copyToFile(limit: SpoolLimit, format: InputSpec.Format) throws(CellStoreError) -> String {
        var template = Array("\(TemporaryFile.directory)/csvfreeze-stdin-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw .unreadable("stdin", "cannot make a temporary directory in \(TemporaryFile.directory): "
                              + String(cString: strerror(errno)))
        }
        let folder = String(cString: made)
        let path = folder + "/stdin"
        guard ct_remove_at_exit(path, folder) == 0 else {
            rmdir(folder)
            throw .unreadable("stdin", "the temporary directory's name is too long: \(folder)")
        }
        let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .unreadable("stdin", "cannot make a temporary file in \(folder): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var info = stat()
        let isFile = fstat(0, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
        var written: Int64 = 0
        var statistics = statvfs()
        let room: Int64
        switch limit {
        case .bytes(let cap, _):
            room = cap
        case .keepFree:
            if fstatvfs(descriptor, &statistics) == 0 {
                let unit = Int64(statistics.f_frsize)
                room = Int64(statistics.f_bavail) * unit - SpoolLimit.reserve(ofFileSystemSize: Int64(statistics.f_blocks) * unit)
            } else {
                room = 1 << 30
            }
        }
        func write(_ bytes: UnsafeRawBufferPointer) throws(CellStoreError) {
            guard written + Int64(bytes.count) <= room else {
                let said: String
                if case .bytes(_, let label) = limit {
                    said = "more than --spool-limit \(label)"
                } else {
                    said = "more than the free space kept in \(TemporaryFile.directory) allows (--spool-limit sets another)"
                }
                throw .unsupported("stdin", "\(format.noun) is read from a copy in a file, and this one is \(said)")
            }
            var done = 0
            while done < bytes.count {
                let moved = Glibc.write(descriptor, bytes.baseAddress.map { $0 + done }, bytes.count - done)
                if moved < 0 && errno == EINTR { continue }
                if moved <= 0 {
                    throw .unreadable("stdin", "cannot copy it to \(TemporaryFile.directory): \(String(cString: strerror(errno)))")
                }
                done += moved
            }
            written += Int64(bytes.count)
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        if !isFile, let first = takePeeked() {
            // At most `InputSpec.Format.magicLength` bytes: they fit the buffer.
            let count = min(first.count, buffer.count)
            first.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            try write(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
        var offset: off_t = 0
        while true {
            let got = isFile ? pread(0, buffer.baseAddress, buffer.count, offset) : read(0, buffer.baseAddress, buffer.count)
            if got < 0 && errno == EINTR { continue }
            if got < 0 { throw .unreadable("stdin", "read error: " + String(cString: strerror(errno))) }
            if got == 0 { break }
            offset += off_t(got)
            try write(UnsafeRawBufferPointer(rebasing: buffer[..<got]))
        }
        return path
    }
}
