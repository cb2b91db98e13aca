#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Foundation
import FreezeLayout
import Table
import Testing
import TestSupport
import Viewer
@testable import Diff

/// A diff on screen: `old` against `new` in a viewer of `width`×`height`, the comparison
/// run to its end unless `waits` is false.
@MainActor
private func diffViewer(old: String, new: String, key: [String] = [], width: Int = 40, height: Int = 9,
                        waits: Bool = true, batchLimit: Int = 1 << 18, entries: DiffEntries = DiffEntries()) throws -> (Viewer, DiffRows) {
    setlocale(LC_ALL, "C.UTF-8")
    let rows = DiffRows(old: CellStore(bytes: Array(old.utf8), name: "old.csv"), new: CellStore(bytes: Array(new.utf8), name: "new.csv"),
                        headerRows: 1, options: TableDiff.Options(key: key), batchLimit: batchLimit, entries: entries, wake: {})
    let options = ViewerOptions(headerRows: 1, frozenColumns: 1 + key.count, bounce: .none, showsIndicators: false)
    let viewer = Viewer(source: rows, options: options, screenSize: Size(width: width, height: height))
    if waits { try finish(viewer, rows) }
    return (viewer, rows)
}

/// Takes the comparison's rows until it ends (bounded).
@MainActor
private func finish(_ viewer: Viewer, _ rows: DiffRows) throws {
    try #require(turn(pausing: { usleep(1000) }, { viewer.handle(.refresh) }, until: { rows.isComplete }), "the comparison did not end")
    viewer.handle(.refresh)
}

/// Waits (bounded) until `condition` holds, refreshing the viewer as news would.
@MainActor
private func refresh(_ viewer: Viewer, until what: String, _ condition: () -> Bool) throws {
    let held = turn(pausing: { usleep(1000) }, { viewer.handle(.refresh) }, until: condition)
    try #require(held, "timed out waiting for \(what)")
}

private let oldTable = "id,name,city\n1,Ann,Oslo\n2,Bo,Lyon\n3,Cy,Rome\n4,Di,Pisa\n"
private let newTable = "id,name,city\n1,Ann,Oslo\n2,Bo,Bergen\n4,Di,Pisa\n5,Ed,Nice\n"

@Suite("Diff on screen", .serialized, .timeLimit(.minutes(30)))
@MainActor
struct DiffScreenTests {
    @Test("one grid: the marker first and pinned, old→new in a changed cell, the counts on the status line")
    func grid() throws {
        let (viewer, rows) = try diffViewer(old: oldTable, new: newTable)
        let frame = viewer.frame()
        let expected: [String] = [
            "  # @@ │id name city                    ",
            "  1    │ 1 Ann  Oslo                    ",
            "  2 -> │ 2 Bo   Lyon→Bergen             ",
            "  3 ---│ 3 Cy   Rome                    ",
            "  4    │ 4 Di   Pisa                    ",
            "  5 +++│ 5 Ed   Nice                    ",
            "                                        ",
            "                                        ",
        ]
        #expect(Array(frame.lines.prefix(8)) == expected, "\(frame.lines.joined(separator: "\n"))")
        viewer.handle(.resize(Size(width: 80, height: 9)))
        #expect(viewer.frame().line(8).hasSuffix("1 changed, 1 added, 1 removed "), "\(viewer.frame().line(8))")
        #expect(rows.counts.changed == 1 && rows.counts.added == 1 && rows.counts.removed == 1)
    }

    @Test("added and removed records and changed cells each have their own style; unchanged cells none")
    func styles() throws {
        let (viewer, _) = try diffViewer(old: oldTable, new: newTable)
        viewer.handle(.moveDown)
        viewer.handle(.moveDown)
        viewer.handle(.moveDown)   // the cursor on row 4, unchanged, out of the way
        let frame = viewer.frame()
        func style(_ text: String, line: Int) -> Style? {
            guard let start = frame.line(line).range(of: text) else { return nil }
            return frame.style(x: frame.line(line).distance(from: frame.line(line).startIndex, to: start.lowerBound), y: line)
        }
        #expect(style("Ann", line: 1) == .plain)
        #expect(style("->", line: 2) == .changed && style("2", line: 2) == .changed)
        #expect(style("Lyon→Bergen", line: 2) == .changedCell && style("Bo", line: 2) == .plain)
        #expect(style("---", line: 3) == .removed && style("Rome", line: 3) == .removed && style("3", line: 3) == .removed)
        #expect(style("+++", line: 5) == .added && style("Nice", line: 5) == .added)
        #expect(Set([Style.added, .removed, .changed, .changedCell, .plain, .cursor]).count == 6)
    }

    @Test("columns only one table has are marked in the header; the key is pinned after the marker")
    func columnsAndKey() throws {
        let old = "id,name,gone\n1,Ann,x\n2,Bo,y\n"
        let new = "name,id,fresh\nAnn,1,p\nBob,2,q\n"
        let (viewer, _) = try diffViewer(old: old, new: new, key: ["id"], width: 50)
        let frame = viewer.frame()
        #expect(frame.line(0).hasPrefix("  # @@ id│"))
        #expect(frame.line(2).contains("->  2│Bo→Bob"))
        let header = frame.line(0)
        let fresh = try #require(header.range(of: "fresh"))
        let gone = try #require(header.range(of: "gone"))
        #expect(frame.style(x: header.distance(from: header.startIndex, to: fresh.lowerBound), y: 0) == .added)
        #expect(frame.style(x: header.distance(from: header.startIndex, to: gone.lowerBound), y: 0) == .removed)
    }

    @Test("repeated and empty keys are said on the status line, as --diff says them on standard error")
    func keyTrouble() throws {
        let old = "id,v\n1,a\n1,b\n,c\n2,d\n"
        let new = "id,v\n1,a\n1,B\n,c\n2,d\n"
        let (viewer, _) = try diffViewer(old: old, new: new, key: ["id"], width: 120)
        #expect(viewer.frame().line(8).hasSuffix("1 changed, 0 added, 0 removed  (2 repeated keys, matched in order)  (2 empty keys) "),
                "\(viewer.frame().line(8))")
    }

    @Test(") and ( go from change to change, and say when there is none further")
    func changes() throws {
        let (viewer, _) = try diffViewer(old: oldTable, new: newTable)
        #expect(viewer.cursorRow == 0)
        viewer.handle(key: .character(")"))
        #expect(viewer.cursorRow == 1)
        viewer.handle(key: .character(")"))
        #expect(viewer.cursorRow == 2)
        viewer.handle(key: .character(")"))
        #expect(viewer.cursorRow == 4)
        viewer.handle(key: .character(")"))
        #expect(viewer.cursorRow == 4 && viewer.message == "no change after this row")
        viewer.handle(key: .character("("))
        #expect(viewer.cursorRow == 2)
        viewer.handle(key: .character("'"))
        viewer.handle(key: .character("'"))
        #expect(viewer.cursorRow == 4, "'' comes back from a jump to a change")
        let same = try diffViewer(old: oldTable, new: oldTable).0
        same.handle(key: .character(")"))
        #expect(same.cursorRow == 0 && same.message == "no changes")
    }

    @Test("a count before ) or ( moves that many changes, and as far as there are when fewer follow")
    func countedChanges() throws {
        let (viewer, _) = try diffViewer(old: oldTable, new: newTable)
        for key in "2)" { viewer.handle(key: .character(key)) }
        #expect(viewer.cursorRow == 2, "the second change on")
        for key in "2(" { viewer.handle(key: .character(key)) }
        #expect(viewer.cursorRow == 1 && viewer.message == "only 1 earlier change", "\(viewer.message ?? "")")
        for key in "9)" { viewer.handle(key: .character(key)) }
        #expect(viewer.cursorRow == 4 && viewer.message == "only 2 more changes", "\(viewer.message ?? "")")
    }

    @Test("| on the marker column keeps only the changed rows; ) and ( go through the filtered view")
    func filterOnMarker() throws {
        let (viewer, _) = try diffViewer(old: oldTable, new: newTable)
        viewer.handle(.filter("^->$", columnOnly: true))
        try refresh(viewer, until: "the filter's rows") {
            return viewer.dataRowCount == 1 && !viewer.frame().line(8).contains("filtering") }
        #expect(viewer.frame().lines[1] == "  2 -> │ 2 Bo   Lyon→Bergen             ")
        // Any marker: every row that differs, in order, and ) steps through them.
        let (all, _) = try diffViewer(old: oldTable, new: newTable)
        all.handle(.filter(".", columnOnly: true))
        try refresh(all, until: "the filter's rows") { all.dataRowCount == 3 && !all.frame().line(8).contains("filtering") }
        let lines = all.frame().lines
        #expect(lines[1].hasPrefix("  2 -> ") && lines[2].hasPrefix("  3 ---") && lines[3].hasPrefix("  5 +++"))
        all.handle(key: .character(")"))
        #expect(all.cursorRow == 1)
        all.handle(key: .character(")"))
        #expect(all.cursorRow == 2)
        all.handle(key: .character("("))
        #expect(all.cursorRow == 1)
    }

    @Test("search and sort work on the diff as on any table")
    func searchAndSort() throws {
        let (viewer, _) = try diffViewer(old: oldTable, new: newTable)
        viewer.handle(.find("→", columnOnly: false))
        try refresh(viewer, until: "the search") { viewer.cursorRow == 1 }
        viewer.handle(.moveRight)
        viewer.handle(.moveRight)
        viewer.handle(.moveRight)   // the city
        viewer.handle(.sort(descending: false, adding: false))
        try refresh(viewer, until: "the sort") { viewer.frame().line(1).contains("Lyon→Bergen") }
        #expect(viewer.frame().lines[2].contains("Nice") && viewer.frame().lines[5].contains("Rome"))
    }

    @Test("a changed cell sorts by its new value: a number column stays in number order")
    func sortByNewValue() throws {
        let old = "id,amount\n1,5\n2,891.57\n3,-99.07\n4,20\n"
        let new = "id,amount\n1,5\n2,10\n3,-99.07\n4,20\n"
        let (viewer, _) = try diffViewer(old: old, new: new)
        viewer.handle(.moveRight)
        viewer.handle(.moveRight)   // the amount
        viewer.handle(.sort(descending: false, adding: false))
        try refresh(viewer, until: "the sort") { !viewer.isQueryRunning && viewer.frame().line(1).contains("-99.07") }
        let lines = viewer.frame().lines
        #expect(lines[2].contains(" 5") && lines[3].contains("891.57→10") && lines[4].contains("20"), "\(lines)")
    }

    @Test("Ctrl-S writes the diff as daff reads it: the marker column, the cells old->new")
    func save() throws {
        let (viewer, _) = try diffViewer(old: oldTable, new: newTable)
        #expect(try saved(viewer) == "@@,id,name,city\n,1,Ann,Oslo\n->,2,Bo,Lyon->Bergen\n---,3,Cy,Rome\n,4,Di,Pisa\n+++,5,Ed,Nice\n")
    }

    @Test("Ctrl-S of a diff whose columns differ writes daff's ! row first, as --diff --output csv does")
    func saveSchemaRow() throws {
        let new = "id,name,city,tier\n1,Ann,Oslo,\n2,Bo,Bergen,gold\n4,Di,Pisa,\n5,Ed,Nice,silver\n6,x->z,Rome,\n"
        let (viewer, _) = try diffViewer(old: oldTable + "6,x->y,Rome\n", new: new, key: ["id"])
        // A value holding -> lengthens that row's arrow, as daff does.
        #expect(try saved(viewer) == "!,,,,+++\n@@,id,name,city,tier\n,1,Ann,Oslo,\n->,2,Bo,Lyon->Bergen,gold\n---,3,Cy,Rome,\n"
                + ",4,Di,Pisa,\n+++,5,Ed,Nice,silver\n-->,6,x->y-->x->z,Rome,\n")
        // Filtered, sorted and a column hidden: the ! row still first, in the columns shown.
        viewer.handle(.filter("^(->|-->|\\+\\+\\+)$", columnOnly: false))
        try refresh(viewer, until: "the filter") { viewer.dataRowCount == 3 && !viewer.frame().line(8).contains("filtering") }
        viewer.handle(.moveRight)   // the id
        viewer.handle(.sort(descending: true, adding: false))
        try refresh(viewer, until: "the sort") { viewer.frame().line(1).contains("x->y") }
        viewer.handle(.moveRight)   // the name
        viewer.handle(.hideColumn)
        // A filter on every column runs again over the columns shown: saved once it is done.
        try refresh(viewer, until: "the filter over the columns shown") { !viewer.isQueryRunning }
        #expect(try saved(viewer) == "!,,,+++\n@@,id,city,tier\n-->,6,Rome,\n+++,5,Nice,silver\n->,2,Lyon->Bergen,gold\n")
    }

    @Test("Ctrl-S of a diff holding a cell over 1 MiB stops and says so, rather than write the cell cut")
    func saveRefusesCutCell() throws {
        let long = String(repeating: "0123456789", count: 120_000)
        let (viewer, _) = try diffViewer(old: oldTable + "7,\(long),Oslo\n", new: newTable + "7,\(long)x,Oslo\n", key: ["id"])
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("csvfreeze-diff-\(UUID().uuidString).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        viewer.handle(.saveTo(path, overwrite: false))
        try refresh(viewer, until: "the write's end") { viewer.message?.contains("not written whole") == true }
        #expect(!FileManager.default.fileExists(atPath: path), "nothing is left at the path")
    }

    /// What Ctrl-S writes of `viewer`.
    private func saved(_ viewer: Viewer) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("csvfreeze-diff-\(UUID().uuidString).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        viewer.handle(.saveTo(path, overwrite: false))
        try refresh(viewer, until: "the file written") { viewer.message?.hasPrefix("wrote") == true && viewer.message?.hasSuffix(path) == true }
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    @Test("the frequency sheet of the marker column counts the rows of each kind")
    func sheet() throws {
        let (viewer, _) = try diffViewer(old: oldTable, new: newTable)
        viewer.handle(.frequency)
        let sheet = try #require(viewer.takeSheet())
        try refresh(sheet.viewer, until: "the count") {
            sheet.update()
            return sheet.viewer.source.isComplete
        }
        sheet.viewer.handle(.refresh)
        let text = sheet.viewer.frame().lines.joined(separator: "\n")
        #expect(text.contains("(empty)") && text.contains("2 "), "\(text)")
        #expect(text.contains("---") && text.contains("+++") && text.contains("->"), "\(text)")
    }

    @Test("a keyed diff of an unsorted file, its rows spilled to a file: the same screen, ) and filter as in memory")
    func spilledRows() throws {
        var old = "id,value\n", new = "id,value\n"
        var generator = SeededGenerator(seed: 7)
        var ids = Array(0..<3_000)
        for index in ids.indices.reversed() { ids.swapAt(index, Int(generator.next() % UInt64(index + 1))) }
        for id in ids { old += "\(id),v\(id)\n" }
        // The new file in another order: its rows' old records do not follow one another.
        for index in ids.indices.reversed() { ids.swapAt(index, Int(generator.next() % UInt64(index + 1))) }
        for id in ids where id % 500 != 7 { new += "\(id),\(id % 700 == 3 ? "w" : "v")\(id)\n" }
        let (plain, _) = try diffViewer(old: old, new: new, key: ["id"], width: 50, height: 12)
        let (spilled, rows) = try diffViewer(old: old, new: new, key: ["id"], width: 50, height: 12,
                                             entries: DiffEntries(memoryLimit: 32, blockSize: 8))
        #expect(rows.entriesRunCount > 2_000, "a run a row: the old file's order is not the new one's")
        for _ in 0..<8 {
            #expect(spilled.frame().lines == plain.frame().lines)
            spilled.handle(key: .character(")"))
            plain.handle(key: .character(")"))
        }
        spilled.handle(key: .character("G"))
        plain.handle(key: .character("G"))
        #expect(spilled.frame().lines == plain.frame().lines)
        for viewer in [spilled, plain] {
            viewer.handle(.firstRow)
            viewer.handle(.filter("-", columnOnly: true))
            try refresh(viewer, until: "the filter's rows") { viewer.dataRowCount == 11 && !viewer.frame().line(11).contains("filtering") }
        }
        #expect(spilled.frame().lines == plain.frame().lines)
        #expect(spilled.frame().lines.filter { $0.contains("->") }.count == 4 && spilled.frame().lines.filter { $0.contains("---") }.count == 6,
                "\(spilled.frame().lines.joined(separator: "\n"))")
    }

    @Test("the first screen comes while the comparison runs: the counts say + until it ends")
    func whileComparing() throws {
        var old = "id,value\n", new = "id,value\n"
        for index in 0..<60_000 {
            old += "\(index),v\(index)\n"
            new += "\(index),\(index % 10_000 == 0 ? "w" : "v")\(index)\n"
        }
        let (viewer, rows) = try diffViewer(old: old, new: new, width: 60, waits: false, batchLimit: 1000)
        #expect(!rows.isComplete)
        #expect(viewer.frame().line(8).contains("comparing… "), "\(viewer.frame().line(8))")
        // The first rows on screen, a batch of them, while the rest are compared.
        try refresh(viewer, until: "the first rows") { viewer.dataRowCount > 0 }
        #expect(viewer.dataRowCount <= 1000 && !rows.isComplete)
        #expect(viewer.frame().line(1).hasPrefix("   1 ->│  0 v0→w0"), "\(viewer.frame().lines.joined(separator: "\n"))")
        #expect(viewer.frame().line(8).contains("+ changed, 0+ added, 0+ removed"), "\(viewer.frame().line(8))")
        // A filter made while it compares covers every row once it ends.
        let (filtered, filteredRows) = try diffViewer(old: old, new: new, width: 60, waits: false)
        filtered.handle(.filter("->", columnOnly: true))
        try finish(filtered, filteredRows)
        try refresh(filtered, until: "the filter made again") { filtered.dataRowCount == 6 && !filtered.frame().line(8).contains("filtering") }
        try finish(viewer, rows)
        let status = viewer.frame().line(8)
        #expect(status.contains("6 changed, 0 added, 0 removed") && !status.contains("+"), "\(status)")
        #expect(viewer.dataRowCount == 60_000)
        viewer.handle(key: .character("G"))
        viewer.handle(key: .character("("))
        #expect(viewer.cursorRow == 50_000)
    }
}

extension DiffScreenTests {
    @Test("Q on a diff refuses at the key, in one line that fits 80 columns and says how to query the files")
    func sqlRefused() throws {
        let (viewer, _) = try diffViewer(old: oldTable, new: newTable, width: 80)
        let before = viewer.frame().lines.prefix(7)
        viewer.handle(key: .character("Q"))
        let status = viewer.frame().line(8)
        #expect(status.contains("SQL reads files, not the diff: csvfreeze --sql QUERY OLD NEW"), "\(status)")
        #expect(status.count == 80 && status.contains("row 1/"), "\(status)")
        // No prompt took the key: the next keys move the cursor, the table is as it was.
        viewer.handle(key: .character("j"))
        #expect(viewer.cursorRow == 1 && viewer.frame().lines.prefix(7).dropFirst(2) == before.dropFirst(2))
    }

    /// `pattern` matches `text` somewhere.
    func matches(_ text: String, _ pattern: String) -> Bool { text.range(of: pattern, options: .regularExpression) != nil }

    @Test("the status line says the comparison's stage and percent from the start, and with the rows while they come",
          arguments: [false, true])
    func progress(byKey: Bool) throws {
        var old = "id,value\n", new = "id,value\n"
        for index in 0..<60_000 {
            // By key, in an order of their own: not the keys' order.
            let id = byKey ? (index &* 7919) % 60_000 : index
            old += "\(id),v\(id)\n"
            new += "\(id),\(id % 10_000 == 0 ? "w" : "v")\(id)\n"
        }
        let (viewer, rows) = try diffViewer(old: old, new: new, key: byKey ? ["id"] : [], width: 100, waits: false, batchLimit: 1000)
        let first = try #require(rows.statusNote)
        let stages = byKey ? "(reading|matching keys|ordering rows)" : "(reading|aligning)"
        #expect(matches(first, "^comparing… \(stages) [0-9]+%$"), "\(first)")
        #expect(matches(viewer.frame().line(8), "no rows yet .*comparing… \(stages) [0-9]+% $"), "\(viewer.frame().line(8))")
        // Rows come while the last stage runs: it blocks with the rows not taken yet.
        try refresh(viewer, until: "the first rows") { viewer.dataRowCount > 0 }
        let status = viewer.frame().line(8)
        let last = byKey ? "ordering rows" : "aligning"
        #expect(matches(status, "[0-9]+\\+ changed, 0\\+ added, 0\\+ removed  \\(\(last) [0-9]{1,3}%\\) $"), "\(status)")
        try finish(viewer, rows)
        #expect(viewer.frame().line(8).hasSuffix("6 changed, 0 added, 0 removed "), "\(viewer.frame().line(8))")
    }
}

@Suite("Diff rows as runs", .timeLimit(.minutes(30)))
struct DiffEntriesTests {
    @Test("runs spilled to a file read back as the runs kept in memory; a copy keeps what it had",
          arguments: [(1, 1), (4, 2), (64, 16)])
    func spilled(memoryLimit: Int, blockSize: Int) {
        var generator = SeededGenerator(seed: UInt64(memoryLimit * 131 + blockSize))
        var plain = DiffEntries(memoryLimit: 1 << 30)
        var spilled = DiffEntries(memoryLimit: memoryLimit, blockSize: blockSize)
        var copy: DiffEntries?
        var old = 1, new = 1
        for index in 0..<5_000 {
            let choice = generator.next() % 10
            // Mostly runs of same records, some keyed jumps (with offsets), some changes.
            let kind: UInt8 = choice < 6 ? DiffEntries.same : UInt8(choice % 5)
            if choice == 9 {
                old += Int(generator.next() % 50)
                new += Int(generator.next() % 50)
            }
            let oldRef = kind == DiffEntries.added ? nil : RecordRef(record: old, offset: choice == 9 ? Int64(old * 10) : nil)
            let newRef = kind == DiffEntries.removed ? nil : RecordRef(record: new, offset: choice == 9 ? Int64(new * 10) : nil)
            if oldRef != nil { old += 1 }
            if newRef != nil { new += 1 }
            plain.append(kind: kind, old: oldRef, new: newRef)
            spilled.append(kind: kind, old: oldRef, new: newRef)
            if index == 3_000 { copy = spilled }
        }
        #expect(spilled.count == plain.count && spilled.runCount == plain.runCount)
        #expect(spilled.runCount > 1_000)
        for index in 0..<plain.count {
            if spilled.entry(index) != plain.entry(index) {
                Issue.record("row \(index): \(spilled.entry(index)) is not \(plain.entry(index))")
                break
            }
        }
        let kept = try? #require(copy)
        #expect(kept?.count == 3_001)
        #expect((0..<3_001).allSatisfy { kept?.entry($0) == plain.entry($0) })
    }
}

extension DiffScreenTests {
    /// The style of the first cell of `text` on `line`, searching from column `from`.
    private func style(_ frame: Frame, _ text: String, line: Int, from: Int = 0) -> Style? {
        let characters = Array(frame.line(line))
        let wanted = Array(text)
        guard wanted.count <= characters.count else { return nil }
        for x in from...(characters.count - wanted.count) where Array(characters[x..<(x + wanted.count)]) == wanted {
            return frame.style(x: x, y: line)
        }
        return nil
    }

    @Test("side by side: old values left, new right, rows aligned, the marker and key pinned on each side, in the diff's styles")
    func sideBySide() throws {
        let (viewer, _) = try diffViewer(old: oldTable, new: newTable, key: ["id"], width: 50)
        viewer.handle(.moveDown)
        viewer.handle(.moveDown)
        viewer.handle(.moveDown)   // the cursor on row 4, unchanged, out of the way
        viewer.handle(key: .character("D"))
        let frame = viewer.frame()
        let expected: [String] = [
            "  # @@  id│name city    ║  # @@  id│name city     ",
            "  1      1│Ann  Oslo    ║  1      1│Ann  Oslo     ",
            "  2 ->   2│Bo   Lyon    ║  2 ->   2│Bo   Bergen   ",
            "  3 ---  3│Cy   Rome    ║  3       │              ",
            "  4      4│Di   Pisa    ║  4      4│Di   Pisa     ",
            "  5       │             ║  5 +++  5│Ed   Nice     ",
            "                        ║                         ",
            "                        ║                         ",
        ]
        #expect(Array(frame.lines.prefix(8)) == expected, "\(frame.lines.joined(separator: "\n"))")
        #expect(frame.line(8).hasSuffix("1 changed, 1 added, 1 removed "))
        let right = 25
        // Removed: styled on the left, blank and plain on the right; added the other way.
        #expect(style(frame, "---", line: 3) == .removed && style(frame, "Rome", line: 3) == .removed)
        #expect(frame.style(x: right + 7, y: 3) == .plain && frame.style(x: right + 11, y: 3) == .plain)
        #expect(style(frame, "+++", line: 5, from: right) == .added && style(frame, "Nice", line: 5) == .added)
        #expect(frame.style(x: 7, y: 5) == .plain && frame.style(x: 11, y: 5) == .plain)
        // Changed: the marker and the changed cell on both sides, the others plain.
        #expect(style(frame, "->", line: 2) == .changed && style(frame, "->", line: 2, from: right) == .changed)
        #expect(style(frame, "Lyon", line: 2) == .changedCell && style(frame, "Bergen", line: 2) == .changedCell)
        #expect(style(frame, "Bo", line: 2) == .plain && style(frame, "Bo", line: 2, from: right) == .plain)
        #expect(style(frame, "Ann", line: 1) == .plain && style(frame, "Ann", line: 1, from: right) == .plain)
        // The cursor's cell on both sides.
        #expect(frame.style(x: 4, y: 4) == .cursor && frame.style(x: right + 4, y: 4) == .cursor)
        // D again: one table.
        viewer.handle(key: .character("D"))
        #expect(viewer.frame().line(2).hasPrefix("  2 ->   2│Bo   Lyon→Bergen"))
    }

    @Test("side by side scrolls both halves as one: rows, columns, ) and (, the cursor on each side")
    func sideBySideMoves() throws {
        var old = "id,a,b,c,d\n", new = "id,a,b,c,d\n"
        for id in 1...40 {
            old += "\(id),alpha\(id),beta\(id),gamma\(id),delta\(id)\n"
            new += "\(id),alpha\(id),beta\(id),gamma\(id),\(id == 30 ? "DELTA" : "delta")\(id)\n"
        }
        let (viewer, _) = try diffViewer(old: old, new: new, key: ["id"], width: 60, height: 8)
        viewer.handle(key: .character("D"))
        viewer.handle(key: .character(")"))
        #expect(viewer.cursorRow == 29)
        viewer.handle(key: .character("$"))
        let frame = viewer.frame()
        let lines = frame.lines
        let row = try #require(lines.firstIndex { $0.hasPrefix(" 30 -> 30│") }, "\(lines.joined(separator: "\n"))")
        let halves = lines[row].components(separatedBy: "║")
        #expect(halves.count == 2 && halves[0].contains("delta30") && halves[1].contains("DELTA30"), "\(lines[row])")
        #expect(lines[0].components(separatedBy: "║").map { $0.contains(" d") } == [true, true], "\(lines[0])")
        #expect(style(frame, "delta30", line: row) == .cursor && style(frame, "DELTA30", line: row) == .cursor)
        // Both halves show the same rows and columns, scrolled alike.
        for line in lines.prefix(7) {
            let halves = line.components(separatedBy: "║")
            #expect(halves.count == 2)
            if halves.count == 2 {
                let left = halves[0].replacingOccurrences(of: "delta", with: "DELTA")
                let right = halves[1].replacingOccurrences(of: "delta", with: "DELTA")
                #expect(left.trimmingCharacters(in: .whitespaces) == right.trimmingCharacters(in: .whitespaces), "\(line)")
            }
        }
        // A press on the right half selects the same cell as on the left.
        viewer.handle(.mouse(MouseEvent(.press, x: 30 + 12, y: 2)))
        let pressed = (viewer.cursorRow, viewer.cursorColumn)
        viewer.handle(.mouse(MouseEvent(.press, x: 12, y: 2)))
        #expect(pressed == (viewer.cursorRow, viewer.cursorColumn))
        #expect(viewer.invariantViolations == [])
    }

    @Test("D on a terminal too narrow for both halves says so on the status line in one line, and draws one table")
    func sideBySideTooNarrow() throws {
        let (viewer, _) = try diffViewer(old: oldTable, new: newTable, key: ["id"], width: 40)
        let before = viewer.frame().lines
        viewer.handle(key: .character("D"))
        #expect(viewer.message == "D needs 47 columns")
        #expect(viewer.frame().lines.prefix(8) == before.prefix(8))
        #expect(viewer.frame().line(8) == " row 1/5  col 1/4 @@ D needs 47 columns ", "\(viewer.frame().line(8))")
        // Side by side, then narrowed: back to one table, and said.
        viewer.handle(.resize(Size(width: 60, height: 9)))
        viewer.handle(key: .character("D"))
        #expect(viewer.frame().line(0).contains("║"))
        viewer.handle(.resize(Size(width: 40, height: 9)))
        #expect(viewer.message == "too narrow: one table" && !viewer.frame().line(0).contains("║"))
        // A pinned column widened past what both halves hold: the same.
        viewer.handle(.resize(Size(width: 60, height: 9)))
        viewer.handle(key: .character("D"))
        viewer.handle(.moveRight)   // the key
        for _ in 0..<20 where viewer.frame().line(0).contains("║") { viewer.handle(.widenColumn) }
        #expect(viewer.message == "too narrow: one table" && !viewer.frame().line(0).contains("║"))
        #expect(viewer.invariantViolations == [])
        // Not a diff: D says what it is for.
        let plain = Viewer(source: CellStore(bytes: Array(oldTable.utf8), name: "old.csv"), options: ViewerOptions(headerRows: 1),
                           screenSize: Size(width: 80, height: 9))
        plain.handle(key: .character("D"))
        #expect(plain.message == "D shows a diff's old and new tables side by side (--diff)")
    }

    @Test("side by side keeps search, filter, sort, the inspector and Ctrl-S (which writes the one table)")
    func sideBySideKeepsTheRest() throws {
        let (viewer, _) = try diffViewer(old: oldTable, new: newTable, key: ["id"], width: 60)
        viewer.handle(key: .character("D"))
        viewer.handle(.find("Bergen", columnOnly: false))
        try refresh(viewer, until: "the search") { viewer.cursorRow == 1 }
        viewer.handle(.filter("^(->|---)$", columnOnly: false))
        try refresh(viewer, until: "the filter") { viewer.dataRowCount == 2 && !viewer.frame().line(8).contains("filtering") }
        var lines = viewer.frame().lines
        #expect(lines[1].hasPrefix("  2 ->   2│Bo   Lyon") && lines[1].contains("║  2 ->   2│Bo   Bergen"), "\(lines[1])")
        #expect(lines[2].hasPrefix("  3 ---  3│Cy   Rome") && lines[2].contains("║  3       │"), "\(lines[2])")
        viewer.handle(.sort(descending: true, adding: false))
        try refresh(viewer, until: "the sort") { viewer.frame().line(1).hasPrefix("  3 ---") }
        viewer.handle(.inspect)
        #expect(viewer.mode != .grid)
        viewer.handle(key: .escape)
        #expect(viewer.mode == .grid)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("csvfreeze-sbs-\(UUID().uuidString).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        viewer.handle(.saveTo(path, overwrite: false))
        try refresh(viewer, until: "the file written") { viewer.message?.hasPrefix("wrote") == true }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "@@,id,name,city\n---,3,Cy,Rome\n->,2,Bo,Lyon->Bergen\n")
        lines = viewer.frame().lines
        #expect(lines[0].contains("║"))
    }

    @Test("a random walk side by side keeps the invariants after each step", arguments: [1, 2, 3])
    func sideBySideWalk(seed: UInt64) throws {
        var old = "id,name,city,note\n", new = "id,name,city,note\n"
        for id in 1...120 {
            if id % 17 != 3 { old += "\(id),n\(id),c\(id),some longer note \(id)\n" }
            if id % 13 != 5 { new += "\(id),n\(id),\(id % 7 == 0 ? "C" : "c")\(id),some longer note \(id)\n" }
        }
        let (viewer, _) = try diffViewer(old: old, new: new, key: ["id"], width: 70, height: 12)
        var generator = SeededGenerator(seed: seed)
        let commands: [Command] = [.toggleSideBySide, .toggleSideBySide, .moveDown, .moveUp, .moveRight, .moveLeft, .pageDown, .pageUp,
                                   .scrollRight, .scrollLeft, .firstRow, .lastRow, .firstColumn, .lastColumn, .toggleFreeze, .unfreeze,
                                   .narrowColumn, .widenColumn, .fitColumn, .toggleFullWidth, .nextChange, .previousChange, .tick,
                                   .resize(Size(width: 30, height: 8)), .resize(Size(width: 100, height: 20)), .resize(Size(width: 3, height: 3)),
                                   .resize(Size(width: 70, height: 12)), .mouse(MouseEvent(.press, x: 50, y: 6)),
                                   .mouse(MouseEvent(.wheelDown, x: 60, y: 5)), .mouse(MouseEvent(.press, x: 10, y: 4))]
        var sideBySideSteps = 0
        for step in 0..<400 {
            let command = commands[Int(generator.next() % UInt64(commands.count))]
            viewer.handle(command)
            let broken = viewer.invariantViolations
            #expect(broken == [], "step \(step), after \(command)")
            if !broken.isEmpty { return }
            let frame = viewer.frame()
            #expect(frame.size == viewer.screenSize)
            if frame.line(0).contains("║") { sideBySideSteps += 1 }
        }
        #expect(sideBySideSteps > 20, "\(sideBySideSteps) steps side by side")
    }
}

/// A column only the new table has (`tier`) and one only the old has (`gone`): records 2
/// and 4 differ only by a `tier` value (daff's `+`), 3 changed, 5 removed, 7 added.
private let oldWithGone = "id,name,gone\n1,Ann,\n2,Bo,b\n3,Cy,c\n4,Di,\n5,Ed,e\n6,Flo,\n"
private let newWithTier = "id,name,tier\n1,Ann,\n2,Bo,silver\n3,Cyd,gold\n4,Di,bronze\n6,Flo,\n7,Gus,iron\n"

extension DiffScreenTests {
    @Test(") and ( step through the changed, added and removed records the status line counts, not rows that only fill an added column")
    func changesSkipFilledRows() throws {
        let (viewer, rows) = try diffViewer(old: oldWithGone, new: newWithTier, key: ["id"], width: 80)
        #expect(viewer.frame().line(8).hasSuffix("1 changed, 1 added, 1 removed "), "\(viewer.frame().line(8))")
        #expect(rows.counts.changed == 1 && rows.counts.added == 1 && rows.counts.removed == 1)
        #expect(viewer.frame().line(2).hasPrefix("  2 +    2│"), "\(viewer.frame().lines.joined(separator: "\n"))")
        var visited: [Int] = []
        for _ in 0..<4 {
            viewer.handle(key: .character(")"))
            visited.append(viewer.cursorRow)
        }
        #expect(visited == [2, 4, 6, 6] && viewer.message == "no change after this row", "\(visited)")
        visited = []
        for _ in 0..<3 {
            viewer.handle(key: .character("("))
            visited.append(viewer.cursorRow)
        }
        #expect(visited == [4, 2, 2] && viewer.message == "no change before this row", "\(visited)")
        // In a filtered view too: `.` on the marker keeps the `+` rows, ) and ( pass them.
        let (all, _) = try diffViewer(old: oldWithGone, new: newWithTier, key: ["id"], width: 80)
        all.handle(.filter(".", columnOnly: true))
        try refresh(all, until: "the filter's rows") { all.dataRowCount == 5 && !all.frame().line(8).contains("filtering") }
        all.handle(key: .character(")"))
        #expect(all.cursorRow == 1 && all.frame().line(2).hasPrefix("  3 ->"), "\(all.frame().lines.joined(separator: "\n"))")
        all.handle(key: .character(")"))
        #expect(all.cursorRow == 3)
        all.handle(key: .character("("))
        #expect(all.cursorRow == 1)
        all.handle(key: .character("("))
        #expect(all.cursorRow == 1 && all.message == "no change before this row")
        // Only values in a column one table lacks: no change to go to.
        let (filledOnly, _) = try diffViewer(old: "id,name\n1,Ann\n", new: "id,name,tier\n1,Ann,silver\n", key: ["id"], width: 80)
        filledOnly.handle(key: .character(")"))
        #expect(filledOnly.cursorRow == 0 && filledOnly.message == "no changes")
    }

    @Test("the filled cells of an added column are styled as added, of a removed column as removed, on the one table and side by side")
    func columnOnlyOneTableHas() throws {
        let (viewer, _) = try diffViewer(old: oldWithGone, new: newWithTier, key: ["id"], width: 80)
        viewer.handle(key: .character("G"))   // the cursor on the last row, out of the way
        let frame = viewer.frame()
        let expected: [String] = [
            "  # @@  id│name   gone tier                                                     ",
            "  1      1│Ann                                                                  ",
            "  2 +    2│Bo     b    silver                                                   ",
            "  3 ->   3│Cy→Cyd c    gold                                                     ",
            "  4 +    4│Di          bronze                                                   ",
            "  5 ---  5│Ed     e                                                             ",
            "  6      6│Flo                                                                  ",
            "  7 +++  7│Gus         iron                                                     ",
        ]
        #expect(Array(frame.lines.prefix(8)) == expected, "\(frame.lines.joined(separator: "\n"))")
        // The `+` row: its marker added, its number and common cells plain, the value in tier added.
        #expect(style(frame, "+", line: 2) == .added && style(frame, "2", line: 2) == .rowNumber)
        #expect(style(frame, "Bo", line: 2) == .plain)
        #expect(style(frame, "silver", line: 2) == .added && style(frame, "bronze", line: 4) == .added)
        // A value only the old table's column holds, in a record both have: removed.
        #expect(style(frame, "b", line: 2, from: 12) == .removed && style(frame, "c", line: 3, from: 12) == .removed)
        // A changed record: its changed cell, and the added column's value as added.
        #expect(style(frame, "Cy→Cyd", line: 3) == .changedCell && style(frame, "gold", line: 3) == .added)
        // Empty cells of those columns stay plain.
        #expect(frame.style(x: 18, y: 1) == .plain && frame.style(x: 23, y: 1) == .plain)
        #expect(style(frame, "Ann", line: 1) == .plain && style(frame, "Flo", line: 6) == .plain)

        viewer.handle(key: .character("D"))
        let sides = viewer.frame()
        let right = try #require(sides.line(1).firstIndex(of: "║")).utf16Offset(in: sides.line(1)) + 1
        #expect(style(sides, "silver", line: 2, from: right) == .added && style(sides, "gold", line: 3, from: right) == .added,
                "\(sides.lines.joined(separator: "\n"))")
        #expect(style(sides, "b", line: 2, from: 12) == .removed && style(sides, "Bo", line: 2, from: right) == .plain)
        #expect(style(sides, "+", line: 2, from: right) == .added && style(sides, "Bo", line: 2) == .plain)
    }
}
