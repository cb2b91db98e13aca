#if canImport(Glibc)
import Glibc
#endif

/// Changes byte `at` of the file at `path` in place (`mask` flipped), as a disk or a hand
/// would damage a kept result; false when the file could not be read or written there.
@discardableResult
package func damageByte(of path: String, at: Int, mask: UInt8 = 0x10) -> Bool {
    let file = open(path, O_RDWR)
    guard file >= 0 else { return false }
    defer { close(file) }
    var byte: UInt8 = 0
    guard pread(file, &byte, 1, off_t(at)) == 1 else { return false }
    byte ^= mask
    return pwrite(file, &byte, 1, off_t(at)) == 1
}
