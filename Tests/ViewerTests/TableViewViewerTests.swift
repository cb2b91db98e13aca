import Foundation
import Testing
import CellStore
import FreezeLayout
import Table
@testable import Viewer

@Suite("The viewer over a table view", .timeLimit(.minutes(30)))
struct TableViewViewerTests {
    private func viewer() -> Viewer {
        var text = "id,city,amount\n"
        for index in 1...30 { text += "\(index),c\(index % 4),\(index * 10)\n" }
        return Viewer(store: CellStore(bytes: Array(text.utf8)), screenSize: Size(width: 40, height: 8))
    }

    @Test("mapped rows show in the view's order under their records' numbers, and the cursor keeps its record")
    func mappedRows() {
        let subject = viewer()
        for _ in 0..<5 { subject.handle(.moveDown) }
        #expect(subject.cursorRow == 5)
        // Records 21, 6 and 4 (the file's rows 21, 6 and 4, whose ids are the same), in that
        // order: the cursor's record (row 6) is the second.
        subject.show(rows: RecordList([21, 6, 4]))
        #expect(subject.cursorRow == 1, "the cursor stays on record 6, now the second row")
        let lines = subject.frame().lines
        #expect(lines[1].hasPrefix(" 21│21 c1"), "\(lines)")
        #expect(lines[2].hasPrefix("  6│ 6 c2"), "\(lines)")
        #expect(lines[3].hasPrefix("  4│ 4 c0"), "\(lines)")
        #expect(lines[4].trimmingCharacters(in: .whitespaces).isEmpty)
        #expect(subject.frame().lines.last?.contains("row 2/3") == true, "\(lines.last ?? "")")
        subject.show(rows: nil)
        #expect(subject.cursorRow == 5, "back in the file's order, on the same record")
        #expect(subject.invariantViolations.isEmpty)
    }

    @Test("hidden and moved columns: the cursor keeps its column, widths follow their column")
    func mappedColumns() {
        let subject = viewer()
        subject.handle(.moveRight)
        subject.handle(.moveRight)
        subject.handle(.widenColumn)
        let widened = subject.columnWidths[2]
        subject.show(rows: nil, columns: ColumnMap(shown: [2, 0]))
        #expect(subject.cursorColumn == 0, "the amount column is now first")
        #expect(subject.columnWidths[0] == widened)
        let header = subject.frame().lines[0]
        #expect(header.contains("amount") && header.contains("id") && !header.contains("city"), "\(header)")
        #expect(header.range(of: "amount")!.lowerBound < header.range(of: "id")!.lowerBound, "\(header)")
        #expect(subject.invariantViolations.isEmpty)
    }
}

extension TableViewViewerTests {
    @Test("a random walk that also changes the view's rows and columns keeps the invariants", arguments: [7, 8])
    func randomRemaps(seed: UInt64) {
        var text = "a,b,c,d,e,f\n"
        for index in 1...200 { text += (0..<6).map { "r\(index)c\($0)" }.joined(separator: ",") + "\n" }
        let subject = Viewer(store: CellStore(bytes: Array(text.utf8)), screenSize: Size(width: 44, height: 10))
        var generator = SeededGenerator(seed: seed)
        let commands: [Command] = [.moveDown, .moveUp, .moveRight, .moveLeft, .pageDown, .pageUp, .lastRow, .firstRow,
                                   .lastColumn, .toggleFreeze, .widenColumn, .toggleFullWidth, .tick,
                                   .resize(Size(width: 30, height: 8)), .resize(Size(width: 60, height: 14))]
        for step in 0..<400 {
            let choice = Int(generator.next() % 20)
            if choice == 0 {
                let records = (1...200).filter { _ in generator.next() % 3 == 0 }.shuffled(using: &generator)
                subject.show(rows: RecordList(records))
            } else if choice == 1 {
                subject.show(rows: generator.next() % 2 == 0 ? nil : RecordList([]))
            } else if choice == 2 {
                let columns = Array((0..<6).shuffled(using: &generator).prefix(1 + Int(generator.next() % 6)))
                subject.show(rows: subject.table.rows, columns: ColumnMap(shown: columns))
            } else {
                subject.handle(commands[Int(generator.next() % UInt64(commands.count))])
            }
            let broken = subject.invariantViolations
            #expect(broken == [], "step \(step)")
            if !broken.isEmpty { return }
            _ = subject.frame()
        }
    }
}

extension TableViewViewerTests {
    @Test("a viewer over rows in memory: its header row, its rows, no file; its count grows with '+' until complete")
    func overRowsInMemory() {
        _ = utf8Locale
        let rows = MemoryRows(name: "frequency of city", columns: ["value", "count"])
        rows.append([Row(cells: ["Oslo", "6"]), Row(cells: ["Bergen", "3"])])
        // A file's options: the rows bring their own header, whatever -r said.
        let subject = Viewer(source: rows, options: .plain(headerRows: 0), screenSize: Size(width: 80, height: 6))
        #expect(subject.file == nil && subject.options.headerRows == 1)
        var lines = subject.frame().lines
        #expect(lines[0].hasPrefix("  #│value  count"), "\(lines)")
        #expect(lines[1].hasPrefix("  1│Oslo       6"), "\(lines)")
        #expect(lines[2].hasPrefix("  2│Bergen     3"), "\(lines)")
        #expect(lines[5].contains("row 1/2+") && lines[5].contains("frequency of city"), "\(lines[5])")
        rows.append([Row(cells: ["Tromsø", "1"])])
        rows.finish()
        subject.handle(.refresh)
        lines = subject.frame().lines
        #expect(lines[3].hasPrefix("  3│Tromsø     1"), "\(lines)")
        #expect(lines[5].contains("row 1/3") && !lines[5].contains("row 1/3+"), "\(lines[5])")
        subject.handle(.reload)
        #expect(subject.frame().lines[5].contains("cannot be read again"))
        #expect(subject.invariantViolations.isEmpty)
    }
}

extension TableViewViewerTests {
    @Test("over rows in memory, a sort, a filter, a search and Ctrl-S work as they do over a file")
    func queriesOverRowsInMemory() throws {
        _ = utf8Locale
        let rows = MemoryRows(name: "sheet", columns: ["value", "count"])
        rows.append([("Oslo", "6"), ("Bergen", "3"), ("Tromsø", "1"), ("Bodø", "12"), ("", "2")].map { Row(cells: [$0.0, $0.1]) })
        rows.finish()
        let subject = Viewer(source: rows, options: .plain, screenSize: Size(width: 60, height: 10))
        func settle() {
            waitUntil("the passes") {
                subject.handle(.refresh)
                return !subject.isQueryRunning && !subject.isSearching && !subject.isSaving
            }
            subject.handle(.refresh)
        }
        func values() -> [String] {
            subject.table.fetch(rows: [0..<subject.dataRowCount])
            return (0..<subject.dataRowCount).map { String(decoding: subject.table.cell(row: $0, column: 0), as: UTF8.self) }
        }
        subject.handle(.moveRight)
        subject.handle(.sort(descending: true, adding: false))
        settle()
        #expect(values() == ["Bodø", "Oslo", "Bergen", "", "Tromsø"], "by count, largest first")
        subject.handle(.filter("o", columnOnly: false))
        settle()
        #expect(values() == ["Bodø", "Oslo", "Tromsø"], "the sort's order, filtered")
        subject.handle(.moveLeft)
        subject.handle(.find("^tr", columnOnly: false))
        settle()
        #expect(subject.cursorRow == 2 && subject.cursorColumn == 0, "the search lands on Tromsø")
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("rows-\(UUID()).csv").path
        defer { try? FileManager.default.removeItem(atPath: target) }
        subject.handle(.saveTo(target, overwrite: false))
        settle()
        #expect(subject.frame().lines.last?.contains("wrote 3 rows") == true, "\(subject.frame().lines.last ?? "")")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "value,count\nBodø,12\nOslo,6\nTromsø,1\n")
    }
}

extension TableViewViewerTests {
    @Test("rows that turn out to be all are laid out before the count loses its +: the last rows' widths come first")
    func completionIsLaidOut() {
        let rows = MemoryRows(name: "growing", columns: ["id", "name"])
        let widest = "id-wide-at-the-end"
        rows.append(count: 1_200, columns: 2) { index in Row(cells: [index == 1_199 ? widest : "\(index)", "n"]) }
        let subject = Viewer(source: rows, screenSize: Size(width: 60, height: 6))
        #expect(subject.frame().lines.last?.contains("row 1/1,200+") == true)
        #expect(!subject.needsRefresh)
        rows.finish()
        // Nothing new arrived, but the rows are all there now: the layout must take them in.
        #expect(subject.needsRefresh)
        #expect(subject.frame().lines.last?.contains("row 1/1,200+") == true,
                "a frame before the refresh still says what its layout was made for")
        subject.handle(.refresh)
        let status = subject.frame().lines.last ?? ""
        #expect(status.contains("row 1/1,200 "), "\(status)")
        #expect(subject.columnWidths.first == widest.count, "the last rows are measured once complete")
        #expect(subject.invariantViolations.isEmpty)
    }

    @Test("a message stays through a new size and news from the input; the next key clears it")
    func messageThroughResize() {
        let subject = viewer()
        subject.say("2 entries skipped: notes.md, old/")
        subject.handle(.resize(Size(width: 50, height: 9)))
        subject.handle(.refresh)
        #expect(subject.frame().lines.last?.contains("2 entries skipped") == true)
        subject.handle(.moveDown)
        #expect(subject.frame().lines.last?.contains("skipped") == false)
    }
}
