#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import Query
import TestSupport

@Suite("Filtered rows kept in a file: read block by block, each checked on first read", .timeLimit(.minutes(30)))
struct StoredBitmapTests {
    /// `words` written to a file of their own, with their section (a checksum a block)
    /// and their members counted per block; the path, to remove.
    static func write(_ words: [UInt64]) throws -> (path: String, section: KeptSection, counts: [Int]) {
        let bytes = words.map(\.littleEndian).withUnsafeBytes { Array($0) }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("csvfreeze-bitmap-\(UUID())").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return (path, KeptSection(id: 1, covering: bytes), StoredBitmap.blockCounts(of: words))
    }

    /// 1.3 million positions (three blocks, the last part-filled), a member every few.
    static func sample() -> (words: [UInt64], length: Int, members: [Int]) {
        let length = 1_300_003
        var generator = SystemRandomNumberGenerator()
        let members = (0..<length).filter { _ in UInt8.random(in: 0...255, using: &generator) < 40 }
        var words = [UInt64](repeating: 0, count: (length + 63) / 64)
        for member in members { words[member >> 6] |= 1 << UInt64(member & 63) }
        return (words, length, members)
    }

    @Test("Count, members, rank and contains are the bitmap's, with only the blocks asked for read")
    func readsWhatIsAsked() throws {
        let (words, length, members) = Self.sample()
        let (path, section, counts) = try Self.write(words)
        defer { unlink(path) }
        let stored = try #require(StoredBitmap(descriptor: open(path, O_RDONLY), length: length, section: section, blockCounts: counts))
        #expect(stored.count == members.count, "the count known before any block is read")
        let last = members.count - 1
        for range in [0..<50, 60_000..<60_100, (last - 10)..<(last + 5), 65_000..<70_000] {
            #expect(stored.members(range) == Array(members[range.clamped(to: 0..<members.count)]), "\(range)")
        }
        for position in [0, 1, 524_287, 524_288, 524_289, 1_048_576, length - 1, length] {
            let rank = members.firstIndex { $0 >= position } ?? members.count
            #expect(stored.rank(position) == rank, "rank \(position)")
            #expect(stored.contains(position) == members.contains(position), "contains \(position)")
        }
        #expect(!stored.hasFailed)
    }

    @Test("A byte changed in a block: rows in it read as none, never others; the rest read before stay right")
    func damagedBlock() throws {
        let (words, length, members) = Self.sample()
        let (path, section, counts) = try Self.write(words)
        defer { unlink(path) }
        // Block 1 (its positions 524,288 on) damaged: a bit moved within a word keeps its count.
        #expect(damageByte(of: path, at: KeptSection.blockSize + 5_000, mask: 0x01))
        let stored = try #require(StoredBitmap(descriptor: open(path, O_RDONLY), length: length, section: section, blockCounts: counts))
        #expect(stored.members(0..<100) == Array(members[0..<100]), "block 0 reads as it was")
        #expect(!stored.hasFailed, "block 1 not read yet")
        let inBlock1 = members.firstIndex { $0 >= 524_288 }! ..< (members.firstIndex { $0 >= 600_000 }!)
        #expect(stored.members(inBlock1).allSatisfy { $0 == -1 })
        #expect(stored.hasFailed)
        #expect(stored.members(0..<100).allSatisfy { $0 == -1 }, "failed whole: nothing is trusted after")
        #expect(stored.rank(600_000) == nil && stored.contains(600_000) == nil)
    }

    @Test("Counts that cannot be the bitmap's, or a block whose members are not its count, are refused")
    func countsChecked() throws {
        let (words, length, _) = Self.sample()
        let (path, section, counts) = try Self.write(words)
        defer { unlink(path) }
        #expect(StoredBitmap(descriptor: open(path, O_RDONLY), length: length, section: section, blockCounts: counts.dropLast()) == nil)
        #expect(StoredBitmap(descriptor: open(path, O_RDONLY), length: length + 64, section: section, blockCounts: counts) == nil)
        var wrong = counts
        wrong[2] = 1_300_003
        #expect(StoredBitmap(descriptor: open(path, O_RDONLY), length: length, section: section, blockCounts: wrong) == nil)
        // A count off by one (the session and its data file disagree): found when its block is read.
        wrong = counts
        wrong[0] -= 1
        wrong[1] += 1
        let stored = try #require(StoredBitmap(descriptor: open(path, O_RDONLY), length: length, section: section, blockCounts: wrong))
        #expect(stored.members(0..<10).allSatisfy { $0 == -1 } && stored.hasFailed)
    }
}
