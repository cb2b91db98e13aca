#if canImport(Glibc)
import Glibc
#endif

/// What a file was when it was opened (which file, its size, its last change), to tell
/// later that it changed on disk: rows read then may not be what it holds now.
package struct FileIdentity: Sendable, Equatable {
    var device: UInt64
    var inode: UInt64
    /// Bytes in the file then.
    package var size: Int64
    var modified: timespec

    init?(_ file: FileSource) {
        var info = stat()
        guard fstat(file.descriptor, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The file now at `path` (nil when there is none).
    package init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    private init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = info.st_mtim
    }

    /// How the file at `path` differs now from this one, which was read from there (nil:
    /// it is the same). One `stat`.
    package func change(at path: String) -> DiskChange? {
        guard let now = FileIdentity(path: path) else { return .deleted }
        if now.device != device || now.inode != inode { return .replaced }
        if now.size < size { return .shorter }
        return now == self ? nil : .changed
    }

    package static func == (a: FileIdentity, b: FileIdentity) -> Bool {
        a.device == b.device && a.inode == b.inode && a.size == b.size
            && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
    }
}

/// How a file on disk differs from what was read of it.
package enum DiskChange: Sendable, Equatable, CustomStringConvertible {
    case deleted, replaced, shorter, changed

    package var description: String {
        switch self {
        case .deleted: return "file deleted"
        case .replaced: return "file replaced on disk"
        case .shorter: return "file shorter on disk now"
        case .changed: return "file changed on disk"
        }
    }
}
