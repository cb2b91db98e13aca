#if canImport(Glibc)
import Glibc
#endif

/// What a file was when it was opened (which file, its size, its last change), to tell
/// later that it changed on disk: rows read then may not be what it holds now.
struct FileIdentity: Sendable, Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: timespec

    init?(_ file: FileSource) {
        var info = stat()
        guard fstat(file.descriptor, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The file now at `path` (nil when there is none).
    init?(path: String) {
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

    static func == (a: FileIdentity, b: FileIdentity) -> Bool {
        a.device == b.device && a.inode == b.inode && a.size == b.size
            && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
    }
}
