#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Foundation
import FreezeLayout
import Testing
@testable import Viewer

@Suite("While the input is still arriving", .timeLimit(.minutes(30)))
struct LoadingTests {

    @Test("G goes to the last row known and says so; the count ends exact")
    func lastRowWhileLoading() throws {
        _ = utf8Locale
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fifo-\(UUID())").path
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        // Opening read-write does not wait for a reader, and keeps the pipe open.
        let writer = open(path, O_RDWR)
        try #require(writer >= 0)
        let store = try CellStore.open(InputSpec(path: path))
        let first = "id,v\n" + (1...30).map { "\($0),x\n" }.joined()
        _ = first.withCString { write(writer, $0, strlen($0)) }
        waitUntil("the first rows") { store.progress.rowCount == 31 }
        let subject = Viewer(store: store, screenSize: Size(width: 40, height: 8))
        subject.handle(.lastRow)
        #expect(subject.cursorRow == 29)
        #expect(subject.message?.contains("still loading") == true)
        var lines = subject.frame().lines
        #expect(lines[7].contains("row 30/30+"))
        // More data arriving does not wipe the message.
        subject.handle(.refresh)
        #expect(subject.message?.contains("still loading") == true)
        let rest = (31...40).map { "\($0),y\n" }.joined()
        _ = rest.withCString { write(writer, $0, strlen($0)) }
        close(writer)
        waitUntil("the end of the input") { store.isComplete }
        subject.handle(.refresh)
        #expect(subject.message == nil, "once all is read, 'still loading' is untrue")
        subject.handle(.lastRow)
        lines = subject.frame().lines
        #expect(subject.message == nil)
        #expect(lines[7].contains("row 40/40 "))
        #expect(lines[6].hasPrefix(" 40│40 y"))
    }

    @Test("a write that ends while a filter still follows the input says so; the filter's progress comes back after a key")
    func savedWhileFiltering() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fifo-\(UUID())").path
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        let writer = open(path, O_RDWR)
        try #require(writer >= 0)
        defer { close(writer) }
        let store = try CellStore.open(InputSpec(path: path))
        _ = "city\nOslo\nBergen\nBodø\n".withCString { write(writer, $0, strlen($0)) }
        waitUntil("the first rows") { store.progress.rowCount == 4 }
        let subject = Viewer(store: store, screenSize: Size(width: 80, height: 8))
        subject.handle(.filter("o", columnOnly: false))
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("rows-\(UUID()).csv").path
        defer { try? FileManager.default.removeItem(atPath: target) }
        subject.handle(.saveTo(target, overwrite: false))
        waitUntil("the write") {
            subject.handle(.refresh)
            return !subject.isSaving
        }
        #expect(subject.isQueryRunning, "the input goes on: so does the filter")
        subject.handle(.refresh)
        let status = subject.frame().lines.last ?? ""
        #expect(status.contains("wrote "), "\(status)")
        subject.handle(.moveDown)
        subject.handle(.refresh)
        #expect(subject.frame().lines.last?.contains("filtering") == true, "\(subject.frame().lines.last ?? "")")
    }

    @Test("two header rows stay on top")
    func twoHeaderRows() {
        let subject = viewer("name,n\nunit,count\na,1\nb,2\nc,3\n", width: 30, height: 5,
                             options: .plain(headerRows: 2), commands: [.pageDown, .lastRow])
        let lines = subject.frame().lines
        #expect(lines[0].hasPrefix("  #│name n"))
        #expect(lines[1].hasPrefix("   │unit count"))
        // The last row at the bottom, the row before it above.
        #expect(lines[2].hasPrefix("  2│b        2"), "\(lines[2])")
        #expect(lines[3].hasPrefix("  3│c        3"), "\(lines[3])")
        #expect(lines[4].contains("row 3/3"))
    }
}

@Suite("Status line", .timeLimit(.minutes(30)))
struct StatusLineTests {
    @Test("a long file name gives way to the position, keeping its end")
    func longName() {
        _ = utf8Locale
        let store = CellStore(bytes: Array("a,b\n1,2\n".utf8), name: "/very/long/path/to/some/directory/data.csv")
        let subject = Viewer(store: store, screenSize: Size(width: 50, height: 4))
        let status = subject.frame().lines[3]
        #expect(status.hasPrefix(" …"))
        #expect(status.contains("data.csv  row 1/1  col 1/2 a  comma"))
    }

    @Test("names are shortened by display width", arguments: [("data.csv", 20, "data.csv"), ("abcdefgh", 5, "…efgh"), ("北京上海", 5, "…上海")])
    func fitting(text: String, width: Int, expected: String) {
        _ = utf8Locale
        #expect(Viewer.fitting(text, width: width, keepingEnd: true) == expected)
    }
}

@Suite("Malformed quoting", .timeLimit(.minutes(30)))
struct MalformedQuotingTests {
    @Test("the status line names the line of the first problem; text after a closing quote joins its cell")
    func warning() {
        let csv = "a,b\n1,2\n3,\"x\"y\n4,5\n6,\"never closed\n7,8\n"
        let subject = viewer(csv, width: 120, height: 9)
        let lines = subject.frame().lines
        // "x"y is the cell xy and the record ends at its line end; the unclosed quote runs
        // to the end of the input.
        #expect(lines[8].contains("row 1/4"))
        #expect(lines[8].contains("line 3: text after a closing quote (+"))
        #expect(lines[2].hasPrefix("  2│3 xy "))
        #expect(lines[3].hasPrefix("  3│4 ") && lines[3].contains(" 5 "))
        #expect(lines[4].hasPrefix("  4│6 never closed↵7,8↵"))
    }
}

@Suite("Progress text", .timeLimit(.minutes(30)))
struct ProgressTextTests {
    @Test("a file: bar, percent, rate and time left; a stream: bytes and rate")
    func text() {
        var progress = LoadProgress()
        progress.totalBytes = 1_000_000_000
        progress.bytesRead = 410_000_000
        progress.elapsed = 1
        #expect(Viewer.progressText(progress) == "▕████      ▏ 41%  410 MB/s  2 s left")
        progress.bytesRead = 450_000_000
        #expect(Viewer.progressText(progress).hasPrefix("▕████▌     ▏ 45%"))
        progress.totalBytes = nil
        #expect(Viewer.progressText(progress) == "reading… 450 MB  450 MB/s")
        #expect(Viewer.bar(1, width: 4) == "▕████▏")
        #expect(Viewer.bar(0, width: 4) == "▕    ▏")
        #expect(Viewer.duration(125) == "3 min")
        #expect(Viewer.bytes(1536) == "1.5 KB")
    }
}

@Suite("A file that changes", .timeLimit(.minutes(30)))
struct ChangingFileTests {

    func append(_ text: String, to path: String) {
        let handle = FileHandle(forWritingAtPath: path)!
        handle.seekToEndOfFile()
        handle.write(Data(text.utf8))
        try? handle.close()
    }

    @Test("--follow: new rows show, the cursor stays on the last row, a partial last line waits")
    func follow() throws {
        _ = utf8Locale
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("follow-\(UUID()).csv").path
        try Data("id,v\n1,a\n2,b\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let store = try CellStore.open(InputSpec(path: path, follows: true))
        let subject = Viewer(store: store, options: ViewerOptions(bounce: .none, showsIndicators: false, follows: true),
                             screenSize: Size(width: 40, height: 10))
        waitUntil("caught up") { store.progress.isCaughtUp }
        subject.handle(.refresh)
        subject.handle(.lastRow)
        #expect(subject.cursorRow == 1)
        #expect(subject.message == nil)
        #expect(subject.frame().lines[9].contains("following"))
        append("3,c\n4,d\n5,e", to: path)
        waitUntil("two more rows") { store.progress.rowCount == 5 }
        subject.handle(.refresh)
        #expect(subject.cursorRow == 3, "on the new last row; 5,e has no line end yet")
        #expect(subject.frame().lines[4].hasPrefix("  4│ 4 d"))
        append("\n", to: path)
        waitUntil("the last line") { store.progress.rowCount == 6 }
        subject.handle(.refresh)
        #expect(subject.cursorRow == 4)
        // Away from the end, the view stays where it is.
        subject.handle(.firstRow)
        append("6,f\n", to: path)
        waitUntil("one more row") { store.progress.rowCount == 7 }
        subject.handle(.refresh)
        #expect(subject.cursorRow == 0)
    }

    @Test("a followed file that becomes shorter is marked truncated (the loop reads it again), says so, and nothing crashes")
    func truncated() throws {
        _ = utf8Locale
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("shrink-\(UUID()).csv").path
        try Data(sampleCSV(rows: 2000).utf8).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let store = try CellStore.open(InputSpec(path: path, follows: true), checkpointSpacing: 4096)
        let subject = Viewer(store: store, options: .plain, screenSize: Size(width: 90, height: 10))
        waitUntil("caught up") { store.progress.isCaughtUp }
        truncate(path, 100)
        waitUntil("the loader to notice") { store.progress.wasTruncated }
        subject.handle(.refresh)
        for command in [Command.lastRow, .pageUp, .firstRow, .pageDown, .lastRow] {
            subject.handle(command)
            _ = subject.frame()
        }
        #expect(subject.frame().lines[9].contains("file truncated: R reads it again"))
        subject.handle(.reload)
        #expect(subject.wantsReload)
    }

    @Test("a file cut short while open (not followed) never crashes the viewer")
    func cutShort() throws {
        _ = utf8Locale
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cut-\(UUID()).csv").path
        try Data(sampleCSV(rows: 5000).utf8).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let store = try CellStore.open(InputSpec(path: path), checkpointSpacing: 4096, cacheCapacity: 2)
        let subject = Viewer(store: store, options: .plain, screenSize: Size(width: 40, height: 10))
        waitUntil("the index") { store.isComplete }
        truncate(path, 1000)
        for command in [Command.lastRow, .pageUp, .firstRow, .pageDown, .lastRow, .moveUp] {
            subject.handle(command)
            let frame = subject.frame()
            #expect(frame.size == Size(width: 40, height: 10))
        }
    }

    @Test("input that is not a file (a stream, or memory) cannot be reloaded, and says so")
    func streamReload() {
        let subject = viewer("a\n1\n")
        subject.handle(.reload)
        #expect(!subject.wantsReload)
        #expect(subject.message == "t.csv is a stream: it cannot be read again")
    }
}

@Suite("G before the index is complete", .timeLimit(.minutes(30)))
struct EarlyJumpTests {
    @Test("G shows the last rows at once, marked ≈; when the index completes the numbers turn exact and nothing moves")
    func estimateThenExact() throws {
        _ = utf8Locale
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("early-\(UUID()).csv").path
        try Data(sampleCSV(rows: 120_000).utf8).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let store = try CellStore.open(InputSpec(path: path), startsLoader: false)
        let subject = Viewer(store: store, options: .plain, screenSize: Size(width: 60, height: 10))
        subject.handle(.lastRow)
        var lines = subject.frame().lines
        #expect(lines[0].hasPrefix("     ≈│"))
        #expect(lines[9].contains("row ≈"))
        #expect(subject.message?.hasPrefix("≈ row numbers are estimates") == true)
        // The data is the file's end: the id column says 120000 on the last line.
        #expect(lines[8].contains("│120000 Ann"))
        let dataBefore = lines[1...8].map { $0.split(separator: "│").last.map(String.init) ?? "" }
        store.indexNow()
        subject.handle(.refresh)
        lines = subject.frame().lines
        #expect(lines[0].hasPrefix("     #│"))
        #expect(lines[9].contains("row 120,000/120,000"))
        #expect(lines[8].hasPrefix("120000│120000 "))
        let dataAfter = lines[1...8].map { $0.split(separator: "│").last.map(String.init) ?? "" }
        #expect(dataAfter == dataBefore, "the same rows on the same lines")
        #expect(subject.message == nil)
    }
}

extension LoadingTests {
    @Test("R on a compressed file puts the cursor back on its record once the rows read again reach it")
    func reloadCompressedKeepsTheRecord() throws {
        _ = utf8Locale
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reload-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let plain = directory.appendingPathComponent("t.csv"), packed = directory.appendingPathComponent("t.csv.gz")
        try Data(sampleCSV(rows: 20_000).utf8).write(to: plain)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "gzip -c '\(plain.path)' > '\(packed.path)'"]
        try gzip.run()
        gzip.waitUntilExit()
        let first = try CellStore.open(InputSpec(path: packed.path))
        let before = Viewer(store: first, options: .plain, screenSize: Size(width: 80, height: 10))
        waitUntil("the first reading") { first.isComplete }
        before.handle(.refresh)
        before.moveCursor(toRow: 15_000, column: 1)
        let record = before.table.record(ofRow: before.cursorRow)
        // Read again: nothing of it is decompressed yet when the cursor is put back.
        let again = try CellStore.open(InputSpec(path: packed.path), startsLoader: false)
        let after = Viewer(store: again, options: .plain, screenSize: Size(width: 80, height: 10))
        after.adopt(before)
        #expect(after.cursorRow < 15_000)
        again.indexNow()
        after.handle(.refresh)
        #expect(after.table.record(ofRow: after.cursorRow) == record)
        #expect(after.cursorColumn == 1)
        // Moved meanwhile, the cursor stays where the user put it.
        let third = try CellStore.open(InputSpec(path: packed.path), startsLoader: false)
        let moved = Viewer(store: third, options: .plain, screenSize: Size(width: 80, height: 10))
        moved.adopt(before)
        moved.handle(.moveDown)
        let row = moved.cursorRow
        third.indexNow()
        moved.handle(.refresh)
        #expect(moved.cursorRow == row)
    }
}

extension LoadingTests {
    @Test("the loader's part of the status line is the one the count was laid out with: 'ends early' never shows beside a growing count")
    func loaderNewsWaitsForItsLayout() throws {
        _ = utf8Locale
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cut-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let plain = directory.appendingPathComponent("t.csv"), cut = directory.appendingPathComponent("t.csv.gz")
        try Data(sampleCSV(rows: 5_000).utf8).write(to: plain)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "gzip -c '\(plain.path)' | head -c 20000 > '\(cut.path)'"]
        try gzip.run()
        gzip.waitUntilExit()
        let store = try CellStore.open(InputSpec(path: cut.path), startsLoader: false)
        let subject = Viewer(store: store, options: .plain, screenSize: Size(width: 100, height: 8))
        let first = subject.frame().lines.last ?? ""
        // The loader reads to the break after the geometry was brought up to date and
        // before the frame is drawn (as the loop's thread and the loader's can meet).
        store.indexNow()
        #expect(store.isComplete && store.progress.failure != nil)
        // A frame before the refresh says what its layout was made for: no rows yet, one
        // column, still reading; not the break beside a count that still grows.
        let between = subject.frame().lines.last ?? ""
        #expect(first.contains("no rows yet  col 1/1 ") && first.contains("reading"), "\(first)")
        #expect(between.contains("no rows yet  col 1/1 ") && between.contains("reading") && !between.contains("ends early"),
                "\(between)")
        #expect(subject.needsRefresh)
        subject.handle(.refresh)
        let status = subject.frame().lines.last ?? ""
        #expect(status.contains("ends early") && status.contains("row 1/") && !status.contains("+"), "\(status)")
    }
}
