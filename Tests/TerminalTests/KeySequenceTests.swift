#if canImport(Glibc)
import Glibc
#endif
import FreezeLayout
import Testing
import TestSupport
@testable import Terminal
import Viewer

/// Keys arrive as the terminal (or tmux) sends them, whatever `TERM` says: each sequence is
/// written into a pipe that a real ncurses session reads. These are part of the ncurses
/// suite, whose tests run one at a time: ncurses is one global state per process.
extension TerminalSessionTests {
    static let terminals = ["xterm-256color", "tmux-256color", "screen-256color", "linux", "vt100", "rxvt-unicode-256color"]

    /// The events ncurses and the session decode from `bytes`, under `TERM=type`.
    func events(_ bytes: String, type: String) throws -> [InputEvent] {
        setlocale(LC_ALL, "C.UTF-8")
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }   // no child the suite spawns keeps it open
        let output = open("/dev/null", O_WRONLY)
        let session = try TerminalSession(input: ends[0], output: output, type: type)
        defer { session.end() }
        session.enableMouse()
        let data = Array(bytes.utf8)
        _ = data.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
        close(ends[1])
        var result: [InputEvent] = []
        while let event = session.nextEvent() { result.append(event) }
        return result
    }

    @Test("Home, End, PageUp, PageDown, Shift-arrows and F1 in their common spellings", arguments: terminals)
    func commonKeys(type: String) throws {
        let cases: [(String, Key)] = [
            ("\u{1B}[1~", .home), ("\u{1B}[H", .home), ("\u{1B}OH", .home), ("\u{1B}[7~", .home),
            ("\u{1B}[4~", .end), ("\u{1B}[F", .end), ("\u{1B}OF", .end), ("\u{1B}[8~", .end),
            ("\u{1B}[5~", .pageUp), ("\u{1B}[6~", .pageDown),
            ("\u{1B}[1;2C", .shiftRight), ("\u{1B}[1;2D", .shiftLeft), ("\u{1B}[c", .shiftRight), ("\u{1B}[d", .shiftLeft),
            ("\u{1B}OP", .function(1)), ("\u{1B}[11~", .function(1)), ("\u{1B}[[A", .function(1)),
            ("\u{1B}[A", .up), ("\u{1B}OB", .down),
        ]
        for (sequence, key) in cases {
            #expect(try events(sequence + "x", type: type) == [.key(key), .key(.character("x"))],
                    "\(type): \(sequence.unicodeScalars.map { $0.value < 32 ? "ESC" : String($0) }.joined())")
        }
    }

    @Test("an unknown sequence is swallowed whole; Escape alone is Escape", arguments: terminals)
    func unknownSequences(type: String) throws {
        #expect(try events("\u{1B}[99;5~<", type: type) == [.key(.character("<"))])
        #expect(try events("\u{1B}[299~a", type: type) == [.key(.character("a"))])
        #expect(try events("\u{1B}[<35;10;5Mz", type: type) == [.key(.character("z"))], "mouse motion")
        #expect(try events("\u{1B}", type: type) == [.key(.escape)])
    }

    @Test("SGR mouse reports are decoded at any column", arguments: terminals.filter { $0 != "vt100" })
    func sgrMouse(type: String) throws {
        let press = MouseEvent(.press, x: 259, y: 4)
        #expect(try events("\u{1B}[<0;260;5M", type: type) == [.mouse(press)])
        #expect(try events("\u{1B}[<0;260;5m", type: type) == [], "a release says nothing")
        #expect(try events("\u{1B}[<65;300;2M", type: type) == [.mouse(MouseEvent(.wheelDown, x: 299, y: 1))])
        #expect(try events("\u{1B}[<68;3;3M", type: type) == [.mouse(MouseEvent(.wheelUp, x: 2, y: 2, isShifted: true))])
    }

    @Test("a late answer to the colour query is swallowed, not typed")
    func lateAnswer() throws {
        let events = try events("\u{1B}]11;rgb:0000/0000/0000\u{1B}\\j", type: "xterm-256color")
        #expect(events == [.key(.character("j"))])
        #expect(try self.events("\u{1B}[?2027;1$yk", type: "tmux-256color") == [.key(.character("k"))], "a late mode report too")
    }

    @Test("SGR reports decode without ncurses too")
    func decoder() {
        func body(_ text: String) -> [UInt32] { text.unicodeScalars.map(\.value) }
        #expect(EscapeSequence.decode(body("[<0;1;1M")) == .mouse(MouseEvent(.press, x: 0, y: 0)))
        #expect(EscapeSequence.decode(body("[<2;1;1M")) == nil, "the right button")
        #expect(EscapeSequence.decode(body("[<0;;1M")) == nil)
        #expect(EscapeSequence.decode(body("[99~")) == nil)
    }
}

@Suite("Background colour", .timeLimit(.minutes(30)))
struct BackgroundTests {
    @Test("COLORFGBG and an OSC 11 reply tell light from dark")
    func background() {
        #expect(Theme.isLight(colorFGBG: "0;15") == true)
        #expect(Theme.isLight(colorFGBG: "15;0") == false)
        #expect(Theme.isLight(colorFGBG: "default;default;7") == true)
        #expect(Theme.isLight(colorFGBG: "what") == nil)
        #expect(BackgroundQuery.isLight(reply: Array("\u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\\u{1B}[?62;c".utf8)) == true)
        #expect(BackgroundQuery.isLight(reply: Array("\u{1B}]11;rgb:1e1e/1e1e/2e2e\u{07}".utf8)) == false)
        #expect(BackgroundQuery.isLight(reply: Array("\u{1B}]11;rgb:f/f/e\u{07}".utf8)) == true)
        #expect(BackgroundQuery.isLight(reply: Array("\u{1B}[?62;c".utf8)) == nil)
        #expect(BackgroundQuery.hasDeviceAttributes(Array("x\u{1B}[?1;2c".utf8)))
        #expect(BackgroundQuery.graphemeMode(reply: Array("\u{1B}]11;rgb:0/0/0\u{07}\u{1B}[?2027;1$y\u{1B}[?62c".utf8)) == 1)
        #expect(BackgroundQuery.graphemeMode(reply: Array("\u{1B}[?2027;0$y".utf8)) == 0)
        #expect(BackgroundQuery.graphemeMode(reply: Array("\u{1B}[?62c".utf8)) == nil)
    }

}

/// Pasted text and sequences that arrive slowly, byte by byte, as over a laggy link.
extension TerminalSessionTests {
    /// A session reading a pipe the test writes to, with `escapeDelay`.
    func piped(type: String, escapeDelay: Int) throws -> (TerminalSession, Int32) {
        setlocale(LC_ALL, "C.UTF-8")
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }   // no child the suite spawns keeps it open
        let session = try TerminalSession(input: ends[0], output: open("/dev/null", O_WRONLY), type: type, escapeDelay: escapeDelay)
        return (session, ends[1])
    }

    func send(_ text: String, to descriptor: Int32) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// The next event, waiting (bounded: `turn`, 2 s) for one to come.
    func nextEvent(_ session: TerminalSession) -> InputEvent? {
        var event = session.nextEvent()
        _ = turn(within: 2, pausing: { usleep(1_000) }, { event = session.nextEvent() }, until: { event != nil })
        return event
    }

    @Test("a paste is one event of text, never keys; a paste may come in pieces and hold an Esc", arguments: terminals)
    func paste(type: String) throws {
        #expect(try events("\u{1B}[200~[q:5G\r\u{1B}[201~j", type: type)
                == [.key(.paste("[q:5G\r", wasCut: false)), .key(.character("j"))])
        #expect(try events("\u{1B}[200~a\u{1B}[20b\u{1B}[201~", type: type)
                == [.key(.paste("a\u{1B}[20b", wasCut: false))])
        let (session, writer) = try piped(type: type, escapeDelay: 100)
        defer { session.end(); close(writer) }
        send("\u{1B}[200~one ", to: writer)
        #expect(session.nextEvent() == nil, "the paste goes on")
        send("two\u{1B}[201~", to: writer)
        #expect(nextEvent(session) == .key(.paste("one two", wasCut: false)))
    }

    @Test("Esc, then [ and B each after a pause: Down, not Esc, [ (a sort) and B", arguments: terminals)
    func slowSequence(type: String) throws {
        let (session, writer) = try piped(type: type, escapeDelay: 300)
        defer { session.end(); close(writer) }
        send("\u{1B}", to: writer)
        // ncurses waits the escape delay for more, then says Esc.
        #expect(nextEvent(session) == .key(.escape))
        send("[", to: writer)
        usleep(20_000)   // the link's lag between two bytes, well within the escape delay (room for a busy machine)
        send("B", to: writer)
        #expect(nextEvent(session) == .key(.down))
        send("\u{1B}", to: writer)
        #expect(nextEvent(session) == .key(.escape))
        send("[5~x", to: writer)
        #expect(nextEvent(session) == .key(.pageUp))
        #expect(nextEvent(session) == .key(.character("x")))
        // Long after an Esc, [ is the key.
        send("\u{1B}", to: writer)
        #expect(nextEvent(session) == .key(.escape))
        usleep(900_000)
        send("[", to: writer)
        #expect(nextEvent(session) == .key(.character("[")))
    }

    @Test("the escape delay is --esc-delay's, else ESCDELAY's, else 100 ms")
    func escapeDelay() {
        #expect(TerminalSession.escapeDelay(given: 30, environment: "500") == 30)
        #expect(TerminalSession.escapeDelay(given: nil, environment: "500") == 500)
        #expect(TerminalSession.escapeDelay(given: nil, environment: "soon") == 100)
        #expect(TerminalSession.escapeDelay(given: nil, environment: nil) == 100)
    }

    @Test("a frame with a cursor shows the terminal's cursor there; one without hides it")
    func cursor() throws {
        let session = try headless(width: 20, height: 3)
        defer { session.end() }
        var frame = Frame(size: Size(width: 20, height: 3))
        frame.write("/abc", x: 0, y: 2, style: .status)
        frame.cursor = Point(x: 3, y: 2)
        session.draw(frame)
        #expect(session.cursorPosition == Point(x: 3, y: 2))
        frame.cursor = nil
        session.draw(frame)
        #expect(session.cursorPosition == nil)
    }
}
