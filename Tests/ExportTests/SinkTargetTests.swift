#if canImport(Glibc)
import Glibc
#endif
import Export
import Foundation
import Testing

/// Writing over an existing file keeps what the user made of it: the link that names it,
/// its other names, its permissions.
@Suite("Export: what a save replaces", .timeLimit(.minutes(30)))
struct SinkTargetTests {
    let directory: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sink-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func write(_ text: String, to path: String) throws -> Bool {
        let sink = try ExportSink(replacing: path)
        sink.write(Array(text.utf8))
        return sink.commit()
    }

    func contents(_ path: String) -> String { String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self) }

    func status(_ path: String) -> stat {
        var info = stat()
        lstat(path, &info)
        return info
    }

    @Test("a symbolic link stays a link and the file it names gets the bytes")
    func symbolicLink() throws {
        let real = directory + "/real.csv", link = directory + "/link.csv"
        try "old\n".write(toFile: real, atomically: false, encoding: .utf8)
        #expect(symlink(real, link) == 0)
        #expect(try write("new\n", to: link))
        #expect(status(link).st_mode & S_IFMT == S_IFLNK)
        #expect(contents(real) == "new\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["link.csv", "real.csv"])
    }

    @Test("a replaced file keeps its permissions; a new file gets the umask's")
    func permissions() throws {
        let path = directory + "/private.csv"
        try "old\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(chmod(path, 0o600) == 0)
        #expect(try write("new\n", to: path))
        #expect(status(path).st_mode & 0o7777 == 0o600)
        #expect(contents(path) == "new\n")

        let fresh = directory + "/fresh.csv"
        let mask = umask(0)
        umask(mask)
        #expect(try write("x\n", to: fresh))
        #expect(status(fresh).st_mode & 0o7777 == 0o666 & ~mask)
    }

    @Test("a file with another hard link is written in place, so both names see the new bytes")
    func hardLink() throws {
        let first = directory + "/first.csv", second = directory + "/second.csv"
        try "old\n".write(toFile: first, atomically: false, encoding: .utf8)
        #expect(link(first, second) == 0)
        let inode = status(first).st_ino
        #expect(try write("new\n", to: first))
        #expect(status(first).st_ino == inode)
        #expect(contents(second) == "new\n")
    }

    @Test("a failed write leaves a regular file as it was and nothing beside it")
    func failedWriteLeavesFile() throws {
        let path = directory + "/kept.csv"
        try "old\n".write(toFile: path, atomically: false, encoding: .utf8)
        let sink = try ExportSink(replacing: path)
        sink.write(Array("partial".utf8))
        sink.discard()
        #expect(contents(path) == "old\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["kept.csv"])
    }
}
