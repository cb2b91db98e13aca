import CellStore
import Foundation
import FreezeLayout
import Testing
@testable import Viewer

@Suite("A message's file name on the status line", .timeLimit(.minutes(30)))
struct MessageNameTests {
    /// Widths as the program measures them: under a UTF-8 locale (it sets one at start).
    init() { _ = utf8Locale }

    static let path = "/tmp/t/a_very_long_directory_name_for_testing/another_long_subdirectory_here/saved_output_file2.csv"

    @Test("the written file's name stays whole: the directory gives way from its start, the position before the name",
          arguments: [40, 45, 50, 60, 80, 120])
    func nameKept(width: Int) {
        let subject = viewer(sampleCSV(rows: 5), width: width, height: 6)
        subject.say("wrote 5 rows to \(Self.path)")
        let status = subject.frame().lines.last ?? ""
        #expect(status.contains("saved_output_file2.csv"), "width \(width): \(status)")
        #expect(status.contains("wrote 5 rows"), "width \(width): \(status)")
        if width >= 120 { #expect(status.contains("row 1/5"), "room for both: \(status)") }
    }

    @Test("a message with a path gives way by parts the same way in `StatusLine`")
    func fitting() {
        let line = StatusLine(name: "t.csv", position: "row 1/5", column: "col 1/3", columnName: "a", dialect: "comma",
                              right: "wrote 5 rows to \(Self.path)", isMessage: true)
        for width in 30...140 {
            let fitted = line.fitted(to: width)
            #expect(fitted.width <= width, "width \(width): \(fitted)")
            if width >= 38 { #expect(fitted.right?.contains("saved_output_file2.csv") == true, "width \(width): \(fitted)") }
        }
        let at45 = line.fitted(to: 45)
        #expect(at45.right?.hasPrefix("wrote 5 rows to …") == true && at45.right?.hasSuffix("/saved_output_file2.csv") == true,
                "the directory gives way from its start: \(at45)")
        #expect(at45.position == nil && at45.column == nil, "the position gives way before the name: \(at45)")
        // Loading progress is not a message: the position still stays longest.
        var progress = line
        progress.isMessage = false
        #expect(progress.fitted(to: 45).position == "row 1/5")
    }

    @Test("the count and its noun stay: a name too long for the rest gives way from its start")
    func countKept() {
        let name = "rows-FB755F4C-58B6-4D65-8B6B-BD9CD3778243.csv"
        let line = StatusLine(name: "t.csv", position: "row 1/5", right: "wrote 3 rows to /tmp/\(name)", isMessage: true)
        for width in 30...70 {
            let fitted = line.fitted(to: width)
            #expect(fitted.width <= width, "width \(width): \(fitted)")
            #expect(fitted.right?.hasPrefix("wrote 3 rows ") == true, "width \(width): \(fitted)")
            #expect(fitted.right?.hasSuffix(".csv") == true, "the name's end stays: width \(width): \(fitted)")
        }
        #expect(line.fitted(to: 70).right == "wrote 3 rows to /tmp/\(name)")
    }

    @Test("parts with control characters are measured as they are drawn: nothing runs together")
    func controls() {
        let line = StatusLine(name: "t.csv", position: "row 1/3", column: "col 1/2", columnName: "n\u{0}a\u{0}m",
                              dialect: "comma", right: "binary data? (NUL bytes, shown as ␀)")
        for width in 20...90 {
            let fitted = line.fitted(to: width)
            var frame = Frame(size: Size(width: width, height: 1))
            let end = frame.write(fitted.left, x: 0, y: 0, style: .status)
            if let right = fitted.right {
                // The right part starts after the left one ends, with a blank between.
                #expect(end < width - DisplayWidth.of(right) - 1, "width \(width): \(fitted.left)|\(right)")
            }
        }
    }
}
