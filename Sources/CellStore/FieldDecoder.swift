/// Decodes a field's value from its raw bytes with the parser's rules, from a point inside
/// it: quoted (doubled quotes made single, a closing quote followed by text that joins the
/// value up to the next delimiter or line end), or unquoted (up to the next delimiter or
/// line end; quotes are literal). The field kernel reads the bytes; this is its visitor.
struct FieldDecoder {
    typealias Mode = FieldKernel.FieldPosition

    private var kernel: FieldKernel

    /// Where in the field the decoder is.
    var mode: Mode { kernel.fieldPosition }

    init(mode: Mode, delimiter: UInt8, quote: UInt8) {
        kernel = FieldKernel(dialect: Dialect(delimiter: delimiter, quote: quote), insideFieldAt: mode)
    }

    /// The kernel's visitor: the field's pieces, until the field ends.
    private struct Visitor: FieldVisitor {
        var output: [UInt8]?
        /// Where the field ended (the delimiter or the terminator), once it has.
        var end: Int?

        var lastWantedColumn: Int { 0 }
        func wants(_ column: Int) -> Bool { output != nil }

        mutating func cell(_ column: Int, _ bytes: UnsafeRawBufferPointer) {
            output?.append(contentsOf: bytes)
        }

        mutating func fieldEnded(_ column: Int, at index: Int) -> Bool {
            end = index
            return false
        }

        mutating func recordEnded(at end: Int, terminator: UInt8, fields: Int) -> Bool {
            self.end = end - 1
            return false
        }

        mutating func lineFeedAfterCR(at end: Int) {}
        mutating func problem(_ kind: FieldKernel.Problem, at offset: Int64, index: Int) -> Bool { true }
    }

    /// Decodes from the start of `bytes`, appending value bytes to `output`; returns how
    /// many raw bytes it used and whether the field ended (the byte that ends it, a
    /// delimiter or a line end, is not used). `atEnd`: the input ends here (an open quote
    /// ends too).
    mutating func decode(_ bytes: UnsafeBufferPointer<UInt8>, atEnd: Bool, into output: inout [UInt8]) -> (used: Int, ended: Bool) {
        var kept: [UInt8]? = output
        output = []
        defer { output = kept ?? [] }
        return decode(bytes, atEnd: atEnd, into: &kept)
    }

    /// As above; with `output` nil the value is only skipped.
    mutating func decode(_ bytes: UnsafeBufferPointer<UInt8>, atEnd: Bool, into output: inout [UInt8]?) -> (used: Int, ended: Bool) {
        guard !bytes.isEmpty else { return (0, atEnd) }
        var visitor = Visitor(output: output)
        output = nil   // the visitor holds the only reference, so appending never copies
        kernel.scan(UnsafeRawBufferPointer(bytes), into: &visitor)
        output = visitor.output
        if let end = visitor.end { return (end, true) }
        return (bytes.count, false)
    }
}
