#if canImport(Glibc)
import Glibc
#endif

/// A character encoding an input is written in, converted to UTF-8 as it is read (with the
/// C library's iconv), so that everything after the input stage sees UTF-8.
public struct TextEncoding: Sendable, Equatable, CustomStringConvertible {
    /// The name iconv knows it by, as the user gave it (upper case): `LATIN1`,
    /// `WINDOWS-1252`, `UTF-16LE`, …
    public let name: String

    /// Checks that iconv can convert from `name` to UTF-8.
    public init(named name: String) throws(CellStoreError) {
        let upper = name.uppercased()
        let converter = iconv_open("UTF-8", upper)
        guard converter != iconv_t(bitPattern: -1) else { throw .unknownEncoding(name) }
        iconv_close(converter)
        self.name = upper
    }

    private init(known name: String) { self.name = name }

    public var description: String { name }

    /// True for UTF-8 itself: named, it is checked as it is read (through iconv, as any
    /// other encoding, so bytes not valid in it are counted and said); unnamed, nothing is.
    public var isUTF8: Bool { ["UTF-8", "UTF8"].contains(name) }

    /// Bytes per code unit: skipped at once over a sequence the encoding does not allow,
    /// so that UTF-16 and UTF-32 stay in step after one.
    var unitSize: Int {
        if name.hasPrefix("UTF-32") || name.hasPrefix("UCS-4") || name.hasPrefix("UTF32") { return 4 }
        if name.hasPrefix("UTF-16") || name.hasPrefix("UCS-2") || name.hasPrefix("UTF16") { return 2 }
        return 1
    }

    /// The encoding a byte-order mark at the start of `prefix` names: UTF-32 (needs four
    /// bytes) or UTF-16, either byte order. The mark itself converts to U+FEFF, which the
    /// loader skips as it skips a UTF-8 one (and CSV output writes back as UTF-8's).
    static func fromByteOrderMark(_ prefix: some Collection<UInt8>) -> TextEncoding? {
        let bytes = Array(prefix.prefix(4))
        if bytes == [0xFF, 0xFE, 0x00, 0x00] { return TextEncoding(known: "UTF-32LE") }
        if bytes == [0x00, 0x00, 0xFE, 0xFF] { return TextEncoding(known: "UTF-32BE") }
        if bytes.starts(with: [0xFF, 0xFE]) { return TextEncoding(known: "UTF-16LE") }
        if bytes.starts(with: [0xFE, 0xFF]) { return TextEncoding(known: "UTF-16BE") }
        return nil
    }

    /// True while `bytes` could still be the start of a longer byte-order mark (UTF-32's),
    /// so that a stream is read far enough to tell.
    static func mayBeLongerByteOrderMark(_ bytes: [UInt8]) -> Bool {
        [[0xFF, 0xFE, 0x00, 0x00], [0x00, 0x00, 0xFE, 0xFF]].contains { mark in
            bytes.count < mark.count && mark.starts(with: bytes)
        }
    }
}

/// How an input's bytes become UTF-8.
package enum Transcoding: Sendable, Equatable {
    /// They are UTF-8 (or taken as such) already.
    case none
    /// From this encoding.
    case from(TextEncoding)
    /// From UTF-16 or UTF-32 if the first bytes are a byte-order mark, else none: for
    /// compressed input, whose first bytes are known only once decompressed.
    case detect

    /// The transcoding for an input whose first bytes are `prefix` (when known), given
    /// the encoding the user named, if any. UTF-8 named is converted too: iconv from
    /// UTF-8 checks it, so a byte not valid in it is said, never passed over in silence.
    static func choose(named encoding: TextEncoding?, prefix: [UInt8]?) -> Transcoding {
        if let encoding { return .from(encoding) }
        guard let prefix else { return .detect }
        return TextEncoding.fromByteOrderMark(prefix).map(Transcoding.from) ?? .none
    }
}
