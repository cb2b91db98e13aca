#if canImport(Glibc)
import Glibc
#endif
import Foundation

// The start, beside less: the first screen of a file and of a pipe, and --version.
//
// Each program runs on a pseudo-terminal of its own (200×60, TERM=xterm-256color), as a
// user's terminal runs it; the figure is the time from spawning it to the read that brings
// the last line of its first screen: csvfreeze's status line (`row 1/`), less's prompt
// (the file name in a file's first prompt, a `:` for a pipe). The
// harness answers csvfreeze's questions to the terminal (background colour, DA1) at once,
// as a local terminal does. Runs alternate between the two programs and the medians count;
// beside the time, the main thread's CPU time by then, which a busy machine inflates less.
// START_RUNS sets the runs (15), START_TRACE prints each read's time and first bytes.

/// How a program's start went on a pseudo-terminal.
struct StartRun {
    /// Seconds from spawn to the end of the first screen (nil: not seen in time).
    var firstScreen: Double?
    /// CPU seconds the program's main thread had used by then (`/proc/PID/schedstat`, read
    /// with the program stopped): the figure a busy machine does not inflate.
    var mainThreadCPU: Double?
    /// What the program wrote up to then.
    var output: [UInt8]
    /// Seconds from writing the keys asked for after the first screen to the screen they
    /// make (nil: not asked, or not seen in time).
    var afterKeys: Double?
}

/// Starts `arguments` (a path, or a name looked up in PATH) on a new pseudo-terminal of
/// `columns`×`rows` with `environment`, standard input the terminal or, with `pipedFrom`,
/// a pipe that `cat` fills from that file; returns when `isFirstScreen` holds for what
/// it wrote, or after `timeout` seconds. The program and `cat` are killed then.
func startOnTerminal(_ arguments: [String], environment: [String], pipedFrom: String? = nil, columns: Int = 200, rows: Int = 60,
                     timeout: Double = 10, isFirstScreen: ([UInt8]) -> Bool,
                     then keys: (bytes: [UInt8], isDone: ([UInt8]) -> Bool)? = nil) -> StartRun {
    // posix_openpt, unlockpt and ptsname are hidden from Swift's Glibc (XOPEN): their
    // Linux ioctls, TIOCSPTLCK and TIOCGPTN (the same numbers on x86_64 and arm64).
    let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
    guard master >= 0 else { return StartRun(output: []) }
    defer { close(master) }
    var unlocked: Int32 = 0, number: UInt32 = 0
    guard ioctl(master, 0x4004_5431, &unlocked) == 0, ioctl(master, 0x8004_5430, &number) == 0 else { return StartRun(output: []) }
    let terminalPath = "/dev/pts/\(number)"
    var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
    _ = ioctl(master, UInt(TIOCSWINSZ), &size)

    var catPID: pid_t = 0
    var pipeEnds: [Int32] = [-1, -1]
    if let pipedFrom {
        guard pipe(&pipeEnds) == 0 else { return StartRun(output: []) }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        catPID = spawn(["cat", pipedFrom], actions: &actions, attributes: nil, environment: environment) ?? 0
        posix_spawn_file_actions_destroy(&actions)
    }
    defer {
        if catPID > 0 { kill(catPID, SIGKILL); var status: Int32 = 0; waitpid(catPID, &status, 0) }
        for end in pipeEnds where end >= 0 { close(end) }
    }

    // A session of its own, whose first terminal opened (the pseudo-terminal, without
    // O_NOCTTY) becomes its controlling terminal: /dev/tty, as both programs open it.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    posix_spawnattr_setflags(&attributes, 0x80)   // POSIX_SPAWN_SETSID (glibc, __USE_GNU)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if pipedFrom != nil {
        posix_spawn_file_actions_addopen(&actions, 1, terminalPath, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[0], 0)
    } else {
        posix_spawn_file_actions_addopen(&actions, 0, terminalPath, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
    }

    let start = now()
    if getenv("START_TRACE") != nil { print(String(format: "spawn at %.3f", start * 1000)) }
    guard let pid = spawn(arguments, actions: &actions, attributes: &attributes, environment: environment) else {
        return StartRun(output: [])
    }
    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var answered = false
    var result = StartRun(output: [])
    /// When the keys went, and how much had been written by then.
    var keysSent: (time: Double, outputCount: Int)?
    while now() - start < timeout {
        var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 20) >= 0 || errno == EINTR else { break }
        guard poller.revents != 0 else { continue }
        let count = read(master, &buffer, buffer.count)
        if count <= 0 { break }
        let time = now()
        output += buffer[..<count]
        if getenv("START_TRACE") != nil {
            print(String(format: "%8.2f ms  %6d bytes  ", (time - start) * 1000, count)
                  + String(decoding: buffer[..<min(count, 90)], as: UTF8.self).debugDescription)
        }
        // The terminal's answers: background colour, mode 2027 unknown, then DA1.
        if !answered, output.contains(subsequence: Array("\u{1B}[c".utf8)) {
            answered = true
            let answer = Array("\u{1B}]11;rgb:0000/0000/0000\u{1B}\\\u{1B}[?2027;0$y\u{1B}[?62;22c".utf8)
            _ = answer.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
        }
        if let keys, let sent = keysSent {
            guard keys.isDone(Array(output[sent.outputCount...])) else { continue }
            result.afterKeys = time - sent.time
            break
        }
        if let keys, isFirstScreen(output) {
            result.firstScreen = time - start
            if let text = try? String(contentsOfFile: "/proc/\(pid)/schedstat", encoding: .utf8),
               let nanoseconds = Double(text.split(separator: " ").first ?? "") {
                result.mainThreadCPU = nanoseconds / 1e9
            }
            keysSent = (now(), output.count)
            _ = keys.bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
            continue
        }
        if isFirstScreen(output) {
            result.firstScreen = time - start
            kill(pid, SIGSTOP)
            if let text = try? String(contentsOfFile: "/proc/\(pid)/schedstat", encoding: .utf8),
               let nanoseconds = Double(text.split(separator: " ").first ?? "") {
                result.mainThreadCPU = nanoseconds / 1e9
            }
            break
        }
    }
    result.output = output
    kill(pid, SIGKILL)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    return result
}

/// Spawns `arguments` (PATH searched), returning its process id.
func spawn(_ arguments: [String], actions: inout posix_spawn_file_actions_t, attributes: UnsafePointer<posix_spawnattr_t>?,
           environment: [String]) -> pid_t? {
    var pid: pid_t = 0
    let argv = arguments.map { strdup($0) } + [nil]
    let envp = environment.map { strdup($0) } + [nil]
    defer { (argv + envp).forEach { free($0) } }
    let status = posix_spawnp(&pid, arguments[0], &actions, attributes, argv, envp)
    return status == 0 ? pid : nil
}

/// Runs `arguments` to its end with output to /dev/null: wall and CPU seconds (user and
/// system, from `wait4`).
func runToEnd(_ arguments: [String], environment: [String]) -> (wall: Double, cpu: Double)? {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    let start = now()
    guard let pid = spawn(arguments, actions: &actions, attributes: nil, environment: environment) else { return nil }
    var status: Int32 = 0
    var usage = rusage()
    guard wait4(pid, &status, 0, &usage) == pid else { return nil }
    let wall = now() - start
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return (wall, seconds(usage.ru_utime) + seconds(usage.ru_stime))
}

extension Array where Element == UInt8 {
    func contains(subsequence: [UInt8]) -> Bool { firstRange(of: subsequence) != nil }
}

/// The environment both programs start in: the caller's, less what would make them do
/// other work (a `less` preprocessor, options, a config file, a theme), on an xterm.
func startEnvironment() -> [String] {
    let dropped = ["TERM", "LESS", "LESSOPEN", "LESSCLOSE", "LESSKEY", "LESSCHARSET", "LINES", "COLUMNS", "CSVFREEZE",
                   "CSVFREEZE_CONFIG", "CSVFREEZE_HISTORY", "COLORFGBG", "NO_COLOR", "TMUX", "LC_ALL", "LANG", "ESCDELAY"]
    var environment = ProcessInfo.processInfo.environment.filter { !dropped.contains($0.key) }.map { "\($0.key)=\($0.value)" }
    environment += ["TERM=xterm-256color", "LANG=C.UTF-8", "CSVFREEZE_CONFIG=", "CSVFREEZE_HISTORY="]
    return environment
}

/// The median of `values` (nil when there are none).
func median(_ values: [Double]) -> Double? {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return nil }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// The start figures: first screen of a file and of a pipe, and `--version`, each beside
/// less in the same run. Targets: the first screen at most 1.5× less's, `--version` at
/// most 3× `less --version`.
@MainActor func startBenchmark(big: String, binary: String, runs: Int = Int(getenv("START_RUNS").map { String(cString: $0) } ?? "") ?? 15) {
    let environment = startEnvironment()
    let fileName = Array(big.split(separator: "/").last.map(String.init).map { $0.utf8 } ?? "".utf8)
    let csvfreezeDone: ([UInt8]) -> Bool = { $0.contains(subsequence: Array("row 1/".utf8)) }
    // less's first prompt for a file is its name; for a pipe a colon, then clear to the
    // end of the line.
    let lessFileDone: ([UInt8]) -> Bool = { $0.contains(subsequence: fileName) }
    let lessPipeDone: ([UInt8]) -> Bool = { $0.contains(subsequence: Array(":\u{1B}[K".utf8)) }

    for piped in [false, true] {
        var ours: [Double] = [], theirs: [Double] = []
        var ourCPU: [Double] = [], theirCPU: [Double] = []
        var failure: String?
        for run in 0..<runs {
            // Alternating, so that a busy moment of the machine falls on both alike.
            for isOurs in run % 2 == 0 ? [true, false] : [false, true] {
                let arguments = isOurs ? (piped ? [binary] : [binary, big]) : (piped ? ["less"] : ["less", big])
                let done = isOurs ? csvfreezeDone : piped ? lessPipeDone : lessFileDone
                let outcome = startOnTerminal(arguments, environment: environment, pipedFrom: piped ? big : nil, isFirstScreen: done)
                guard let time = outcome.firstScreen else {
                    failure = "\(arguments.joined(separator: " ")): no first screen in 10 s; it wrote "
                        + String(decoding: outcome.output.suffix(200), as: UTF8.self).debugDescription
                    continue
                }
                if isOurs { ours.append(time) } else { theirs.append(time) }
                if let cpu = outcome.mainThreadCPU {
                    if isOurs { ourCPU.append(cpu) } else { theirCPU.append(cpu) }
                }
            }
        }
        if let failure { print(failure) }
        let what = piped ? "first screen, pipe (cat | …, 200×60)" : "first screen, file (200×60)"
        if let ours = median(ours), let theirs = median(theirs) {
            report("start: \(what), median", ms(ours), target: String(format: "≤ 1.5× less = %.2f ms", theirs * 1500),
                   ok: ours <= theirs * 1.5)
            report("  less, same", ms(theirs), target: String(format: "%.1f×", ours / theirs))
            if let ourCPU = median(ourCPU), let theirCPU = median(theirCPU) {
                report("  main thread's CPU to it", ms(ourCPU), target: String(format: "less %.2f ms, %.1f×", theirCPU * 1000, ourCPU / theirCPU))
            }
        } else {
            report("start: \(what)", "not measured", ok: false)
        }
    }

    var ours: [(wall: Double, cpu: Double)] = [], theirs: [(wall: Double, cpu: Double)] = []
    for run in 0..<(runs * 2) {
        for isOurs in run % 2 == 0 ? [true, false] : [false, true] {
            guard let figures = runToEnd([isOurs ? binary : "less", "--version"], environment: environment) else { continue }
            if isOurs { ours.append(figures) } else { theirs.append(figures) }
        }
    }
    if let ourCPU = median(ours.map(\.cpu)), let theirCPU = median(theirs.map(\.cpu)),
       let ourWall = median(ours.map(\.wall)), let theirWall = median(theirs.map(\.wall)) {
        report("start: --version, median wall", ms(ourWall), target: String(format: "≤ 3× less = %.2f ms", theirWall * 3000),
               ok: ourWall <= theirWall * 3)
        report("  less --version, same", ms(theirWall), target: String(format: "%.1f×", ourWall / theirWall))
        report("  --version CPU (user + system)", ms(ourCPU), target: String(format: "less %.2f ms, %.1f×", theirCPU * 1000, ourCPU / theirCPU))
    } else {
        report("start: --version", "not measured", ok: false)
    }
}
