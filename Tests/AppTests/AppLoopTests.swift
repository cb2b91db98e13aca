import Foundation
import Testing
import App
import CellStore
import FreezeLayout
import Synchronization
import TestSupport
import Viewer

/// A screen that plays back what happens and keeps what was drawn.
final class FakeScreen: Screen {
    var size = Size(width: 40, height: 8)
    var script: [[Happening]] = []
    private(set) var drawn: [Frame] = []
    private(set) var timeouts: [Double?] = []
    private(set) var clipboard: [[UInt8]] = []
    private(set) var suspensions = 0
    private(set) var forgets = 0
    /// Times the loop took the news before looking at it.
    private(set) var newsTaken = 0
    let clock: FakeClock
    /// What the real screen's wake pipe is to the sources: give `wake` to stores, passes
    /// and shelves, and `turn(_:until:_:)` waits for their news on it.
    let news = ChangeSignal()
    var wake: @Sendable () -> Void {
        let news = self.news
        return { news.notify() }
    }

    init(clock: FakeClock) { self.clock = clock }

    func draw(_ frame: Frame) { drawn.append(frame) }
    func wait(timeout: Double?) -> [Happening] {
        timeouts.append(timeout)
        guard !script.isEmpty else {
            // Nothing left to say: time passes (an animation frame), or the terminal goes.
            if let timeout { clock.now += timeout; return [] }
            return [.hangUp]
        }
        return script.removeFirst()
    }
    func takeNews() { newsTaken += 1 }
    func suspend() -> Size {
        suspensions += 1
        size = Size(width: 30, height: 6)
        return size
    }
    func forgetContents() { forgets += 1 }
    func copyToClipboard(_ bytes: [UInt8]) { clipboard.append(bytes) }

    var lastScreen: [String] { drawn.last?.lines ?? [] }
}

final class FakeClock: Clock {
    var now: Double = 100
}

extension FakeScreen {
    /// One turn of `loop` with news, a second of fake time after the last: whatever the
    /// loop put off (`AppLoop.newsInterval`, `AppLoop.sheetInterval`) is due by then. A
    /// second turn with nothing draws what the news changed (a turn draws before it waits).
    func turnWithNews(_ loop: AppLoop) {
        clock.now += 1
        script = [[.news], []]
        loop.step()
        loop.step()
    }

    /// Turns `loop` with news until `condition` holds, waiting between turns for the
    /// sources' news on `news` (the passes run on their own threads), never sleeping.
    func turn(_ loop: AppLoop, until what: String, _ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        let held = TestSupport.turn(news: news, { turnWithNews(loop) }, until: condition)
        #expect(held, "timed out waiting for \(what); the status line: \(loop.top.frame().lines.last ?? "")",
                sourceLocation: sourceLocation)
    }
}

private func keys(_ text: String) -> [Happening] { text.map { .key(.character($0)) } }

@Suite("The event loop, without a terminal", .timeLimit(.minutes(30)))
struct AppLoopTests {
    private static func csv(rows: Int = 40) -> [UInt8] {
        var text = "id,name,city\n"
        for index in 1...rows { text += "\(index),name\(index),city\(index % 3)\n" }
        return Array(text.utf8)
    }

    private func loop(_ bytes: [UInt8] = csv(), reopen: @escaping () throws(CellStoreError) -> CellStore = { CellStore(bytes: csv()) })
        -> (AppLoop, FakeScreen, FakeClock) {
        let clock = FakeClock()
        let screen = FakeScreen(clock: clock)
        let table = Viewer(store: CellStore(bytes: bytes), screenSize: screen.size)
        return (AppLoop(table: table, screen: screen, clock: clock, reopen: reopen), screen, clock)
    }

    @Test("keys move the cursor, each changed frame is drawn once, and q ends the loop")
    func keysAndQuit() {
        let (subject, screen, _) = loop()
        screen.script = [keys("jj"), [], keys("q")]
        subject.run()
        #expect(subject.isFinished && subject.status == 0)
        #expect(subject.table.cursorRow == 2)
        #expect(screen.drawn.count == 2, "the first frame, then the one after jj; the empty turn draws nothing")
        #expect(screen.lastScreen.last?.contains("row 3/40") == true)
        #expect(screen.timeouts.allSatisfy { $0 == nil }, "an idle viewer waits without a timeout")
    }

    @Test("a pull at an edge animates on the clock and springs back with no key pressed")
    func animation() {
        let (subject, screen, clock) = loop()
        let start = clock.now
        screen.script = [[.key(.up)]]
        subject.step()
        #expect(subject.table.isAnimating)
        // The loop now waits with a timeout; the fake screen lets that time pass.
        for _ in 0..<20 where subject.table.isAnimating { subject.step() }
        #expect(!subject.table.isAnimating)
        #expect(screen.timeouts.contains { $0 != nil })
        #expect(clock.now > start && clock.now - start < 1, "springs back within a second: \(clock.now - start)")
    }

    @Test("a signal ends the session with 128 plus its number; a hang-up ends it quietly")
    func signals() {
        let (subject, screen, _) = loop()
        screen.script = [keys("j") + [.signal(15)] + keys("j")]
        subject.run()
        #expect(subject.status == 143)
        #expect(subject.table.cursorRow == 1, "nothing after the signal is applied")
        let (other, otherScreen, _) = loop()
        otherScreen.script = []
        other.run()
        #expect(other.isFinished && other.status == 0)
    }

    @Test("a sheet pushed over the table takes the keys; q pops it, Ctrl-C quits from it")
    func sheetStack() {
        let (subject, screen, _) = loop()
        let sheet = Viewer(store: CellStore(bytes: Array("value,count\na,3\nb,1\n".utf8)), screenSize: screen.size)
        subject.push(sheet)
        screen.script = [keys("j")]
        subject.step()
        #expect(sheet.cursorRow == 1 && subject.table.cursorRow == 0)
        screen.script = [[]]
        subject.step()
        #expect(screen.lastScreen.last?.contains("row 2/2") == true, "the sheet is drawn")
        screen.script = [keys("q")]
        subject.step()
        #expect(subject.sheets.count == 1 && !subject.isFinished, "q closed the sheet, not the viewer")
        screen.script = [[]]
        subject.step()
        #expect(screen.lastScreen.last?.contains("row 1/40") == true, "the table is back on screen")
        subject.push(Viewer(store: CellStore(bytes: Array("a\n1\n".utf8)), screenSize: screen.size))
        screen.script = [[.key(Key.control("c"))]]
        subject.step()
        #expect(subject.isFinished)
    }

    @Test("R reads the input again and keeps the freeze, the widths and the cursor; a failed reload says why")
    func reload() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("app-loop-\(UUID()).csv")
        try Data(Self.csv()).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var fails = false
        let clock = FakeClock()
        let screen = FakeScreen(clock: clock)
        let open: () throws(CellStoreError) -> CellStore = { () throws(CellStoreError) -> CellStore in
            if fails { throw CellStoreError.notFound(file.path) }
            return try CellStore.open(InputSpec(path: file.path))
        }
        let subject = AppLoop(table: Viewer(store: try open(), screenSize: screen.size), screen: screen, clock: clock, reopen: open)
        screen.script = [keys("jjjlF>")]
        subject.step()
        let before = subject.table
        let widths = before.columnWidths
        screen.script = [keys("R")]
        subject.step()
        #expect(subject.table !== before, "a new viewer over a new store")
        #expect(subject.table.frozenColumns == 1 && subject.table.frozenDataRows == before.frozenDataRows)
        #expect(subject.table.columnWidths == widths)
        #expect(subject.table.cursorRow == 3 && subject.table.cursorColumn == 1)
        fails = true
        screen.script = [keys("R")]
        subject.step()
        #expect(subject.table.frame().lines.last?.contains("cannot reload") == true)
        #expect(subject.table.cursorRow == 3, "the old viewer stays")
    }

    @Test("news that keeps coming is looked at once per interval of the loop's clock; a filling sheet's once per sheet interval, its end at once")
    func newsOnTheLoopsClock() {
        let (subject, screen, clock) = loop()
        let sheet = CountingSheet()
        subject.push(sheet)
        func near(_ timeout: Double??, _ value: Double) -> Bool { (timeout ?? nil).map { abs($0 - value) < 1e-9 } ?? false }
        let start = clock.now
        screen.script = [[.news]]
        subject.step()
        #expect(sheet.updates == 1 && screen.newsTaken == 1, "news after a quiet spell is looked at at once")
        screen.script = [[.news]]
        subject.step()
        #expect(sheet.updates == 1 && screen.newsTaken == 1, "news at the same instant is put off")
        // The loop waits until it is due: the fake screen lets that time pass.
        screen.script = []
        subject.step()
        #expect(near(screen.timeouts.last, AppLoop.newsInterval))
        #expect(screen.newsTaken == 2 && clock.now >= start + AppLoop.newsInterval)
        #expect(sheet.updates == 1, "the filling sheet's news waits for its own interval")
        subject.step()
        #expect(near(screen.timeouts.last, AppLoop.sheetInterval - AppLoop.newsInterval))
        #expect(sheet.updates == 2, "given at its due time with no news")
        // The pass ends: its news is given at the next look, with no sheet interval.
        sheet.isFilling = false
        screen.script = [[.news]]
        subject.step()
        subject.step()
        #expect(sheet.updates == 3 && near(screen.timeouts.last, AppLoop.newsInterval))
        // Nothing waits: the loop waits with no timeout.
        screen.script = [[]]
        subject.step()
        #expect(screen.timeouts.last == .some(nil))
        #expect(sheet.updates == 3)
    }

    @Test("a news mark wakes the loop once until the loop takes it, from any thread")
    func newsMark() {
        let wakes = Atomic<Int>(0)
        let mark = NewsMark { wakes.add(1, ordering: .relaxed) }
        for _ in 0..<3 { mark.mark() }
        #expect(wakes.load(ordering: .relaxed) == 1)
        mark.take()
        mark.mark()
        mark.mark()
        #expect(wakes.load(ordering: .relaxed) == 2)
        // Marks from two threads while the loop takes: every take is followed by at most one wake.
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<2 {
            Thread {
                for _ in 0..<100_000 { mark.mark() }
                done.signal()
            }.start()
        }
        var takes = 0
        for _ in 0..<1000 {
            mark.take()
            takes += 1
        }
        done.wait()
        done.wait()
        #expect(wakes.load(ordering: .relaxed) <= 2 + takes)
        // The last mark after the last take woke it: nothing marked is left unseen.
        mark.take()
        let before = wakes.load(ordering: .relaxed)
        mark.mark()
        #expect(wakes.load(ordering: .relaxed) == before + 1)
    }

    @Test("Ctrl-Z suspends and resizes every sheet; Ctrl-L draws everything again; y copies the cell")
    func terminalKeys() {
        let (subject, screen, _) = loop()
        screen.script = [[.key(Key.control("z"))]]
        subject.step()
        #expect(screen.suspensions == 1 && subject.table.screenSize == Size(width: 30, height: 6))
        screen.script = [[]]
        subject.step()
        let drawn = screen.drawn.count
        screen.script = [[.key(Key.control("l"))], []]
        subject.step()
        subject.step()
        #expect(screen.forgets == 1 && screen.drawn.count == drawn + 1, "the same frame is drawn again after Ctrl-L")
        screen.script = [keys("jly")]
        subject.step()
        #expect(screen.clipboard == [Array("name2".utf8)])
    }
}

/// A sheet that counts the news it is given, filling until told it is done.
final class CountingSheet: SheetSource {
    let viewer: Viewer
    var isFilling = true
    private(set) var updates = 0

    init() {
        var options = ViewerOptions()
        options.isSheet = true
        viewer = Viewer(store: CellStore(bytes: Array("a\n1\n".utf8)), options: options, screenSize: Size(width: 40, height: 8))
    }

    func update() { updates += 1 }
    func choose(record: Int) -> SheetChoice { .nothing }
    func cancel() {}
}
