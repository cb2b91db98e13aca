import Testing
@testable import CellStore

/// Text after a closing quote is read as Python's csv, rust-csv and FastCSV read it (that
/// the parser and every reader of the field kernel agree with the plain rules on every
/// input is the kernel's differential suite, `FieldKernelTests`).
@Suite("Malformed quoting", .timeLimit(.minutes(30)))
struct MalformedQuoteTests {
    @Test("text after a closing quote joins the field; the record ends where it would")
    func strayText() throws {
        #expect(try parseAll("a,b\n\"x\" ,y\nc,d\n") == [["a", "b"], ["x ", "y"], ["c", "d"]])
        #expect(try parseAll("\"x\"y\"z\",w\n") == [["xy\"z\"", "w"]])
        #expect(try parseAll("\"a\"b\r\n\"c\"\"d\"e,f") == [["ab"], ["c\"de", "f"]])
        #expect(try parseAll("\"x\"tail") == [["xtail"]])
        #expect(try parseAll("\"x\"t\n") == [["xt"]])
        #expect(try parseAll("1,\"quoted\" and more,3\n4,5,6\n") == [["1", "quoted and more", "3"], ["4", "5", "6"]])
    }

    @Test("the store counts every record of a file with stray text")
    func storeKeepsRecords() {
        var text = "id,name\n"
        for index in 0..<500 { text += index % 7 == 0 ? "\(index),\"n\(index)\" x\n" : "\(index),n\(index)\n" }
        let store = CellStore(bytes: Array(text.utf8), checkpointSpacing: 256)
        #expect(store.rowCount == 501)
        #expect(store.row(500)?.strings == ["499", "n499"])
        #expect(store.row(1)?.strings == ["0", "n0 x"])
        #expect(store.progress.quotingProblem?.kind == .textAfterClosingQuote)
    }
}
