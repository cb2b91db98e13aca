import CellStore
@testable import Export
import Foundation
import Scan
import Table
import Testing
import TestSupport

/// The journal and the save of edits against a reference writer, over generated hostile
/// inputs: random cell edits (values with the delimiter, quotes, CR, LF, NUL, invalid
/// UTF-8, spaces), records added and deleted, some undone, then saved. The reference
/// keeps its own list of records (cut by the plain rules, a byte at a time), applies the
/// same edits, and writes each untouched record as its input bytes and each edited or
/// added one quoted where it must be: the saved file must be exactly that, byte for byte.
@Suite("Edits: journal and save against a reference writer", .timeLimit(.minutes(30)))
struct EditSaveDifferentialTests {
    /// A record of the reference: an input record (its bytes, cells, whether changed or
    /// deleted) or an added one.
    struct Entry {
        var original: Int?
        var cells: [[UInt8]]
        var isChanged = false
        var isDeleted = false
        var addedAfterUnterminated = false
        var anchor = 0
    }

    static let values: [[UInt8]] = [",", ";", "\t", "\"", "\"\"", "'", "\r", "\n", "\r\n", " ", "  x  ", "#", "sep=", "é中",
                                    "Oslo", "", "a\"b", "line1\nline2"].map { Array($0.utf8) } + [[0], [0xFF], [0xC3], [0x41, 0, 0x42]]

    static func value(_ generator: inout SeededGenerator) -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0..<(1 + Int(generator.next() % 3)) { bytes += values[Int(generator.next() % UInt64(values.count))] }
        return bytes
    }

    /// The reference's writing of a record: cells quoted when they hold the delimiter, the
    /// quote or a line break, quotes doubled; one empty cell is `""`; the table's first
    /// record quotes a first cell that starts `#` or `sep=`.
    static func encoded(_ cells: [[UInt8]], delimiter: UInt8, isFirst: Bool) -> [UInt8] {
        if cells.count == 1 && cells[0].isEmpty { return [0x22, 0x22] }
        var bytes: [UInt8] = []
        for (index, cell) in cells.enumerated() {
            if index > 0 { bytes.append(delimiter) }
            var quoted = cell.contains(delimiter) || cell.contains(0x22) || cell.contains(0x0A) || cell.contains(0x0D)
            if isFirst && index == 0 {
                quoted = quoted || cell.first == UInt8(ascii: "#") || String(decoding: cell.prefix(4), as: UTF8.self).lowercased() == "sep="
            }
            if !quoted {
                bytes += cell
                continue
            }
            bytes.append(0x22)
            for byte in cell {
                if byte == 0x22 { bytes.append(0x22) }
                bytes.append(byte)
            }
            bytes.append(0x22)
        }
        return bytes
    }

    /// Each record's bytes by the plain rules, its line end included.
    static func spans(_ data: [UInt8], delimiter: UInt8) -> [Range<Int>] {
        var spans: [Range<Int>] = []
        var start = 0
        for boundary in referenceBoundaries(data, delimiter: delimiter) {
            if boundary.fields == 0, let last = spans.last {
                spans[spans.count - 1] = last.lowerBound..<boundary.end   // the LF of a CRLF
            } else {
                spans.append(start..<boundary.end)
            }
            start = boundary.end
        }
        if start < data.count { spans.append(start..<data.count) }
        return spans
    }

    /// The file the reference writes for `entries`.
    static func reference(_ entries: [Entry], input: [UInt8], dataStart: Int, spans: [Range<Int>], delimiter: UInt8,
                          lineEnding: [UInt8]) -> [UInt8] {
        var written = Array(input[..<dataStart])
        // A lone CR met by a LF would read as one CRLF: the CR's line end becomes a CRLF.
        var output: [UInt8] {
            get { written }
            set {
                if newValue.count > written.count, written.last == 0x0D, newValue[written.count] == 0x0A {
                    written = written + [0x0A] + newValue[written.count...]
                } else {
                    written = newValue
                }
            }
        }
        let data = Array(input[dataStart...])
        let ends = Set(referenceBoundaries(data, delimiter: delimiter).map(\.end))
        let addedFirst = entries.contains { $0.original == nil && $0.anchor == 0 }
        var index = 0
        while index < entries.count {
            let entry = entries[index]
            if let original = entry.original {
                if !entry.isDeleted {
                    if entry.isChanged {
                        let span = data[spans[original]]
                        // A last record cut by the input's end has none (a LF there may be in quotes).
                        let terminated = ends.contains(spans[original].upperBound)
                        let terminator: [UInt8] = !terminated ? [] : span.suffix(2) == [0x0D, 0x0A] ? [0x0D, 0x0A]
                            : (span.last == 0x0A || span.last == 0x0D) ? [span.last!] : []
                        output += encoded(entry.cells, delimiter: delimiter, isFirst: original == 0 && !addedFirst) + terminator
                    } else {
                        output += data[spans[original]]
                    }
                }
                index += 1
                continue
            }
            // A run of added records before the same input record.
            var run: [Entry] = []
            while index < entries.count, entries[index].original == nil, run.isEmpty || entries[index].anchor == run[0].anchor {
                run.append(entries[index])
                index += 1
            }
            let previousDeleted = entries.last { $0.original == run[0].anchor - 1 }?.isDeleted ?? false
            for (position, added) in run.enumerated() {
                let bytes = encoded(added.cells, delimiter: delimiter, isFirst: added.anchor == 0 && position == 0)
                if added.addedAfterUnterminated && previousDeleted {
                    output += (position > 0 ? lineEnding : []) + bytes
                } else if added.addedAfterUnterminated {
                    output += lineEnding + bytes
                } else {
                    output += bytes + lineEnding
                }
            }
        }
        return written
    }

    /// A random input in one of the dialects, hostile or well quoted, with or without a
    /// byte-order mark, a `#` preamble and a last line end.
    static func input(_ generator: inout SeededGenerator, delimiter: UInt8) -> [UInt8] {
        var bytes = DifferentialTests.input(&generator)
        if delimiter != 0x2C {
            // The same shapes in another dialect: commas become the delimiter (and the
            // delimiter's own bytes become commas, data).
            bytes = bytes.map { $0 == 0x2C ? delimiter : $0 == delimiter ? 0x2C : $0 }
        }
        return bytes
    }

    @Test("random edits, undos and saves: untouched records byte for byte, edited ones as the reference writes them")
    func differential() throws {
        var generator = SeededGenerator(seed: UInt64(ProcessInfo.processInfo.environment["CSVFREEZE_EDIT_SEED"] ?? "") ?? 34)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("edit-diff-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let keeps = ProcessInfo.processInfo.environment["CSVFREEZE_EDIT_KEEP"] != nil
        defer { if !keeps { try? FileManager.default.removeItem(at: directory) } }
        let rounds = Int(ProcessInfo.processInfo.environment["CSVFREEZE_EDIT_ROUNDS"] ?? "") ?? 60
        var checked = 0
        for round in 0..<rounds {
            let delimiter: UInt8 = [0x2C, 0x09, 0x3B][round % 3]
            let bytes = Self.input(&generator, delimiter: delimiter)
            let path = directory.appendingPathComponent("in-\(round).csv").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let store = try CellStore.open(InputSpec(path: path, delimiter: delimiter, preamble: round % 4 == 0 ? .lines(0) : .detect), checkpointSpacing: round % 2 == 0 ? 64 << 10 : 16)
            while !store.isComplete { usleep(1000) }
            let dialect = try #require(store.dialect)
            let dataStart = Int(try #require(store.recordReader(patched: false)).checkpoints.first?.offset ?? 0)
            let data = Array(bytes[dataStart...])
            let spans = Self.spans(data, delimiter: delimiter)
            let cells = referenceRecords(data, delimiter: delimiter)
            try #require(spans.count == cells.count, "round \(round): spans and records")
            try #require(store.rowCount == cells.count, "round \(round): the store's records")
            var entries = cells.enumerated().map { Entry(original: $0.offset, cells: $0.element) }
            let edits = EditedRows(store: store)
            var done: [EditStep] = []
            for _ in 0..<(1 + Int(generator.next() % 12)) {
                guard !entries.isEmpty else { break }
                let position = Int(generator.next() % UInt64(entries.count))
                let step: EditStep?
                switch generator.next() % 10 {
                case 0...5:
                    if entries[position].isDeleted { continue }
                    let column = Int(generator.next() % 5)
                    let value = Self.value(&generator)
                    step = try edits.settingCell(record: position, column: column, to: value)
                    var row = entries[position].cells
                    while row.count <= column { row.append([]) }
                    row[column] = value
                    if step != nil {
                        entries[position].cells = row
                        if entries[position].original != nil {
                            entries[position].isChanged = row != cells[entries[position].original!]
                        }
                    }
                case 6, 7:
                    let after = generator.next() % 2 == 0
                    let width = max(1, store.columnCount, edits.columnCount)
                    let made = Result { () throws(EditRefusal) -> EditStep in
                        try edits.addingRecord(near: position, after: after, columns: width, headerRows: 0)
                    }
                    if case .failure(let refusal) = made, refusal.description.contains("never closed") {
                        // Refused after a last record in quotes never closed: it would join it.
                        #expect(position == entries.count - 1 && after)
                        continue
                    }
                    step = try made.get()
                    var added = Entry(original: nil, cells: Array(repeating: [], count: max(1, edits.columnCount)))
                    if case .add(_, let point, _)? = step {
                        added.anchor = point.anchor
                        added.addedAfterUnterminated = point.afterUnterminated
                    }
                    added.cells = Array(repeating: [], count: width)
                    entries.insert(added, at: after ? position + 1 : position)
                default:
                    if entries[position].isDeleted { continue }
                    step = try edits.deletingRecord(position)
                    if entries[position].original == nil { entries.remove(at: position) } else { entries[position].isDeleted = true }
                }
                if let step {
                    edits.apply(step)
                    done.append(step)
                }
            }
            // Undo and redo the last step: the journal comes back to the same state.
            if let last = done.last {
                let before = edits.journal
                edits.apply(last, backwards: true)
                edits.apply(last)
                #expect(edits.journal == before, "round \(round): undo then redo")
            }
            // Every record of the edited table, as the screen reads it.
            for (index, entry) in entries.enumerated() {
                let row = try #require(edits.row(index), "round \(round): row \(index)")
                #expect((0..<row.count).map { Array(row.field($0)) } == entry.cells, "round \(round): row \(index)")
            }
            // What a pass reads: the edited values, deleted records still rows.
            if let reader = store.recordReader() {
                var read: [[[UInt8]]] = []
                reader.forEachRecord(from: 0) { _, row in
                    read.append((0..<row.count).map { Array(row.field($0)) })
                    return true
                }
                #expect(read == entries.map(\.cells), "round \(round): the patched bytes")
                if keeps && read != entries.map(\.cells) { print("ROUND \(round) patched \(directory.path) \(entries.map { $0.original.map(String.init) ?? "+\($0.anchor)\($0.addedAfterUnterminated ? "u" : "")" })") }
            }
            // The save.
            let saved = directory.appendingPathComponent("out-\(round).csv").path
            let sink = try ExportSink(replacing: saved)
            let (source, end, file) = store.inputHandle.bytes
            let failure = EditedCopy.write(try edits.makePatch(keepingDeleted: false), source: source, end: end, file: file,
                                           to: sink, compression: nil, control: ScanControl())
            #expect(failure == nil)
            #expect(sink.commit(durably: true))
            let got = [UInt8](FileManager.default.contents(atPath: saved) ?? Data())
            let expected = Self.reference(entries, input: bytes, dataStart: dataStart, spans: spans, delimiter: delimiter,
                                          lineEnding: dialect.lineEnding)
            #expect(got == expected, "round \(round): saved \(String(decoding: got, as: UTF8.self).debugDescription) expected \(String(decoding: expected, as: UTF8.self).debugDescription)")
            // Read back, the saved file holds exactly the records kept.
            let kept = entries.filter { !$0.isDeleted }.map(\.cells)
            #expect(referenceRecords(Array(got[dataStart...]), delimiter: delimiter) == kept || kept.isEmpty,
                    "round \(round): read back")
            if keeps && referenceRecords(Array(got[dataStart...]), delimiter: delimiter) != kept && !kept.isEmpty {
                print("ROUND \(round) readback \(directory.path) \(referenceRecords(Array(got[dataStart...]), delimiter: delimiter)) \(kept) \(entries.map { $0.original.map { String($0) + ($0 == -1 ? "" : "") } ?? "+\($0.anchor)\($0.addedAfterUnterminated ? "u" : "")" }) \(entries.map(\.isDeleted))")
            }
            checked += 1
        }
        #expect(checked == rounds)
    }
}

@Suite("Edits: 100,000 of them", .timeLimit(.minutes(30)))
struct ManyEditsTests {
    @Test("100,000 cells edited are saved right, and one edit more joins them")
    func hundredThousand() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("edit-many-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let records = 200_000
        var text = "id,v\n"
        for index in 0..<records { text += "\(index),\"v\(index)\"\n" }
        let path = directory.appendingPathComponent("in.csv").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        // Checkpoints every 4 KiB: finding each record's bytes scans from the one before it,
        // which in a debug build is what the time would go to, not the journal.
        let store = try CellStore.open(InputSpec(path: path), checkpointSpacing: 4 << 10)
        while !store.isComplete { usleep(1000) }
        let edits = EditedRows(store: store)
        var steps: [EditStep] = []
        for index in stride(from: 1, through: records, by: 2) {
            if let step = try edits.settingCell(record: index, column: 1, to: Array("e,\(index)".utf8)) { steps.append(step) }
        }
        #expect(steps.count == 100_000)
        edits.apply(steps)
        #expect(edits.journal.count == 100_000)
        let one = try #require(try edits.settingCell(record: 2, column: 1, to: Array("x".utf8)))
        edits.apply(one)
        #expect(edits.journal.count == 100_001)
        let saved = directory.appendingPathComponent("out.csv").path
        let sink = try ExportSink(replacing: saved)
        let (source, end, file) = store.inputHandle.bytes
        #expect(EditedCopy.write(try edits.makePatch(keepingDeleted: false), source: source, end: end, file: file, to: sink,
                                 compression: nil, control: ScanControl()) == nil)
        #expect(sink.commit())
        var expected = "id,v\n"
        // Record r is data row r - 1: odd records were edited, record 2 (id 1) last.
        for id in 0..<records {
            let value = id == 1 ? "x" : id % 2 == 0 ? "\"e,\(id + 1)\"" : "\"v\(id)\""
            expected += "\(id),\(value)\n"
        }
        let got = try String(contentsOfFile: saved, encoding: .utf8)
        #expect(got == expected)
    }
}
