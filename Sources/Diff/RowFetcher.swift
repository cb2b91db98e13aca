import CellStore

/// Reads records of one input again, alone, on the comparison's thread: from their offset
/// when it is known (keyed diffs note it), else from the offset of every `stride`-th data
/// record that the hash pass noted, skipping the few records between with the hasher's
/// rules (no cells kept).
struct RowFetcher: Sendable {
    let input: DiffInput
    /// Offsets of data records 0, stride, 2·stride, … (positional diffs).
    let sparse: [Int64]
    static let stride = 32

    /// Record `record` (header records counted), or nil when it cannot be read.
    func row(_ record: Int, offset: Int64?) -> Row? {
        if let offset { return input.reader.record(record, at: offset) }
        let index = record - input.headerRows
        guard index >= 0, index / RowFetcher.stride < sparse.count else { return input.reader.record(record, at: nil) }
        let first = input.headerRows + index / RowFetcher.stride * RowFetcher.stride
        guard let start = locate(record, from: first, at: sparse[index / RowFetcher.stride]) else { return nil }
        return input.reader.record(record, at: start)
    }

    /// Where record `record` starts, scanning from record `first` at `offset`.
    private func locate(_ record: Int, from first: Int, at offset: Int64) -> Int64? {
        if record == first { return offset }
        var hasher = RecordHasher(dialect: input.reader.dialect, plan: RecordHasher.Plan(slots: []), firstRecord: first, at: offset)
        var found: Int64?
        var position = offset
        let end = input.reader.end
        var buffer = [UInt8](repeating: 0, count: 1 << 14)
        while found == nil && position < end {
            let wanted = Int(min(Int64(buffer.count), end - position))
            let count = buffer.withUnsafeMutableBytes { input.reader.source.read(at: position, into: UnsafeMutableRawBufferPointer(rebasing: $0[..<wanted])) }
            if count <= 0 { break }
            _ = buffer.withUnsafeBytes { bytes in
                hasher.scan(UnsafeRawBufferPointer(rebasing: bytes[..<count]), at: position) { number, start, _ in
                    if number == record { found = start }
                    return found == nil
                }
            }
            position += Int64(count)
            if buffer.count < 1 << 20 { buffer = [UInt8](repeating: 0, count: buffer.count * 4) }
        }
        if found == nil && input.reader.isFinal {
            hasher.finish { number, start, _ in
                if number == record { found = start }
                return false
            }
        }
        return found
    }
}
