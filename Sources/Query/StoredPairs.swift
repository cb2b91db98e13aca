#if canImport(Glibc)
import Glibc
#endif

/// A sort's order kept in a file (a session's): `count` (record, offset) pairs of 8-byte
/// little-endian integers from `offset`, read by window as a spilled order is. It owns
/// the descriptor: the file may be replaced or removed meanwhile, what was opened stays.
///
/// The bytes were checked (a checksum) before this is made; each pair read is checked
/// again against the bounds given (a record among the data records, an offset within the
/// input), so no read goes astray whatever the file holds.
package final class StoredPairs: Sendable {
    private let descriptor: Int32
    private let offset: Int64
    package let count: Int
    private let records: Range<Int>
    private let bytes: Int64

    /// Takes `descriptor` (closed when this goes).
    package init(descriptor: Int32, offset: Int64, count: Int, records: Range<Int>, inputBytes: Int64) {
        self.descriptor = descriptor
        self.offset = offset
        self.count = count
        self.records = records
        self.bytes = inputBytes
    }

    deinit { close(descriptor) }

    /// The pairs of entries `range` (clamped), flattened; an entry out of bounds reads as
    /// record -1 (a row that is not there).
    func pairs(in range: Range<Int>) -> [Int64] {
        let wanted = range.clamped(to: 0..<count)
        guard !wanted.isEmpty else { return [] }
        var pairs = [Int64](repeating: 0, count: wanted.count * 2)
        let length = pairs.count * 8
        let got = pairs.withUnsafeMutableBytes { buffer -> Int in
            var done = 0
            while done < length {
                let count = pread(descriptor, buffer.baseAddress! + done, length - done, off_t(offset + Int64(wanted.lowerBound) * 16 + Int64(done)))
                if count <= 0 { break }
                done += count
            }
            return done
        }
        for index in 0..<wanted.count {
            let record = Int64(littleEndian: pairs[2 * index]), place = Int64(littleEndian: pairs[2 * index + 1])
            let good = index * 16 + 16 <= got && records.contains(Int(record)) && place >= -1 && place < bytes
            pairs[2 * index] = good ? record : -1
            pairs[2 * index + 1] = good ? place : -1
        }
        return pairs
    }
}
