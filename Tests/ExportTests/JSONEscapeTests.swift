import CellStore
import Export
import Foundation
import Testing

/// The bulk JSON escaper against a plain reference: the bytes read as Swift reads them
/// (`String(decoding:as:)`, one U+FFFD per maximal invalid subpart), then escaped one
/// scalar at a time.
@Suite("JSON strings from cell bytes", .timeLimit(.minutes(30)))
struct JSONEscapeTests {
    static func reference(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x22]
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            switch scalar {
            case "\"": out += Array("\\\"".utf8)
            case "\\": out += Array("\\\\".utf8)
            case "\n": out += Array("\\n".utf8)
            case "\r": out += Array("\\r".utf8)
            case "\t": out += Array("\\t".utf8)
            case _ where scalar.value < 0x20: out += Array(String(format: "\\u%04x", scalar.value).utf8)
            default: out += Array(String(scalar).utf8)
            }
        }
        return out + [0x22]
    }

    /// Pieces that stress each path: plain runs longer than a 16-byte step, escapes,
    /// valid sequences of every length, and invalid ones (stray continuations, overlong
    /// forms, surrogates, past U+10FFFF, cut short).
    static let pieces: [[UInt8]] = [
        Array("plain text, sixteen+ bytes long".utf8), Array("a".utf8), [0x22], [0x5C], [0x0A], [0x0D], [0x09], [0x00], [0x1F],
        [0x7F], Array("é".utf8), Array("中".utf8), Array("𝄞".utf8), [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xC2],
        [0xE0, 0x80, 0x80], [0xE0, 0xA0], [0xED, 0xA0, 0x80], [0xF0, 0x80, 0x80, 0x80], [0xF0, 0x90, 0x80], [0xF4, 0x90, 0x80, 0x80],
        [0xF5, 0x80], [0xFF], [0xFE], Array(repeating: 0x41, count: 15), Array(repeating: 0x42, count: 17),
    ]

    @Test("random bytes are escaped as the reference escapes them, and read back as JSON to the same text")
    func differential() throws {
        var generator = SeededGenerator(seed: 29)
        func next() -> Int { Int(generator.next() % (1 << 32)) }
        for round in 0..<4000 {
            var bytes: [UInt8] = []
            for _ in 0..<(next() % 12) { bytes += Self.pieces[next() % Self.pieces.count] }
            if round % 5 == 0 { bytes = (0..<(next() % 70)).map { _ in UInt8(truncatingIfNeeded: next()) } }
            var got: [UInt8] = []
            bytes.withUnsafeBytes { JSONText.append($0, to: &got) }
            #expect(got == Self.reference(bytes), "\(bytes)")
            let read = try JSONSerialization.jsonObject(with: Data(got), options: .fragmentsAllowed) as? String
            #expect(read == String(decoding: bytes, as: UTF8.self), "\(bytes)")
        }
    }

    /// A record's cells are scanned in 16-byte blocks that run past a short cell's end
    /// into the next; each cell must still be escaped alone (a sequence cut by a cell's
    /// end is invalid there, whatever follows).
    @Test("a record of short cells becomes members escaped cell by cell, as the reference escapes each")
    func members() {
        var generator = SeededGenerator(seed: 31)
        func next() -> Int { Int(generator.next() % (1 << 32)) }
        let keys = (0..<8).map { Array("\"k\($0)\":".utf8) }
        let keyBytes = keys.flatMap { $0 }
        let keyEnds = keys.indices.map { index in keys[...index].reduce(0) { $0 + $1.count } }
        for _ in 0..<3000 {
            let cells = (0..<(1 + next() % 8)).map { _ in
                (0..<(next() % 3)).flatMap { _ in Self.pieces[next() % Self.pieces.count] }
            }
            var ends: [Int] = []
            for cell in cells { ends.append((ends.last ?? 0) + cell.count) }
            var got: [UInt8] = []
            JSONText.appendMembers(cells: cells.flatMap { $0 }, ends: ends, keys: keyBytes, keyEnds: keyEnds, column: 0,
                                   continuesPrevious: false, continuesInNext: false, to: &got)
            let expected = [0x7B] + cells.indices.map { keys[$0] + Self.reference(cells[$0]) }.joined(separator: [0x2C]) + [0x7D, 0x0A]
            #expect(got == expected, "\(cells)")
        }
    }

    @Test("a string in pieces opens with its first and closes with its last")
    func pieces() {
        var got: [UInt8] = []
        Array("ab\"".utf8).withUnsafeBytes { JSONText.append($0, closes: false, to: &got) }
        Array("\ncd".utf8).withUnsafeBytes { JSONText.append($0, opens: false, to: &got) }
        #expect(String(decoding: got, as: UTF8.self) == "\"ab\\\"\\ncd\"")
        var empty: [UInt8] = []
        [UInt8]().withUnsafeBytes { JSONText.append($0, to: &empty) }
        #expect(empty == [0x22, 0x22])
    }
}
