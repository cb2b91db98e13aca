import Testing
@testable import CellStore

/// Computed numbers as text: the shortest that reads back as the same Double, in the form
/// Swift writes, whatever the locale.
@Suite("Computed numbers as text", .timeLimit(.minutes(30)))
struct NumberTextTests {
    static let cases: [(Double, String)] = [
        (0.2, "0.2"), (0.1 + 0.2, "0.30000000000000004"), (-0.30000000000000004, "-0.30000000000000004"),
        (1.0, "1.0"), (2.5, "2.5"), (0.0, "0.0"), (-0.0, "-0.0"), (1.0 / 3, "0.3333333333333333"),
        (12345678.12345679, "12345678.12345679"), (1e-05, "1e-05"), (1.5e+20, "1.5e+20"),
        (123456789012345.0, "123456789012345.0"), (3.14159, "3.14159"),
    ]

    @Test("the shortest text that reads back the same", arguments: cases)
    func shortest(value: Double, text: String) {
        #expect(CellValue.text(of: value) == text)
    }

    @Test("what is written reads back as the same Double")
    func readsBack() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let value = Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF) * (Bool.random(using: &generator) ? 1 : -1)
            let text = CellValue.text(of: value)
            #expect(Double(text) == value, "\(value): \(text)")
        }
    }
}
