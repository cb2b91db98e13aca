#if canImport(Glibc)
import Glibc
#endif

/// A file as it is on disk: which file, its size, its last change and a checksum of its
/// first and last 64 KiB. A save over the file a table reads, and a recovery journal,
/// go ahead only while the file is still what the edits were made on.
package struct InputFingerprint: Sendable, Equatable, Codable {
    package var device: UInt64
    package var inode: UInt64
    package var size: Int64
    package var seconds: Int
    package var nanoseconds: Int
    package var checksum: UInt64

    package init(device: UInt64, inode: UInt64, size: Int64, seconds: Int, nanoseconds: Int, checksum: UInt64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.seconds = seconds
        self.nanoseconds = nanoseconds
        self.checksum = checksum
    }

    /// The file at `path` now (nil when it cannot be read).
    package init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        seconds = info.st_mtim.tv_sec
        nanoseconds = info.st_mtim.tv_nsec
        checksum = InputFingerprint.checksum(descriptor: descriptor, size: size)
    }

    /// The same file as `other`, unchanged: `sameFile` also asks for the same device and
    /// inode (a recovery journal may be used on a copy put back in place: it does not).
    package func matches(_ other: InputFingerprint, sameFile: Bool = true) -> Bool {
        (!sameFile || (device == other.device && inode == other.inode)) && size == other.size
            && seconds == other.seconds && nanoseconds == other.nanoseconds && checksum == other.checksum
    }

    static let block = 64 << 10

    /// A hash of the first and last `block` bytes (all of a smaller file).
    private static func checksum(descriptor: Int32, size: Int64) -> UInt64 {
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bitPattern: size)
        var buffer = [UInt8](repeating: 0, count: block)
        for start in Set([0, max(0, size - Int64(block))]).sorted() {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, block, off_t(start)) }
            guard count > 0 else { continue }
            buffer.withUnsafeBytes { bytes in
                var index = 0
                while index + 8 <= count {
                    hash = ByteHash.finalize(hash ^ bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)) &+ 0x632B_E59B_D9B4_E019
                    index += 8
                }
                hash = ByteHash.finalize(hash ^ ByteHash.tail(UnsafeRawBufferPointer(rebasing: bytes[..<count]), from: index))
            }
        }
        return hash
    }
}

extension CellStore {
    /// The input file on disk now, when it is still the file this store opened, unchanged
    /// in size and time (nil for standard input, or when it changed).
    package func fingerprintIfUnchanged() -> InputFingerprint? {
        guard let file = Loader.regularFile(of: loader.input), let opened = loader.openedAs,
              FileIdentity(file) == opened, let now = InputFingerprint(path: name),
              now.device == opened.device, now.inode == opened.inode, now.size == opened.size,
              now.seconds == opened.modified.tv_sec, now.nanoseconds == opened.modified.tv_nsec else { return nil }
        return now
    }

    /// The path of the file this store reads (nil for standard input and memory).
    package var inputPath: String? { Loader.regularFile(of: loader.input) != nil ? name : nil }
}

extension CellStore {
    /// The compression the input is read through, if any.
    package var compression: Compression? {
        if case .packed(let packed) = loader.input, let compression = packed.compression { return compression }
        guard let name = compressionName else { return nil }
        return Compression.allCases.first { $0.name == name }
    }
}
