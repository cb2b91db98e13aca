import Foundation
import Testing
import CellStore
import FreezeLayout
import Table
@testable import Viewer

@Suite("Marks: m, M, backtick, ~ and \"", .timeLimit(.minutes(30)))
struct MarkTests {
    /// 20 rows: id, city (Oslo every 5th, else Bergen), amount (falls as id rises).
    private static let csv: String = {
        var text = "id,city,amount\n"
        for index in 1...20 { text += "\(index),\(index % 5 == 0 ? "Oslo" : "Bergen"),\(1000 - index * 7)\n" }
        return text
    }()

    private func viewer(height: Int = 10) -> Viewer {
        setlocale(LC_ALL, "C.UTF-8")
        return Viewer(store: CellStore(bytes: Array(Self.csv.utf8)), options: .plain, screenSize: Size(width: 40, height: height))
    }

    private func type(_ subject: Viewer, _ text: String) {
        for character in text { subject.handle(key: character == "\n" ? .enter : .character(character)) }
    }

    private func settle(_ subject: Viewer) {
        waitUntil("the view's passes", timeout: 60) {
            subject.handle(.refresh)
            return !subject.query.isRunning && subject.query.marking == nil
        }
        subject.handle(.refresh)
    }

    private func ids(_ subject: Viewer) -> [String] {
        subject.table.fetch(rows: [0..<subject.dataRowCount])
        return (0..<subject.dataRowCount).map { String(decoding: subject.table.row($0)?.field(0) ?? [], as: UTF8.self) }
    }

    private func cursorID(_ subject: Viewer) -> String {
        subject.table.fetch(rows: [subject.cursorRow..<(subject.cursorRow + 1)])
        return String(decoding: subject.table.row(subject.cursorRow)?.field(0) ?? [], as: UTF8.self)
    }

    @Test("m marks the cursor's record: a sign in the margin, a count on the status line; m again unmarks")
    func markAndUnmark() {
        let subject = viewer()
        type(subject, "jm")
        #expect(subject.table.marks.records == [2])
        let lines = subject.frame().lines
        #expect(lines[0] == "   #│id city   amount                   ", "the margin is one wider: \(lines[0])")
        #expect(lines[1] == "   1│ 1 Bergen    993                   ")
        #expect(lines[2] == "•  2│ 2 Bergen    986                   ", "\(lines[2])")
        #expect(lines.last?.contains("1 mark") == true, "\(lines.last ?? "")")
        type(subject, "m")
        #expect(subject.table.marks.isEmpty)
        #expect(subject.frame().lines[2] == "  2│ 2 Bergen    986                    ", "no mark, no extra cell")
    }

    @Test("Marks follow records through a sort, a filter and hidden columns")
    func marksFollowRecords() {
        let subject = viewer()
        type(subject, "jjm")           // id 3
        type(subject, "10Gm")          // id 10
        type(subject, "gl[")           // sort by city ascending: Bergen first
        settle(subject)
        subject.table.fetch(rows: [0..<subject.dataRowCount])
        let marked = (0..<subject.dataRowCount).filter { subject.table.marks.contains(subject.table.record(ofRow: $0)) }
        #expect(marked.map { ids(subject)[$0] }.sorted() == ["10", "3"])
        type(subject, "&Oslo\n")
        settle(subject)
        #expect(ids(subject) == ["5", "10", "15", "20"])
        #expect(subject.frame().lines.contains { $0.hasPrefix("• 10") }, "the mark is on record 10 wherever it shows")
        type(subject, "h-")
        #expect(subject.table.marks.records == [3, 10], "hiding a column keeps the marks")
    }

    @Test("` and ~ go to the next and previous marked rows in the view's order, with counts, wrapping")
    func jumps() {
        let subject = viewer()
        for row in [4, 9, 15] { subject.handle(.goToRow(row)); type(subject, "m") }
        type(subject, "g`")
        #expect(cursorID(subject) == "4")
        type(subject, "2`")
        #expect(cursorID(subject) == "15")
        type(subject, "`")
        #expect(cursorID(subject) == "4" && subject.message?.contains("wrapped") == true)
        type(subject, "~")
        #expect(cursorID(subject) == "15")
        // Sorted by amount ascending: the file's order reversed, so ` goes 15, 9, 4.
        type(subject, "ll[")
        settle(subject)
        type(subject, "g`")
        #expect(cursorID(subject) == "15")
        type(subject, "`")
        #expect(cursorID(subject) == "9")
    }

    @Test("\" keeps only the marked rows, stacks with a filter, and \" again shows all; m there unmarks and hides")
    func markedOnly() {
        let subject = viewer()
        for row in [2, 5, 10, 11] { subject.handle(.goToRow(row)); type(subject, "m") }
        type(subject, "\"")
        #expect(ids(subject) == ["2", "5", "10", "11"])
        #expect(subject.queryNote?.contains("marked only") == true, "\(subject.queryNote ?? "")")
        #expect(subject.frame().lines.last?.contains("row 4/4 of 20") == true, "\(subject.frame().lines.last ?? "")")
        type(subject, "&Oslo\n")
        settle(subject)
        #expect(ids(subject) == ["5", "10"], "the marks and the filter both hold")
        type(subject, "m")
        #expect(ids(subject) == ["10"], "unmarked: it leaves the view")
        type(subject, "\"")
        #expect(ids(subject) == ["5", "10", "15", "20"], "the filter alone again")
    }

    @Test("\" over a sort keeps the sort's order")
    func markedOnlySorted() {
        let subject = viewer()
        for row in [3, 7, 12] { subject.handle(.goToRow(row)); type(subject, "m") }
        type(subject, "gll[")
        settle(subject)
        type(subject, "\"")
        settle(subject)
        #expect(ids(subject) == ["12", "7", "3"])
    }

    @Test("M marks the rows of the view where a shown cell matches; M with nothing typed clears them")
    func markMatching() {
        let subject = viewer()
        type(subject, "MOslo\n")
        settle(subject)
        #expect(subject.table.marks.records == [5, 10, 15, 20])
        type(subject, "&^1\n")
        settle(subject)
        type(subject, "M9\n")
        settle(subject)
        // The view is ids 1 and 10…19; a 9 shows in ids 1, 10…15 (amounts 993, 930…895) and
        // 19; ids 2…9 have a 9 in their amounts but are not in the view.
        #expect(subject.table.marks.records == [1, 5, 10, 11, 12, 13, 14, 15, 19, 20], "only the view's rows")
        type(subject, "M\n")
        #expect(subject.table.marks.isEmpty && subject.message?.contains("cleared") == true)
    }

    @Test("Esc Esc starts clean: the file's order, every column, no marks")
    func startClean() {
        let subject = viewer()
        type(subject, "mjm-[")
        settle(subject)
        subject.handle(key: .escape)
        subject.handle(key: .escape)
        #expect(subject.table.marks.isEmpty && !subject.table.isMapped && subject.table.columns.isIdentity)
        #expect(subject.cursorRow == 0 && subject.cursorColumn == 0)
    }

    @Test("Each table keeps its own marks through a kept state (R, a table put away)")
    func keptState() {
        let subject = viewer()
        type(subject, "jm\"")
        let other = viewer()
        other.restore(subject.keptState())
        #expect(other.table.marks.records == [2] && ids(other) == ["2"])
        let third = viewer()
        #expect(third.table.marks.isEmpty)
    }

    @Test("MarkSet keeps records sorted and unique")
    func markSet() {
        var set = MarkSet([5, 1, 5, 3])
        #expect(set.records == [1, 3, 5])
        #expect(set.insert(contentsOf: [4, 3, 9]) == 2)
        #expect(set.records == [1, 3, 4, 5, 9])
        #expect(set.mark(after: 5, forward: true) == 9 && set.mark(after: 1, forward: false) == nil)
        #expect(!set.toggle(4) && set.toggle(2) && set.records == [1, 2, 3, 5, 9])
        #expect(Array(set.marks(in: 2..<6)) == [2, 3, 5])
    }
}
