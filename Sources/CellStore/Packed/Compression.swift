import CBzip2
import CLzma
import CZlib
import CZstd

/// A compression format csvfreeze reads, recognized by its magic bytes (never by name).
package enum Compression: Sendable, Equatable, CaseIterable {
    /// gzip, also with several members (pigz, `cat a.gz b.gz`) and BGZF (bgzip).
    case gzip
    /// Zstandard, any number of frames (skippable frames included).
    case zstd
    /// xz, concatenated streams and padding included.
    case xz
    /// bzip2, concatenated streams included.
    case bzip2

    /// Bytes needed to recognize every format (bzip2's `BZh` and a digit could begin a
    /// line of text: the 6-byte magic of its first block, or of its end, must follow).
    package static let magicLength = 10

    /// The format whose magic bytes `prefix` starts with, or nil for anything else. When
    /// `prefix` is all the input there is (shorter than `magicLength`), bzip2's magic cut
    /// short still counts, so that a cut file says it is truncated.
    package static func detect(_ prefix: some Collection<UInt8>, isWhole: Bool = false) -> Compression? {
        let bytes = Array(prefix.prefix(magicLength))
        if bytes.starts(with: [0x1F, 0x8B, 0x08]) { return .gzip }
        if bytes.starts(with: [0x28, 0xB5, 0x2F, 0xFD]) { return .zstd }
        // A skippable zstd frame (0x184D2A50…5F, little-endian) may come first.
        if bytes.count >= 4, bytes[0] & 0xF0 == 0x50, bytes[1] == 0x2A, bytes[2] == 0x4D, bytes[3] == 0x18 { return .zstd }
        if bytes.starts(with: [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return .xz }
        if bytes.count >= 4, bytes.starts(with: [0x42, 0x5A, 0x68]), (0x31...0x39).contains(bytes[3]) {
            let rest = bytes[4...]
            let blocks: [[UInt8]] = [[0x31, 0x41, 0x59, 0x26, 0x53, 0x59], [0x17, 0x72, 0x45, 0x38, 0x50, 0x90]]
            if blocks.contains(where: { rest.elementsEqual($0) || (isWhole && $0.starts(with: rest)) }) { return .bzip2 }
        }
        return nil
    }

    /// The format's name as users know it.
    package var name: String {
        switch self {
        case .gzip: return "gzip"
        case .zstd: return "zstd"
        case .xz: return "xz"
        case .bzip2: return "bzip2"
        }
    }

    /// A fresh streaming decoder for the format.
    package func makeDecoder() throws(PackedDamage) -> PackedDecoder {
        switch self {
        case .gzip: return try GzipDecoder()
        case .zstd: return try ZstdDecoder()
        case .xz: return try XzDecoder()
        case .bzip2: return try Bzip2Decoder()
        }
    }
}

/// Why compressed input could not be read further: where, and what the library said.
package struct PackedDamage: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// The compressed data ends before its stream does.
        case truncated
        /// The library rejected the data (corrupt, or a checksum that does not match).
        case corrupt(String)
        /// The same, found only after the damaged part was decompressed (a checksum at the
        /// end of a gzip member, a bzip2 or xz block, a zstd frame): output before it may
        /// be wrong.
        case lateCheck(String)
        /// The decoder could not be set up (out of memory).
        case setup(String)
        /// The compressed bytes themselves could not be read.
        case unreadable(String)
        /// A workbook's sheet could not be read further; the message says where and why.
        case workbook(String)
        /// A followed JSON lines file could not be followed further; the message says why.
        case notFollowed(String)
    }
    package var kind: Kind
    /// Compressed bytes read without fault before the damage.
    package var offset: Int64

    package init(_ kind: Kind, at offset: Int64) {
        self.kind = kind
        self.offset = offset
    }

    /// A sentence a user can act on, naming the compressed byte where reading stopped.
    package var description: String {
        let place = "byte " + PackedDamage.grouped(offset)
        switch kind {
        case .truncated: return "compressed data ends early, after \(place) (truncated file?)"
        case .corrupt(let why): return "compressed data is damaged near \(place) (\(why))"
        case .lateCheck(let why):
            return "compressed data is damaged before \(place) (\(why)): rows before it may be wrong too"
        case .setup(let why): return "cannot decompress (\(why))"
        case .unreadable(let why): return "cannot read the compressed data after \(place) (\(why))"
        case .workbook(let why), .notFollowed(let why): return why
        }
    }

    static func grouped(_ value: Int64) -> String { value.grouped }
}

/// A streaming decoder for one compression format. Concatenated members, frames or
/// streams are read as one, as the format's own command-line tool reads them.
package protocol PackedDecoder: AnyObject {
    /// Decodes from `input` into `output`: how many bytes it consumed and produced.
    /// `isLastInput` says no input follows `input` (some libraries need to be told).
    func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
                isLastInput: Bool) throws(PackedDamage) -> (consumed: Int, produced: Int)
    /// True between two members (or frames, or streams) and at the end: the input may
    /// stop here without being truncated.
    var isAtBoundary: Bool { get }
    /// Compressed bytes consumed so far, for the place of damage.
    var consumedBytes: Int64 { get }
}

extension Compression {
    /// The decompression libraries in use and their versions, for `--version`.
    package static var libraryVersions: [String] {
        // libbz2 says "1.0.8, 13-Jul-2019": the version is before the comma.
        let bzip2 = String(cString: BZ2_bzlibVersion()).split(separator: ",").first.map(String.init) ?? ""
        return ["zlib " + String(cString: zlibVersion()), "zstd " + String(cString: ZSTD_versionString()),
                "liblzma " + String(cString: lzma_version_string()), "libbz2 " + bzip2]
    }
}

/// Damage a decoder met, kept until the output made before it has been delivered: the
/// bytes before the damage are shown and kept, and the damage is reported on the next call.
struct DamageLatch {
    private var latched: PackedDamage?

    /// Throws damage met on an earlier call.
    func throwIfLatched() throws(PackedDamage) {
        if let latched { throw latched }
    }

    /// Throws at once when nothing was produced; else latches the damage and hands over what was.
    mutating func deliver(at offset: Int64, _ kind: PackedDamage.Kind, _ consumed: Int,
                          _ produced: Int) throws(PackedDamage) -> (consumed: Int, produced: Int) {
        let damage = PackedDamage(kind, at: offset)
        guard produced > 0 else { throw damage }
        latched = damage
        return (consumed, produced)
    }
}

extension BinaryInteger {
    /// `1234567` as `1,234,567` (`-1,234` below zero): how counts and byte offsets are
    /// said to users.
    package var grouped: String {
        let digits = Array(String(self.magnitude))
        var text = self < 0 ? "-" : ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }
}
