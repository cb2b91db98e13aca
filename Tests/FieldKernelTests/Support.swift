import CellStore
import Foundation
@testable import Insight
import TestSupport
import Testing

/// An input of the differential suite: its bytes and the dialect they are read with.
struct KernelCase: CustomTestStringConvertible, Sendable {
    var name: String
    var bytes: [UInt8]
    var dialect: Dialect = Dialect()

    var testDescription: String { name }
}

/// Where the shared test data lives in the repository.
enum Fixtures {
    static let conformance = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/conformance")
}

/// `bytes` with the comma and the double quote replaced by `delimiter` and `quote`.
func translated(_ bytes: [UInt8], delimiter: UInt8, quote: UInt8) -> [UInt8] {
    bytes.map { $0 == UInt8(ascii: ",") ? delimiter : ($0 == UInt8(ascii: "\"") ? quote : $0) }
}

/// Well-quoted CSV with a few faults spliced in (a stray quote, text after a closing
/// quote, a lone CR): long well-formed stretches for the bulk scan, and places where it
/// must give the bytes back to the rules.
func mostlyWellQuotedCSV(records: Int, faults: Int, seed: UInt64) -> [UInt8] {
    var bytes = wellQuotedCSV(records: records, seed: seed)
    var generator = SeededGenerator(seed: seed &* 7 &+ 3)
    let splices: [[UInt8]] = [Array("\"".utf8), Array("x\"".utf8), Array("\"a\"b".utf8), Array("\r".utf8), Array("\"\"".utf8)]
    for _ in 0..<faults where !bytes.isEmpty {
        let at = Int(generator.next() % UInt64(bytes.count))
        bytes.insert(contentsOf: splices[Int(generator.next() % UInt64(splices.count))], at: at)
    }
    return bytes
}

/// Random bytes for `--quote none`: quotes, tabs, line ends and odd bytes.
func unquotedBytes(count: Int, seed: UInt64) -> [UInt8] {
    var generator = SeededGenerator(seed: seed)
    let alphabet: [UInt8] = [0x22, 0x22, 0x09, 0x09, 0x0A, 0x0D, 0x61, 0x27, 0xFF, 0x00, 0xFE, 0x2C]
    return (0..<count).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
}

/// A record as a visitor saw it: its field count and the values of the wanted columns
/// that are not empty.
struct SeenRecord: Equatable, CustomStringConvertible {
    var fields: Int
    var values: [Int: [UInt8]]

    var description: String {
        "\(fields) fields " + values.keys.sorted().map { "\($0)=\(String(decoding: values[$0]!, as: UTF8.self).debugDescription)" }
            .joined(separator: " ")
    }
}

/// The same records from the plain rules, for the columns `wanted` (nil: all).
func expectedRecords(_ records: [[[UInt8]]], wanted: Set<Int>?) -> [SeenRecord] {
    records.map { record in
        var values: [Int: [UInt8]] = [:]
        for (column, value) in record.enumerated() where !value.isEmpty && (wanted?.contains(column) ?? true) {
            values[column] = value
        }
        return SeenRecord(fields: record.count, values: values)
    }
}

/// A visitor that keeps what the kernel hands over: the values of `wanted` columns (all
/// when nil), each record's fields and end, and every problem.
struct CollectingVisitor: FieldVisitor {
    let wanted: Set<Int>?
    let lastWantedColumn: Int
    var position: Int64 = 0
    var records: [SeenRecord] = []
    var ends: [Int64] = []
    var problems: [(FieldKernel.Problem, Int64)] = []
    private var current: [Int: [UInt8]] = [:]

    init(wanted: Set<Int>?) {
        self.wanted = wanted
        lastWantedColumn = wanted.map { $0.max() ?? -1 } ?? Int.max
    }

    func wants(_ column: Int) -> Bool { wanted?.contains(column) ?? true }

    mutating func cell(_ column: Int, _ bytes: UnsafeRawBufferPointer) {
        precondition(wants(column) && bytes.count > 0, "a piece of a column not wanted, or an empty piece")
        current[column, default: []].append(contentsOf: bytes)
    }

    mutating func recordEnded(at end: Int, terminator: UInt8, fields: Int) -> Bool {
        records.append(SeenRecord(fields: fields, values: current))
        if terminator != 0 { ends.append(position + Int64(end)) }
        current = [:]
        return true
    }

    mutating func lineFeedAfterCR(at end: Int) {
        ends.append(-(position + Int64(end)))   // negative: the LF of a CRLF
    }

    mutating func problem(_ kind: FieldKernel.Problem, at offset: Int64, index: Int) -> Bool {
        problems.append((kind, offset))
        return true
    }
}

/// Runs `visitor` over `bytes` fed in chunks of `chunk` bytes, and finishes.
func visit<Visitor: FieldVisitor>(_ bytes: [UInt8], dialect: Dialect, chunk: Int, bulk: FieldKernel.Bulk,
                                  _ visitor: inout Visitor, position: (inout Visitor, Int64) -> Void = { _, _ in }) {
    var kernel = FieldKernel(dialect: dialect, bulk: bulk)
    var index = 0
    while index < bytes.count {
        let end = bytes.count - index <= chunk ? bytes.count : index + chunk
        position(&visitor, Int64(index))
        bytes[index..<end].withUnsafeBytes { _ = kernel.scan($0, at: Int64(index), into: &visitor) }
        index = end
    }
    kernel.finish(into: &visitor)
}

/// Where each record starts, from the plain rules' boundaries.
func expectedStarts(_ boundaries: [(end: Int, fields: Int)], records: Int) -> [Int64] {
    var starts: [Int64] = [0]
    for boundary in boundaries {
        if boundary.fields > 0 { starts.append(Int64(boundary.end)) } else { starts[starts.count - 1] = Int64(boundary.end) }
    }
    return Array(starts.prefix(records))
}

/// Collects every cell a pass reads, in order, with its record.
struct CollectingSink: CellSink, Sendable {
    var cells: [[UInt8]] = []
    var records: [Int] = []
    var columns: [Int] = []

    mutating func cell(_ bytes: UnsafeRawBufferPointer, column: Int, record: Int) {
        cells.append(Array(bytes))
        records.append(record)
        columns.append(column)
    }

    /// A long value: its start, then its whole length as text (no input here has one).
    mutating func longCell(_ value: LongValue, column: Int, record: Int) {
        cells.append(value.prefix + Array("…\(value.length)".utf8))
        records.append(record)
        columns.append(column)
    }

    /// The cells in record order (each record's in column order), from cells handed over
    /// column by column a block of records at a time; nil when a column's records came
    /// out of order.
    var inRecordOrder: [[UInt8]]? {
        var last: [Int: Int] = [:]
        for (record, column) in zip(records, columns) {
            if let seen = last[column], seen >= record { return nil }
            last[column] = record
        }
        // A stable sort by record keeps each record's cells in the order their columns came.
        return cells.indices.sorted { (records[$0], $0) < (records[$1], $1) }.map { cells[$0] }
    }
}

/// The end of the chunk of `chunk` bytes from `index` in `count` bytes.
func chunkEnd(_ index: Int, _ chunk: Int, _ count: Int) -> Int {
    count - index <= chunk ? count : index + chunk
}

/// A visitor that notes where each field of each record starts (through the kernel's
/// field-end hook, with every column wanted).
struct FieldStarts: FieldVisitor {
    var position: Int64 = 0
    var records: [[Int]] = []
    private var current: [Int] = [0]

    var lastWantedColumn: Int { Int.max }
    func wants(_ column: Int) -> Bool { false }
    mutating func cell(_ column: Int, _ bytes: UnsafeRawBufferPointer) {}

    mutating func fieldEnded(_ column: Int, at index: Int) -> Bool {
        precondition(column == current.count - 1, "fields end in order")
        current.append(Int(position) + index + 1)
        return true
    }

    mutating func recordEnded(at end: Int, terminator: UInt8, fields: Int) -> Bool {
        precondition(fields == current.count, "every field's end was told")
        records.append(current)
        current = [Int(position) + end]
        return true
    }

    mutating func lineFeedAfterCR(at end: Int) {
        current = [Int(position) + end]
    }

    mutating func problem(_ kind: FieldKernel.Problem, at offset: Int64, index: Int) -> Bool { true }
}
