#if canImport(Glibc)
import Glibc
#endif
import Viewer

/// The prompts' history across sessions: `$CSVFREEZE_HISTORY` (empty: none kept), else
/// `$XDG_STATE_HOME/csvfreeze/history`, else `~/.local/state/csvfreeze/history`. One entry a
/// line, `/` before a search, `:` before a go-to and `Q` before an SQL query; written whole
/// on the way out, private to the user (mode 0600), through a temporary file renamed into
/// place.
enum HistoryFile {
    /// The history file's path as this process's environment names it.
    static var pathFromEnvironment: String? {
        var environment: [String: String] = [:]
        for name in ["CSVFREEZE_HISTORY", "XDG_STATE_HOME", "HOME"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return path(environment: environment)
    }

    static func path(environment: [String: String]) -> String? {
        if let path = environment["CSVFREEZE_HISTORY"] { return path.isEmpty ? nil : path }
        if let base = environment["XDG_STATE_HOME"], base.hasPrefix("/") { return base + "/csvfreeze/history" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.local/state/csvfreeze/history" }
        return nil
    }

    static func load(from path: String?) -> PromptHistory {
        guard let path, let text = Defaults.readFile(path) else { return PromptHistory() }
        var searches: [String] = [], goTos: [String] = [], queries: [String] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("/") { searches.append(String(line.dropFirst())) }
            if line.hasPrefix(":") { goTos.append(String(line.dropFirst())) }
            if line.hasPrefix("Q") { queries.append(String(line.dropFirst())) }
        }
        return PromptHistory(searches: searches, goTos: goTos, queries: queries)
    }

    /// Saves quietly: a history that cannot be written is not worth an error at exit.
    static func save(_ history: PromptHistory, to path: String?) {
        guard let path else { return }
        var text = ""
        for entry in history.searches where !entry.contains("\n") { text += "/" + entry + "\n" }
        for entry in history.goTos where !entry.contains("\n") { text += ":" + entry + "\n" }
        for entry in history.queries where !entry.contains("\n") { text += "Q" + entry + "\n" }
        makeDirectories(for: path)
        let temporary = path + ".\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        if written == bytes.count { rename(temporary, path) } else { unlink(temporary) }
    }

    /// Makes the folders above `path` (like `mkdir -p`), private to the user.
    static func makeDirectories(for path: String) {
        var prefix = ""
        for part in path.split(separator: "/").dropLast() {
            prefix += "/" + part
            _ = mkdir(prefix, 0o700)
        }
    }
}
