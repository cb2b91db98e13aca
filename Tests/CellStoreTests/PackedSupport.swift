import Foundation
import Testing
import TestSupport
@testable import CellStore

/// Compressed fixtures, made in the test with the formats' own command-line tools.
enum Packed {
    /// The tool and its arguments that compress stdin to stdout, by format (bzip2 in 100 kB
    /// blocks, so a cut file still holds whole blocks).
    static let compressors: [Compression: String] = [
        .gzip: "gzip -c", .zstd: "zstd -q -c", .xz: "xz -c", .bzip2: "bzip2 -1 -c",
    ]

    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("csvfreeze-packed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs `command` through the shell, `input` on its stdin, and returns its stdout.
    /// With `posix_spawn` and `waitpid` on its own pid: Foundation's `Process` waits in
    /// ways that other tests' children (tmux servers) can upset.
    static func shell(_ command: String, input: [UInt8]) throws -> [UInt8] {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("in"), target = directory.appendingPathComponent("out")
        try Data(input).write(to: source)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, source.path, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, target.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let words: [String] = ["/bin/sh", "-c", command]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ) == 0 else {
            throw CocoaError(.fileWriteUnknown)
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return Array(try Data(contentsOf: target))
    }

    static func compress(_ bytes: [UInt8], _ compression: Compression) throws -> [UInt8] {
        try shell(compressors[compression]!, input: bytes)
    }

    /// gzip members of `memberSize` bytes each, one after another (as pigz and bgzip write).
    static func multiMemberGzip(_ bytes: [UInt8], memberSize: Int) throws -> [UInt8] {
        var result: [UInt8] = []
        var start = 0
        while start < bytes.count {
            result += try compress(Array(bytes[start..<min(bytes.count, start + memberSize)]), .gzip)
            start += memberSize
        }
        return result
    }

    /// BGZF as `bgzip` writes it: gzip members of at most 65,280 input bytes, each with
    /// the `BC` extra field giving the member's size, then the empty end-of-file member.
    /// Each member comes from `gzip -n`, its header given the extra field.
    static func bgzf(_ bytes: [UInt8]) throws -> [UInt8] {
        var result: [UInt8] = []
        var start = 0
        while start < bytes.count {
            let member = try compress(Array(bytes[start..<min(bytes.count, start + 65_280)]), "gzip -n -c")
            // gzip -n: ID1 ID2 CM FLG=0, MTIME, XFL, OS, then the deflate data and trailer.
            precondition(member[3] == 0)
            let size = member.count + 8   // with XLEN and the 6-byte subfield
            let blockSize = UInt16(size - 1)
            result += member[0..<3] + [0x04] + member[4..<10]
            result += [6, 0, UInt8(ascii: "B"), UInt8(ascii: "C"), 2, 0, UInt8(blockSize & 0xFF), UInt8(blockSize >> 8)]
            result += member[10...]
            start += 65_280
        }
        return result + [0x1F, 0x8B, 0x08, 0x04, 0, 0, 0, 0, 0, 0xFF, 6, 0, 0x42, 0x43, 2, 0, 0x1B, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    }

    static func compress(_ bytes: [UInt8], _ command: String) throws -> [UInt8] {
        try shell(command, input: bytes)
    }

    /// Writes `bytes` to a new file and returns its path.
    static func file(_ bytes: [UInt8], name: String) throws -> String {
        let url = try directory().appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    /// A table of `rows` records with quoted cells, line breaks and non-ASCII text.
    static func table(rows: Int, seed: UInt64 = 7) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        var text = "id,name,note,amount\n"
        for index in 0..<rows {
            let value = generator.next() % 100_000
            switch value % 4 {
            case 0: text += "\(index),Zoë \(value),\"a, \"\"quoted\"\"\nnote\",\(value).5\n"
            case 1: text += "\(index),李\(value),plain,\(value)\r\n"
            default: text += "\(index),name \(value),\"x\",-\(value)\n"
            }
        }
        return Array(text.utf8)
    }
}

/// Waits (bounded: `turn`) until the store has read its whole input; records an issue when
/// it has not.
func waitUntilComplete(_ store: CellStore, seconds: Double = 60, sourceLocation: SourceLocation = #_sourceLocation) {
    if !turn(within: seconds, until: { store.isComplete }) {
        Issue.record("the input was not read to its end", sourceLocation: sourceLocation)
    }
}
