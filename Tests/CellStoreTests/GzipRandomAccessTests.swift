import Foundation
import Synchronization
import Testing
@testable import CellStore

@Suite("gzip random access", .timeLimit(.minutes(30)))
struct GzipRandomAccessTests {
    /// Indexes `packed` with access points every `spacing` bytes and returns its source.
    static func indexed(_ packed: [UInt8], spacing: Int64) throws -> (GzipSource, GzipIndex) {
        let path = try Packed.file(packed, name: "random.gz")
        let file = try FileSource(path: path)
        let input = PackedInput(compression: .gzip, raw: Unpacker.RawInput(file: file, prefix: [], isStream: false),
                                compressedSize: Int64(packed.count), accessPointSpacing: spacing)
        input.start()
        pulling: while true {
            switch input.pull() {
            case .bytes: continue
            case .end: break pulling
            case .failed(let message): Issue.record(Comment(rawValue: message)); break pulling
            default: break pulling
            }
        }
        let source = try #require(input.source as? GzipSource)
        return (source, try #require(input.gzipIndex))
    }

    @Test("reads at random offsets equal the decompressed bytes", arguments: [
        (memberSize: 0, spacing: Int64(32 << 10)), (memberSize: 0, spacing: Int64(1 << 20)),
        (memberSize: 70_000, spacing: Int64(64 << 10)), (memberSize: 300_000, spacing: Int64(256 << 10)),
    ])
    func differential(memberSize: Int, spacing: Int64) throws {
        let text = Packed.table(rows: 60_000, seed: UInt64(memberSize) &+ UInt64(spacing))
        let packed = memberSize == 0 ? try Packed.compress(text, .gzip) : try Packed.multiMemberGzip(text, memberSize: memberSize)
        let (source, index) = try Self.indexed(packed, spacing: spacing)
        #expect(source.length == Int64(text.count))
        // Points fall on deflate block boundaries, at least `spacing` apart.
        #expect(index.count >= 2 && index.count <= text.count / Int(spacing) + 1)
        var generator = SeededGenerator(seed: 5)
        var buffer = [UInt8](repeating: 0, count: 70_000)
        for _ in 0..<300 {
            let offset = Int(generator.next() % UInt64(text.count))
            let length = Int(generator.next() % UInt64(buffer.count)) + 1
            let got = buffer.withUnsafeMutableBytes {
                source.read(at: Int64(offset), into: UnsafeMutableRawBufferPointer(rebasing: $0[..<length]))
            }
            let expected = min(length, text.count - offset)
            #expect(got > 0 && got <= expected)
            #expect(Array(buffer[..<got]) == Array(text[offset..<(offset + got)]))
        }
        // Past the end: nothing.
        #expect(buffer.withUnsafeMutableBytes { source.read(at: Int64(text.count), into: $0) } == 0)
    }

    @Test("BGZF (bgzip's blocks, with their BC field) is read by block: its access points need no window")
    func bgzf() throws {
        let text = Packed.table(rows: 30_000, seed: 21)
        let packed = try Packed.bgzf(text)
        #expect(packed.count > 10 * 65_536 / 4)
        let (source, index) = try Self.indexed(packed, spacing: 256 << 10)
        #expect(source.length == Int64(text.count))
        // A point at a member's start once a quarter of the spacing is behind (every other
        // member here), each without a window: a few bytes per point, not 32 KiB windows.
        #expect(index.count >= text.count / (2 * 65_280))
        #expect(index.storedBytes < Int64(index.count) * 16)
        var generator = SeededGenerator(seed: 8)
        var buffer = [UInt8](repeating: 0, count: 9_000)
        for _ in 0..<200 {
            let offset = Int(generator.next() % UInt64(text.count))
            let got = buffer.withUnsafeMutableBytes { source.read(at: Int64(offset), into: $0) }
            #expect(got > 0 && Array(buffer[..<got]) == Array(text[offset..<(offset + got)]))
        }
        // And as a table, the same records as the plain text.
        let store = try CellStore.open(InputSpec(path: try Packed.file(packed, name: "table.csv.bgz")))
        waitUntilComplete(store)
        #expect(store.progress.failure == nil)
        #expect(allRows(of: store) == (try parseAll(text)))
    }

    @Test("a gzip bomb (64 MiB of one byte, about 64 KB packed) is read in bounded work: a small index, one record")
    func bomb() throws {
        let packed = try Packed.compress([UInt8](repeating: UInt8(ascii: "a"), count: 64 << 20), .gzip)
        #expect(packed.count < 200_000)
        let (source, index) = try Self.indexed(packed, spacing: 2 << 20)
        #expect(source.length == 64 << 20)
        // Deflate's blocks of one repeated byte are megabytes long: points come at those.
        #expect(index.count >= 4)
        #expect(index.storedBytes < 64 << 10)
        let store = try CellStore.open(InputSpec(path: try Packed.file(packed, name: "bomb.gz"), preamble: .none))
        waitUntilComplete(store)
        #expect(store.progress.isComplete && store.progress.failure == nil)
        #expect(store.rowCount == 1)
    }

    @Test("two readers in order on two threads (a search's shares) each get every byte of their half")
    func parallelReaders() throws {
        let text = Packed.table(rows: 60_000, seed: 13)
        let (source, _) = try Self.indexed(try Packed.compress(text, .gzip), spacing: 64 << 10)
        let copies = Mutex<[Int: [UInt8]]>([:])
        let half = text.count / 2
        DispatchQueue.concurrentPerform(iterations: 2) { share in
            var copy: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 50_000 + 3_000 * share)
            var offset = Int64(share * half)
            let end = Int64(share == 0 ? half : text.count)
            while offset < end {
                let wanted = Int(min(Int64(buffer.count), end - offset))
                let got = buffer.withUnsafeMutableBytes {
                    source.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: $0[..<wanted]))
                }
                if got <= 0 { break }
                copy += buffer[..<got]
                offset += Int64(got)
            }
            copies.withLock { $0[share] = copy }
        }
        let halves = copies.withLock { $0 }
        #expect(halves[0] == Array(text[..<half]))
        #expect(halves[1] == Array(text[half...]))

        // Taking turns (as two threads may), each reader goes on from where it was: two
        // starts from an access point, not one per read.
        // (A longer text: the indexing pass's last chunks, served as they are, lie past both.)
        let long = Packed.table(rows: 150_000, seed: 14)
        let (turns, _) = try Self.indexed(try Packed.compress(long, .gzip), spacing: 64 << 10)
        var offsets: [Int64] = [0, 1 << 20]
        var buffer = [UInt8](repeating: 0, count: 40_000)
        for turn in 0..<40 {
            let reader = turn % 2
            let got = buffer.withUnsafeMutableBytes { turns.read(at: offsets[reader], into: $0) }
            #expect(got > 0 && Array(buffer[..<got]) == Array(long[Int(offsets[reader])..<(Int(offsets[reader]) + got)]))
            offsets[reader] += Int64(got)
        }
        #expect(turns.cursorsStarted == 2)
    }

    @Test("reading in order from anywhere costs one pass, and yields every byte")
    func sequential() throws {
        let text = Packed.table(rows: 40_000, seed: 3)
        let (source, _) = try Self.indexed(try Packed.compress(text, .gzip), spacing: 128 << 10)
        var copy: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 100_000)
        var offset: Int64 = 12_345
        while true {
            let got = buffer.withUnsafeMutableBytes { source.read(at: offset, into: $0) }
            if got == 0 { break }
            copy += buffer[..<got]
            offset += Int64(got)
        }
        #expect(copy == Array(text[12_345...]))
    }
}
