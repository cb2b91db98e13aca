#if canImport(Glibc)
import Glibc
#endif

/// Options a user keeps rather than types each time: a config file, then the `CSVFREEZE`
/// environment variable (as `LESS` and `PSPG` work), then the command line. They are put
/// in that order before the command line's own arguments, so the command line wins: an
/// option given again takes the later value.
struct Defaults {
    /// A line or variable that cannot be used, said with where it is.
    struct Problem: Error, CustomStringConvertible {
        var place: String
        var reason: String
        var description: String { "\(place): \(reason)" }
    }

    /// Options that are about the program itself, never read from defaults: with them the
    /// defaults are not read at all, so a broken config cannot hide `--help`.
    static let informational: Set<String> = ["--help", "-h", "--version", "--generate-completion-script",
                                             "--experimental-dump-help"]

    /// The config file: `$CSVFREEZE_CONFIG` when set (empty: none), else
    /// `$XDG_CONFIG_HOME/csvfreeze/config`, else `~/.config/csvfreeze/config`.
    static func configPath(environment: [String: String]) -> String? {
        if let path = environment["CSVFREEZE_CONFIG"] { return path.isEmpty ? nil : path }
        if let base = environment["XDG_CONFIG_HOME"], base.hasPrefix("/") { return base + "/csvfreeze/config" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.config/csvfreeze/config" }
        return nil
    }

    /// The arguments to parse: the defaults' options, then `commandLine`.
    /// - Parameter check: parses one line's options, throwing a message when they are wrong.
    static func arguments(commandLine: [String], environment: [String: String],
                          check: ([String]) throws -> Void) throws -> [String] {
        if commandLine.contains(where: informational.contains) { return commandLine }
        var options: [String] = []
        if let path = configPath(environment: environment), let text = readFile(path) {
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let trimmed = String(line.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
                if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
                let place = "\(path):\(number + 1)"
                if let words = setting(trimmed) {
                    options += try usable(words: words, place: place, check: check)
                } else {
                    options += try usable(trimmed, place: place, check: check)
                }
            }
        }
        if let variable = environment["CSVFREEZE"], !variable.allSatisfy(\.isWhitespace) {
            options += try usable(variable, place: "CSVFREEZE", check: check)
        }
        return options + commandLine
    }

    /// A config line written `name = value` as the options it means: `band = on` is
    /// `--band` (on, yes, true), `band = off` is `--no-band` (off, no, false), any other
    /// value `--name value` (`bounce = none`). Nil for a line of options.
    static func setting(_ line: String) -> [String]? {
        guard let equals = line.firstIndex(of: "=") else { return nil }
        let name = line[..<equals].trimmingCharacters(in: .whitespaces)
        let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        guard let first = name.first, first.isLetter, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
            return nil
        }
        switch value.lowercased() {
        case "on", "yes", "true": return ["--" + name]
        case "off", "no", "false": return ["--no-" + name]
        default:
            let unquoted = (try? split(value)).flatMap { $0.count == 1 ? $0[0] : nil } ?? value
            return ["--" + name, unquoted]
        }
    }

    /// The words of `text` if they are options only, each one accepted by `check`.
    static func usable(_ text: String, place: String, check: ([String]) throws -> Void) throws -> [String] {
        let words: [String]
        do {
            words = try split(text)
        } catch {
            throw Problem(place: place, reason: "a quote is not closed")
        }
        return try usable(words: words, place: place, check: check)
    }

    /// `words` if they are options only, each one accepted by `check`.
    static func usable(words: [String], place: String, check: ([String]) throws -> Void) throws -> [String] {
        guard let first = words.first, first.hasPrefix("-"), first != "-" else {
            throw Problem(place: place, reason: "'\(words.first ?? "")' is not an option (a file is named on the command line)")
        }
        if let informational = words.first(where: informational.contains) {
            throw Problem(place: place, reason: "\(informational) cannot be a default")
        }
        do {
            try check(words)
        } catch let problem as Problem {
            throw Problem(place: place, reason: problem.reason)
        } catch {
            throw Problem(place: place, reason: "\(error)")
        }
        return words
    }

    struct UnclosedQuote: Error {}

    /// Splits a line into words as a shell would, without expansions: blanks separate,
    /// `'…'` and `"…"` quote, a backslash escapes the next character (outside single quotes).
    static func split(_ text: String) throws -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in text {
            if escaped {
                word.append(character)
                escaped = false
                continue
            }
            if let open = quote {
                if character == open {
                    quote = nil
                } else if character == "\\" && open == "\"" {
                    escaped = true
                } else {
                    word.append(character)
                }
                continue
            }
            switch character {
            case " ", "\t":
                if inWord { words.append(word); word = ""; inWord = false }
            case "'", "\"":
                quote = character
                inWord = true
            case "\\":
                escaped = true
                inWord = true
            default:
                word.append(character)
                inWord = true
            }
        }
        if quote != nil || escaped { throw UnclosedQuote() }
        if inWord { words.append(word) }
        return words
    }

    /// A small text file's contents, or nil when it cannot be read (no config is fine).
    static func readFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let count = read(descriptor, &buffer, buffer.count)
            if count <= 0 { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
