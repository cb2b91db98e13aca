import CFieldScan
#if canImport(Glibc)
import Glibc
#endif
import CellStore

/// A 64-bit hash of a value's bytes, the same in every run (the distinct-count estimate of
/// a file does not change from one run to the next).
@inline(__always)
func valueHash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    @inline(__always) func mix(_ value: UInt64) -> UInt64 {
        var k = value &* 0x87C3_7B91_1142_53D5
        k = (k << 31) | (k >> 33)
        return k &* 0x4CF5_AD43_2745_937F
    }
    let count = bytes.count
    var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(count)
    var index = 0
    while index + 8 <= count {
        hash = (hash ^ mix(bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)))
        hash = ((hash << 27) | (hash >> 37)) &* 5 &+ 0x52DC_E729
        index += 8
    }
    if index < count { hash ^= mix(ByteHash.tail(bytes, from: index)) }
    return ByteHash.finalize(hash)
}

/// An estimate of how many distinct values a stream holds, in a fixed `2^precision` bytes
/// (HyperLogLog, with linear counting while many registers are still empty).
///
/// With precision 16 (64 KiB) the standard error is 0.4 %; two sketches of the same
/// precision merge into the sketch of both streams.
package struct HyperLogLog: Sendable {
    package let precision: Int
    private var registers: [UInt8]

    package init(precision: Int = 16) {
        self.precision = min(18, max(4, precision))
        registers = Array(repeating: 0, count: 1 << self.precision)
    }

    /// Bytes the sketch holds.
    package var memoryCost: Int { registers.count }

    /// The precision for `count` sketches held at once: 16 (64 KiB each) while they fit
    /// in 8 MiB together, one less each time they would not (at least 10). A sketch's
    /// estimate depends only on its precision and the values added, so a frequency table
    /// (one column, on two cores) and a summary of up to 64 columns agree on a column's
    /// distinct count.
    static func precision(forSketches count: Int) -> Int {
        var precision = 16
        while precision > 10 && (1 << precision) * max(1, count) > 8 << 20 { precision -= 1 }
        return precision
    }

    @inline(__always)
    package mutating func add(hash: UInt64) {
        let index = Int(hash >> UInt64(64 - precision))
        // The rank of the first 1 bit after the index bits (a sentinel bounds it).
        let rest = (hash << UInt64(precision)) | (1 << UInt64(precision - 1))
        let rank = UInt8(rest.leadingZeroBitCount + 1)
        registers.withUnsafeMutableBufferPointer { if $0[index] < rank { $0[index] = rank } }
    }

    /// Starts loading the register a value of hash `hash` goes to (see `CellSink.willTake`;
    /// mutating only so that it borrows the registers in place).
    @inline(__always)
    package mutating func prefetch(hash: UInt64) {
        let index = Int(hash >> UInt64(64 - precision))
        registers.withUnsafeBufferPointer { cf_prefetch($0.baseAddress! + index) }
    }

    /// Folds `other` (of the same precision) in.
    package mutating func merge(_ other: HyperLogLog) {
        precondition(other.precision == precision)
        for index in registers.indices where registers[index] < other.registers[index] {
            registers[index] = other.registers[index]
        }
    }

    /// The estimated number of distinct values added.
    package var estimate: Int {
        let m = Double(registers.count)
        var sum = 0.0
        var zeros = 0
        for register in registers {
            sum += 1 / Double(UInt64(1) << UInt64(register))
            if register == 0 { zeros += 1 }
        }
        if zeros > 0 {
            // Linear counting is the better estimate while it stays below 5 m (the raw
            // estimate is biased there).
            let linear = m * Glibc.log(m / Double(zeros))
            if linear <= 5 * m { return Int(linear.rounded()) }
        }
        let alpha = 0.7213 / (1 + 1.079 / m)
        return Int((alpha * m * m / sum).rounded())
    }

    /// The relative standard error of the estimate.
    package var standardError: Double { 1.04 / Double(registers.count).squareRoot() }
}
