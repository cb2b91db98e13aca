import CellStore
import Foundation
import Testing
@testable import Diff

/// Checks that `rows` is an alignment of every old and every new record in order, that
/// same rows pair equal records and changed rows unequal ones with exactly the columns
/// that differ.
func checkAlignment(_ rows: [DiffRow], old: [[String]], new: [[String]], columns: DiffColumns, ordered: Bool,
                    sourceLocation: SourceLocation = #_sourceLocation) {
    let oldValues = ReferenceDiff.values(old, columns: columns, isOld: true)
    let newValues = ReferenceDiff.values(new, columns: columns, isOld: false)
    var oldSeen: [Int] = [], newSeen: [Int] = []
    for row in rows {
        if let o = row.oldIndex { oldSeen.append(o) }
        if let n = row.newIndex { newSeen.append(n) }
        switch row.kind {
        case .same, .moved:
            #expect(oldValues[row.oldIndex!] == newValues[row.newIndex!], "same rows differ: \(row)", sourceLocation: sourceLocation)
        case .changed:
            let o = old[row.oldIndex! + 1], n = new[row.newIndex! + 1]
            let expected = columns.columns.indices.filter { place in
                let column = columns.columns[place]
                guard let oc = column.old, let nc = column.new else { return false }
                return (oc < o.count ? o[oc] : "") != (nc < n.count ? n[nc] : "")
            }
            #expect(row.changedColumns == expected, sourceLocation: sourceLocation)
            #expect(!expected.isEmpty, sourceLocation: sourceLocation)
        case .added: #expect(row.old == nil && row.new != nil, sourceLocation: sourceLocation)
        case .removed: #expect(row.new == nil && row.old != nil, sourceLocation: sourceLocation)
        }
    }
    if ordered {
        #expect(oldSeen == Array(0..<(old.count - 1)), "old records out of order or missing", sourceLocation: sourceLocation)
        #expect(newSeen == Array(0..<(new.count - 1)), "new records out of order or missing", sourceLocation: sourceLocation)
    } else {
        #expect(oldSeen.sorted() == Array(0..<(old.count - 1)), sourceLocation: sourceLocation)
        #expect(newSeen.sorted() == Array(0..<(new.count - 1)), sourceLocation: sourceLocation)
    }
}

@Suite("Diff against a plain reference", .timeLimit(.minutes(30)))
struct DiffReferenceTests {
    @Test("by position: every record once, in order; as few rows changed, added or removed as can be",
          arguments: [false, true], [1, 2, 3])
    func positional(hostile: Bool, seed: UInt64) throws {
        var maker = TableMaker(seed: seed * 31 + (hostile ? 7 : 0))
        for round in 0..<25 {
            let old = maker.table(columns: 1 + maker.random(5), records: maker.random(60), hostile: hostile)
            let new = maker.edit(old, edits: maker.random(12), hostile: hostile, columns: round % 3 == 0)
            let oldText = old.text(), newText = new.text(delimiter: round % 2 == 0 ? "," : ";", quoteAll: round % 4 == 1,
                                                         ending: round % 5 == 0 ? "\r\n" : "\n")
            let (rows, diff) = try diffRows(old: oldText, new: newText, spacing: Int64(16 + maker.random(200)),
                                            newDelimiter: round % 2 == 0 ? UInt8(ascii: ",") : UInt8(ascii: ";"))
            let oldRecords = try ReferenceDiff.records(oldText)
            let newRecords = try ReferenceDiff.records(newText, delimiter: round % 2 == 0 ? UInt8(ascii: ",") : UInt8(ascii: ";"))
            checkAlignment(rows, old: oldRecords, new: newRecords, columns: diff.columns, ordered: true)
            let fewest = ReferenceDiff.fewestChanges(ReferenceDiff.values(oldRecords, columns: diff.columns, isOld: true),
                                                     ReferenceDiff.values(newRecords, columns: diff.columns, isOld: false))
            #expect(rows.filter { $0.kind != .same }.count == fewest, "round \(round): not minimal\n\(oldText)\n---\n\(newText)")
            #expect(diff.statistics.approximateFrom == nil)
            let statistics = diff.statistics
            #expect(statistics.same + statistics.changed + statistics.removed == oldRecords.count - 1)
            #expect(statistics.same + statistics.changed + statistics.added == newRecords.count - 1)
        }
    }

    @Test("by key: each key's records paired in order, the rest added or removed; duplicates counted",
          arguments: [false, true], [1, 2, 3])
    func keyed(hostile: Bool, seed: UInt64) throws {
        var maker = TableMaker(seed: seed * 17 + (hostile ? 3 : 0))
        for round in 0..<25 {
            let old = maker.table(columns: 2 + maker.random(4), records: maker.random(60), hostile: hostile)
            let new = maker.edit(old, edits: maker.random(12), hostile: hostile, columns: false)
            let oldText = old.text(), newText = new.text(quoteAll: round % 3 == 0)
            let key = round % 2 == 0 ? ["c0"] : ["c1", "c0"]
            // A small budget spills runs to temporary files.
            let (rows, diff) = try diffRows(old: oldText, new: newText, key: key, spacing: Int64(16 + maker.random(200)),
                                            memoryBudget: round % 4 == 0 ? 1 : 48 << 20)
            let oldRecords = try ReferenceDiff.records(oldText), newRecords = try ReferenceDiff.records(newText)
            checkAlignment(rows, old: oldRecords, new: newRecords, columns: diff.columns, ordered: false)
            let keyColumns = key.map { Int($0.dropFirst())! }
            let expected = ReferenceDiff.keyed(old: oldRecords, new: newRecords, oldKey: keyColumns, newKey: keyColumns,
                                               oldValues: ReferenceDiff.values(oldRecords, columns: diff.columns, isOld: true),
                                               newValues: ReferenceDiff.values(newRecords, columns: diff.columns, isOld: false))
            let found = rows.map { row -> String in
                switch row.kind {
                case .same, .moved, .changed: return "\(row.kind == .changed ? "changed" : "same") \(row.oldIndex!) \(row.newIndex!)"
                case .added: return "added \(row.newIndex!)"
                case .removed: return "removed \(row.oldIndex!)"
                }
            }.sorted()
            #expect(found == expected, "round \(round)\n\(oldText)\n---\n\(newText)")
            // In the new table's order, removed records where the old one had them, as daff.
            let pairs = rows.map { (old: $0.oldIndex, new: $0.newIndex) }
            let ordered = ReferenceDiff.daffOrder(pairs)
            #expect(pairs.map { "\($0.old ?? -1) \($0.new ?? -1)" } == ordered.map { "\($0.old ?? -1) \($0.new ?? -1)" },
                    "round \(round): not in daff's order\n\(oldText)\n---\n\(newText)")
            func duplicates(_ records: [[String]]) -> Int {
                let keys = records.dropFirst().map { record in keyColumns.map { $0 < record.count ? record[$0] : "" } }
                return keys.count - Set(keys).count
            }
            #expect(diff.statistics.duplicateKeys == [duplicates(oldRecords), duplicates(newRecords)])
        }
    }

    @Test("by position, a record changed among repeated ones is one changed record")
    func repeatedRecords() throws {
        let (rows, diff) = try diffRows(old: "v\na\n1\n1\n1\n", new: "v\na\n1\nX\n1\n")
        #expect(rows.map(\.kind) == [.same, .same, .changed, .same])
        #expect(diff.statistics.changed == 1 && diff.statistics.added == 0 && diff.statistics.removed == 0)
    }

    @Test("keyed rows come in the new file's order, a removed record before the first kept one that followed it, moved ones marked")
    func keyOrder() throws {
        let old = "id,v\n10,a\n9,b\n100,c\nx,d\n7,e\n"
        let new = "id,v\n100,c\n9,B\nx,d\n11,e\n"
        let (rows, _) = try diffRows(old: old, new: new, key: ["id"], context: 5)
        let ids = rows.map { row in (row.newRow ?? row.oldRow)?.string(0) ?? "?" }
        // 9 and x keep their order, 100 moved before them.
        #expect(rows.map(\.kind) == [.removed, .moved, .changed, .same, .added, .removed])
        #expect(ids == ["10", "100", "9", "x", "11", "7"])
    }

    @Test("by key with records moved: the records kept in place are a longest run in the old order, the others moved",
          arguments: [1, 2, 3])
    func moves(seed: UInt64) throws {
        var maker = TableMaker(seed: seed * 13)
        for round in 0..<25 {
            var old = maker.table(columns: 3, records: 5 + maker.random(60), hostile: seed == 3)
            for index in old.records.indices { old.records[index][0] = "k\(index)" }
            var new = maker.edit(old, edits: maker.random(8), hostile: false, columns: false)
            for index in new.records.indices where !new.records[index][0].hasPrefix("k") { new.records[index][0] = "n\(index)" }
            for _ in 0..<maker.random(6) where new.records.count > 1 {
                let record = new.records.remove(at: maker.random(new.records.count))
                new.records.insert(record, at: maker.random(new.records.count + 1))
            }
            let oldText = old.text(), newText = new.text()
            let (rows, diff) = try diffRows(old: oldText, new: newText, key: ["c0"], memoryBudget: round % 3 == 0 ? 1 : 48 << 20)
            let oldRecords = try ReferenceDiff.records(oldText), newRecords = try ReferenceDiff.records(newText)
            checkAlignment(rows, old: oldRecords, new: newRecords, columns: diff.columns, ordered: false)
            let context = "round \(round)\n\(oldText)\n---\n\(newText)"
            // The records called the same keep the old order: daff patch places the others.
            let kept = rows.filter { $0.kind == .same }.map { $0.oldIndex! }
            #expect(kept == kept.sorted(), "\(context)")
            // As few moved as can be: at most the records outside a longest increasing run.
            let matched = rows.filter { $0.old != nil && $0.new != nil }.map { $0.oldIndex! }
            let moved = rows.filter { $0.kind == .moved }.count
            #expect(moved <= matched.count - ReferenceDiff.longestIncreasing(matched), "\(context)")
            #expect(diff.statistics.moved == moved)
            let pairs = rows.map { (old: $0.oldIndex, new: $0.newIndex) }
            #expect(pairs.map { "\($0.old ?? -1) \($0.new ?? -1)" } == ReferenceDiff.daffOrder(pairs).map { "\($0.old ?? -1) \($0.new ?? -1)" },
                    "\(context)")
        }
    }

    @Test("the records kept in order are a longest increasing run, in any order fed; past the limit still an increasing run",
          arguments: [0, 1, 2, 3, 4])
    func keptOrder(shape: Int) throws {
        var generator = SeededGenerator(seed: UInt64(shape + 40))
        for round in 0..<30 {
            let count = 1 + Int(generator.next() % 3_000)
            var places = Array(0..<count)
            switch shape {
            case 0: for index in places.indices.reversed() { places.swapAt(index, Int(generator.next() % UInt64(index + 1))) }
            case 1:
                // Much as it was: a few records taken elsewhere.
                for _ in 0..<Int(generator.next() % 20) {
                    let place = places.remove(at: Int(generator.next() % UInt64(count)))
                    places.insert(place, at: Int(generator.next() % UInt64(count)))
                }
            case 2: places.reverse()
            case 3: places = places.filter { $0 % 2 == 0 } + places.filter { $0 % 2 == 1 }
            default: places = places.map { $0 * 3 }.filter { _ in generator.next() % 4 != 0 }
            }
            for limit in [1 << 20, 16] {
                var order = try KeptOrder(limit: limit)
                for place in places { try order.add(place) }
                try order.finish()
                let kept = places.indices.filter { order.isKept($0, place: places[$0]) }.map { places[$0] }
                #expect(kept == kept.sorted(), "round \(round) limit \(limit)")
                if limit > count { #expect(kept.count == ReferenceDiff.longestIncreasing(places), "round \(round)") }
            }
        }
    }

    @Test("a keyed diff spilled at every pass (the sides' runs, the rows put in order) gives the rows one in memory gives")
    func keyedSpilled() throws {
        var generator = SeededGenerator(seed: 21)
        var ids = Array(0..<3_000)
        func shuffle() { for index in ids.indices.reversed() { ids.swapAt(index, Int(generator.next() % UInt64(index + 1))) } }
        shuffle()
        let old = "id,v\n" + ids.map { "\($0),v\($0)\n" }.joined()
        shuffle()
        let new = "id,v\n" + ids.filter { $0 % 97 != 5 }.map { "\($0),\($0 % 89 == 1 ? "w" : "v")\($0)\n" }.joined() + "5000,x\n"
        func described(_ rows: [DiffRow]) -> [String] { rows.map { "\($0.kind) \($0.oldIndex ?? -1) \($0.newIndex ?? -1)" } }
        let (inMemory, _) = try diffRows(old: old, new: new, key: ["id"])
        let (spilled, diff) = try diffRows(old: old, new: new, key: ["id"], memoryBudget: 1)
        #expect(described(spilled) == described(inMemory))
        #expect(spilled.map(\.newIndex).compactMap { $0 } == Array(0..<(new.split(separator: "\n").count - 1)))
        #expect(diff.statistics.removed == 31 && diff.statistics.changed == 34 && diff.statistics.added == 1)
    }

    @Test("context: same rows next to a difference carry their records, others do not")
    func context() throws {
        let old = "a\n" + (1...20).map { "\($0)\n" }.joined()
        let new = old.replacingOccurrences(of: "\n10\n", with: "\nten\n")
        let (rows, _) = try diffRows(old: old, new: new, context: 2)
        let read = rows.filter { $0.oldRow != nil }.map { $0.oldRow!.string(0) }
        #expect(read == ["8", "9", "10", "11", "12"])
        #expect(rows.count == 20)
    }

    @Test("columns are matched by name: added, removed and moved ones, none counted as a change")
    func columns() throws {
        let columns = DiffColumns(old: ["id", "name", "age", "zip"], new: ["id", "age", "name", "city"])
        #expect(columns.columns.map(\.name) == ["id", "age", "zip", "name", "city"] || columns.columns.map(\.name) == ["id", "age", "name", "zip", "city"])
        #expect(columns.columns.first { $0.name == "name" }?.status == .moved)
        #expect(columns.columns.first { $0.name == "zip" }?.status == .removed)
        #expect(columns.columns.first { $0.name == "city" }?.status == .added)
        let (rows, _) = try diffRows(old: "id,name,age\n1,Ann,30\n2,Bob,40\n", new: "age,id,name,city\n30,1,Ann,x\n41,2,Bob,\n")
        #expect(rows.map(\.kind) == [.same, .changed])
        #expect(rows[0].hasNewColumnValues && !rows[1].hasNewColumnValues)
    }
}

@Suite("Record hashing", .timeLimit(.minutes(30)))
struct RecordHashTests {
    /// Each record's hash from parsed cells, as the hasher combines them.
    func expectedHashes(_ bytes: [UInt8], dialect: Dialect, columns: Int) throws -> [UInt64] {
        try RecordParser.records(in: bytes, dialect: dialect).map { row in
            var hash: UInt64 = 0x27D4_EB2F_1656_67C5
            for column in 0..<columns {
                var cell = StreamHash()
                let field = Array(row.field(column))
                field.withUnsafeBufferPointer { if let base = $0.baseAddress { cell.add(base, $0.count) } }
                hash = StreamHash.combine(hash, field.isEmpty ? StreamHash.empty : cell.finish())
            }
            return hash
        }
    }

    @Test("the hasher reads records as the parser does, over hostile bytes in chunks of any size",
          arguments: [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09], [UInt8(ascii: "\""), Dialect.noQuote])
    func matchesParser(delimiter: UInt8, quote: UInt8) throws {
        let pieces: [[UInt8]] = ["a", "bc", ",", ";", "\t", "\"", "\"\"", "\n", "\r\n", "\r", " ", "é", "\"x,\ny\"", "\n\n"].map { Array($0.utf8) }
        var generator = SeededGenerator(seed: 11)
        let dialect = Dialect(delimiter: delimiter, quote: quote)
        for _ in 0..<400 {
            var bytes: [UInt8] = []
            let length = Int(generator.next() % 120)
            while bytes.count < length { bytes += pieces[Int(generator.next() % UInt64(pieces.count))] }
            let expected = try expectedHashes(bytes, dialect: dialect, columns: 6)
            let chunk = 1 + Int(generator.next() % 16)
            var hasher = RecordHasher(dialect: dialect, plan: RecordHasher.Plan(slots: Array(0..<6)), firstRecord: 0, at: 0)
            var found: [UInt64] = []
            var starts: [Int64] = []
            var index = 0
            while index < bytes.count {
                let end = min(bytes.count, index + chunk)
                _ = bytes[index..<end].withUnsafeBytes { buffer in
                    hasher.scan(buffer, at: Int64(index)) { _, start, hasher in
                        found.append(hasher.recordHash)
                        starts.append(start)
                        return true
                    }
                }
                index = end
            }
            hasher.finish { _, start, hasher in
                found.append(hasher.recordHash)
                starts.append(start)
                return true
            }
            #expect(found == expected, "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
            // Each record parsed alone from where the hasher says it starts is that record.
            let records = try RecordParser.records(in: bytes, dialect: dialect)
            for (number, start) in starts.enumerated() where number < records.count {
                let alone = try RecordParser.records(in: Array(bytes[Int(start)...]), dialect: dialect).first
                #expect(alone == records[number] || (records[number].strings == [""] && alone == nil))
            }
        }
    }

    @Test("the same values hash alike quoted or not, under any delimiter and line ending")
    func sameValues() throws {
        let (rows, _) = try diffRows(old: "a,b\n1,x\n2,\"y\"\n", new: "a;b\r\n\"1\";x\r\n2;y\r\n", newDelimiter: UInt8(ascii: ";"))
        #expect(rows.map(\.kind) == [.same, .same])
    }
}

@Suite("Alignment", .timeLimit(.minutes(30)))
struct AlignmentTests {
    @Test("unrelated inputs: the search stops at its bound and the alignment says it is not minimal")
    func unrelated() {
        var alignment = Alignment(old: (0..<5000).map { UInt64($0) }, new: (10_000..<15_000).map { UInt64($0) })
        alignment.maxEdits = 64
        alignment.window = 256
        var steps: [Alignment.Step] = []
        alignment.run { steps.append($0); return true }
        #expect(alignment.searchSteps < 5000 / 256 * 64 * 64 + 10_000)
        #expect(alignment.approximateFrom != nil)
        var oldCount = 0, newCount = 0
        for step in steps {
            if case .hunk(let o, let n) = step { oldCount += o.count; newCount += n.count }
        }
        #expect(oldCount == 5000 && newCount == 5000)
    }

    @Test("a block inserted whole, longer than the search's bound, is found by the anchor pass")
    func blockInsert() {
        let old = (0..<3000).map { UInt64($0) }
        var new = old
        new.insert(contentsOf: (100_000..<102_000).map { UInt64($0) }, at: 1000)
        var alignment = Alignment(old: old, new: new)
        alignment.maxEdits = 64
        var steps: [Alignment.Step] = []
        alignment.run { steps.append($0); return true }
        #expect(steps == [.same(old: 0, new: 0, count: 1000), .hunk(old: 1000..<1000, new: 1000..<3000),
                          .same(old: 1000, new: 3000, count: 2000)])
        #expect(alignment.approximateFrom == nil)
    }

    /// The rows an alignment shows: each hunk's old and new records pair as changed, the
    /// surplus added or removed; also checks every record is aligned once, in order.
    func shownChanges(_ old: [UInt64], _ new: [UInt64], maxEdits: Int = 1024,
                      sourceLocation: SourceLocation = #_sourceLocation) -> (changes: Int, minimal: Bool) {
        var alignment = Alignment(old: old, new: new)
        alignment.maxEdits = maxEdits
        var changes = 0, i = 0, j = 0
        alignment.run { step in
            switch step {
            case .same(let o, let n, let count):
                #expect(o == i && n == j && count > 0, sourceLocation: sourceLocation)
                for offset in 0..<count where o + offset < old.count && n + offset < new.count {
                    #expect(old[o + offset] == new[n + offset], sourceLocation: sourceLocation)
                }
                (i, j) = (o + count, n + count)
            case .hunk(let o, let n):
                #expect(o.lowerBound == i && n.lowerBound == j && (!o.isEmpty || !n.isEmpty), sourceLocation: sourceLocation)
                changes += max(o.count, n.count)
                (i, j) = (o.upperBound, n.upperBound)
            }
            return true
        }
        #expect(i == old.count && j == new.count, sourceLocation: sourceLocation)
        return (changes, alignment.approximateFrom == nil)
    }

    @Test("repeated records: as few rows changed, added or removed as the edit distance allows",
          arguments: [2, 3, 6], [false, true])
    func repeatedRecords(alphabet: Int, runs: Bool) {
        var generator = SeededGenerator(seed: UInt64(alphabet * 2 + (runs ? 1 : 0)))
        func random(_ bound: Int) -> Int { Int(generator.next() % UInt64(max(1, bound))) }
        for round in 0..<400 {
            // Few distinct records, often in runs of one value (a column of 1s, blank lines).
            // Every tenth round longer, so a stretch ends at a run of equal records before the end.
            let length = round % 10 == 9 ? 400 : random(90)
            var old: [UInt64] = []
            while old.count < length {
                let value = UInt64(random(alphabet))
                old += repeatElement(value, count: runs ? 1 + random(6) : 1)
            }
            var new = old
            for _ in 0..<random(round % 10 == 9 ? 30 : 10) {
                let place = random(new.count + 1)
                switch random(3) {
                case 0 where place < new.count: new[place] = UInt64(random(alphabet + 2))
                case 1: new.insert(UInt64(random(alphabet + 2)), at: place)
                default: if place < new.count { new.remove(at: place) }
                }
            }
            let (changes, minimal) = shownChanges(old, new)
            let fewest = ReferenceDiff.fewestChanges(old, new)
            #expect(changes == fewest && minimal, "round \(round): \(changes) rows, \(fewest) at least\n\(old)\n\(new)")
        }
    }

    @Test("scattered edits over 2,000 records: as few changes as the edit distance allows")
    func scattered() {
        var generator = SeededGenerator(seed: 5)
        let old = (0..<2000).map { _ in generator.next() % 50 }
        var new = old
        for _ in 0..<40 {
            let place = Int(generator.next() % UInt64(new.count))
            switch generator.next() % 3 {
            case 0: new[place] = 1000 + generator.next() % 10
            case 1: new.insert(2000 + generator.next() % 10, at: place)
            default: new.remove(at: place)
            }
        }
        let (changes, minimal) = shownChanges(old, new)
        #expect(changes == ReferenceDiff.fewestChanges(old, new) && minimal)
    }
}

@Suite("Diff errors", .timeLimit(.minutes(30)))
struct DiffErrorTests {
    @Test("an unknown key column is named, with the table that lacks it")
    func unknownKey() throws {
        #expect(throws: DiffError.unknownKey("--key 'nope': old: no column 'nope' (columns: 'a', 'b')")) {
            _ = try diffRows(old: "a,b\n1,2\n", new: "a,b\n1,2\n", key: ["nope"])
        }
        #expect(throws: DiffError.unknownKey("--key 'b': new has no column 'b'")) {
            _ = try diffRows(old: "a,b\n1,2\n", new: "a,c\n1,2\n", key: ["b"])
        }
    }

    @Test("empty keys are counted, with the first record that has one")
    func emptyKeys() throws {
        let (_, diff) = try diffRows(old: "a,b\n1,2\n,3\n,4\n", new: "a,b\n1,2\n", key: ["a"])
        #expect(diff.statistics.emptyKeys == [2, 0])
        #expect(diff.statistics.firstEmptyKey[0] == 2)
    }

    @Test("dropping a diff while it runs stops it")
    func cancel() throws {
        let old = "a\n" + (0..<50_000).map { "\($0)\n" }.joined()
        let new = "a\n" + (0..<50_000).map { "\($0 * 7)\n" }.joined()
        let oldStore = CellStore(bytes: Array(old.utf8), name: "old"), newStore = CellStore(bytes: Array(new.utf8), name: "new")
        let diff = try TableDiff(old: try #require(DiffInput(store: oldStore, headerRows: 1)),
                                 new: try #require(DiffInput(store: newStore, headerRows: 1)), options: TableDiff.Options())
        _ = diff.next(batch: 10)
        diff.cancel()
        diff.wait()
        #expect(diff.phase == .cancelled || diff.phase == .done)
    }
}
