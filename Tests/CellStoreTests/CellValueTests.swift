import Foundation
import Testing
@testable import CellStore

/// The one reading of a cell as a number or an instant.
@Suite(.timeLimit(.minutes(30))) struct CellValueTests {
    func number(_ text: String) -> CellNumber? { CellValue.number(Array(text.utf8)[...]) }
    func instant(_ text: String) -> Double? { CellValue.instant(Array(text.utf8)[...]) }

    @Test func formsOfNumbers() {
        for (text, value) in [("1,000", 1000.0), ("-1,234.5", -1234.5), ("12%", 0.12), ("$5", 5), ("-€3.20", -3.2), ("$-3", -3),
                              ("£1,000,000", 1_000_000), ("¥7", 7), ("2,500%", 25), (" 1 ", 1), ("+.5", 0.5), ("5.", 5),
                              ("1E-3", 0.001), ("0", 0), ("-0", 0), ("1e400", .infinity), ("-1e400", -.infinity), ("1e-400", 0),
                              ("12.5%", 0.125), ("1e2%", 1)] {
            #expect(number(text)?.value == value, "\(text)")
        }
        for text in ["007", "01,234", "00", "1e", ".", "+", "-", "1.2.3", "0x10", "inf", "NaN", "", " ", "1,00", "12,3456",
                     ",100", "1234,567", "$", "%", "$x", "1,000,00", "1 2", "12a", "--1", "€", "2024-01-01"] {
            #expect(number(text) == nil, "\(text)")
        }
        #expect(number("42")?.isInteger == true && number("$1,200")?.isInteger == true)
        #expect(number("4.2")?.isInteger == false && number("12%")?.isInteger == false && number("1e3")?.isInteger == false)
        #expect(number("-1,234")?.small == -1234 && number("1234567890123456789")?.small == nil)
    }

    @Test func valuesAreCorrectlyRounded() {
        var generator = SeededGenerator(seed: 91)
        func digits(_ count: Int) -> String { String((0..<count).map { _ in Character(String(generator.next() % 10)) }) }
        for _ in 0..<20_000 {
            let length = 1 + Int(generator.next() % 24)
            var text = length == 1 ? digits(1) : String(1 + generator.next() % 9) + digits(length - 1)
            if generator.next() % 2 == 0 { text += "." + digits(Int(generator.next() % 24)) }
            if generator.next() % 3 == 0 { text += "e" + (generator.next() % 2 == 0 ? "-" : "") + String(generator.next() % 340) }
            #expect(number(text)?.value == Double(text), "\(text)")
            if !text.contains("e") { #expect(number(text + "%")?.value == Double(text + "e-2"), "\(text)%") }
        }
    }

    @Test func significantDigits() {
        func significand(_ text: String) -> ([UInt8], Int)? {
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBytes { cell in CellValue.number(cell).map { CellValue.significand(of: $0, in: cell) } }
        }
        #expect(significand("1,230.4500")! == (Array("123045".utf8), 4))
        #expect(significand("0.0012")! == (Array("12".utf8), -2))
        #expect(significand("12%")! == (Array("12".utf8), 0))
        #expect(significand("0.000")! == ([], 0))
    }

    @Test func instants() {
        #expect(instant("1970-01-02") == 86400)
        #expect(instant("2024-01-01T01:00:00+01:00") == instant("2024-01-01"))
        #expect(instant("2024-01-01 10:30") == instant("2024-01-01T10:30:00Z"))
        #expect(instant("2024-01-01T10:30+0530") == instant("2024-01-01T05:00Z"))
        #expect(instant("2024-01-01T10:30-02") == instant("2024-01-01T12:30Z"))
        #expect(instant("2024-01-01T00:00:00.5Z")! - instant("2024-01-01")! == 0.5)
        #expect(instant(" 2024-01-01 ") == instant("2024-01-01"))
        // Days a month does not have are no dates (never another day): leap years by the rule.
        #expect(instant("2024-02-29") == instant("2024-02-28")! + 86400)
        #expect(instant("2000-02-29") != nil && instant("2024-04-30T23:59Z") != nil && instant("2024-12-31") != nil)
        for text in ["2024-13-01", "2024-01-32", "2024-02-30", "2024-02-31", "2023-02-29", "1900-02-29", "2100-02-29",
                     "2024-04-31", "2024-06-31", "2024-09-31", "2024-11-31T10:00Z", "2024-00-10", "2024-01-00", "2024-01-01T24:00", "2024-01-01T10:60", "2024-01-01T10:00+02:", "2024-01-01T",
                     "2024-01-01T10:00:00.", "2024-01-01T10:00+24", "24-01-01", "2024/01/01", "2024-01-01x"] {
            #expect(instant(text) == nil, "\(text)")
        }
    }
}

@Suite("Records named in messages", .timeLimit(.minutes(30)))
struct RecordPlaceTests {
    @Test("a data row by the number the margin shows, a header record as the header")
    func names() {
        #expect(RecordPlace.name(0, headerRows: 1) == "the header")
        #expect(RecordPlace.name(1, headerRows: 1) == "row 1")
        #expect(RecordPlace.name(6, headerRows: 1) == "row 6")
        #expect(RecordPlace.name(0, headerRows: 0) == "row 1")
        #expect(RecordPlace.name(1, headerRows: 3) == "header row 2")
        #expect(RecordPlace.name(3, headerRows: 3) == "row 1")
    }
}
