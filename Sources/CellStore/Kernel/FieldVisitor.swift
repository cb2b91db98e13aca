/// What the field kernel tells as it reads: pieces of the values a visitor wants, record
/// ends and quoting problems.
///
/// The kernel is generic over its visitor and inlined into each caller, so every visitor
/// gets a loop of its own with these calls compiled in (a struct visitor costs no call).
/// Offsets are in the buffer the kernel was given, unless named as the input's.
public protocol FieldVisitor {
    /// The last column whose value is wanted in a record; -1 when only record ends matter.
    /// Past it the kernel skips to the record's end in bulk.
    var lastWantedColumn: Int { get }
    /// Whether the value of `column` is wanted (asked only up to `lastWantedColumn`).
    func wants(_ column: Int) -> Bool
    /// A piece of the value of `column` in the record being read. A value is its pieces in
    /// order: quotes removed, a doubled quote one quote, text after a closing quote and a
    /// quote inside an unquoted field kept. Empty pieces are not handed over; a value with
    /// none is empty.
    mutating func cell(_ column: Int, _ bytes: UnsafeRawBufferPointer)
    /// Field `column` (one up to `lastWantedColumn`) ended at the delimiter at `index`.
    /// Returns false to stop the scan there (past the delimiter). Most visitors need not
    /// know: by default, nothing happens.
    mutating func fieldEnded(_ column: Int, at index: Int) -> Bool
    /// A record ended with `fields` fields: `end` is just past its terminator (a CR or a
    /// LF). At the end of the input (`finish`) `terminator` is 0 and `end` is 0. Returns
    /// false to stop the scan right there.
    mutating func recordEnded(at end: Int, terminator: UInt8, fields: Int) -> Bool
    /// The LF of a CRLF, ending just before `end`: it ends no record.
    mutating func lineFeedAfterCR(at end: Int)
    /// A quoting problem at byte `offset` of the input (`index` in the buffer; -1 from
    /// `finish`). The kernel reads on by the rules unless this returns false.
    mutating func problem(_ kind: FieldKernel.Problem, at offset: Int64, index: Int) -> Bool
}

extension FieldVisitor {
    @inlinable
    public mutating func fieldEnded(_ column: Int, at index: Int) -> Bool { true }
}
