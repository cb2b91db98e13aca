#if canImport(Glibc)
import Glibc
#endif
import CZip

/// A zip archive opened read-only with libzip: a workbook's parts are its entries.
/// Used by one thread at a time; each reader opens its own (libzip keeps a file position).
final class ZipArchive {
    private let archive: OpaquePointer
    /// The path as given, for messages.
    let name: String

    /// Opens the archive behind `file` (a new descriptor on the same file, so that no other
    /// reader's position moves), or at `path` when that cannot be done.
    init(file: FileSource?, path: String) throws(CellStoreError) {
        name = path
        var descriptor: Int32 = -1
        if let file { descriptor = Glibc.open("/proc/self/fd/\(file.descriptor)", O_RDONLY | O_CLOEXEC) }
        if descriptor < 0 { descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC) }
        if descriptor < 0 { throw FileSource.error(for: errno, path: path) }
        var code: Int32 = 0
        guard let archive = zip_fdopen(descriptor, ZIP_RDONLY, &code) else {
            close(descriptor)
            throw .unsupported(path, ZipArchive.openFailure(code))
        }
        self.archive = archive
    }

    deinit { zip_discard(archive) }

    /// What a failed open means to a user.
    static func openFailure(_ code: Int32) -> String {
        switch code {
        case ZIP_ER_NOZIP: return "not a zip archive, so not an .xlsx workbook (damaged or cut short?)"
        case ZIP_ER_INCONS: return "the workbook's zip archive is damaged or cut short (its directory does not match its entries)"
        case ZIP_ER_MEMORY: return "out of memory opening the workbook"
        default:
            var error = zip_error_t()
            zip_error_init_with_code(&error, code)
            defer { zip_error_fini(&error) }
            return "the workbook's zip archive cannot be read (\(String(cString: zip_error_strerror(&error))))"
        }
    }

    /// The index of the entry named `entry`, or nil.
    func locate(_ entry: String) -> UInt64? {
        let index = zip_name_locate(archive, entry, 0)
        return index >= 0 ? UInt64(index) : nil
    }

    /// The entry's declared sizes, compressed and not.
    func sizes(of index: UInt64) -> (compressed: Int64, uncompressed: Int64) {
        var info = zip_stat_t()
        zip_stat_init(&info)
        guard zip_stat_index(archive, index, 0, &info) == 0 else { return (0, 0) }
        let compressed = info.valid & UInt64(ZIP_STAT_COMP_SIZE) != 0 ? Int64(clamping: info.comp_size) : 0
        let uncompressed = info.valid & UInt64(ZIP_STAT_SIZE) != 0 ? Int64(clamping: info.size) : 0
        return (compressed, uncompressed)
    }

    /// Opens entry `index` for reading in order.
    func open(_ index: UInt64, part: String) throws(ZipEntryError) -> ZipEntry {
        guard let file = zip_fopen_index(archive, index, 0) else {
            let error = zip_get_error(archive)
            let code = error.map { zip_error_code_zip($0) } ?? 0
            if code == ZIP_ER_ENCRNOTSUPP || code == ZIP_ER_NOPASSWD {
                throw ZipEntryError("\(part) is encrypted: not read")
            }
            let why = error.map { String(cString: zip_error_strerror($0)) } ?? "unknown error"
            throw ZipEntryError("\(part) cannot be read from the zip (\(why))")
        }
        return ZipEntry(file: file, part: part, archive: self)
    }
}

/// Why a part of the archive could not be read, in words for a user.
struct ZipEntryError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// One entry of a zip archive, decompressed as it is read.
final class ZipEntry {
    private let file: OpaquePointer
    /// The archive the entry is read from: libzip reads through it, so it lives as long.
    private let archive: ZipArchive
    let part: String
    /// Decompressed bytes read so far.
    private(set) var bytesRead: Int64 = 0

    init(file: OpaquePointer, part: String, archive: ZipArchive) {
        self.file = file
        self.archive = archive
        self.part = part
    }

    deinit { zip_fclose(file) }

    /// Reads the next bytes into `buffer`: a count, 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZipEntryError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let count = zip_fread(file, base, UInt64(buffer.count))
        if count < 0 {
            let why = zip_file_get_error(file).map { String(cString: zip_error_strerror($0)) } ?? "unknown error"
            throw ZipEntryError("\(part) is damaged in the zip after \(bytesRead.grouped) bytes (\(why))")
        }
        bytesRead += Int64(count)
        return Int(count)
    }
}
