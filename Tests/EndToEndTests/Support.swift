#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TestSupport

/// Paths the end-to-end tests use.
enum Paths {
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    /// The built binary: `CSVFREEZE_BIN`, else `.build/debug/csvfreeze` (`make test` builds it first).
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["CSVFREEZE_BIN"], !path.isEmpty { return path }
        return package.appendingPathComponent(".build/debug/csvfreeze").path
    }
    static let sampleData = package.appendingPathComponent("SampleData")
    static let conformance = package.appendingPathComponent("Tests/Fixtures/conformance")

    /// A fresh temporary directory for one test.
    /// `XDG_STATE_HOME` for every command a test runs: never the user's own (sessions,
    /// history), one folder for the whole run.
    static let stateHome: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("csvfreeze-e2e-state-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("csvfreeze-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Quotes a string for sh.
func shellQuote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

/// The result of running a command to its end.
struct Completed {
    var status: Int32
    var stdout: Data
    var stderr: String
    var text: String { String(decoding: stdout, as: UTF8.self) }
}

/// Runs `arguments` (the first is the program) with optional stdin bytes, no terminal.
///
/// It spawns with `posix_spawn` and waits with `waitpid`, and passes output through
/// temporary files: Foundation's `Process` learns of the child's end through a
/// descriptor the child inherits, which a daemon it starts (the tmux server) keeps open.
@discardableResult
func run(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]) throws -> Completed {
    var env = ProcessInfo.processInfo.environment
    env["LANG"] = "C.UTF-8"
    env["LC_ALL"] = "C.UTF-8"
    // The user's own defaults (a config file, CSVFREEZE) must not change what tests see.
    env["CSVFREEZE"] = nil
    env["CSVFREEZE_CONFIG"] = ""
    env["CSVFREEZE_HISTORY"] = ""
    // Nor the user's kept sessions, nor another test's: each command (each tmux server)
    // keeps its own in a folder under the test run's.
    env["XDG_STATE_HOME"] = Paths.stateHome + "/" + UUID().uuidString
    // Nor the colours chosen for the test runner's own output (it may set NO_COLOR).
    env["NO_COLOR"] = nil
    env["COLORFGBG"] = nil
    for (key, value) in environment { env[key] = value }
    if environment["XDG_CONFIG_HOME"] != nil && environment["CSVFREEZE_CONFIG"] == nil { env["CSVFREEZE_CONFIG"] = nil }
    let directory = try Paths.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let outPath = directory.appendingPathComponent("out").path
    let errPath = directory.appendingPathComponent("err").path
    let inPath = directory.appendingPathComponent("in").path
    try (stdin ?? Data()).write(to: URL(fileURLWithPath: inPath))

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, stdin == nil ? "/dev/null" : inPath, O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    // Start it as a shell would: no signals blocked or ignored (test threads block some).
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    var allSignals = sigset_t()
    sigfillset(&allSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setsigdefault(&attributes, &allSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
    guard spawned == 0 else {
        throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL)
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    // Exit status, or 128 + the signal that ended it, as a shell reports it.
    let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return Completed(status: exitStatus, stdout: try Data(contentsOf: URL(fileURLWithPath: outPath)),
                     stderr: String(decoding: try Data(contentsOf: URL(fileURLWithPath: errPath)), as: UTF8.self))
}

/// A tmux server of its own running one command in a pane of a fixed size.
final class TmuxPane {
    let socket = "csvfreeze-e2e-\(UUID().uuidString.prefix(8))"
    let directory: URL

    /// Starts `command` (a shell command line) in a `width`×`height` pane. When it exits,
    /// the shell prints `[exit=N modes=…]` (its status and the tty's line modes, to show
    /// the terminal was restored) and keeps the pane open to be read.
    init(_ command: String, width: Int = 80, height: Int = 24) throws {
        directory = try Paths.temporaryDirectory()
        let config = directory.appendingPathComponent("tmux.conf")
        try "set -g status off\nset -g default-terminal tmux-256color\n"
            .write(to: config, atomically: true, encoding: .utf8)
        let modes = "$(stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' ')"
        let line = "cd \(shellQuote(directory.path)) && export LANG=C.UTF-8 LC_ALL=C.UTF-8 && { \(command) ; }; "
            + "status=$?; echo \"[exit=$status modes=\(modes)]\"; sleep 600"
        let result = try run(["/usr/bin/env", "tmux", "-L", socket, "-f", config.path, "new-session", "-d",
                              "-x", "\(width)", "-y", "\(height)", "sh", "-c", line])
        try #require(result.status == 0, "tmux did not start: \(result.stderr)")
    }

    deinit {
        _ = try? run(["/usr/bin/env", "tmux", "-L", socket, "kill-server"])
        try? FileManager.default.removeItem(at: directory)
    }

    /// The pane's text, one string per line.
    func screen() throws -> [String] {
        let result = try run(["/usr/bin/env", "tmux", "-L", socket, "capture-pane", "-p", "-t", "0"])
        return result.text.components(separatedBy: "\n")
    }

    /// The pane's text with its colours and attributes as escape sequences (`capture-pane -e`).
    func styledScreen() throws -> String {
        try run(["/usr/bin/env", "tmux", "-L", socket, "capture-pane", "-e", "-p", "-t", "0"]).text
    }

    /// Types keys (tmux key names such as `PageDown`, `Right`, `C-c`, or literal text).
    func send(_ keys: String...) throws {
        try run(["/usr/bin/env", "tmux", "-L", socket, "send-keys", "-t", "0"] + keys)
    }

    /// Resizes the pane's window.
    func resize(width: Int, height: Int) throws {
        try run(["/usr/bin/env", "tmux", "-L", socket, "resize-window", "-t", "0", "-x", "\(width)", "-y", "\(height)"])
    }

    /// Waits (bounded) until the screen satisfies `condition`; returns the last screen. The
    /// bound is generous: it costs nothing when the condition comes early, and a loaded
    /// machine may take seconds to draw what a quiet one draws at once.
    @discardableResult
    func waitFor(_ what: String, timeout: TimeInterval = 60, sourceLocation: SourceLocation = #_sourceLocation,
                 _ condition: ([String]) -> Bool) throws -> [String] {
        var lines = try screen()
        if try !turn(within: timeout, pausing: { usleep(20_000) }, { lines = try screen() }, until: { condition(lines) }) {
            Issue.record("timed out waiting for \(what); screen was:\n\(lines.joined(separator: "\n"))", sourceLocation: sourceLocation)
        }
        return lines
    }

    /// Waits (bounded) until the command has exited; returns the marker line
    /// `[exit=N modes=…]`, or nil if it did not exit in time.
    func waitForExit(timeout: TimeInterval = 60) throws -> String? {
        let lines = try waitFor("the command to exit", timeout: timeout) { $0.contains { $0.hasPrefix("[exit=") } }
        return lines.first { $0.hasPrefix("[exit=") }
    }
}
