import Foundation
import Testing
import TestSupport
@testable import CellStore

/// The converter takes a string without a backslash as its bytes and a key spelled as the
/// previous record's as that column, without decoding them; the CSV it makes and what it
/// reports must be byte for byte those of decoding every key and string through simdjson.
@Suite("JSON shortcuts against decoding everything", .timeLimit(.minutes(30)))
struct JSONShortcutTests {
    /// The CSV and the report of `bytes` fed `chunk` bytes at a time.
    static func converted(_ bytes: [UInt8], chunk: Int, decodesEveryString: Bool) -> ([UInt8], JSONReport.State) {
        let report = JSONReport(mode: .lines)
        let stage = JSONStage(.lines, report: report, decodesEveryString: decodesEveryString)
        var output: [UInt8] = []
        var start = 0
        while start < bytes.count {
            output += stage.pass(Array(bytes[start..<min(bytes.count, start + chunk)]), isLast: false)
            start += chunk
        }
        output += stage.pass([], isLast: true)
        return (output, report.current)
    }

    /// Keys: plain, spelled with escapes (the same key decoded), with quotes, commas,
    /// backslashes, empty, non-ASCII, invalid escapes.
    static let keys = ["a", "b", "c", "id", "col07", "\\u0061", "\\u0062", "a\\\"q", "x,y", "\\\\", "", "北京",
                       "na\\u00efve", "\\n", "\\ud800", "\\x", "k\\u0000", "\\\"", "a\\\\"]

    /// A string value's raw text: escapes of every kind, control characters, surrogates
    /// (paired, lone, reversed), invalid escapes and invalid UTF-8 bytes.
    static func string(_ random: inout SeededGenerator) -> [UInt8] {
        let pieces: [[UInt8]] = [
            Array("plain".utf8), Array("with, comma".utf8), Array("\\\"quoted\\\"".utf8), Array("\\\\".utf8),
            Array("\\n".utf8), Array("\\r\\n".utf8), Array("\\t".utf8), Array("\\u0000".utf8), Array("\\u001f".utf8),
            Array("\\ud83d\\ude00".utf8), Array("\\ud800".utf8), Array("\\udc00x".utf8), Array("\\ude00\\ud83d".utf8),
            Array("\\u00e9".utf8), Array("\\/".utf8), Array("\\b\\f".utf8), Array("\\x".utf8), Array("\\u12".utf8),
            Array("Zürich 北京 œuvre".utf8), [0x01], [0x09], [0x0D], [0x7F], [0xFF], [0xC3], [0xE2, 0x82], [0xED, 0xA0, 0x80],
            Array(",".utf8), Array(" ".utf8), Array(String(repeating: "long text ", count: 20).utf8),
        ]
        var text: [UInt8] = []
        for _ in 0..<Int.random(in: 0...4, using: &random) { text += pieces.randomElement(using: &random)! }
        return text
    }

    static func value(_ random: inout SeededGenerator, depth: Int = 0) -> [UInt8] {
        switch Int.random(in: 0..<14, using: &random) {
        case 0...5: return [0x22] + string(&random) + [0x22]
        case 6: return Array(["0", "-1", "1e400", "-12345678901234567890123456789012345678901", "3.25E-7", "01", "-", "1.", "NaN"]
            .randomElement(using: &random)!.utf8)
        case 7: return Array(["true", "false", "null", "nul", "tru"].randomElement(using: &random)!.utf8)
        case 8 where depth < 3:
            return Array("{ ".utf8) + Array("\"k\" : ".utf8) + value(&random, depth: depth + 1) + Array(" , \"k2\":[1, {\"z\" :null}] }".utf8)
        case 9 where depth < 3: return Array("[ ".utf8) + value(&random, depth: depth + 1) + Array(" ,\t2 ]".utf8)
        case 10: return [0x22] + string(&random)  // not closed
        default: return Array("\"same\"".utf8)
        }
    }

    /// A line: mostly objects with the same keys in the same order (the shortcut's case),
    /// then keys reordered, respelled, repeated, left out, added; and lines that are no object.
    static func line(_ random: inout SeededGenerator, _ base: [String]) -> [UInt8] {
        switch Int.random(in: 0..<20, using: &random) {
        case 0: return Array("[1,2]".utf8)
        case 1: return Array("   ".utf8)
        case 2: return Array("{\"a\":1} junk".utf8)
        case 3: return Array("{\"a\":1".utf8)
        case 4: return Array("\"just a string\"".utf8)
        default: break
        }
        var keys = base
        if Bool.random(using: &random) {
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                switch Int.random(in: 0..<4, using: &random) {
                case 0: keys.append(Self.keys.randomElement(using: &random)!)
                case 1: if !keys.isEmpty { keys.remove(at: Int.random(in: 0..<keys.count, using: &random)) }
                case 2: keys.shuffle(using: &random)
                default: if let key = keys.randomElement(using: &random) { keys.append(key) }
                }
            }
        }
        var text = Array("{".utf8)
        for (index, key) in keys.enumerated() {
            if index > 0 { text += Array((Bool.random(using: &random) ? "," : " , ").utf8) }
            text += Array("\"\(key)\"".utf8) + Array((Bool.random(using: &random) ? ":" : " :\t").utf8) + value(&random)
        }
        return text + Array((Bool.random(using: &random) ? "}" : " }\r").utf8)
    }

    static func check(_ bytes: [UInt8], _ what: String) {
        let (reference, referenceReport) = converted(bytes, chunk: bytes.count + 1, decodesEveryString: true)
        for chunk in [bytes.count + 1, 4096, 61, 7] {
            let (made, report) = Self.converted(bytes, chunk: chunk, decodesEveryString: false)
            let common = min(made.count, reference.count)
            let differs = (0..<common).first { made[$0] != reference[$0] } ?? (made.count == reference.count ? nil : common)
            #expect(differs == nil, "\(what), chunks of \(chunk): the CSV differs from byte \(differs ?? 0)")
            #expect(report == referenceReport, "\(what), chunks of \(chunk): the report differs")
        }
    }

    @Test("generated hostile lines: the same CSV and report, whatever the seed")
    func generated() {
        for seed in UInt64(1)...40 {
            var random = SeededGenerator(seed: seed)
            let base = Array(Self.keys.shuffled(using: &random).prefix(Int.random(in: 1...8, using: &random)))
            var bytes: [UInt8] = []
            for _ in 0..<300 { bytes += Self.line(&random, base) + [0x0A] }
            Self.check(bytes, "seed \(seed)")
        }
    }

    @Test("the fixtures, and lines that differ from the one before only in a key's spelling")
    func fixturesAndSpellings() throws {
        let directory = Fixtures.root.appendingPathComponent("json")
        for name in ["nulls.jsonl", "roundtrip.jsonl", "basic.jsonl", "bom-crlf.jsonl", "late.jsonl", "no-final-newline.ndjson"] {
            Self.check(Array(try Data(contentsOf: directory.appendingPathComponent(name))), name)
        }
        // A key spelled as the one before and then a longer one that starts the same; a
        // key ending in an escaped backslash; the same key escaped and not; a repeat.
        let lines = [
            #"{"ab":1,"a\\":2,"c":"x"}"#, #"{"abc":1,"a\\\"":2,"c":"y"}"#, #"{"ab":1,"a\\":2,"c":"z"}"#,
            #"{"\u0061b":3,"a\\":4,"c":"w"}"#, #"{"ab":5,"ab":6,"c":"v"}"#, #"{"ab":7,"a\\":8,"c":"\u0000,\"\n"}"#,
            #"{"ab":9,"a\\":10,"c":"lone \ud800"}"#, #"{"ab":11,"a\\":12,"c":"ok"}"#,
        ]
        Self.check(Array(lines.joined(separator: "\n").utf8), "spellings")
        let (made, report) = Self.converted(Array(lines.joined(separator: "\n").utf8), chunk: 1 << 20, decodesEveryString: false)
        let text = String(decoding: made, as: UTF8.self)
        #expect(text.hasPrefix("ab,a\\,c,abc,"), "\(text)")
        #expect(text.contains("\n3,4,w\n"), "a key escaped is the same key")
        #expect(report.duplicates == 1 && report.keptStrings == 1)
    }
}
