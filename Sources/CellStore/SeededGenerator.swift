/// A small deterministic random number generator (SplitMix64), so randomized tests and the
/// benchmark's randomized runs repeat exactly from a seed.
package struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    package init(seed: UInt64) { state = seed &+ 0x9E3779B97F4A7C15 }

    package mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}

/// Random CSV-ish bytes full of the hard cases: quotes, doubled quotes, CR, LF, CRLF,
/// delimiters, blank lines, malformed quotes and non-ASCII text: the input of the
/// differential tests of every module that reads CSV.
package func hostileCSV(length: Int, seed: UInt64) -> [UInt8] {
    var generator = SeededGenerator(seed: seed)
    let pieces: [[UInt8]] = [
        Array("a".utf8), Array("bc".utf8), Array(",".utf8), Array(",".utf8), Array("\"".utf8),
        Array("\"\"".utf8), Array("\n".utf8), Array("\r\n".utf8), Array("\r".utf8), Array(" ".utf8),
        Array("é".utf8), Array("中".utf8), Array("\"x,\ny\"".utf8), Array("\n\n".utf8), [0xFF], Array("\t".utf8),
    ]
    var bytes: [UInt8] = []
    while bytes.count < length {
        bytes.append(contentsOf: pieces[Int(generator.next() % UInt64(pieces.count))])
    }
    return bytes
}

/// Random well-quoted CSV: fields plain or quoted (with doubled quotes, delimiters and
/// line breaks inside), records ended by LF, CRLF or CR, blank lines and ragged rows, so
/// that the index vouches for it and the raw-byte readers and the bulk boundary scan are used.
package func wellQuotedCSV(records: Int, seed: UInt64) -> [UInt8] {
    var generator = SeededGenerator(seed: seed)
    let plain: [String] = ["a", "bc", "", "1", "2.5", "-3", "é", "中文", "x y", "2024-01-02", "true", "7"]
    let quoted: [String] = ["\"\"", "\"a,b\"", "\"say \"\"hi\"\"\"", "\"line\nbreak\"", "\"cr\r\nlf\"", "\"\"\"\"", "\"1\""]
    let ends = ["\n", "\r\n", "\r"]
    var text = ""
    for _ in 0..<records {
        let roll = generator.next() % 20
        if roll == 0 {
            text += ends[Int(generator.next() % 3)]   // a blank line
            continue
        }
        let fields = 1 + Int(generator.next() % 5)
        var cells: [String] = []
        for _ in 0..<fields {
            cells.append(generator.next() % 3 == 0 ? quoted[Int(generator.next() % UInt64(quoted.count))]
                         : plain[Int(generator.next() % UInt64(plain.count))])
        }
        text += cells.joined(separator: ",") + ends[Int(generator.next() % 3)]
    }
    if generator.next() % 2 == 0, !text.isEmpty { text.removeLast() }   // sometimes no final line end
    return Array(text.utf8)
}
