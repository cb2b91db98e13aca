import Foundation
import Testing
@testable import CellStore

@Suite("gzip random access")
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
