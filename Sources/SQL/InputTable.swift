import CellStore
import CSQLite
#if canImport(Glibc)
import Glibc
#endif
import Scan

/// One input as a virtual table: its columns, how a scan of it is planned, and the
/// indexes of its columns that joins made (kept for the connection's life: the input is
/// read-only and fully indexed, so they stay true).
final class InputTable {
    let input: SQLInput
    /// Each column's type, judged once (`ColumnTypes`).
    let types: [SQLColumnType]
    let settings: SQLSettings
    let control: QueryControl
    let collations: CollationNote
    private var lookups: [Int: LookupIndex] = [:]

    init(input: SQLInput, types: [SQLColumnType], settings: SQLSettings, control: QueryControl,
         collations: CollationNote = CollationNote()) {
        self.input = input
        self.types = types
        self.settings = settings
        self.control = control
        self.collations = collations
    }

    /// The table's declaration for `sqlite3_declare_vtab`: each column with its type, which
    /// `pragma table_info` shows and which gives the column SQLite's affinity of that name
    /// (a number column compares `'50'` as 50, a text column `50` as `'50'`).
    var declaration: String {
        "CREATE TABLE x(" + input.columns.enumerated().map { column, name in
            SQLNames.quoted(name) + " " + (column < types.count ? types[column] : .text).rawValue
        }.joined(separator: ", ") + ")"
    }

    /// The index of column `column`, made on first use.
    func lookup(_ column: Int) throws(SQLError) -> LookupIndex {
        if let index = lookups[column] { return index }
        let index = try LookupIndex(input: input, column: column, type: column < types.count ? types[column] : .text,
                                    records: input.headerRows..<Int.max, settings: settings, control: control)
        lookups[column] = index
        return index
    }

    /// Chooses how SQLite's request is served: which columns to read, which constraints
    /// to take (each is checked again by SQLite: `omit` stays 0), and whether to hand the
    /// rows over grouped for a GROUP BY.
    func bestIndex(_ info: UnsafeMutablePointer<sqlite3_index_info>) {
        let rows = Double(max(1, input.estimatedRows))
        let columnCount = input.columns.count
        var plan = ScanPlan()
        let used = info.pointee.colUsed
        for column in 0..<min(63, columnCount) where used & (1 << UInt64(column)) != 0 { plan.columns.append(column) }
        if used & (1 << 63) != 0 && columnCount > 63 { plan.columns += 63..<columnCount }
        var estimate = rows
        var cost = rows * (1 + 0.1 * Double(plan.columns.count))
        var argument: Int32 = 0
        var isUnique = false
        var hasLookup = false
        let canLookUp = input.estimatedRows < Int(UInt32.max / 2)
        for index in 0..<Int(info.pointee.nConstraint) {
            let constraint = info.pointee.aConstraint[index]
            guard constraint.usable != 0, settings.takesConstraints else { continue }
            let op = Int32(constraint.op)
            let column = Int(constraint.iColumn)
            var taken: ScanPlan.Constraint?
            if column >= 0 && !InputTable.comparesBytes(info, index) {
                // A collation (NOCASE, RTRIM, one of the query's) may call different bytes
                // equal: the raw-byte prefilter and the index would drop rows SQLite keeps.
                continue
            } else if column < 0 {
                let comparisons: [Int32: ScanPlan.Comparison] = [
                    SQLITE_INDEX_CONSTRAINT_EQ: .equal, SQLITE_INDEX_CONSTRAINT_GT: .greater,
                    SQLITE_INDEX_CONSTRAINT_GE: .greaterOrEqual, SQLITE_INDEX_CONSTRAINT_LT: .less,
                    SQLITE_INDEX_CONSTRAINT_LE: .lessOrEqual,
                ]
                if let comparison = comparisons[op] {
                    taken = .rowid(comparison)
                    if comparison == .equal {
                        isUnique = true
                        estimate = 1
                        cost = 10
                    } else {
                        estimate /= 2
                        cost /= 2
                    }
                }
            } else if op == SQLITE_INDEX_CONSTRAINT_EQ {
                var value: OpaquePointer?
                if sqlite3_vtab_in(info, Int32(index), -1) != 0 {
                    // IN: every value at once, through the column's index (rows in input order).
                    // SQLite names no collation for `IN (SELECT x COLLATE NOCASE)`: with any
                    // COLLATE in the SQL, IN is left to SQLite.
                    if !hasLookup && canLookUp && !collations.isMentioned {
                        hasLookup = true
                        _ = sqlite3_vtab_in(info, Int32(index), 1)
                        taken = .lookupAll(column)
                        estimate = min(estimate, 100)
                        cost = min(cost, 100 + log2(rows))
                    }
                } else if sqlite3_vtab_rhs_value(info, Int32(index), &value) == SQLITE_OK {
                    taken = .equal(column)
                    estimate /= 10
                    cost /= 2
                } else if !hasLookup && canLookUp {
                    // A value that changes from scan to scan (a join): an index pays.
                    hasLookup = true
                    taken = .lookup(column)
                    estimate = min(estimate, 10)
                    cost = min(cost, 20 + log2(rows))
                }
            } else if op == SQLITE_INDEX_CONSTRAINT_LIKE || op == SQLITE_INDEX_CONSTRAINT_GLOB {
                var value: OpaquePointer?
                if sqlite3_vtab_rhs_value(info, Int32(index), &value) == SQLITE_OK {
                    taken = op == SQLITE_INDEX_CONSTRAINT_LIKE ? .like(column) : .glob(column)
                    estimate /= 4
                    cost /= 2
                }
            }
            guard let taken else { continue }
            argument += 1
            info.pointee.aConstraintUsage[index].argvIndex = argument
            info.pointee.aConstraintUsage[index].omit = 0
            plan.constraints.append(taken)
        }
        // A GROUP BY on this table's columns: the rows can come with equal keys together.
        if info.pointee.nOrderBy > 0 && sqlite3_vtab_distinct(info) == 1 && !isUnique && !hasLookup {
            var groups: [Int] = []
            var descending: [Bool] = []
            var hasRowid = false
            for index in 0..<Int(info.pointee.nOrderBy) {
                let term = info.pointee.aOrderBy[index]
                let column = Int(term.iColumn)
                if column < 0 {
                    hasRowid = true
                } else if !groups.contains(column) {
                    groups.append(column)
                    descending.append(term.desc != 0)
                }
            }
            // With the rowid in the key every row is a group of its own, and the rows come
            // in rowid order already: consumed only when it leads and sorts up.
            if !hasRowid {
                for column in groups where !plan.columns.contains(column) { plan.columns.append(column) }
                plan.columns.sort()
                plan.groups = groups
                plan.descending = descending
                info.pointee.orderByConsumed = 1
            } else if info.pointee.nOrderBy == 1 && info.pointee.aOrderBy[0].desc == 0 {
                info.pointee.orderByConsumed = 1
            }
        }
        if isUnique { info.pointee.idxFlags |= SQLITE_INDEX_SCAN_UNIQUE }
        info.pointee.estimatedRows = sqlite3_int64(max(1, estimate))
        info.pointee.estimatedCost = max(1, cost)
        info.pointee.idxStr = cf_sql_strdup(plan.text)
        info.pointee.needToFreeIdxStr = 1
    }

    /// True when constraint `index` compares with the BINARY collation, the only one under
    /// which SQLite's `=` holds exactly for equal bytes (as the prefilter and the column
    /// indexes take it). LIKE and GLOB ignore collations, but they are let go too: cheaper
    /// than being wrong if SQLite ever changes that.
    private static func comparesBytes(_ info: UnsafeMutablePointer<sqlite3_index_info>, _ index: Int) -> Bool {
        guard let name = sqlite3_vtab_collation(info, Int32(index)) else { return true }
        return sqlite3_stricmp(name, "BINARY") == 0
    }
}
