import Testing
@testable import CellStore

/// Computed numbers as people read them: no digit of a Double's noise, the form Swift writes.
@Suite("Computed numbers as text", .timeLimit(.minutes(1)))
struct NumberTextTests {
    static let cases: [(Double, String)] = [
        ((0.1 + 0.2 + 0.3) / 3, "0.2"), (0.19999999999999998, "0.2"), (0.09999999999999998, "0.1"),
        (0.1 + 0.2, "0.3"), (0.6000000000000001, "0.6"), (-0.30000000000000004, "-0.3"),
        (1.0, "1.0"), (2.5, "2.5"), (0.0, "0.0"), (-0.0, "-0.0"), (1.0 / 3, "0.333333333333333"),
        (12345678.123456789, "12345678.1234568"), (0.9999999999999999, "1.0"), (99999.99999999999, "100000.0"),
        (1e-05, "1e-05"), (1.2345678901234567e-05, "1.23456789012346e-05"), (1.5e+20, "1.5e+20"),
        (1.2345678901234567e+16, "1.23456789012346e+16"), (9.999999999999999e+22, "1e+23"),
        (123456789012345.0, "123456789012345.0"), (3.14159, "3.14159"),
    ]

    @Test("the shortest text, to the 15 digits a Double keeps", arguments: cases)
    func shortest(value: Double, text: String) {
        #expect(CellValue.text(of: value) == text)
    }

    @Test("what is written reads back within a Double's 15 digits of the value")
    func readsBack() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let value = Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF) * (Bool.random(using: &generator) ? 1 : -1)
            let text = CellValue.text(of: value)
            let back = Double(text)
            #expect(back != nil, "\(value): \(text)")
            if let back, value != 0 {
                #expect(abs(back - value) <= abs(value) * 1e-14, "\(value): \(text)")
            }
        }
    }
}
