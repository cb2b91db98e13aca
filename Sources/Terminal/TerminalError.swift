/// Why the screen cannot be drawn; each message says what to do instead.
package enum TerminalError: Error, Equatable, Sendable, CustomStringConvertible {
    case noTerminalType
    case dumbTerminal
    case unknownTerminalType(String)
    case noControllingTerminal(String)

    package var description: String {
        switch self {
        case .noTerminalType:
            return "TERM is not set, so the screen cannot be drawn (use --output table|csv|tsv|json to print instead)"
        case .dumbTerminal:
            return "TERM=dumb cannot show a full-screen viewer (use --output table|csv|tsv|json to print instead)"
        case .unknownTerminalType(let name):
            return "unknown terminal type '\(name)' (set TERM to one that terminfo knows, such as xterm-256color)"
        case .noControllingTerminal(let why):
            return "no terminal to read keys from (/dev/tty: \(why)); use --output to print instead"
        }
    }
}
