#if canImport(Glibc)
import Glibc
#endif

/// How much of a stream may be spooled before reading pauses (the producer then waits on
/// the pipe): a cap given with `--spool-limit`, or by default a reserve of free space
/// that the temporary file system keeps.
package enum SpoolLimit: Sendable, Equatable {
    /// Keep `reserve(ofFileSystemSize:)` free on the temporary file system; in memory
    /// (no temporary file could be made, or it filled up), 1 GiB or a quarter of RAM.
    case keepFree
    /// At most this many bytes, and the text the user gave for it (`100M`).
    case bytes(Int64, label: String)

    /// Reads `100M`, `2G`, `512KiB`, `1.5GB`, `4096`: K, M, G and T (with or without `iB`)
    /// are powers of 1024, KB, MB, GB and TB powers of 1000, as in GNU tools. Nil when the
    /// text is not a size, or is not above zero.
    package init?(parsing text: String) {
        let trimmed = text.trimmingSpaces
        let number = trimmed.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        guard let value = Double(number), value > 0 else { return nil }
        let factors: [String: Double] = ["": 1, "b": 1,
                                         "k": 0x1p10, "kib": 0x1p10, "kb": 1e3,
                                         "m": 0x1p20, "mib": 0x1p20, "mb": 1e6,
                                         "g": 0x1p30, "gib": 0x1p30, "gb": 1e9,
                                         "t": 0x1p40, "tib": 0x1p40, "tb": 1e12]
        guard let factor = factors[String(trimmed.dropFirst(number.count)).trimmingSpaces.lowercased()] else { return nil }
        let bytes = (value * factor).rounded(.down)
        guard bytes >= 1, bytes < 0x1p62 else { return nil }
        self = .bytes(Int64(bytes), label: trimmed)
    }

    /// The free space kept by default on a file system of `size` bytes: 1 GiB or a tenth,
    /// whichever is more, but never more than half (a small tmpfs must still spool).
    static func reserve(ofFileSystemSize size: Int64) -> Int64 {
        min(max(1 << 30, size / 10), size / 2)
    }

    /// The spool's room in memory when there is no temporary file (or it is full): 1 GiB,
    /// or a quarter of RAM on a smaller machine. `--spool-limit` sets more.
    static var memoryAllowance: Int64 {
        let pages = Int64(sysconf(Int32(_SC_PHYS_PAGES))), pageSize = Int64(sysconf(Int32(_SC_PAGESIZE)))
        return pages > 0 && pageSize > 0 ? min(1 << 30, pages * pageSize / 4) : 1 << 30
    }

    /// `104857600` as `100 MiB`, `1536` as `1.5 KiB`: sizes in the units the limit is set in.
    package static func describe(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var amount = Double(bytes), unit = 0
        while amount >= 1024 && unit < units.count - 1 { amount /= 1024; unit += 1 }
        let tenths = (amount * 10).rounded()
        let digits = unit == 0 || amount >= 100 || tenths.truncatingRemainder(dividingBy: 10) == 0
            ? String(Int(amount.rounded())) : String(tenths / 10)
        return digits + " " + units[unit]
    }
}

private extension String {
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
