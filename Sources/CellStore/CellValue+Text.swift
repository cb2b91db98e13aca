extension CellValue {
    /// A computed number (a mean, a deviation, an SQL real) as text: Swift's shortest form
    /// that reads back as the same Double, so nothing a number holds is lost or invented. A
    /// whole number keeps `.0` (`1.0`, so it still reads as a real), and the form stays
    /// Swift's (`1e-05`, `1.5e+20`, `inf`, `nan`). A mean reads `0.2` for 0.1, 0.2 and 0.3
    /// because it is computed correctly rounded (`Moments.mean`), not because digits are cut.
    /// Pure text work on Swift's digits, so the locale's decimal comma never leaks in.
    package static func text(of value: Double) -> String {
        "\(value)"
    }
}
