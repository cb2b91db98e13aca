import CellStore
import Foundation
import Table
@testable import Diff

/// A table as cells, written out as delimited text in several ways.
struct TextTable {
    var header: [String]
    var records: [[String]]

    /// The text of the table: quoted where needed (or always), with `delimiter` and `ending`.
    func text(delimiter: Character = ",", quoteAll: Bool = false, ending: String = "\n") -> String {
        func field(_ value: String) -> String {
            let needs = quoteAll || value.isEmpty && false || value.contains(delimiter) || value.contains("\"")
                || value.contains("\n") || value.contains("\r")
            return needs ? "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : value
        }
        var text = ""
        for record in [header] + records {
            // A record of one empty cell would be a blank line: quote it so it stays a record.
            text += record == [""] ? "\"\"" : record.map(field).joined(separator: String(delimiter))
            text += ending
        }
        return text
    }
}

/// Random tables and random edits of them, some hostile: quotes, delimiters and line breaks
/// in cells, empty cells, short records, repeated records and values, non-ASCII text.
struct TableMaker {
    var generator: SeededGenerator

    init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

    mutating func random(_ count: Int) -> Int { Int(generator.next() % UInt64(max(1, count))) }

    mutating func value(hostile: Bool) -> String {
        let plain = ["a", "b", "c", "10", "2", "x y", "Zürich", "北京", ""]
        let nasty = ["\"q\"", "a,b", "line\nbreak", "cr\rhere", "->", "a->b", "NULL", "...", " lead", "tail ", "\u{0}x", ";", "\t"]
        if hostile && random(4) == 0 { return nasty[random(nasty.count)] }
        return plain[random(plain.count)] + (random(3) == 0 ? String(random(50)) : "")
    }

    mutating func table(columns: Int, records: Int, hostile: Bool) -> TextTable {
        var table = TextTable(header: (0..<columns).map { "c\($0)" }, records: [])
        for _ in 0..<records {
            var record = (0..<columns).map { _ in value(hostile: hostile) }
            if hostile && random(10) == 0 { record.removeLast(random(columns)) }
            if record.isEmpty { record = [""] }
            table.records.append(record)
        }
        if hostile && random(3) == 0 && !table.records.isEmpty {
            // Repeated records.
            for _ in 0..<random(4) { table.records.insert(table.records[random(table.records.count)], at: random(table.records.count)) }
        }
        return table
    }

    /// `table` with random records changed, inserted, deleted; sometimes a column added,
    /// removed or moved.
    mutating func edit(_ table: TextTable, edits: Int, hostile: Bool, columns: Bool) -> TextTable {
        var result = table
        for _ in 0..<edits {
            let count = result.records.count
            switch random(3) {
            case 0 where count > 0:
                let row = random(count)
                var record = result.records[row]
                let column = random(max(1, record.count))
                while record.count <= column { record.append("") }
                record[column] = value(hostile: hostile) + "*"
                result.records[row] = record
            case 1:
                result.records.insert((0..<result.header.count).map { _ in value(hostile: hostile) }, at: random(count + 1))
            default:
                if count > 0 { result.records.remove(at: random(count)) }
            }
        }
        if columns && random(2) == 0 {
            switch random(3) {
            case 0:
                result.header.append("added")
                for index in result.records.indices { result.records[index].append(random(2) == 0 ? "" : value(hostile: false)) }
            case 1 where result.header.count > 2:
                let column = 1 + random(result.header.count - 1)
                result.header.remove(at: column)
                for index in result.records.indices where result.records[index].count > column { result.records[index].remove(at: column) }
            default:
                let column = random(result.header.count)
                let name = result.header.remove(at: column)
                result.header.insert(name, at: 0)
                for index in result.records.indices {
                    var record = result.records[index]
                    while record.count < result.header.count { record.append("") }
                    let value = record.remove(at: column)
                    record.insert(value, at: 0)
                    result.records[index] = record
                }
            }
        }
        return result
    }
}

/// Diffs written plainly, slowly, on parsed cells: what the engine is held to.
enum ReferenceDiff {
    /// The records of `text` as cells (header first).
    static func records(_ text: String, delimiter: UInt8 = UInt8(ascii: ",")) throws -> [[String]] {
        try RecordParser.records(in: Array(text.utf8), dialect: Dialect(delimiter: delimiter)).map(\.strings)
    }

    /// For each data record, its values in the common columns (old order): what decides
    /// whether two records are the same.
    static func values(_ records: [[String]], columns: DiffColumns, isOld: Bool) -> [[String]] {
        records.dropFirst().map { record in
            columns.common.map { place in
                let column = columns.columns[place]
                let index = (isOld ? column.old : column.new) ?? 0
                return index < record.count ? record[index] : ""
            }
        }
    }

    /// The length of a longest common subsequence of two sequences (dynamic programming).
    static func commonLength(_ a: [[String]], _ b: [[String]]) -> Int {
        var previous = [Int](repeating: 0, count: b.count + 1)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var current = [Int](repeating: 0, count: b.count + 1)
            for j in 1...max(1, b.count) where !b.isEmpty {
                current[j] = a[i - 1] == b[j - 1] ? previous[j - 1] + 1 : max(previous[j], current[j - 1])
            }
            previous = current
        }
        return previous[b.count]
    }

    /// The fewest rows a positional diff can show (the man page's minimal): records
    /// changed, added or removed, an old and a new record between the same two equal ones
    /// being one changed record; the edit distance with unit costs (dynamic programming).
    static func fewestChanges<T: Equatable>(_ a: [T], _ b: [T]) -> Int {
        var previous = Array(0...b.count)
        for i in 0..<a.count {
            var current = [i + 1] + [Int](repeating: 0, count: b.count)
            for j in 0..<b.count {
                current[j + 1] = a[i] == b[j] ? previous[j] : 1 + min(previous[j], previous[j + 1], current[j])
            }
            previous = current
        }
        return previous[b.count]
    }

    /// The order daff gives a diff's rows (its `Alignment.toOrder3`): the new table's
    /// records in its order, each removed record put just before the first record the new
    /// table kept that came after it in the old table. `pairs` are (old, new) indexes, nil
    /// for a side without the record; returns them in that order.
    static func daffOrder(_ pairs: [(old: Int?, new: Int?)]) -> [(old: Int?, new: Int?)] {
        let remotes = pairs.filter { $0.new != nil }.sorted { $0.new! < $1.new! }
        let locals = pairs.filter { $0.new == nil }.sorted { $0.old! < $1.old! }
        var result: [(old: Int?, new: Int?)] = []
        var local = 0
        for remote in remotes {
            while local < locals.count, let kept = remote.old, kept > locals[local].old! {
                result.append(locals[local])
                local += 1
            }
            result.append(remote)
        }
        return result + locals[local...]
    }

    /// The length of a longest strictly increasing subsequence (dynamic programming).
    static func longestIncreasing(_ values: [Int]) -> Int {
        var tails: [Int] = []
        for value in values {
            if let index = tails.firstIndex(where: { $0 >= value }) { tails[index] = value } else { tails.append(value) }
        }
        return tails.count
    }

    /// A keyed diff: per key (in order of first appearance), records paired in order.
    /// Returns (kind, old record index, new record index) for every pair and leftover, as a set.
    static func keyed(old: [[String]], new: [[String]], oldKey: [Int], newKey: [Int], oldValues: [[String]],
                      newValues: [[String]]) -> [String] {
        func key(_ record: [String], _ columns: [Int]) -> [String] { columns.map { $0 < record.count ? record[$0] : "" } }
        var newByKey: [[String]: [Int]] = [:]
        for (index, record) in new.dropFirst().enumerated() { newByKey[key(record, newKey), default: []].append(index) }
        var used = Set<Int>()
        var result: [String] = []
        var oldByKey: [[String]: [Int]] = [:]
        for (index, record) in old.dropFirst().enumerated() { oldByKey[key(record, oldKey), default: []].append(index) }
        for (k, olds) in oldByKey {
            let news = newByKey[k] ?? []
            for (position, o) in olds.enumerated() {
                if position < news.count {
                    let n = news[position]
                    used.insert(n)
                    result.append("\(oldValues[o] == newValues[n] ? "same" : "changed") \(o) \(n)")
                } else {
                    result.append("removed \(o)")
                }
            }
        }
        for n in 0..<(new.count - 1) where !used.contains(n) { result.append("added \(n)") }
        return result.sorted()
    }
}

extension DiffRow {
    /// Data record indexes (after one header row).
    var oldIndex: Int? { old.map { $0.record - 1 } }
    var newIndex: Int? { new.map { $0.record - 1 } }
}

/// Every row of a diff of two texts held in memory.
func diffRows(old: String, new: String, key: [String] = [], context: Int = 0, spacing: Int64 = 64,
              oldDelimiter: UInt8 = UInt8(ascii: ","), newDelimiter: UInt8 = UInt8(ascii: ","),
              memoryBudget: Int = 48 << 20) throws -> (rows: [DiffRow], diff: TableDiff) {
    let oldStore = CellStore(bytes: Array(old.utf8), name: "old", delimiter: oldDelimiter, checkpointSpacing: spacing)
    let newStore = CellStore(bytes: Array(new.utf8), name: "new", delimiter: newDelimiter, checkpointSpacing: spacing)
    guard let oldInput = DiffInput(store: oldStore, headerRows: 1), let newInput = DiffInput(store: newStore, headerRows: 1) else {
        throw DiffError.failed("no input")
    }
    let diff = try TableDiff(old: oldInput, new: newInput, options: TableDiff.Options(key: key, context: context, memoryBudget: memoryBudget))
    var rows: [DiffRow] = []
    while let batch = diff.next(batch: 37) { rows += batch }
    diff.wait()
    return (rows, diff)
}
