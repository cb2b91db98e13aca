#if canImport(Glibc)
import Glibc
#endif
import CNCurses
import FreezeLayout
import Display

/// An input event from the terminal.
package enum InputEvent: Sendable, Equatable {
    case key(Key)
    case mouse(MouseEvent)
    case resize(Size)
}

/// The ncurses session on the controlling terminal.
///
/// It opens /dev/tty for both keys and drawing, so data can come on stdin from a pipe.
/// It only copies `Frame`s to the screen and decodes keys; it knows nothing of CSV.
/// Not `Sendable`: ncurses belongs to the thread that made the session.
package final class TerminalSession {
    private let screen: OpaquePointer
    private let inputFile: UnsafeMutablePointer<FILE>
    private let outputFile: UnsafeMutablePointer<FILE>
    /// The descriptor to poll for keys.
    package let inputDescriptor: Int32
    private var attributes: [Int32] = []
    private var isEnded = false
    private var hasMouse = false
    /// Mode 2027 was set when the viewer started, and is turned back on when it leaves.
    private var suspendsGraphemeClustering = false
    /// Bracketed paste (mode 2004) is on: pasted text comes between `ESC[200~` and `ESC[201~`.
    private var hasBracketedPaste = false
    /// The paste being read, when its end has not come yet (it may span several reads).
    private var paste: PasteReader?
    /// How long, in milliseconds, the rest of an escape sequence may take to come after
    /// its Esc (ncurses' ESCDELAY).
    package let escapeDelay: Int
    /// When a lone Esc was last taken as the Esc key: an introducer (`[`, `O`) within the
    /// escape delay after it is the rest of a sequence on a slow link, never a key.
    private var loneEscapeTime: Double?
    /// The terminal's cursor is shown (a prompt is open).
    private var isCursorShown = false

    /// The escape delay when neither `--esc-delay` nor ESCDELAY says (see DECISIONS.md).
    package static let defaultEscapeDelay = 100

    /// The escape delay to use: the one given, else ESCDELAY's (as ncurses reads it), else
    /// the default.
    package static func escapeDelay(given: Int?, environment value: String?) -> Int {
        if let given { return max(0, given) }
        if let value, let milliseconds = Int(String(value.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())), milliseconds >= 0 {
            return milliseconds
        }
        return defaultEscapeDelay
    }

    /// Starts ncurses on /dev/tty, for keys and drawing. Call `end()` on every way out.
    /// With `.auto`, the theme follows the terminal's background (see `Theme`).
    package convenience init(theme: Theme = .auto, escapeDelay: Int? = nil) throws(TerminalError) {
        guard let type = getenv("TERM").map({ String(cString: $0) }), !type.isEmpty else { throw .noTerminalType }
        guard type != "dumb" else { throw .dumbTerminal }
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { throw .noControllingTerminal(String(cString: strerror(errno))) }
        let answers = BackgroundQuery.ask(fd)
        let resolved = theme == .auto ? Theme.forBackground(reported: answers.isLight) : theme
        let delay = TerminalSession.escapeDelay(given: escapeDelay, environment: getenv("ESCDELAY").map { String(cString: $0) })
        try self.init(input: fd, output: dup(fd), type: type, theme: resolved, escapeDelay: delay)
        // A paste comes as one piece of text, never as keys (a terminal without mode 2004
        // ignores the request).
        enableBracketedPaste()
        // A terminal that draws a grapheme cluster as one glyph (mode 2027 set) is asked to
        // measure per code point while the viewer runs, as ncurses does (see DECISIONS.md).
        if answers.graphemeClustering == 1 {
            suspendsGraphemeClustering = true
            writeToTerminal("\u{1B}[?2027l")
        }
    }

    /// Starts ncurses on two descriptors (both are closed by `end()`); tests pass /dev/null.
    package init(input fd: Int32, output outputDescriptor: Int32, type: String, theme: Theme = .dark,
                 escapeDelay: Int = TerminalSession.defaultEscapeDelay) throws(TerminalError) {
        guard let input = fdopen(fd, "r"), let output = fdopen(outputDescriptor, "w") else {
            close(fd)
            close(outputDescriptor)
            throw .noControllingTerminal("cannot open it as a stream")
        }
        guard let screen = newterm(type, output, input) else {
            fclose(input)
            fclose(output)
            throw .unknownTerminalType(type)
        }
        self.screen = screen
        self.inputFile = input
        self.outputFile = output
        self.inputDescriptor = fd
        self.escapeDelay = escapeDelay
        set_term(screen)
        raw()
        noecho()
        nonl()
        keypad(cf_stdscr(), true)
        EscapeSequence.defineCommonKeys()
        nodelay(cf_stdscr(), true)
        leaveok(cf_stdscr(), true)
        curs_set(0)
        set_escdelay(Int32(clamping: escapeDelay))
        setUpStyles(theme)
    }

    deinit { end() }

    /// The C library this module runs on, with its version, for `--version`.
    package static var libraryVersions: [String] { [String(cString: curses_version()).replacing("ncurses ", with: "ncursesw ")] }

    /// Restores the terminal: leaves the alternate screen, shows the cursor, resets modes.
    package func end() {
        guard !isEnded else { return }
        isEnded = true
        // A terminal with no alternate screen (vt100) would keep the last frame, with the
        // cursor on its status line for the shell to write over: it is cleared instead.
        let alternate = tigetstr("smcup")
        if alternate == nil || Int(bitPattern: alternate) == -1 {
            clear()
            refresh()
        }
        endwin()
        if hasMouse { writeToTerminal("\u{1B}[?1006l") }
        if hasBracketedPaste { writeToTerminal("\u{1B}[?2004l") }
        if suspendsGraphemeClustering { writeToTerminal("\u{1B}[?2027h") }
        delscreen(screen)
        fclose(inputFile)
        fclose(outputFile)
    }

    /// The screen's size as ncurses has it.
    package var size: Size { Size(width: Int(cf_cols()), height: Int(cf_lines())) }

    /// The text ncurses holds for line `y` (tests read the screen back with this).
    package func screenLine(_ y: Int) -> String {
        var buffer = [wchar_t](repeating: 0, count: max(1, size.width) * 4 + 1)
        let count = mvwinnwstr(cf_stdscr(), Int32(y), 0, &buffer, Int32(buffer.count - 1))
        guard count > 0 else { return "" }
        return String(String.UnicodeScalarView(buffer[..<Int(count)].compactMap { Unicode.Scalar(UInt32(bitPattern: $0)) }))
    }

    /// The attributes (colour pair included) a style is drawn with (tests).
    package func attributes(of style: Style) -> Int32 { attributes[Int(style.rawValue)] }

    /// Where ncurses puts the terminal's cursor, or nil while it is hidden (tests).
    package var cursorPosition: Point? {
        guard isCursorShown else { return nil }
        return Point(x: Int(getcurx(cf_stdscr())), y: Int(getcury(cf_stdscr())))
    }

    /// Resizes ncurses' idea of the screen (tests; a real terminal resizes through SIGWINCH).
    package func resize(to size: Size) {
        resize_term(Int32(size.height), Int32(size.width))
    }

    /// Reads the tty's size after a SIGWINCH and tells ncurses about it.
    package func refreshSize() -> Size {
        var rows: Int32 = 0, columns: Int32 = 0
        cf_tty_size(inputDescriptor, &rows, &columns)
        if rows > 0 && columns > 0 {
            resize_term(rows, columns)
        }
        // The terminal may have moved its content on its own when it shrank (tmux keeps
        // the bottom lines): repaint everything rather than trust ncurses' copy.
        clearok(cf_stdscr(), true)
        return size
    }

    /// Copies a frame to the screen; ncurses sends only what changed.
    package func draw(_ frame: Frame) {
        let window = cf_stdscr()
        if frame.size != size {
            werase(window)
        }
        let height = min(frame.size.height, size.height)
        let width = min(frame.size.width, size.width)
        var run: [wchar_t] = []
        run.reserveCapacity(width + 1)
        for y in 0..<height {
            var x = 0
            while x < width {
                let style = frame[x, y].style
                let start = x
                run.removeAll(keepingCapacity: true)
                while x < width && frame[x, y].style == style {
                    let cell = frame[x, y]
                    for scalar in cell.text.unicodeScalars { run.append(wchar_t(bitPattern: scalar.value)) }
                    x += 1
                }
                run.append(0)
                run.withUnsafeBufferPointer { buffer in
                    _ = cf_put(window, Int32(y), Int32(start), buffer.baseAddress, Int32(buffer.count - 1),
                               attributes[Int(style.rawValue)])
                }
            }
        }
        // The terminal's cursor shows only where a prompt types; elsewhere ncurses may
        // leave it anywhere, hidden.
        if let cursor = frame.cursor, cursor.x >= 0, cursor.y >= 0, cursor.x < width, cursor.y < height {
            leaveok(window, false)
            if !isCursorShown { _ = curs_set(1); isCursorShown = true }
            wmove(window, Int32(cursor.y), Int32(cursor.x))
        } else {
            leaveok(window, true)
            if isCursorShown { _ = curs_set(0); isCursorShown = false }
        }
        wnoutrefresh(window)
        doupdate()
    }

    /// Asks the terminal to bracket pasted text (mode 2004).
    package func enableBracketedPaste() {
        hasBracketedPaste = true
        writeToTerminal("\u{1B}[?2004h")
    }

    /// The next pending input event, or nil when none is waiting.
    package func nextEvent() -> InputEvent? {
        if paste != nil { return nextPasteEvent() }
        var value: wint_t = 0
        let status = wget_wch(cf_stdscr(), &value)
        if status == ERR { return nil }
        let afterLoneEscape = loneEscapeTime.map { Self.now - $0 <= Double(escapeDelay) / 1000 } ?? false
        loneEscapeTime = nil
        if status == OK && afterLoneEscape && (value == 0x5B || value == 0x4F) {
            // The rest of a sequence whose Esc came too late to be joined to it (a slow
            // link): read as that sequence, never as `[` (a sort) and keys after it.
            return lateSequence(startingWith: UInt32(value))
        }
        if status == cf_key_code_yes() {
            if Int32(value) == cf_key_resize() { return .resize(size) }
            if Int32(value) == cf_key_mouse() { return nextMouseEvent() ?? nextEvent() }
            // A key this viewer has no use for: skip it.
            return TerminalSession.decode(functionKey: Int32(value)) ?? nextEvent()
        }
        if value == 27 { return nextEscape() }
        return .key(TerminalSession.decode(character: UInt32(value)))
    }

    /// After an ESC that ncurses did not match: Escape itself, or a sequence it does not
    /// know, read whole (an SGR mouse report is decoded, anything else is dropped).
    private func nextEscape() -> InputEvent? {
        var value: wint_t = 0
        let status = wget_wch(cf_stdscr(), &value)
        guard status == OK else {
            if status == cf_key_code_yes() {
                _ = ungetch(Int32(value))
            } else {
                loneEscapeTime = Self.now
            }
            return .key(.escape)
        }
        if value == 0x5D {
            // An operating-system command (a late answer to a colour query): to BEL or ST.
            var previous: wint_t = 0
            for _ in 0..<512 {
                guard wget_wch(cf_stdscr(), &value) == OK else { break }
                if value == 7 || (previous == 27 && value == 0x5C) { break }
                previous = value
            }
            return nextEvent()
        }
        guard value == 0x5B || value == 0x4F else {
            // Alt and a key: Escape, then the key.
            _ = unget_wch(wchar_t(value))
            return .key(.escape)
        }
        var body: [UInt32] = [UInt32(value)]
        while body.count < 64 {
            guard wget_wch(cf_stdscr(), &value) == OK else { break }
            let byte = UInt32(value)
            body.append(byte)
            if EscapeSequence.isFinal(byte, after: Array(body.dropLast())) { break }
        }
        if body == EscapeSequence.pasteStart {
            paste = PasteReader()
            return nextEvent()
        }
        return EscapeSequence.decode(body) ?? nextEvent()
    }

    /// A sequence's bytes after its introducer, each allowed the escape delay to come,
    /// decoded as ncurses would have had its Esc come in time (unknown ones are dropped).
    private func lateSequence(startingWith introducer: UInt32) -> InputEvent? {
        var body = [introducer]
        var value: wint_t = 0
        wtimeout(cf_stdscr(), Int32(clamping: max(1, escapeDelay)))
        defer { nodelay(cf_stdscr(), true) }
        while body.count < 64 {
            let status = wget_wch(cf_stdscr(), &value)
            guard status == OK else {
                if status == cf_key_code_yes() { _ = ungetch(Int32(value)) }
                break
            }
            body.append(UInt32(value))
            if EscapeSequence.isFinal(UInt32(value), after: Array(body.dropLast())) { break }
        }
        if body == EscapeSequence.pasteStart {
            paste = PasteReader()
            return nextEvent()
        }
        if let code = EscapeSequence.keyCode(for: body), let event = TerminalSession.decode(functionKey: code) { return event }
        return EscapeSequence.decode(body) ?? nextEvent()
    }

    /// Reads pasted text up to `ESC[201~`; nil while its end has not come yet.
    private func nextPasteEvent() -> InputEvent? {
        guard var reader = paste else { return nil }
        var value: wint_t = 0
        while true {
            let status = wget_wch(cf_stdscr(), &value)
            if status == ERR {
                paste = reader
                return nil
            }
            if status == cf_key_code_yes() { continue }   // a key sequence inside a paste: not text
            if reader.take(UInt32(value)) {
                paste = nil
                return .key(.paste(reader.text, wasCut: reader.wasCut))
            }
        }
    }

    /// Seconds on the monotonic clock.
    private static var now: Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Leaves the screen as it was before the viewer, stops the job (as the shell's Ctrl-Z
    /// would), and on `fg` takes the screen back; the caller then draws everything anew.
    package func suspend() {
        endwin()
        if hasMouse { writeToTerminal("\u{1B}[?1006l") }
        if hasBracketedPaste { writeToTerminal("\u{1B}[?2004l") }
        if suspendsGraphemeClustering { writeToTerminal("\u{1B}[?2027h") }
        let previous = signal(SIGTSTP, SIG_DFL)
        kill(0, SIGTSTP)
        signal(SIGTSTP, previous)
        // Back after SIGCONT: ncurses restores its modes on the next refresh.
        reset_prog_mode()
        if hasMouse { enableMouse() }
        if hasBracketedPaste { enableBracketedPaste() }
        if suspendsGraphemeClustering { writeToTerminal("\u{1B}[?2027l") }
        _ = refreshSize()
    }

    /// Makes the next draw repaint every cell (Ctrl-L, after garbage reached the terminal).
    package func repaintAll() {
        clearok(cf_stdscr(), true)
    }

    private func writeToTerminal(_ text: String) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { buffer in
            _ = fwrite(buffer.baseAddress, 1, buffer.count, outputFile)
        }
        fflush(outputFile)
    }

    /// Routes SIGTERM, SIGHUP, SIGINT, SIGQUIT and SIGWINCH to `descriptor` (their number
    /// as one byte), so the event loop handles them, and makes crash signals restore the
    /// terminal before the process dies.
    package func routeSignals(to descriptor: Int32) {
        cf_install_signal_handlers(descriptor, inputDescriptor)
    }

    /// Puts bytes on the terminal's clipboard with OSC 52 (it passes through SSH, and
    /// through tmux with `set-clipboard` on). The sequence goes straight to the tty, next to
    /// ncurses' output: it moves nothing on screen.
    package func copyToClipboard(_ bytes: [UInt8]) {
        let sequence = Array("\u{1B}]52;c;".utf8) + TerminalSession.base64(bytes) + [0x07]
        sequence.withUnsafeBytes { buffer in
            _ = fwrite(buffer.baseAddress, 1, buffer.count, outputFile)
        }
        fflush(outputFile)
    }

    static func base64(_ bytes: [UInt8]) -> [UInt8] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            let value = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
            for position in 0..<4 {
                output.append(position <= chunk.count ? alphabet[(value >> (18 - 6 * position)) & 63] : UInt8(ascii: "="))
            }
            index += 3
        }
        return output
    }

    /// Turns mouse reporting on: wheel, Shift+wheel and presses of the first button.
    ///
    /// SGR reports (mode 1006) are asked for on every terminal: ncurses enables only the old
    /// encoding for some (`tmux-256color`, `screen-256color`), whose coordinates stop at
    /// column 223. Reports ncurses does not decode itself are decoded by `EscapeSequence`.
    package func enableMouse() {
        hasMouse = mousemask(cf_mouse_wanted(), nil) != 0
        mouseinterval(0)
        if hasMouse { writeToTerminal("\u{1B}[?1006h") }
    }

    private func nextMouseEvent() -> InputEvent? {
        var event = MEVENT()
        guard getmouse(&event) == OK else { return nil }
        return TerminalSession.decode(mouse: event.bstate, x: Int(event.x), y: Int(event.y))
    }

    static func decode(mouse state: mmask_t, x: Int, y: Int) -> InputEvent? {
        let shifted = cf_mouse_is_shifted(state) != 0
        let kind: MouseEvent.Kind
        if cf_mouse_is_wheel_up(state) != 0 {
            kind = .wheelUp
        } else if cf_mouse_is_wheel_down(state) != 0 {
            kind = .wheelDown
        } else if cf_mouse_is_press(state) != 0 {
            kind = .press
        } else {
            return nil
        }
        return .mouse(MouseEvent(kind, x: x, y: y, isShifted: shifted))
    }

    static func decode(character: UInt32) -> Key {
        switch character {
        case 10, 13: return .enter
        case 27: return .escape
        case 8, 127: return .backspace
        case 9: return .tab
        default:
            return .character(Unicode.Scalar(character).map(Character.init) ?? "\u{FFFD}")
        }
    }

    static func decode(functionKey code: Int32) -> InputEvent? {
        switch code {
        case KEY_UP: return .key(.up)
        case KEY_DOWN: return .key(.down)
        case KEY_LEFT: return .key(.left)
        case KEY_RIGHT: return .key(.right)
        case KEY_SLEFT: return .key(.shiftLeft)
        case KEY_SRIGHT: return .key(.shiftRight)
        case KEY_PPAGE: return .key(.pageUp)
        case KEY_NPAGE: return .key(.pageDown)
        case KEY_HOME, KEY_A1: return .key(.home)
        case KEY_END, KEY_C1, KEY_LL: return .key(.end)
        case KEY_ENTER: return .key(.enter)
        case KEY_DC: return .key(.delete)
        case KEY_BACKSPACE: return .key(.backspace)
        case cf_key_f0() + 1 ... cf_key_f0() + 12: return .key(.function(Int(code - cf_key_f0())))
        default: return nil
        }
    }

    private func setUpStyles(_ theme: Theme) {
        var hasColors = false
        if has_colors() && theme != .mono {
            start_color()
            use_default_colors()
            // Pairs: 1 headers, 2 row numbers and matches, 3 symbols, 4 borders. On a light
            // background nothing is yellow or cyan, which white makes unreadable.
            let light = theme == .light
            init_pair(1, Int16(light ? COLOR_BLUE : COLOR_CYAN), -1)
            init_pair(2, Int16(light ? COLOR_MAGENTA : COLOR_YELLOW), -1)
            init_pair(3, Int16(light ? COLOR_RED : COLOR_MAGENTA), -1)
            init_pair(4, Int16(COLOR_BLUE), -1)
            // A diff: added green, removed red, changed cells yellow (magenta on light).
            init_pair(5, Int16(COLOR_GREEN), -1)
            init_pair(6, Int16(COLOR_RED), -1)
            init_pair(7, Int16(light ? COLOR_MAGENTA : COLOR_YELLOW), -1)
            hasColors = true
        }
        let bold = cf_attr_bold(), reverse = cf_attr_reverse(), dim = cf_attr_dim(), italic = cf_attr_italic()
        func pair(_ number: Int32) -> Int32 { hasColors ? cf_color_pair(number) : 0 }
        // Without colour a removed row is dim; a terminal that cannot dim (vt100) shows it
        // reversed, bold and underlined, the one mix no other mark or the cursor uses.
        let removedShape = cf_term_attrs() & dim != 0 ? dim : reverse | bold | cf_attr_underline()
        // A made name (or a sheet's `(empty)` label) on a terminal that can neither dim nor
        // italicise (vt100) is underlined: plain, it would read as the file's own text.
        let madeShape = cf_term_attrs() & (dim | italic) != 0 ? dim | italic : cf_attr_underline()
        attributes = Style.allCases.map { style in
            switch style {
            case .plain: return cf_attr_normal()
            case .header: return bold | pair(1)
            case .headerOfCursorColumn: return bold | reverse | pair(1)
            case .rowNumber: return pair(2) | (hasColors ? 0 : dim)
            case .rowNumberOfCursorRow: return bold | reverse | pair(2)
            case .cursor: return reverse
            case .symbol: return pair(3) | (hasColors ? 0 : dim)
            case .border: return pair(4) | (hasColors ? 0 : dim)
            case .status: return reverse
            case .statusMessage: return reverse | bold
            case .statusIndicator: return reverse | bold | cf_attr_underline()
            case .indicator: return pair(4) | bold
            case .preamble: return pair(1) | (hasColors ? 0 : dim)
            case .match: return bold | cf_attr_underline() | pair(2)
            // In mono too, each of a diff's marks reads apart: added bold, removed dim (see
            // `removedShape`), a
            // changed row's marker underlined, a changed cell reversed and underlined (the
            // cursor is reversed alone).
            case .added: return bold | pair(5)
            case .removed: return pair(6) | (hasColors ? 0 : removedShape)
            case .changed: return cf_attr_underline() | pair(7)
            case .changedCell: return reverse | cf_attr_underline() | pair(7)
            // A name the file does not hold: the header's colour, dim and italic instead of
            // bold (in every theme, mono too), so it never reads as the file's own text.
            case .madeName: return madeShape | pair(1)
            case .madeNameOfCursorColumn: return reverse | madeShape | pair(1)
            // A marked record's sign: bold, in the symbols' colour (the sign tells it in mono).
            case .mark: return bold | pair(3)
            // The band: the header's colour; dim (underlined where a terminal cannot dim)
            // until its pictures are exact.
            case .band: return pair(1)
            case .bandPending: return pair(1) | (cf_term_attrs() & dim != 0 ? dim : cf_attr_underline())
            }
        }
    }
}
