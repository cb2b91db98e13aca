#if canImport(Glibc)
import Glibc
#endif
import FreezeLayout
import Testing
@testable import Terminal
import Viewer
import CNCurses

/// ncurses is one global session per process, so these run one at a time.
@Suite("ncurses backend", .serialized, .timeLimit(.minutes(30)))
struct TerminalSessionTests {
    func headless(width: Int, height: Int) throws -> TerminalSession {
        setlocale(LC_ALL, "C.UTF-8")
        let input = open("/dev/null", O_RDONLY)
        let output = open("/dev/null", O_WRONLY)
        let session = try TerminalSession(input: input, output: output, type: "xterm-256color")
        session.resize(to: Size(width: width, height: height))
        return session
    }

    @Test("a frame is copied to the screen cell for cell, wide characters included")
    func drawsFrame() throws {
        let session = try headless(width: 20, height: 3)
        defer { session.end() }
        var frame = Frame(size: Size(width: 20, height: 3))
        frame.write("id name", x: 0, y: 0, style: .header)
        frame.write("1  北京 ok", x: 0, y: 1, style: .plain)
        frame.write("x␛y", x: 0, y: 2, style: .status)
        session.draw(frame)
        #expect(session.screenLine(0) == "id name" + String(repeating: " ", count: 13))
        #expect(session.screenLine(1).hasPrefix("1  北京 ok"))
        #expect(session.screenLine(2).hasPrefix("x␛y"))
    }

    @Test("a frame of another size than the screen is clipped, not a crash", arguments: [(5, 2), (40, 10), (0, 0)])
    func mismatchedSizes(width: Int, height: Int) throws {
        let session = try headless(width: 10, height: 4)
        defer { session.end() }
        var frame = Frame(size: Size(width: width, height: height))
        frame.write(String(repeating: "z", count: max(0, width)), x: 0, y: 0, style: .plain)
        session.draw(frame)
        #expect(session.screenLine(0).hasPrefix(String(repeating: "z", count: min(width, 10))))
    }

    @Test("a diff's marks read apart in every theme, mono too: by attributes, not only colour, also where the terminal cannot dim",
          arguments: [Theme.mono, .dark, .light], ["xterm-256color", "vt100"])
    func diffStyles(theme: Theme, type: String) throws {
        setlocale(LC_ALL, "C.UTF-8")
        let session = try TerminalSession(input: open("/dev/null", O_RDONLY), output: open("/dev/null", O_WRONLY),
                                          type: type, theme: theme)
        defer { session.end() }
        let marks: [Style] = [.added, .removed, .changed, .changedCell]
        let drawn = (marks + [.plain, .cursor, .match]).map(session.attributes(of:))
        #expect(Set(drawn).count == drawn.count, "each mark differs from the others, from plain text, the cursor and a match")
        // Without colour, what is left (bold, dim, underline, reverse) must still tell them apart.
        guard theme == .mono else { return }
        let colourless = ~cf_color_pair(255)
        let shapes = (marks + [.plain, .cursor, .match]).map { session.attributes(of: $0) & colourless & cf_term_attrs() }
        #expect(Set(shapes).count == shapes.count, "\(type): what the terminal can show tells each mark apart")
    }

    @Test("a made name (a sheet's (empty) label too) reads apart from the file's text on every terminal, without colour",
          arguments: ["xterm-256color", "vt100", "linux"])
    func madeNameStyle(type: String) throws {
        setlocale(LC_ALL, "C.UTF-8")
        let session = try TerminalSession(input: open("/dev/null", O_RDONLY), output: open("/dev/null", O_WRONLY),
                                          type: type, theme: .mono)
        defer { session.end() }
        let colourless = ~cf_color_pair(255)
        func shape(_ style: Style) -> Int32 { session.attributes(of: style) & colourless & cf_term_attrs() }
        #expect(shape(.madeName) != shape(.plain), "\(type)")
        #expect(shape(.madeNameOfCursorColumn) != shape(.cursor), "\(type)")
        #expect(shape(.madeName) != shape(.header), "\(type)")
    }

    @Test("keys decode to the viewer's keys")
    func decodesKeys() {
        #expect(TerminalSession.decode(character: 13) == .enter)
        #expect(TerminalSession.decode(character: 27) == .escape)
        #expect(TerminalSession.decode(character: 3) == .control("c"))
        #expect(TerminalSession.decode(character: UInt32(("é" as Unicode.Scalar).value)) == .character("é"))
        #expect(TerminalSession.decode(functionKey: KEY_NPAGE) == .key(.pageDown))
        #expect(TerminalSession.decode(functionKey: KEY_HOME) == .key(.home))
        #expect(TerminalSession.decode(functionKey: KEY_END) == .key(.end))
        #expect(TerminalSession.decode(functionKey: KEY_UP) == .key(.up))
    }

    @Test("a missing or dumb TERM is a clear error")
    func terminalErrors() {
        #expect(TerminalError.dumbTerminal.description.contains("--output"))
        #expect(TerminalError.noTerminalType.description.hasPrefix("TERM is not set"))
        let input = open("/dev/null", O_RDONLY)
        let output = open("/dev/null", O_WRONLY)
        #expect(throws: TerminalError.unknownTerminalType("no-such-terminal-xyz")) {
            try TerminalSession(input: input, output: output, type: "no-such-terminal-xyz")
        }
    }
}
