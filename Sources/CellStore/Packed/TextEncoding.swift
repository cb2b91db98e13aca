#if canImport(Glibc)
import Glibc
#endif

/// A character encoding an input is written in, converted to UTF-8 as it is read (with the
/// C library's iconv), so that everything after the input stage sees UTF-8.
package struct TextEncoding: Sendable, Equatable, CustomStringConvertible {
    /// The name iconv knows it by, as the user gave it (upper case): `LATIN1`,
    /// `WINDOWS-1252`, `UTF-16LE`, …
    package let name: String

    /// Checks that iconv can convert from `name` to UTF-8.
    package init(named name: String) throws(CellStoreError) {
        let upper = name.uppercased()
        let converter = iconv_open("UTF-8", upper)
        guard converter != iconv_t(bitPattern: -1) else { throw .unknownEncoding(name) }
        iconv_close(converter)
        self.name = upper
    }

    private init(known name: String) { self.name = name }

    package var description: String { name }

    /// True for UTF-8 itself: named, it is checked as it is read (through iconv, as any
    /// other encoding, so bytes not valid in it are counted and said); unnamed, nothing is.
    package var isUTF8: Bool { ["UTF-8", "UTF8"].contains(name) }

    /// Bytes per code unit: skipped at once over a sequence the encoding does not allow,
    /// so that UTF-16 and UTF-32 stay in step after one.
    var unitSize: Int {
        if name.hasPrefix("UTF-32") || name.hasPrefix("UCS-4") || name.hasPrefix("UTF32") { return 4 }
        if name.hasPrefix("UTF-16") || name.hasPrefix("UCS-2") || name.hasPrefix("UTF16") { return 2 }
        return 1
    }

    /// The encoding a byte-order mark at the start of `prefix` names: UTF-32 (needs four
    /// bytes) or UTF-16, either byte order, and with `utf8` UTF-8's too. The mark itself
    /// converts to U+FEFF, which the loader skips as it skips a UTF-8 one (and CSV output
    /// writes back as UTF-8's).
    static func fromByteOrderMark(_ prefix: some Collection<UInt8>, utf8: Bool = false) -> TextEncoding? {
        let bytes = Array(prefix.prefix(4))
        if bytes == [0xFF, 0xFE, 0x00, 0x00] { return TextEncoding(known: "UTF-32LE") }
        if bytes == [0x00, 0x00, 0xFE, 0xFF] { return TextEncoding(known: "UTF-32BE") }
        if bytes.starts(with: [0xFF, 0xFE]) { return TextEncoding(known: "UTF-16LE") }
        if bytes.starts(with: [0xFE, 0xFF]) { return TextEncoding(known: "UTF-16BE") }
        if utf8 && bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return TextEncoding(known: "UTF-8") }
        return nil
    }

    /// True when `self`, named by the user, agrees with `marked`, what a byte-order mark
    /// says: the same (`UTF-16LE`), or its family with no byte order (`UTF-16`, `UCS-2`).
    func agrees(with marked: TextEncoding) -> Bool {
        let plain = String(name.filter { $0 != "-" && $0 != "_" })
        let mark = String(marked.name.filter { $0 != "-" })
        if plain == mark { return true }
        switch mark {
        case "UTF16LE", "UTF16BE": return ["UTF16", "UCS2", "UNICODE"].contains(plain)
        case "UTF32LE", "UTF32BE": return ["UTF32", "UCS4"].contains(plain)
        default: return false
        }
    }

    /// True while `bytes` could still be the start of a longer byte-order mark (UTF-32's,
    /// or UTF-8's, which wins over a name too), so that a stream is read far enough to tell.
    static func mayBeLongerByteOrderMark(_ bytes: [UInt8]) -> Bool {
        [[0xFF, 0xFE, 0x00, 0x00], [0x00, 0x00, 0xFE, 0xFF], [0xEF, 0xBB, 0xBF]].contains { mark in
            bytes.count < mark.count && mark.starts(with: bytes)
        }
    }
}

/// How an input's bytes become UTF-8.
package enum Transcoding: Sendable, Equatable {
    /// They are UTF-8 (or taken as such) already.
    case none
    /// From this encoding; `overruling` the one the user named, when a byte-order mark
    /// said otherwise.
    case from(TextEncoding, overruling: TextEncoding? = nil)
    /// From what a byte-order mark says if the first bytes are one, else from `otherwise`
    /// (none when nil): for compressed input, whose first bytes are known only once
    /// decompressed.
    case detect(otherwise: TextEncoding?)

    /// The transcoding for an input whose first bytes are `prefix` (when known), given
    /// the encoding the user named, if any. A byte-order mark wins over the name: the
    /// producer wrote it into the bytes, where a name given for several inputs (or by a
    /// config file) is a guess about them all. UTF-8 named (or marked, over another name)
    /// is converted too: it is checked, so a byte not valid in it is said.
    static func choose(named encoding: TextEncoding?, prefix: [UInt8]?) -> Transcoding {
        guard let prefix else { return .detect(otherwise: encoding) }
        return decided(named: encoding, marked: TextEncoding.fromByteOrderMark(prefix, utf8: encoding != nil))
    }

    /// The transcoding once the first bytes are known: `marked` is what their byte-order
    /// mark says (UTF-8's counted only when a name was given).
    static func decided(named encoding: TextEncoding?, marked: TextEncoding?) -> Transcoding {
        guard let marked else { return encoding.map { .from($0) } ?? .none }
        guard let encoding else { return .from(marked) }
        return .from(marked, overruling: encoding.agrees(with: marked) ? nil : encoding)
    }
}
