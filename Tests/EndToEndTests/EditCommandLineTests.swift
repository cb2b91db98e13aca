#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// `--set`, `--delete-row` and `--in-place` with the real binary: edits from a script go
/// through the journal `e` and `x` use; every record not edited is written as the input's
/// own bytes (compared with the input's bytes), and `--in-place` saves as Ctrl-S does.
@Suite("Edit from the command line", .timeLimit(.minutes(30)))
struct EditCommandLineTests {
    let binary = Paths.binary

    /// A byte-order mark, a preamble, CRLF, quoting no writer would choose, a multi-line
    /// cell, a short record and a last record with no line end.
    static let header = "\u{FEFF}# exported today\r\nid,name,note\r\n"
    static let records = ["1,\"Ann\",\"a, b\"\r\n", "2,Bob,plain\r\n", "3,Cy,\"two\r\nlines\"\r\n", "4,\"D\"\"i\"\r\n", "5,Ed,last"]
    static var original: String { header + records.joined() }

    func file(_ text: String, in dir: URL, name: String = "t.csv") throws -> URL {
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    @Test("--in-place on a read-only file, or in a read-only folder, is one line and exit 1, and nothing changes")
    func readOnlyTargets() throws {
        // Root writes read-only files all the same: as root the command runs as nobody.
        let asUser: [String]
        if getuid() == 0 {
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return }
            asUser = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        } else {
            asUser = []
        }
        let dir = try Paths.temporaryDirectory()
        defer {
            chmod(dir.appendingPathComponent("shut").path, 0o755)
            try? FileManager.default.removeItem(at: dir)
        }
        let readOnly = try file(Self.original, in: dir, name: "ro.csv")
        let shut = dir.appendingPathComponent("shut")
        try FileManager.default.createDirectory(at: shut, withIntermediateDirectories: true)
        let inShut = try file(Self.original, in: shut)
        if getuid() == 0 {
            for path in [dir.path, shut.path, readOnly.path, inShut.path] { chown(path, 65534, 65534) }
        }
        // (A temporary folder that other users cannot reach leaves nothing to try this in.)
        guard try run(asUser + ["/usr/bin/test", "-w", dir.path]).status == 0 else { return }
        chmod(readOnly.path, 0o444)
        chmod(shut.path, 0o555)
        let file = try run(asUser + [binary, "--set", "1:name=x", "--in-place", readOnly.path])
        #expect(file.status == 1)
        #expect(file.stderr == "csvfreeze: not saved: \(readOnly.path) is read-only\n")
        let folder = try run(asUser + [binary, "--delete-row", "2", "--in-place", inShut.path])
        #expect(folder.status == 1)
        #expect(folder.stderr == "csvfreeze: not saved: cannot write in \(shut.path): Permission denied\n")
        for url in [readOnly, inShut] { #expect(try Data(contentsOf: url) == Data(Self.original.utf8)) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: shut.path) == ["t.csv"], "nothing left beside it")
    }

    @Test("--set and --delete-row with --output csv: untouched records are the input's bytes, the edited one in the file's dialect")
    func outputKeepsBytes() throws {
        let dir = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try file(Self.original, in: dir)
        let result = try run([binary, "--set", "2:name=Bo, \"B\"", "--set", "4:3=grown\nline", "--delete-row", "3",
                              "--output", "csv", input.path])
        #expect(result.status == 0, "\(result.stderr)")
        let r = Self.records
        let expected = Self.header + r[0] + "2,\"Bo, \"\"B\"\"\",plain\r\n" + "4,\"D\"\"i\",\"grown\nline\"\r\n" + r[4]
        #expect(result.text == expected, "\(result.text.debugDescription)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        #expect(try Data(contentsOf: input) == Data(Self.original.utf8), "the input is not written")
    }

    @Test("a later --set on the same cell wins; a column by name or number; other formats and --filter see the edits")
    func namesNumbersAndPasses() throws {
        let dir = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try file("id,name\n1,a\n2,b\n3,c\n", in: dir)
        let json = try run([binary, "--set", "1:name=x", "--set", "1:2=y", "--set", "3:NAME=z", "--output", "jsonl", input.path])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.text == "{\"id\":\"1\",\"name\":\"y\"}\n{\"id\":\"2\",\"name\":\"b\"}\n{\"id\":\"3\",\"name\":\"z\"}\n", "\(json.text)")
        let filtered = try run([binary, "--set", "2:name=found", "--filter-column", "name=^found$", "--output", "csv", input.path])
        #expect(filtered.status == 0, "\(filtered.stderr)")
        #expect(filtered.text == "id,name\n2,found\n", "\(filtered.text)")
        // Standard input is edited and written too.
        let piped = try run([binary, "--delete-row", "1", "--output", "csv"], stdin: Data("id,name\n1,a\n2,b\n".utf8))
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.text == "id,name\n2,b\n", "\(piped.text)")
    }

    @Test("--in-place saves over the file as Ctrl-S: through a link, permissions kept, no file left beside it, --diff lists the edits")
    func inPlace() throws {
        let dir = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try file(Self.original, in: dir)
        let before = try file(Self.original, in: dir, name: "before.csv")
        chmod(input.path, 0o640)
        let link = dir.appendingPathComponent("link.csv")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "t.csv")
        let result = try run([binary, "--set", "2:name=Zed", "--delete-row", "1", "--in-place", link.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty && result.stderr.isEmpty, "\(result.text) \(result.stderr)")
        let r = Self.records
        let expected = Self.header + "2,Zed,plain\r\n" + r[2] + r[3] + r[4]
        let saved = try Data(contentsOf: input)
        #expect(saved == Data(expected.utf8), "\(String(decoding: saved, as: UTF8.self).debugDescription)")
        var info = stat()
        #expect(lstat(link.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK, "the link stays a link")
        #expect(stat(input.path, &info) == 0 && info.st_mode & 0o777 == 0o640, "the file keeps its permissions")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["before.csv", "link.csv", "t.csv"])
        let diff = try run([binary, "--diff", input.path, before.path, "--output", "csv"])
        let changes = diff.text.split(separator: "\n").filter { $0.hasPrefix("->") || $0.hasPrefix("---") || $0.hasPrefix("+++") }
        #expect(diff.status == 1 && changes.count == 2, "\(diff.text) \(diff.stderr)")
        // A value already there changes nothing: the file is not written.
        var old = stat()
        stat(input.path, &old)
        let same = try run([binary, "--set", "1:name=Zed", "--in-place", input.path])
        #expect(same.status == 0, "\(same.stderr)")
        var now = stat()
        stat(input.path, &now)
        #expect(now.st_ino == old.st_ino, "not replaced")
    }

    @Test("a file with another hard link is not saved over (a rename would split them): one line, exit 1, the file as it was")
    func hardLinked() throws {
        let dir = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try file(Self.original, in: dir)
        #expect(link(input.path, dir.appendingPathComponent("other.csv").path) == 0)
        let result = try run([binary, "--set", "1:name=x", "--in-place", input.path])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("csvfreeze: not saved") && result.stderr.contains("hard links"), "\(result.stderr)")
        #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(result.stderr)")
        #expect(try Data(contentsOf: input) == Data(Self.original.utf8))
    }

    @Test("mistakes are one line: 64 for options, 65 for a row or column the file lacks")
    func mistakes() throws {
        let dir = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try file(Self.original, in: dir)
        let cases: [([String], Int32, String)] = [
            (["--set", "9:name=x", "--output", "csv", input.path], 65, "there is no row 9"),
            (["--delete-row", "6", "--output", "csv", input.path], 65, "there is no row 6"),
            (["--set", "1:price=x", "--output", "csv", input.path], 65, "no column 'price'"),
            (["--set", "1:name=x", "--in-place", "--output", "csv", input.path], 64, "give one of them"),
            (["--set", "1:name=x", "--in-place", "-"], 64, "standard input"),
            (["--set", "x:name=1", "--output", "csv", input.path], 64, "give ROW:COLUMN=VALUE"),
            (["--set", "1:name", "--output", "csv", input.path], 64, "give ROW:COLUMN=VALUE"),
            (["--delete-row", "0", "--output", "csv", input.path], 64, "a data row number from 1"),
            (["--set", "1:name=x", input.path], 64, "give --output FORMAT"),
            (["--in-place", input.path], 64, "give --set, --delete-row or --recover"),
            (["--recover", input.path, "--output", "csv"], 64, "give the one FILE"),
            (["--set", "1:name=x", "--in-place", "--sort", "name", input.path], 64, "not with --filter"),
            (["--set", "1:name=x", "--output", "csv", input.path, input.path], 64, "edit one FILE"),
        ]
        for (arguments, status, text) in cases {
            let result = try run([binary] + arguments, stdin: Data(Self.original.utf8))
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("csvfreeze: ") && result.stderr.contains(text), "\(arguments): \(result.stderr)")
            #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(arguments)")
        }
        #expect(try Data(contentsOf: input) == Data(Self.original.utf8))
    }
}
