import Foundation
import Testing
import CellStore
import FreezeLayout
import Table
@testable import Viewer

@Suite("Filters and sorts on screen", .timeLimit(.minutes(30)))
struct QueryOnScreenTests {
    /// 40 rows: id, city (Oslo every 5th, else Bergen/bergen), amount (a number with a
    /// thousands separator sometimes, a percentage column, some empty).
    private static let csv: String = {
        var text = "id,city,amount,share\n"
        for index in 1...40 {
            let city = index % 5 == 0 ? "Oslo" : (index % 2 == 0 ? "Bergen" : "bergen")
            let amount = index % 7 == 0 ? "" : (index % 3 == 0 ? "\"1,\(100 + index)\"" : "\((index * 37) % 500)")
            text += "\(index),\(city),\(amount),\(index % 9).5%\n"
        }
        return text
    }()

    private func viewer() -> Viewer {
        setlocale(LC_ALL, "C.UTF-8")
        return Viewer(store: CellStore(bytes: Array(Self.csv.utf8)), screenSize: Size(width: 120, height: 12))
    }

    private func type(_ subject: Viewer, _ text: String) {
        for character in text { subject.handle(key: character == "\n" ? .enter : .character(character)) }
    }

    private func settle(_ subject: Viewer) {
        waitUntil("the view's passes", timeout: 60) {
            subject.handle(.refresh)
            return !subject.query.isRunning
        }
        subject.handle(.refresh)
    }

    /// The ids of the view's rows, in order.
    private func ids(_ subject: Viewer) -> [String] {
        subject.table.fetch(rows: [0..<subject.dataRowCount])
        return (0..<subject.dataRowCount).map { String(decoding: subject.table.row($0)?.field(0) ?? [], as: UTF8.self) }
    }

    @Test("& keeps the rows with a matching cell and counts them; &! inverts; & Enter clears")
    func filter() {
        let subject = viewer()
        type(subject, "&Oslo\n")
        settle(subject)
        #expect(ids(subject) == ["5", "10", "15", "20", "25", "30", "35", "40"])
        let status = subject.frame().lines.last ?? ""
        #expect(status.contains("row 1/8 of 40") && status.contains("1 filter"), "\(status)")
        #expect(subject.frame().lines[2].hasPrefix(" 10"), "row numbers stay the records' numbers")
        type(subject, "&!^1\n")
        settle(subject)
        #expect(ids(subject) == ["20", "25", "35", "40"], "filters stack: both must hold (no cell may start with 1)")
        type(subject, "&\n")
        settle(subject)
        #expect(subject.dataRowCount == 40 && !subject.table.isMapped)
    }

    @Test("| matches in the cursor's column only, with smart case; @ keeps rows equal to the cursor's cell")
    func columnFilters() {
        let subject = viewer()
        subject.handle(.moveRight)
        type(subject, "|bergen\n")
        settle(subject)
        #expect(subject.dataRowCount == 32, "lower case matches both cases")
        type(subject, "&\n")
        settle(subject)
        subject.handle(.moveDown)
        #expect(String(decoding: subject.table.cell(row: 1, column: 1), as: UTF8.self) == "Bergen")
        type(subject, "@")
        settle(subject)
        #expect(ids(subject).allSatisfy { Int($0)! % 2 == 0 && Int($0)! % 5 != 0 }, "only Bergen, not bergen: \(ids(subject))")
        #expect(subject.dataRowCount == 16)
    }

    @Test("] puts the largest number first, [ the smallest, empties last both ways; o restores the file's order")
    func sort() {
        let subject = viewer()
        type(subject, "ll]")
        settle(subject)
        let amounts = (0..<subject.dataRowCount).map { String(decoding: subject.table.cell(row: $0, column: 2), as: UTF8.self) }
        let numbers = amounts.prefix { !$0.isEmpty }.map { Double($0.replacingOccurrences(of: ",", with: ""))! }
        #expect(numbers == numbers.sorted(by: >), "\(amounts)")
        #expect(amounts.suffix(5).allSatisfy(\.isEmpty) && numbers.count == 35)
        #expect(subject.frame().lines.last?.contains("sorted by amount ↓") == true, "\(subject.frame().lines.last ?? "")")
        type(subject, "[")
        settle(subject)
        let ascending = (0..<35).map { Double(String(decoding: subject.table.cell(row: $0, column: 2), as: UTF8.self).replacingOccurrences(of: ",", with: ""))! }
        #expect(ascending == ascending.sorted())
        type(subject, "o")
        settle(subject)
        #expect(ids(subject) == (1...40).map(String.init))
    }

    @Test("two sort keys: the second breaks ties of the first; a filter over a sort keeps its order")
    func composed() {
        let subject = viewer()
        type(subject, "l[lllz]")
        settle(subject)
        let rows = (0..<subject.dataRowCount).map { row in
            (String(decoding: subject.table.cell(row: row, column: 1), as: UTF8.self),
             Double(String(decoding: subject.table.cell(row: row, column: 3), as: UTF8.self).dropLast())!)
        }
        for (a, b) in zip(rows, rows.dropFirst()) {
            #expect(a.0.lowercased() < b.0.lowercased() || (a.0.lowercased() == b.0.lowercased() && a.1 >= b.1), "\(a) before \(b)")
        }
        let sortedIDs = ids(subject)
        type(subject, "&Oslo\n")
        settle(subject)
        #expect(ids(subject) == sortedIDs.filter { Int($0)! % 5 == 0 }, "the sort's order is kept")
        #expect(subject.frame().lines.last?.contains("sorted by city ↑, share ↓  1 filter") == true, "\(subject.frame().lines.last ?? "")")
    }

    @Test("Ctrl-S writes exactly the filtered, sorted view")
    func saveTheView() throws {
        let subject = viewer()
        type(subject, "&Oslo\n")
        type(subject, "]")
        settle(subject)
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("view-\(UUID()).csv").path
        defer { try? FileManager.default.removeItem(atPath: target) }
        subject.handle(key: Key.control("s"))
        type(subject, target + "\n")
        waitUntil("the save") {
            subject.handle(.refresh)
            return !subject.isSaving
        }
        let lines = try String(contentsOfFile: target, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.first == "id,city,amount,share")
        #expect(lines.dropFirst().map { $0.split(separator: ",").first.map(String.init) ?? "" } == ["40", "35", "30", "25", "20", "15", "10", "5"])
    }
}

extension QueryOnScreenTests {
    @Test("Esc on a sort that has no rows yet leaves the view as it was, never empty")
    func escapeBeforeRows() {
        var text = "id,amount\n"
        for index in 0..<200_000 { text += "\(index),\((index * 7919) % 100_003)\n" }
        let subject = Viewer(store: CellStore(bytes: Array(text.utf8)), screenSize: Size(width: 80, height: 10))
        type(subject, "l]")
        #expect(subject.dataRowCount == 200_000, "the view stays while the sort reads its keys")
        subject.handle(key: .escape)
        subject.handle(.refresh)
        #expect(subject.dataRowCount == 200_000)
        let status = subject.frame().lines.last ?? ""
        if status.contains("as it was") {
            #expect(!subject.table.isMapped && subject.queryNote == nil, "nothing in force after the stop")
        }
    }

    @Test("a followed file sorts and filters over the rows read so far")
    func followed() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("follow-\(UUID()).csv")
        defer { try? FileManager.default.removeItem(at: path) }
        try Data(Self.csv.utf8).write(to: path)
        let store = try CellStore.open(InputSpec(path: path.path, follows: true))
        waitUntil("the rows") { store.progress.isCaughtUp || store.rowCount >= 41 }
        let subject = Viewer(store: store, options: ViewerOptions(follows: true), screenSize: Size(width: 120, height: 12))
        subject.handle(.refresh)
        type(subject, "ll]")
        settle(subject)
        #expect(subject.dataRowCount == 40)
        type(subject, "&Oslo\n")
        settle(subject)
        #expect(subject.dataRowCount == 8)
        store.stopLoading()
    }
}

extension QueryOnScreenTests {
    @Test("a search in a filtered view passes over the matches the filter hides")
    func searchInFilteredView() {
        let subject = viewer()
        // Rows 5, 10, … are Oslo; the amounts 1,1xx are in rows 3, 6, 9, …: the first shown is row 15.
        type(subject, "&Oslo\n")
        settle(subject)
        type(subject, "/^1,1\n")
        waitUntil("the search") {
            subject.handle(.refresh)
            return !subject.isSearching
        }
        #expect(ids(subject)[subject.cursorRow] == "15", "\(subject.frame().lines.last ?? "")")
        subject.handle(.nextMatch)
        waitUntil("the next match") {
            subject.handle(.refresh)
            return !subject.isSearching
        }
        #expect(ids(subject)[subject.cursorRow] == "30")
    }

    @Test("a filter added while a sort runs filters the sorted rows; the status counts of the file only when rows are left out")
    func filterDuringSort() {
        var text = "id,city,amount\n"
        for index in 0..<200_000 { text += "\(index),\(index % 10 == 0 ? "Oslo" : "Bergen"),\((index * 7919) % 100_003)\n" }
        let subject = Viewer(store: CellStore(bytes: Array(text.utf8)), screenSize: Size(width: 100, height: 10))
        type(subject, "ll]")
        type(subject, "&Oslo\n")
        settle(subject)
        #expect(subject.dataRowCount == 20_000)
        let amounts = (0..<50).map { Int(String(decoding: subject.table.cell(row: $0, column: 2), as: UTF8.self))! }
        #expect(amounts == amounts.sorted(by: >))
        type(subject, "&\n")
        settle(subject)
        #expect(subject.dataRowCount == 200_000, "clearing the filter leaves the sort")
        let status = subject.frame().lines.last ?? ""
        #expect(status.contains("row") && !status.contains(" of 200,000"), "\(status)")
    }
}

extension QueryOnScreenTests {
    @Test("after a sort of many rows, the top of the sorted view shows with the cursor on its first row; '' goes back to the record")
    func sortShowsItsTop() {
        var text = "id,amount\n"
        for index in 0..<300_000 { text += "\(index),\((index * 7919) % 100_003)\n" }
        let subject = Viewer(store: CellStore(bytes: Array(text.utf8)), options: .plain, screenSize: Size(width: 40, height: 6))
        subject.handle(.moveRight)
        type(subject, "9550G")
        let record = subject.table.record(ofRow: subject.cursorRow)
        type(subject, "]")
        settle(subject)
        #expect(subject.cursorRow == 0)
        let lines = subject.frame().lines
        let amounts = lines[1...4].map { $0.split(separator: " ").last.map(String.init) ?? "" }
        #expect(amounts == ["100002", "100002", "100002", "100001"], "the largest values on top: \(lines)")
        #expect(lines[5].contains("row 1/300,000"), "\(lines[5])")
        type(subject, "''")
        #expect(subject.table.record(ofRow: subject.cursorRow) == record, "row \(subject.cursorRow)")
        #expect(subject.cursorColumn == 1)
        type(subject, "''")
        #expect(subject.cursorRow == 0, "'' again: back to the top")
    }
}

extension QueryOnScreenTests {
    @Test("a sorted view's screen is read as its records alone, in one batch: no block is parsed for its rows, with a search's matches shown too")
    func sortedScreenParsesNoBlocks() {
        setlocale(LC_ALL, "C.UTF-8")
        var text = "id,amount,note\n"
        for index in 0..<20_000 { text += "\(index),\((index * 7919) % 100_003),note \(index % 13)\n" }
        let store = CellStore(bytes: Array(text.utf8), checkpointSpacing: 2048)
        let subject = Viewer(store: store, screenSize: Size(width: 80, height: 30))
        subject.handle(.moveRight)
        type(subject, "]")
        settle(subject)
        type(subject, "/note 7\n")
        waitUntil("the search") {
            subject.handle(.refresh)
            return !subject.isSearching
        }
        _ = subject.frame()
        let before = store.statistics.blocksParsed
        for row in [5_000, 12_345, 19_000] {
            subject.moveCursor(toRow: row, column: 2)
            let frame = subject.frame()
            #expect(frame.lines.contains { $0.contains("note 7") }, "a match is on screen to highlight")
        }
        // The width sample and the header are parsed once; rows from all over the file are
        // read from their own offsets, never by parsing the block around each.
        #expect(store.statistics.blocksParsed - before <= 2, "\(store.statistics.blocksParsed - before) blocks")
    }
}

extension QueryOnScreenTests {
    @Test("] shows the largest values from the top, the cursor on row 1, as text; '' goes back to the row it was on; o keeps the cursor's record")
    func sortFrame() {
        _ = utf8Locale   // the status line's `…` is measured as the screen measures it
        var text = "id,amount\n"
        for index in 1...30 { text += "\(index),\((index * 37) % 100)\n" }
        let subject = Viewer(store: CellStore(bytes: Array(text.utf8)), options: .plain, screenSize: Size(width: 30, height: 6))
        type(subject, "20Gl]")
        settle(subject)
        // The status line's right part is the loader's until the input is read.
        waitUntil("the input's end", timeout: 60) {
            subject.handle(.refresh)
            return subject.source.isComplete
        }
        #expect(subject.frame().lines == [
            "  #│id amount                 ",
            " 27│27     99                 ",
            "  8│ 8     96                 ",
            " 16│16     92                 ",
            " 24│24     88                 ",
            " row 1/30  sorted by…  col 2/2",
        ])
        type(subject, "''")
        #expect(subject.table.displayNumber(ofRow: subject.cursorRow) == 20)
        type(subject, "o")
        settle(subject)
        #expect(subject.cursorRow == 19, "back to the file's order on the same record")
    }
}
