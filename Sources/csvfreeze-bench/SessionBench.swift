#if canImport(Glibc)
import Glibc
#endif
import Foundation

// A session reopened: the 1 GiB file (and with --session-10g the 10 GiB one, made from it
// when absent: its header once, its body ten times) viewed sorted by col05 (a price-like
// number), with one filter and 10 marks, quit; then opened again. The saving run is driven
// in tmux (its own server) and quits once the sort and the filter are complete, so both
// are kept as results; the reopening runs on a pseudo-terminal as the start is measured:
// from spawning csvfreeze to the read that brings its first screen with the restored note,
// the cursor's row and the exact row count (no ≈). The state folder is a temporary one;
// --session-limit 16G: older builds kept an order only within a sixteenth of the cap; the
// 10 GiB file's (16 bytes a row: 600 MB) now fits the default cap too.

/// Runs `arguments` (PATH searched) to its end, its output discarded; its exit status.
@discardableResult
private func quietly(_ arguments: [String]) -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
    guard let pid = spawn(arguments, actions: &actions, attributes: nil, environment: environment) else { return -1 }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return (status >> 8) & 0xFF
}

/// The text of tmux server `socket`'s pane.
private func paneText(_ socket: String) -> String {
    (try? runCapturing(["tmux", "-L", socket, "capture-pane", "-p", "-t", "0"])) ?? ""
}

/// Runs `arguments` and returns what it printed.
private func runCapturing(_ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

/// Makes `huge` from `big`: its header once, its body ten times (when it is absent).
func makeTenGiB(_ huge: String, from big: String) -> Bool {
    if access(huge, F_OK) == 0 { return true }
    print("making \(huge): the header of \(big) once, its body ten times …")
    let quoted = { (path: String) in "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'" }
    let command = "{ head -n 1 \(quoted(big)); for i in 1 2 3 4 5 6 7 8 9 10; do tail -n +2 \(quoted(big)); done; } > \(quoted(huge + ".part"))"
        + " && mv \(quoted(huge + ".part")) \(quoted(huge))"
    return system(command) == 0
}

/// The saving run over `file` in tmux: sorted by col05, filtered, 10 marks, quit once both
/// passes are complete. Returns the seconds it took, or nil (said why) when it did not end.
@MainActor func saveSession(of file: String, binary: String, state: String, filter: String, timeout: Double) -> Double? {
    let socket = "csvfreeze-bench-\(getpid())"
    let done = state + "/saved"
    unlink(done)
    let quoted = { (text: String) in "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
    let command = "LANG=C.UTF-8 CSVFREEZE_CONFIG= CSVFREEZE_HISTORY= XDG_STATE_HOME=\(quoted(state)) \(quoted(binary))"
        + " --session-limit 16G --sort col05 --filter \(quoted(filter)) \(quoted(file)); touch \(quoted(done)); sleep 600"
    let start = now()
    guard quietly(["tmux", "-L", socket, "new-session", "-d", "-x", "200", "-y", "60", "sh", "-c", command]) == 0 else {
        print("session: tmux did not start")
        return nil
    }
    defer { quietly(["tmux", "-L", socket, "kill-server"]) }
    func waitFor(_ what: String, _ condition: (String) -> Bool) -> Bool {
        while now() - start < timeout {
            let status = paneText(socket).split(separator: "\n").last(where: { !$0.isEmpty }).map(String.init) ?? ""
            if condition(status) { return true }
            usleep(250_000)
        }
        print("session: timed out waiting for \(what); the pane said:\n" + paneText(socket))
        return false
    }
    // Complete: the status line names the sort and the filter, and no pass is running.
    guard waitFor("the sort and the filter", {
        $0.contains("sorted by col05") && $0.contains("1 filter") && !$0.contains("sorting") && !$0.contains("filtering") && !$0.contains("≈")
    }) else { return nil }
    for _ in 0..<10 { quietly(["tmux", "-L", socket, "send-keys", "-t", "0", "m", "j"]) }
    guard waitFor("10 marks", { $0.contains("10 marks") }) else { return nil }
    quietly(["tmux", "-L", socket, "send-keys", "-t", "0", "q"])
    while now() - start < timeout {
        if access(done, F_OK) == 0 { return now() - start }
        usleep(100_000)
    }
    print("session: csvfreeze did not quit")
    return nil
}

/// The reopening of `file` with the session kept in `state`: the first screen with the
/// restored note and an exact row count, `runs` times; the median, the best and the status line.
@MainActor func reopenFigures(of file: String, binary: String, state: String, runs: Int) -> (median: Double, best: Double, status: String)? {
    let environment = startEnvironment() + ["XDG_STATE_HOME=" + state]
    var times: [Double] = []
    var status = ""
    // The status line's end: the restored note, and the row position after it is drawn.
    let restored = Array("restored: sorted by col05, 1 filter, 10 marks".utf8)
    for _ in 0..<runs {
        let outcome = startOnTerminal([binary, "--session-limit", "16G", file], environment: environment, timeout: 30) { output in
            output.contains(subsequence: restored) && output.contains(subsequence: Array("row ".utf8))
        }
        if let time = outcome.firstScreen {
            times.append(time)
            let text = String(decoding: outcome.output, as: UTF8.self)
            if let last = text.components(separatedBy: "row ").last {
                status = "row " + String(last.prefix(36)).filter { $0 != "\u{1B}" }
            }
        } else {
            print("session: no restored first screen in 30 s; it wrote " + String(decoding: outcome.output.suffix(300), as: UTF8.self).debugDescription)
        }
    }
    guard let middle = median(times), let best = times.min() else { return nil }
    return (middle, best, status)
}

/// The figures: for each file, the saving run (once, when no session is kept for it yet)
/// and the reopening (median of `runs`, SESSION_RUNS when set; and the best of them: on a
/// shared machine, the run least disturbed). Target: 50 ms, the exact row count.
@MainActor func sessionBenchmark(big: String, directory: String, binary: String, tenGiB: Bool,
                                 runs: Int = getenv("SESSION_RUNS").flatMap { Int(String(cString: $0)) }.map { max(1, $0) } ?? 7) {
    var files = [big]
    if tenGiB {
        let huge = directory + "/bench-10g.csv"
        if makeTenGiB(huge, from: big) { files.append(huge) } else { report("session: 10 GiB file", "cannot be made", ok: false) }
    }
    for file in files {
        let name = file.split(separator: "/").last.map(String.init) ?? file
        let state = (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/csvfreeze-bench-session-" + name
        try? FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let kept = (try? FileManager.default.contentsOfDirectory(atPath: state + "/csvfreeze"))?.contains { $0.hasPrefix("session-") } ?? false
        if !kept || getenv("SESSION_AGAIN") != nil {
            try? FileManager.default.removeItem(atPath: state + "/csvfreeze")
            guard let seconds = saveSession(of: file, binary: binary, state: state, filter: "^2024-2-2", timeout: 3600) else {
                report("session: \(name), saving run", "did not end", ok: false)
                continue
            }
            report("session: \(name), saving run (sort, filter)", s(seconds), target: "once")
        }
        var load = [0.0, 0.0, 0.0]
        _ = getloadavg(&load, 3)
        guard let (time, best, status) = reopenFigures(of: file, binary: binary, state: state, runs: runs) else {
            report("session: \(name), reopened", "not measured", ok: false)
            continue
        }
        report("session: \(name), reopened, first screen", ms(time), target: "≤ 50 ms, exact count", ok: time <= 0.05 && !status.contains("≈"))
        report("  best of \(runs)", ms(best), target: "≤ 50 ms", ok: best <= 0.05)
        report("  its status line", status, target: String(format: "load %.2f %.2f %.2f", load[0], load[1], load[2]))
    }
}
