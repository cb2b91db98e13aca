import TestSupport
import Testing
@testable import CellStore

@Suite("Parsing rules", .timeLimit(.minutes(30)))
struct RecordParserTests {
    @Test("nothing is trimmed around unquoted fields")
    func keepsSpaces() throws {
        #expect(try parseAll(" a , b\t,c \n") == [[" a ", " b\t", "c "]])
    }

    @Test("LF, CRLF and CR all end a record, and CRLF ends only one")
    func terminators() throws {
        #expect(try parseAll("a,b\nc,d\r\ne,f\rg,h") == [["a", "b"], ["c", "d"], ["e", "f"], ["g", "h"]])
    }

    @Test("a blank line is a record with one empty cell; a final terminator adds none")
    func blankLines() throws {
        #expect(try parseAll("a\n\nb\n") == [["a"], [""], ["b"]])
        #expect(try parseAll("a\r\n\r\nb\r\n") == [["a"], [""], ["b"]])
        #expect(try parseAll("a\r\rb") == [["a"], [""], ["b"]])
        #expect(try parseAll("\n") == [[""]])
        #expect(try parseAll("") == [])
        #expect(try parseAll("a\n\n") == [["a"], [""]])
    }

    @Test("quotes: doubled quotes collapse, delimiters and newlines stay inside")
    func quoted() throws {
        #expect(try parseAll("\"a \"\"b\"\"\",\"c,d\",\"e\nf\",\"g\r\nh\"\n") == [["a \"b\"", "c,d", "e\nf", "g\r\nh"]])
    }

    @Test("malformed quotes are kept, leniently, and never hang")
    func malformed() throws {
        #expect(try parseAll("a\"b,c\n") == [["a\"b", "c"]])
        #expect(try parseAll(" \"a\",b\n") == [[" \"a\"", "b"]])
        #expect(try parseAll("\"open,no close\nnext") == [["open,no close\nnext"]])
    }

    @Test("a last record without a terminator is kept")
    func lastRecord() throws {
        #expect(try parseAll("a,b\nc,d") == [["a", "b"], ["c", "d"]])
        #expect(try parseAll("a,") == [["a", ""]])
    }

    @Test("ragged rows keep their own length")
    func ragged() throws {
        #expect(try parseAll("a,b,c\nd\ne,f\n") == [["a", "b", "c"], ["d"], ["e", "f"]])
    }

    @Test("records split over many parse calls come out the same", arguments: [1, 2, 3, 7, 64])
    func chunked(chunk: Int) throws {
        let bytes = hostileCSV(length: 4000, seed: UInt64(chunk))
        let rows = parsed(bytes, by: try RecordParser(dialect: Dialect()), chunk: chunk)
        #expect(rows.map(\.strings) == (try parseAll(bytes)))
    }
}
