import CellStore
import Foundation
import FreezeLayout
import Testing
@testable import Viewer

@Suite("Status line fitting")
struct StatusLineFittingTests {
    /// The numbers in a line (digits with their `,` and `.`), leaving out any cut with `…`.
    static func numbers(_ line: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: "[0-9][0-9,.]*[0-9]|[0-9]")
        let text = line as NSString
        return pattern.matches(in: line, range: NSRange(location: 0, length: text.length)).compactMap { match in
            let end = match.range.location + match.range.length
            if end < text.length && text.substring(with: NSRange(location: end, length: 1)) == "…" { return nil }
            return text.substring(with: match.range)
        }
    }

    /// A file of 60 columns and 3,000 rows with a quoting problem on line 1,713.
    static let csv: String = {
        var text = (1...60).map { "c\($0)" }.joined(separator: ",") + "\n"
        for row in 1...3000 {
            text += (1...60).map { row == 1712 && $0 == 3 ? "x\"y\" z" : "\($0)" }.joined(separator: ",") + "\n"
        }
        return text
    }()

    @Test("at every width, every number shown is whole: parts give way whole, by priority",
          arguments: [false, true])
    func wholeNumbers(withMessage: Bool) {
        let subject = viewer(Self.csv, width: 400, height: 10, options: .plain)
        subject.moveCursor(toRow: 1233, column: 24)
        func status() -> String {
            if withMessage { subject.handle(key: .character(":")); for c in "#999" { subject.handle(key: .character(c)) }; subject.handle(key: .enter) }
            return subject.frame().lines.last ?? ""
        }
        let full = status()
        let all = Set(Self.numbers(full))
        #expect(full.contains("row 1,234/3,000"))
        #expect(full.contains("col 25/60"))
        #expect(full.contains(withMessage ? "no column 999 (there are 60)" : "line 1,713"), "\(full)")
        var positionShown = 0
        for width in 10...120 {
            subject.handle(.resize(Size(width: width, height: 10)))
            let line = status()
            for number in Self.numbers(line) { #expect(all.contains(number), "width \(width): \(number) in \(line)") }
            if line.contains("row 1,234/3,000") { positionShown += 1 }
            if width >= 40 { #expect(line.contains("col 25/60") || line.contains(withMessage ? "no column 999" : "line 1,713")) }
        }
        #expect(positionShown >= 105, "where the cursor is stays longest")
    }

    @Test("a message gives way by whole words, keeping half the line before the column goes")
    func words() {
        #expect(StatusLine.words("row 1,234 is past the 5,000 rows read", width: 20) == "row 1,234 is past…")
        #expect(StatusLine.words("▕██  ▏ 41%  3.2 MB/s  2 s left", width: 22) == "▕██  ▏ 41%  3.2 MB/s…")
        #expect(StatusLine.words("unbreakable", width: 5) == "")
        let line = StatusLine(name: "data.csv", position: "row 1/3", column: "col 25/60", columnName: "amount",
                              dialect: "comma", right: "line 3: text after a closing quote (+2 more)")
        #expect(line.fitted(to: 40).left == " row 1/3  col 25/60")
        #expect(line.fitted(to: 40).right == "line 3: text after…")
        #expect(line.fitted(to: 30).left == " row 1/3")
        #expect(line.fitted(to: 30).right == "line 3: text after…")
        #expect(line.fitted(to: 70).left == " row 1/3  col 25/60")
        #expect(line.fitted(to: 80).left == " row 1/3  col 25/60 amount  comma")
        #expect(line.fitted(to: 200) == line)
    }
}
