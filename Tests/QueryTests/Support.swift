import CellStore

/// Random CSV-ish bytes full of the hard cases: quotes, doubled quotes, CR, LF, CRLF,
/// delimiters, blank lines, malformed quotes and non-ASCII text.
func hostileCSV(length: Int, seed: UInt64) -> [UInt8] {
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
