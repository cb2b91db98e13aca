#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Random access to the bytes of an input, from any thread.
package protocol ByteSource: Sendable {
    /// Copies up to `buffer.count` bytes starting at `offset`; returns how many were read
    /// (0 at the end of what exists so far).
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int
}

/// A regular file read with `pread`, never mapped: a file truncated while open must not
/// turn into SIGBUS.
package final class FileSource: ByteSource {
    package let descriptor: Int32

    /// Opens `path`, with one clear error for each way that can fail. A FIFO is opened
    /// without waiting for a writer when `waitsForWriter` is false (then read it only
    /// when `poll` says so: until a writer comes, a read finds nothing).
    package init(path: String, waitsForWriter: Bool = true) throws(CellStoreError) {
        var info = stat()
        if stat(path, &info) != 0 {
            throw FileSource.error(for: errno, path: path)
        }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw .isDirectory(path) }
        let isFIFO = (info.st_mode & S_IFMT) == S_IFIFO
        let fd = open(path, O_RDONLY | O_CLOEXEC | (isFIFO && !waitsForWriter ? O_NONBLOCK : 0))
        if fd < 0 { throw FileSource.error(for: errno, path: path) }
        descriptor = fd
    }

    /// Wraps an already open descriptor (it is closed with the source).
    package init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    static func error(for code: Int32, path: String) -> CellStoreError {
        switch code {
        case ENOENT, ENOTDIR: return .notFound(path)
        case EACCES, EPERM: return .permissionDenied(path)
        case EISDIR: return .isDirectory(path)
        default: return .unreadable(path, String(cString: strerror(code)))
        }
    }

    /// True for a named pipe or a pipe.
    package var isFIFO: Bool {
        var info = stat()
        return fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO
    }

    /// The size of a regular file, or nil for a FIFO, a character device and the like.
    package var regularFileSize: Int64? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    package func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let count = pread(descriptor, base, buffer.count, off_t(offset))
            if count >= 0 { return count }
            if errno != EINTR { return 0 }
        }
    }

    /// Reads sequentially from the current position (for pipes, FIFOs and devices).
    package func readNext(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let count = Glibc.read(descriptor, base, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR { return -1 }
        }
    }
}

/// Bytes of a stream kept as they arrive so they can be re-read at any offset: in an
/// unlinked temporary file, or in memory when no temporary file can be made (or when the
/// disk fills up, from that offset on).
package final class SpoolSource: ByteSource {
    /// The temporary file, or -1 when there is none.
    private let descriptor: Int32
    /// Bytes from `overflowStart` on are held in `memory`, in pieces of `pieceSize`: one
    /// growing array would copy itself whole as it grows, holding the lock (and every
    /// reader, the screen included) for as long as a copy of gigabytes takes.
    private let overflowStart: Atomic<Int64>
    private let memory = Mutex<[[UInt8]]>([])
    static let pieceSize = 1 << 20
    private let written = Atomic<Int64>(0)
    /// Where the temporary file is (for messages).
    let directory: String
    /// When reading pauses.
    let limit: SpoolLimit

    /// Free space to keep under `.keepFree`, when not the file system's default (tests).
    private let reserve: Int64?

    /// Creates the spool in `directory`, by default `$TMPDIR` (or /tmp).
    package init(limit: SpoolLimit = .keepFree, directory: String? = nil, reserve: Int64? = nil) {
        self.limit = limit
        self.reserve = reserve
        let directory = directory ?? getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        self.directory = directory
        var template = Array((directory + "/csvfreeze-stdin-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if fd >= 0 {
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        }
        descriptor = fd
        overflowStart = Atomic(fd >= 0 ? Int64.max : 0)
    }

    /// How many more bytes may be spooled now (0 or less: reading pauses). Under the
    /// default limit this follows the temporary file system's free space as it changes;
    /// once the free space kept is reached, the next bytes go to memory (a small input
    /// still opens on a nearly full disk), up to its allowance. Called by the one thread
    /// that appends.
    package func room() -> Int64 {
        switch limit {
        case .bytes(let cap, _):
            return cap - length
        case .keepFree:
            var overflow = overflowStart.load(ordering: .acquiring)
            if overflow == Int64.max {
                var info = statvfs()
                guard fstatvfs(descriptor, &info) == 0 else { return 1 << 20 }
                let unit = Int64(info.f_frsize)
                let free = Int64(info.f_bavail) * unit
                let room = free - (reserve ?? SpoolLimit.reserve(ofFileSystemSize: Int64(info.f_blocks) * unit))
                if room > 0 { return room }
                overflow = length
                overflowStart.store(overflow, ordering: .releasing)
            }
            return SpoolLimit.memoryAllowance - (length - overflow)
        }
    }

    /// Why reading paused, for the status line: how much was read, and which limit.
    package var pauseReason: String {
        let read = SpoolLimit.describe(length)
        switch limit {
        case .bytes(_, let label):
            return "paused at \(read): --spool-limit \(label)"
        case .keepFree:
            if overflowStart.load(ordering: .acquiring) == Int64.max {
                return "paused at \(read): keeping free space in \(directory) (--spool-limit)"
            }
            if descriptor >= 0 {
                // Past the free space kept, the rest went to memory, and that is used up too.
                return "paused at \(read): \(directory) is nearly full and memory for the input is used up (--spool-limit)"
            }
            return "paused at \(read): memory for the input is used up (--spool-limit)"
        }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Bytes spooled so far.
    package var length: Int64 { written.load(ordering: .acquiring) }

    /// Appends bytes; called by the one thread that reads the stream.
    package func append(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        let offset = written.load(ordering: .relaxed)
        var done = 0
        if offset < overflowStart.load(ordering: .relaxed) {
            while done < bytes.count {
                let count = pwrite(descriptor, base + done, bytes.count - done, off_t(offset) + off_t(done))
                if count < 0 && errno == EINTR { continue }
                if count <= 0 {
                    overflowStart.store(offset + Int64(done), ordering: .releasing)
                    break
                }
                done += count
            }
        }
        if done < bytes.count {
            memory.withLock { pieces in
                var rest = UnsafeRawBufferPointer(rebasing: bytes[done...])
                while !rest.isEmpty {
                    if pieces.isEmpty || pieces[pieces.count - 1].count == SpoolSource.pieceSize {
                        pieces.append([])
                        pieces[pieces.count - 1].reserveCapacity(SpoolSource.pieceSize)
                    }
                    let room = SpoolSource.pieceSize - pieces[pieces.count - 1].count
                    let taken = min(room, rest.count)
                    pieces[pieces.count - 1].append(contentsOf: UnsafeRawBufferPointer(rebasing: rest[..<taken]))
                    rest = UnsafeRawBufferPointer(rebasing: rest[taken...])
                }
            }
        }
        written.store(offset + Int64(bytes.count), ordering: .releasing)
    }

    package func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let available = length - offset
        guard available > 0, let base = buffer.baseAddress else { return 0 }
        var wanted = Int(min(Int64(buffer.count), available))
        let overflow = overflowStart.load(ordering: .acquiring)
        if offset < overflow {
            wanted = Int(min(Int64(wanted), overflow - offset))
            return max(0, pread(descriptor, base, wanted, off_t(offset)))
        }
        // Pieces are full but the last, so an offset's piece is found by division.
        return memory.withLock { pieces in
            let start = Int(offset - overflow)
            let index = start / SpoolSource.pieceSize, within = start % SpoolSource.pieceSize
            guard index < pieces.count, within < pieces[index].count else { return 0 }
            let count = min(wanted, pieces[index].count - within)
            pieces[index].withUnsafeBytes { source in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[within..<(within + count)]))
            }
            return count
        }
    }
}

/// A fixed input held in memory (tests, and small inputs built by the program).
package final class MemorySource: ByteSource {
    let bytes: [UInt8]

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    package func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let start = Int(offset)
        guard start < bytes.count else { return 0 }
        let end = min(bytes.count, start + buffer.count)
        bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
        return end - start
    }
}
