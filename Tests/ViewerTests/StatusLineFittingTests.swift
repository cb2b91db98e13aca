import CellStore
import Foundation
import FreezeLayout
import Testing
@testable import Viewer

@Suite("Status line fitting", .timeLimit(.minutes(30)))
struct StatusLineFittingTests {
    init() { _ = utf8Locale }

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
        #expect(full.contains(withMessage ? "no column 999 (there are 60 columns)" : "line 1,713"), "\(full)")
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
        #expect(StatusLine.words("searching for oslo… 41%  (Esc cancels)", width: 24) == "searching for oslo… 41%")
        #expect(StatusLine.words("wrote 31,380 rows to /home/ann/reports/2024/sales-by-city.csv", width: 45)
                == "wrote 31,380 rows to …/2024/sales-by-city.csv", "the path keeps its end")
        #expect(StatusLine.words("no column 999 (there are 60 columns)", width: 20) == "no column 999")
        #expect(StatusLine.words("hid amount  (+ shows every column)", width: 30) == "hid amount")
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

@Suite("Status line fitting: one of several tables", .timeLimit(.minutes(30)))
struct SeveralTablesStatusTests {
    init() { _ = utf8Locale }

    @Test("one of several tables keeps its file's name and place: a long message gives way first, down to half the line")
    func keepsName() {
        var line = StatusLine(name: "/tmp/csvfreeze-changed-4A67E817-89F3-4914-B860-8AAAAAAAAAAA/a.csv 1/3", position: "row 1/3",
                              column: "col 1/2", columnName: "id", dialect: "comma",
                              right: "no other table can be shown: b.csv: no such file; c.csv: no such file")
        line.isMessage = true
        line.keptName = "a.csv 1/3"
        let fitted = line.fitted(to: 80)
        #expect(fitted.width <= 80)
        #expect(fitted.name == "…a.csv 1/3", "\(fitted.left)")
        #expect(fitted.position == "row 1/3")
        #expect(fitted.right?.hasPrefix("no other table can be shown: b.csv") == true, "\(fitted.right ?? "")")
        for width in 10...120 {
            let fitted = line.fitted(to: width)
            #expect(fitted.width <= width, "\(width)")
            if fitted.name != nil { #expect(fitted.name?.hasSuffix("a.csv 1/3") == true, "\(width): \(fitted.left)") }
            if width >= 62 { #expect(fitted.name?.hasSuffix("a.csv 1/3") == true && fitted.position == "row 1/3", "\(width): \(fitted.left)") }
        }
        line.keptName = nil
        #expect(line.fitted(to: 80).name == nil, "a table alone gives its name up first, as before")
    }
}

@Suite("Options that do not fit the screen", .timeLimit(.minutes(30)))
struct OversizedOptionTests {
    init() { _ = utf8Locale }

    @Test("-r 50 on an 8-line screen: half the grid keeps header rows, the others scroll above row 1 and are reachable")
    func manyHeaderRows() {
        var csv = ""
        for row in 1...60 { csv += "h\(row),x\n" }
        let subject = viewer(csv, width: 40, height: 8, options: .plain(headerRows: 50))
        let lines = subject.frame().lines
        #expect(lines[0].hasPrefix("  #│h1 ") && lines[2].hasPrefix("   │h3 "), "\(lines)")
        // The data shows at once, under the last header rows; the others are above it.
        #expect(lines[5].hasPrefix("   │h50 ") && lines[6].hasPrefix("  1│h51 "), "\(lines)")
        #expect(subject.message == "50 header rows do not fit on top: 47 scroll above row 1", "\(subject.message ?? "")")
        var seen = Set<String>()
        func look() {
            for line in subject.frame().lines.prefix(7) {
                if let cell = line.split(separator: "│").last?.split(separator: " ").first { seen.insert(String(cell)) }
            }
        }
        for _ in 0..<50 { subject.handle(.moveUp); look() }
        #expect(subject.cursorRow == 0)
        #expect(subject.frame().lines[3].hasPrefix("   │h4 "))
        subject.handle(.pageDown)
        subject.handle(.pageUp)
        subject.handle(.pageUp)
        look()
        for _ in 0..<12 { subject.handle(.moveDown); look() }
        for row in 1...60 { #expect(seen.contains("h\(row)"), "h\(row)") }
        #expect(subject.frame().lines[6].hasPrefix(" 10│h60 "))
    }
}

@Suite("Counts in words", .timeLimit(.minutes(30)))
struct PluralTests {
    @Test("one row, one column, one byte: singular nouns")
    func singular() {
        let subject = viewer("a,b\nx,y\n", width: 80, height: 8, options: .plain)
        subject.handle(.moveRight)
        subject.handle(.toggleFreeze)
        #expect(subject.message == "froze 1 row and 1 column (F again to unfreeze)")
        subject.goTo("5")
        #expect(subject.message == "there is 1 row")
        subject.goTo("#3")
        #expect(subject.message == "no column 3 (there are 2 columns)")
        subject.handle(key: .character("y"))
        #expect(subject.message == "copied the cell (1 byte) to the clipboard")
        subject.handle(key: .enter)
        guard case .inspector(let inspector) = subject.mode else { Issue.record("no inspector"); return }
        #expect(inspector.title.hasSuffix("1 byte, 1 character, 1 line"))
        #expect(subject.frame().lines.contains { $0.contains("line 1 of 1") })
    }
}
