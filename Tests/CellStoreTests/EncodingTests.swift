#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import CellStore

/// Text in UTF-16 (`Unicode text` from Excel), Latin-1 or Windows-1252: converted to UTF-8
/// as it is read, so the rest of the program sees UTF-8.
@Suite("Encodings", .timeLimit(.minutes(30)))
struct EncodingTests {
    static func utf16LE(_ text: String, byteOrderMark: Bool = true) -> [UInt8] {
        (byteOrderMark ? [0xFF, 0xFE] : []) + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }

    static func utf16BE(_ text: String) -> [UInt8] {
        [0xFE, 0xFF] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    /// One byte per character: Latin-1 (and Windows-1252 for these characters).
    static func latin1(_ text: String) -> [UInt8] { text.unicodeScalars.map { UInt8($0.value) } }

    /// `bytes` through a transcoder in chunks of `chunk` bytes.
    static func converted(_ bytes: [UInt8], _ transcoding: Transcoding, chunk: Int) throws -> (text: [UInt8], transcoder: Transcoder) {
        let transcoder = try Transcoder(transcoding)
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let end = min(bytes.count, index + chunk)
            output += bytes[index..<end].withUnsafeBytes { transcoder.pass($0, isLast: false) }
            index = end
        }
        output += transcoder.pass(UnsafeRawBufferPointer(start: nil, count: 0), isLast: true)
        return (output, transcoder)
    }

    static let sample = "id\tname\tcity\r\n1\tJosé\tZürich\r\n2\t北京\t🫨 \"quoted\"\r\n3\tSøren\tKøbenhavn\r\n"

    @Test("characters cut between chunks wait for the rest, at every chunk size", arguments: [1, 2, 3, 5, 7, 64, 4096])
    func chunked(chunk: Int) throws {
        let utf16 = try Self.converted(Self.utf16LE(Self.sample), .detect(otherwise: nil), chunk: chunk)
        #expect(utf16.text == [0xEF, 0xBB, 0xBF] + Array(Self.sample.utf8), "the mark becomes UTF-8's, skipped like it")
        #expect(utf16.transcoder.encoding?.name == "UTF-16LE")
        #expect(utf16.transcoder.problem == nil)
        let big = try Self.converted(Self.utf16BE(Self.sample), .detect(otherwise: nil), chunk: chunk)
        #expect(big.text == [0xEF, 0xBB, 0xBF] + Array(Self.sample.utf8))
        let text = "Nom;Ville\r\nJosé;Zürich\r\nFrançoise;København\r\n"
        let latin = try Self.converted(Self.latin1(text), .from(try TextEncoding(named: "latin1")), chunk: chunk)
        #expect(latin.text == Array(text.utf8))
        let plain = try Self.converted(Array(text.utf8), .detect(otherwise: nil), chunk: chunk)
        #expect(plain.text == Array(text.utf8), "no byte-order mark: the bytes pass as they are")
        #expect(plain.transcoder.encoding == nil)
    }

    @Test("UTF-16 without a byte-order mark is named from its NULs, in Latin text and in text mostly of another script; random bytes are not")
    func namesUTF16WithoutMark() {
        let latin = Array(Self.utf16LE("name,city\nJosé,Zürich\n", byteOrderMark: false))
        #expect(Dialect.likelyUTF16(latin[...]) == "UTF-16LE")
        let cjk = Array(Self.utf16LE("名前,都市\n東京,大阪\n北京,上海\n", byteOrderMark: false))
        #expect(Dialect.likelyUTF16(cjk[...]) == "UTF-16LE")
        let big = Array(Self.utf16BE("名前,都市\n東京,大阪\n").dropFirst(2))
        #expect(Dialect.likelyUTF16(big[...]) == "UTF-16BE")
        var generator = SystemRandomNumberGenerator()
        let random = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(Dialect.likelyUTF16(random[...]) == nil)
        #expect(Dialect.likelyUTF16(Array("a,b\n1,2\n".utf8)[...]) == nil)
    }

    /// `--encoding utf-8` checks the bytes as they are read; each maximal invalid subpart must
    /// become one U+FFFD, as the input read unnamed shows it (Swift's decoder), whatever the
    /// chunks.
    @Test("named UTF-8 replaces invalid bytes as reading them unnamed shows them, at every chunk size", arguments: [1, 2, 3, 7, 4096])
    func namedUTF8AsUnnamed(chunk: Int) throws {
        let pieces: [[UInt8]] = [Array("ab,".utf8), Array("é".utf8), Array("中".utf8), Array("𝄞".utf8), [0x80], [0xBF], [0xC0, 0x80],
                                 [0xC2], [0xE2, 0x82], [0xE0, 0xA0], [0xED, 0xA0, 0x80], [0xF0, 0x90, 0x80], [0xF4, 0x90, 0x80, 0x80],
                                 [0xF5], [0xFF], [0x0A]]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let bytes = (0..<Int.random(in: 1...12, using: &generator)).flatMap { _ in pieces.randomElement(using: &generator)! }
            let result = try Self.converted(bytes, .from(try TextEncoding(named: "utf-8")), chunk: chunk)
            #expect(result.text == Array(String(decoding: bytes, as: UTF8.self).utf8), "\(bytes)")
        }
    }

    @Test("bytes not valid in the encoding become U+FFFD, and the first place is said once, with its line")
    func invalid() throws {
        // 0x81 and 0x8D are not Windows-1252 characters; 0x80 is the euro sign.
        let bytes: [UInt8] = Array("a;b\r\n".utf8) + [0x78, 0x81, 0x79] + Array(";\u{80}\r\n".unicodeScalars.map { UInt8($0.value) }) + [0x8D]
        let result = try Self.converted(bytes, .from(try TextEncoding(named: "windows-1252")), chunk: 3)
        #expect(String(decoding: result.text, as: UTF8.self) == "a;b\r\nx\u{FFFD}y;€\r\n\u{FFFD}")
        #expect(result.transcoder.invalidCount == 2)
        #expect(result.transcoder.problem == "bytes not valid in WINDOWS-1252 on line 2 (byte 7) and 1 more, shown as \u{FFFD}")
        // A lone surrogate in UTF-16: one unit replaced, and what follows still reads right.
        let lone: [UInt8] = [0xFF, 0xFE, 0x61, 0x00, 0x00, 0xD8, 0x62, 0x00, 0x0A, 0x00]
        let utf16 = try Self.converted(lone, .detect(otherwise: nil), chunk: 1)
        #expect(String(decoding: utf16.text, as: UTF8.self) == "\u{FEFF}a\u{FFFD}b\n")
        // A character cut by the end of the input.
        let cut = try Self.converted(Self.utf16LE("ab") + [0x63], .detect(otherwise: nil), chunk: 2)
        #expect(String(decoding: cut.text, as: UTF8.self) == "\u{FEFF}ab\u{FFFD}")
    }

    @Test("a name iconv does not know is refused; UTF-8 named is checked, unnamed read as it is")
    func names() throws {
        #expect(throws: CellStoreError.unknownEncoding("klingon")) { try TextEncoding(named: "klingon") }
        #expect(try TextEncoding(named: "utf-8").isUTF8)
        #expect(Transcoding.choose(named: try TextEncoding(named: "UTF-8"), prefix: Array("id,".utf8)) == .from(try TextEncoding(named: "UTF-8")))
        #expect(Transcoding.choose(named: nil, prefix: [0xFF, 0xFE, 0x00, 0x00]) == .from(try TextEncoding(named: "UTF-32LE")))
        #expect(Transcoding.choose(named: nil, prefix: Array("id,".utf8)) == .none)
    }

    @Test("a byte-order mark wins over a name: the name is overruled unless it agrees; UTF-8's mark counts against a name",
          arguments: [1, 2, 3, 4096])
    func markWins(chunk: Int) throws {
        let latin1 = try TextEncoding(named: "latin1"), utf16le = try TextEncoding(named: "UTF-16LE")
        #expect(Transcoding.choose(named: latin1, prefix: [0xFF, 0xFE, 0x61, 0x00]) == .from(utf16le, overruling: latin1))
        #expect(Transcoding.choose(named: try TextEncoding(named: "utf-16"), prefix: [0xFF, 0xFE, 0x61, 0x00]) == .from(utf16le),
                "a name of the mark's family agrees")
        #expect(Transcoding.choose(named: try TextEncoding(named: "UTF-16LE"), prefix: [0xFF, 0xFE, 0x61, 0x00]) == .from(utf16le))
        #expect(Transcoding.choose(named: latin1, prefix: [0xEF, 0xBB, 0xBF, 0x61]) == .from(try TextEncoding(named: "UTF-8"), overruling: latin1))
        #expect(Transcoding.choose(named: nil, prefix: [0xEF, 0xBB, 0xBF, 0x61]) == .none, "unnamed, UTF-8 passes as it is")
        #expect(Transcoding.choose(named: latin1, prefix: nil) == .detect(otherwise: latin1))
        // Compressed: the mark is looked for in the first bytes that come out.
        let marked = try Self.converted(Self.utf16LE(Self.sample), .detect(otherwise: latin1), chunk: chunk)
        #expect(marked.text == [0xEF, 0xBB, 0xBF] + Array(Self.sample.utf8))
        #expect(marked.transcoder.encoding == utf16le && marked.transcoder.overruled == latin1)
        let named = try Self.converted(Self.latin1("a,b\nJosé,Zürich\n"), .detect(otherwise: latin1), chunk: chunk)
        #expect(named.text == Array("a,b\nJosé,Zürich\n".utf8), "no mark: the name")
        #expect(named.transcoder.encoding == latin1 && named.transcoder.overruled == nil)
    }

    @Test("an Excel 'Unicode text' file (UTF-16LE with a byte-order mark) is found without --encoding")
    func utf16File() throws {
        let path = try Packed.file(Self.utf16LE(Self.sample), name: "export.txt")
        let store = try CellStore.open(InputSpec(path: path))
        waitUntilComplete(store)
        #expect(store.dialect?.delimiter == 0x09)
        #expect(store.dialect?.encoding == "UTF-16LE")
        #expect(store.dialect?.summary == "tab, UTF-16LE")
        #expect(allRows(of: store) == [["id", "name", "city"], ["1", "José", "Zürich"], ["2", "北京", "🫨 \"quoted\""],
                                       ["3", "Søren", "København"]])
        var rows: [[String]] = []
        var start: RecordStream.Start?
        let summary = try RecordStream.forEach(InputSpec(path: path, delimiter: nil), started: { start = $0 }) { rows.append($0.strings); return true }
        #expect(rows == allRows(of: store))
        #expect(start?.hasByteOrderMark == true)
        #expect(summary.dialect.encoding == "UTF-16LE")
        #expect(summary.damage == nil)
    }

    @Test("UTF-16 inside a compressed file is found too", arguments: Compression.allCases)
    func compressedUTF16(compression: Compression) throws {
        let path = try Packed.file(try Packed.compress(Self.utf16LE(Self.sample), compression), name: "export.txt.x")
        let store = try CellStore.open(InputSpec(path: path))
        waitUntilComplete(store)
        #expect(store.dialect?.encoding == "UTF-16LE")
        #expect(store.row(2)?.strings == ["2", "北京", "🫨 \"quoted\""])
        var rows: [[String]] = []
        try RecordStream.forEach(InputSpec(path: path, delimiter: nil)) { rows.append($0.strings); return true }
        #expect(rows == allRows(of: store))
    }

    @Test("a Latin-1 file named by --encoding, through a file, a pipe and gzip")
    func latin1() throws {
        let text = "Nom;Ville;Montant\r\nJosé;Zürich;12,50\r\nFrançoise;København;7,00\r\n"
        let encoding = try TextEncoding(named: "latin1")
        let expected = [["Nom", "Ville", "Montant"], ["José", "Zürich", "12,50"], ["Françoise", "København", "7,00"]]
        let path = try Packed.file(Self.latin1(text), name: "export.csv")
        let store = try CellStore.open(InputSpec(path: path, encoding: encoding))
        waitUntilComplete(store)
        #expect(allRows(of: store) == expected)
        #expect(store.progress.failure == nil)
        #expect(store.isConverted)
        let gzip = try Packed.file(try Packed.compress(Self.latin1(text), .gzip), name: "export.csv.gz")
        let packed = try CellStore.open(InputSpec(path: gzip, encoding: encoding))
        waitUntilComplete(packed)
        #expect(allRows(of: packed) == expected)
        // Standard input or a pipe: read as it arrives.
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }   // no child the suite spawns keeps it open
        let bytes = Self.latin1(text)
        _ = bytes.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
        close(ends[1])
        let piped = try CellStore.open(InputSpec(path: "/dev/fd/\(ends[0])", encoding: encoding))
        waitUntilComplete(piped)
        close(ends[0])
        #expect(allRows(of: piped) == expected)
    }

    @Test("bytes not valid in the named encoding: every row shown, the failure says where once")
    func invalidInStore() throws {
        let bytes: [UInt8] = Array("a;b\r\n".utf8) + [0x78, 0x81, 0x79, 0x3B, 0x7A, 0x0D, 0x0A]
        let path = try Packed.file(bytes, name: "bad.csv")
        let store = try CellStore.open(InputSpec(path: path, encoding: try TextEncoding(named: "windows-1252")))
        waitUntilComplete(store)
        #expect(allRows(of: store) == [["a", "b"], ["x\u{FFFD}y", "z"]])
        #expect(store.progress.failure == "bytes not valid in WINDOWS-1252 on line 2 (byte 7), shown as \u{FFFD}")
        let summary = try RecordStream.forEach(InputSpec(path: path, delimiter: nil, encoding: try TextEncoding(named: "windows-1252"))) { _ in true }
        #expect(summary.damage == store.progress.failure)
        #expect(summary.records == 2)
    }

    @Test("a large UTF-16 file is converted in bounded memory: rows far in read right")
    func large() throws {
        var text = "id\tname\tnote\r\n"
        for index in 0..<60_000 { text += "\(index)\tZoë \(index)\t北京 \(index % 7)\r\n" }
        let path = try Packed.file(Self.utf16LE(text), name: "big.txt")
        let store = try CellStore.open(InputSpec(path: path), checkpointSpacing: 16 << 10, cacheCapacity: 2)
        waitUntilComplete(store)
        #expect(store.rowCount == 60_001)
        #expect(store.row(59_999)?.strings == ["59998", "Zoë 59998", "北京 \(59_998 % 7)"])
        #expect(store.row(1)?.strings == ["0", "Zoë 0", "北京 0"])
        #expect(store.statistics.checkpoints > 50)
    }
}
