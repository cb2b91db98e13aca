import CFieldScan
import CSQLite

/// What `xBestIndex` chose for one scan of a table, carried to `xFilter` as text (SQLite
/// keeps the plan's `idxStr`; `EXPLAIN QUERY PLAN` shows it).
struct ScanPlan: Equatable {
    /// A constraint whose right-hand value `xFilter` receives, in argument order.
    enum Constraint: Equatable {
        /// The rowid compared with the value (`=`, `>`, `>=`, `<`, `<=`).
        case rowid(Comparison)
        /// A column equal to a value known when the scan starts (a constant).
        case equal(Int)
        /// A column `LIKE` or `GLOB` a pattern known when the scan starts.
        case like(Int)
        case glob(Int)
        /// A column equal to a value that changes from scan to scan (a join): read
        /// through an index of the column.
        case lookup(Int)
        /// A column equal to any value of an `IN` list or subquery, all given at once.
        case lookupAll(Int)
    }

    enum Comparison: String, Equatable {
        case equal = "=", greater = ">", greaterOrEqual = "g", less = "<", lessOrEqual = "l"
    }

    /// File columns the query reads, ascending.
    var columns: [Int] = []
    var constraints: [Constraint] = []
    /// Rows come with equal values of these columns together, the groups in these
    /// columns' order, descending where `descending` says (a GROUP BY the table takes on).
    var groups: [Int] = []
    var descending: [Bool] = []

    /// The plan as text: `c=0,3 w=r>,e3,k1 g=3`.
    var text: String {
        var parts = ["c=" + columns.map(String.init).joined(separator: ",")]
        if !constraints.isEmpty {
            parts.append("w=" + constraints.map { constraint in
                switch constraint {
                case .rowid(let comparison): "r" + comparison.rawValue
                case .equal(let column): "e\(column)"
                case .like(let column): "l\(column)"
                case .glob(let column): "b\(column)"
                case .lookup(let column): "k\(column)"
                case .lookupAll(let column): "a\(column)"
                }
            }.joined(separator: ","))
        }
        if !groups.isEmpty {
            parts.append("g=" + zip(groups, descending + Array(repeating: false, count: groups.count)).map { column, isDescending in
                "\(column)" + (isDescending ? "d" : "")
            }.joined(separator: ","))
        }
        return parts.joined(separator: " ")
    }

    init(columns: [Int] = [], constraints: [Constraint] = [], groups: [Int] = [], descending: [Bool] = []) {
        self.columns = columns
        self.constraints = constraints
        self.groups = groups
        self.descending = descending
    }

    /// Reads a plan's text back; nil when it is not one.
    init?(text: String) {
        func numbers(_ list: Substring) -> [Int]? {
            list.isEmpty ? [] : list.split(separator: ",").map { Int($0) }.reduce([Int]?.some([])) { all, number in
                guard let all, let number, number >= 0 else { return nil }
                return all + [number]
            }
        }
        for part in text.split(separator: " ") {
            guard part.count >= 2 else { return nil }
            let value = part.dropFirst(2)
            switch part.prefix(2) {
            case "c=": guard let list = numbers(value) else { return nil }; columns = list
            case "g=":
                for item in value.split(separator: ",") {
                    guard let column = Int(item.hasSuffix("d") ? item.dropLast() : item), column >= 0 else { return nil }
                    groups.append(column)
                    descending.append(item.hasSuffix("d"))
                }
            case "w=":
                for item in value.split(separator: ",") {
                    guard let kind = item.first else { return nil }
                    let rest = item.dropFirst()
                    if kind == "r" {
                        guard let comparison = Comparison(rawValue: String(rest)) else { return nil }
                        constraints.append(.rowid(comparison))
                        continue
                    }
                    guard let column = Int(rest), column >= 0 else { return nil }
                    switch kind {
                    case "e": constraints.append(.equal(column))
                    case "l": constraints.append(.like(column))
                    case "b": constraints.append(.glob(column))
                    case "k": constraints.append(.lookup(column))
                    case "a": constraints.append(.lookupAll(column))
                    default: return nil
                    }
                }
            default: return nil
            }
        }
    }
}

/// What one scan reads and keeps, with its constraints' values known: the plan applied to
/// the arguments `xFilter` received.
struct ScanRequest {
    /// File columns read, ascending; a column's slot is its place here.
    var columns: [Int]
    /// Per slot: whether its column is a number column (see `SQLTyping`).
    var isNumber: [Bool]
    /// Records (numbered in the input, header included) the scan may keep.
    var records: Range<Int>
    /// The input's header rows (messages name records as the screen numbers them).
    var headerRows: Int
    var check = RowCheck()
    /// Slots whose equal values come together, when the rows are grouped, and whether
    /// each sorts descending (the groups come in that order).
    var groupSlots: [Int] = []
    var groupDescending: [Bool] = []
    /// Bytes read in one piece (a longer record makes a piece of its own, parsed).
    var pieceBytes: Int64 = 512 << 10

    init(columns: [Int], types: [SQLColumnType], records: Range<Int>, headerRows: Int) {
        self.columns = columns
        isNumber = columns.map { $0 < types.count && types[$0].isNumber }
        self.records = records
        self.headerRows = headerRows
    }

    /// The slot of file column `column`.
    func slot(of column: Int) -> Int? { columns.firstIndex(of: column) }
}

/// What a row must be to reach SQLite: a superset of what the query's constraints accept
/// (SQLite checks them again), tested on the raw cells before they are typed.
///
/// A constraint's value is compared as SQLite compares it with the column's affinity (see
/// `TableCursor.filter`): a text column's cells are their bytes, a number column's cells
/// that read as numbers are numbers (and never equal a text), the rest their bytes.
struct RowCheck {
    /// Cells that must be this text, byte for byte.
    var equalTexts: [(slot: Int, text: [UInt8])] = []
    /// Cells of a number column that must be this number (or text: left to SQLite).
    var equalNumbers: [(slot: Int, value: SQLCell)] = []
    /// Cells that must contain this literal (a LIKE or GLOB pattern's), ASCII case
    /// ignored or not.
    var contains: [(slot: Int, literal: [UInt8], ignoresCase: Bool)] = []
    /// A literal that the raw bytes of every record kept contain, searched for first.
    var literal: [UInt8]?
    var ignoresCase = false

    var isEmpty: Bool { equalTexts.isEmpty && equalNumbers.isEmpty && contains.isEmpty && literal == nil }

    /// True when a constraint tests the cell in `slot`.
    func looks(at slot: Int) -> Bool {
        equalTexts.contains { $0.slot == slot } || equalNumbers.contains { $0.slot == slot } || contains.contains { $0.slot == slot }
    }

    /// Bytes that can be part of how SQLite writes a number as text (`-1.5e+20`, `Inf`).
    /// A literal made only of them could be found in a number's text and not in the cell's
    /// bytes (`1,000` is 1000), so it is never searched for in a number column's raw bytes.
    static func isNumberLike(_ bytes: [UInt8]) -> Bool {
        bytes.allSatisfy { byte in
            byte &- 0x30 < 10 || byte == 0x2B || byte == 0x2D || byte == 0x2E || "eEiInNfF".utf8.contains(byte)
        }
    }

    /// True when `cells` may satisfy every constraint.
    @inline(__always)
    func accepts(_ cells: UnsafePointer<UnsafeRawBufferPointer>) -> Bool {
        for (slot, text) in equalTexts {
            let cell = cells[slot]
            guard cell.count == text.count && text.withUnsafeBytes({ cell.elementsEqual($0) }) else { return false }
        }
        for (slot, value) in equalNumbers {
            let typed = SQLTyping.number(cells[slot])
            switch typed.kind {
            case .null: return false
            case .text: continue
            case .integer:
                if value.kind == .integer { if Int64(bitPattern: typed.bits) != value.integer { return false } }
                else if Double(Int64(bitPattern: typed.bits)) != value.real { return false }
            case .real:
                let number = Double(bitPattern: typed.bits)
                if number != (value.kind == .integer ? Double(value.integer) : value.real) { return false }
            }
        }
        for (slot, literal, ignoresCase) in contains {
            let cell = cells[slot]
            guard let base = cell.baseAddress, cell.count >= literal.count else { return false }
            let found = literal.withUnsafeBufferPointer { needle in
                cf_find_text(base.assumingMemoryBound(to: UInt8.self), cell.count, needle.baseAddress!, needle.count,
                             ignoresCase ? 1 : 0)
            }
            if found >= cell.count && !literal.isEmpty { return false }
        }
        return true
    }

    /// The longest run of `pattern` (a LIKE or GLOB pattern) without wildcards, the quote
    /// byte (which raw bytes double) and line ends (a hit is never at a record's end); nil
    /// when there is none worth searching for (in a number column, one that could be part
    /// of a number's text: SQLite matches a number by its text, not the cell's bytes).
    static func literal(ofPattern pattern: [UInt8], isGlob: Bool, quote: UInt8, isNumber: Bool) -> [UInt8]? {
        var runs: [[UInt8]] = [[]]
        var index = 0
        while index < pattern.count {
            let byte = pattern[index]
            index += 1
            if byte == quote || byte == 0x0A || byte == 0x0D || (!isGlob && (byte == 0x25 || byte == 0x5F))
                || (isGlob && (byte == 0x2A || byte == 0x3F)) {
                runs.append([])
            } else if isGlob && byte == 0x5B {
                // A class matches one character: it ends the run, and so does what is in it.
                runs.append([])
                if index < pattern.count && pattern[index] == 0x5D { index += 1 }
                while index < pattern.count && pattern[index] != 0x5D { index += 1 }
                index += 1
            } else {
                runs[runs.count - 1].append(isGlob ? byte : ((0x41...0x5A).contains(byte) ? byte | 0x20 : byte))
            }
        }
        let longest = runs.max { $0.count < $1.count } ?? []
        return longest.isEmpty || (isNumber && isNumberLike(longest)) ? nil : longest
    }

    /// The longest run of `text` without the quote byte and line ends: for a cell that
    /// must be `text` byte for byte (an `equalTexts` check), whose raw bytes hold it.
    static func literal(ofText text: [UInt8], quote: UInt8) -> [UInt8]? {
        let runs = text.split { $0 == quote || $0 == 0x0A || $0 == 0x0D }
        let longest = runs.max { $0.count < $1.count }.map(Array.init) ?? []
        return longest.isEmpty ? nil : longest
    }
}
