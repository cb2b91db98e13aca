import Testing
@testable import CellStore
@testable import Table

@Suite("Column names", .timeLimit(.minutes(30)))
struct ColumnNamesTests {
    @Test("a repeated name never takes a name the header has", arguments: [
        (["a", "a_2", "a"], ["a", "a_2", "a_3"]),
        (["a", "a", "a_2"], ["a", "a_3", "a_2"]),
        (["a", "a", "a"], ["a", "a_2", "a_3"]),
        (["x", "", "column 2"], ["x", "column 2_2", "column 2"]),
        (["", "", "column 1"], ["column 1_2", "column 2", "column 1"]),
        (["column 3", "column 3", ""], ["column 3", "column 3_2", "column 3_3"]),
        (["", "b", ""], ["column 1", "b", "column 3"]),
    ])
    func unique(header: [String], expected: [String]) {
        let names = ColumnNames(header)
        #expect(names.names(count: header.count) == expected)
        #expect(Set(names.names(count: header.count)).count == header.count)
    }

    @Test("columns past the header are named by number, apart from every header name")
    func pastTheHeader() {
        let names = ColumnNames(["column 3", "b"])
        #expect(names[2] == "column 3_2")
        #expect(names[3] == "column 4")
        #expect(ColumnNames([])[0] == "column 1")
        let all = ColumnNames(["column 4", "column 4_2", ""]).names(count: 6)
        #expect(all == ["column 4", "column 4_2", "column 3", "column 4_3", "column 5", "column 6"])
        #expect(Set(all).count == all.count)
    }

    @Test("many repeats cost linear time and stay unique")
    func manyRepeats() {
        let header = Array(repeating: "x", count: 100_000) + Array(repeating: "", count: 1000)
        let names = ColumnNames(header).names(count: header.count + 10)
        #expect(Set(names).count == names.count)
        #expect(names[99_999] == "x_100000")
    }

    @Test("a column is found by the name it is shown by")
    func reference() throws {
        let names = ColumnNames(["a", "a_2", "a", ""])
        #expect(try ColumnReference("a_3").resolve(in: names, columns: 4) == 2)
        #expect(try ColumnReference("a").resolve(in: names, columns: 4) == 0)
        #expect(try ColumnReference("column 4").resolve(in: names, columns: 4) == 3)
        #expect(try ColumnReference("column 5").resolve(in: names, columns: 5) == 4)
        #expect(try ColumnReference("3").resolve(in: names, columns: 4) == 2)
    }

    @Test("a header row's long cells are cut to a name's length")
    func longCell() {
        let row = Row(cells: [String(repeating: "é", count: 200), "b"])
        let names = ColumnNames(header: row, longest: 255)
        #expect(names[0] == String(repeating: "é", count: 127) + "…")
        #expect(names[1] == "b")
    }
}
