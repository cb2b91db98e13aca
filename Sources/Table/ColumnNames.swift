import CellStore

/// The names of a table's columns, one for every column and no two alike: what JSON keys,
/// summaries, the screen and column references all call a column.
///
/// A header cell keeps its text where it is the first with that text. A column with no
/// name (an empty header cell, a column past the header's last, or any column without a
/// header row) is `column N`, N counting from 1. A later cell with the same text as an
/// earlier one, and a `column N` that a header cell already holds, get the first of `_2`,
/// `_3`, … that no header cell and no other column holds: `a,a_2,a` is `a`, `a_2`, `a_3`,
/// so a made name never takes a name the file has.
///
/// - Complexity: O(n) to make for n header cells; a name is O(1) (past the header, O(1)
///   unless the file holds the name it would take).
package struct ColumnNames: Sendable, Equatable {
    /// The unique names of the header's columns.
    private let unique: [String]
    /// Every name `unique` holds, to keep the names of columns past the header apart.
    private let taken: Set<String>
    /// For each header column, whether its name is the header cell's own text.
    private let isOwn: [Bool]
    /// Header cells past the fields a record keeps: their names are not known.
    package private(set) var unread = 0

    /// Names for the columns of `header` (the first header row's cells, as text; empty
    /// for none) and any past it.
    package init(_ header: [String]) {
        var names = [String?](repeating: nil, count: header.count)
        var taken = Set<String>()
        taken.reserveCapacity(header.count)
        // Every header cell's text is reserved first: a made name never takes one.
        for (index, name) in header.enumerated() where !name.isEmpty && !taken.contains(name) {
            names[index] = name
            taken.insert(name)
        }
        var nextSuffix: [String: Int] = [:]
        for index in header.indices where names[index] == nil {
            let base = header[index].isEmpty ? ColumnNames.numbered(index) : header[index]
            if header[index].isEmpty && !taken.contains(base) {
                names[index] = base
                taken.insert(base)
                continue
            }
            var suffix = nextSuffix[base] ?? 2
            while taken.contains("\(base)_\(suffix)") { suffix += 1 }
            let name = "\(base)_\(suffix)"
            nextSuffix[base] = suffix + 1
            names[index] = name
            taken.insert(name)
        }
        unique = names.map { $0 ?? "" }
        self.taken = taken
        isOwn = header.indices.map { !header[$0].isEmpty && names[$0] == header[$0] }
    }

    /// Names for the columns of a header row (nil for none); a cell longer than
    /// `longest` bytes is cut there (at a character's end) and ends in `…`, so that a
    /// header cell of megabytes costs what a name does.
    package init(header row: Row?, longest: Int = .max) {
        guard let row else {
            self.init([])
            return
        }
        self.init((0..<row.count).map { index in
            let field = row.field(index)
            guard field.count > longest else { return String(decoding: field, as: UTF8.self) }
            let start = field.prefix(longest)
            return String(decoding: start[..<RecordParser.characterBoundary(start)], as: UTF8.self) + "…"
        })
        unread = row.omittedCells
    }

    /// Columns the header names (others are named by number).
    package var headerCount: Int { unique.count }

    /// The name of column `column` (from 0), within the header or past it.
    package subscript(column: Int) -> String {
        if column >= 0 && column < unique.count { return unique[column] }
        let base = ColumnNames.numbered(column)
        guard taken.contains(base) else { return base }
        // Names past the header differ from each other by their number: only a header
        // name can be in the way.
        var suffix = 2
        while taken.contains("\(base)_\(suffix)") { suffix += 1 }
        return "\(base)_\(suffix)"
    }

    /// True when column `column`'s name is not its header cell's text but one made for it
    /// (the cell is empty or repeats an earlier one, or the column is past the header), so
    /// the screen can tell it from the file's own text.
    public func isMade(_ column: Int) -> Bool {
        column < 0 || column >= isOwn.count || !isOwn[column]
    }

    /// The names of the first `count` columns (at least those of the header).
    package func names(count: Int) -> [String] {
        (0..<max(count, unique.count)).map { self[$0] }
    }

    /// `column N`, N counting from 1: the name of a column that has none.
    package static func numbered(_ column: Int) -> String { "column \(column + 1)" }
}

extension ColumnReference {
    /// The column (from 0) this names among the unique names of `names` (see
    /// `resolve(in:columns:)`), so that every name shown for a column also finds it.
    package func resolve(in names: ColumnNames, columns: Int) throws(Failure) -> Int {
        try resolve(in: names.names(count: columns), columns: columns)
    }
}
