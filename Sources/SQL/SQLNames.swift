import Table

/// The names SQL gives the inputs and their columns.
///
/// SQLite compares identifiers without regard to ASCII case, so names are made unique
/// that way too: `Name` and `name` in one header become `Name` and `name_2`.
package enum SQLNames {
    /// Extensions of compressed files, dropped before the file's own extension.
    static let compressionExtensions: Set<String> = ["gz", "gzip", "bgz", "zst", "zstd", "xz", "bz2", "bzip2"]

    /// The table name for the input at `path` (nil or `-`: standard input): the file's
    /// stem made into an identifier, `sales_2024` for `dir/sales-2024.csv.gz`.
    package static func tableName(forPath path: String?) -> String {
        guard let path, path != "-" else { return "stdin" }
        var stem = Substring(path.split(separator: "/", omittingEmptySubsequences: true).last ?? "")
        if let dot = stem.lastIndex(of: "."), compressionExtensions.contains(stem[stem.index(after: dot)...].lowercased()) {
            stem = stem[..<dot]
        }
        if let dot = stem.lastIndex(of: "."), dot != stem.startIndex { stem = stem[..<dot] }
        var name: [UInt8] = []
        for byte in stem.utf8 {
            let isWord = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x5F || byte >= 0x80
            if isWord {
                name.append(byte)
            } else if name.last != 0x5F {
                name.append(0x5F)
            }
        }
        while name.last == 0x5F { name.removeLast() }
        while name.first == 0x5F { name.removeFirst() }
        var text = String(decoding: name, as: UTF8.self)
        if text.isEmpty { return "input" }
        // An identifier cannot start with a digit, and SQLite keeps names starting with
        // `sqlite_` for itself.
        if let first = name.first, (0x30...0x39).contains(first) || text.lowercased().hasPrefix("sqlite_") { text = "t_" + text }
        return text
    }

    /// `name`, or `name_2`, `name_3`… when `taken` has it already (ignoring ASCII case);
    /// the result is added to `taken`, lowercased.
    static func unique(_ name: String, taken: inout Set<String>) -> String {
        var candidate = name
        var number = 1
        while taken.contains(folded(candidate)) {
            number += 1
            candidate = "\(name)_\(number)"
        }
        taken.insert(folded(candidate))
        return candidate
    }

    /// ASCII letters in lower case, as SQLite compares identifiers.
    static func folded(_ name: String) -> String {
        String(decoding: name.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Column names from the header's cells, `count` of them: the names the screen, JSON
    /// keys and summaries give the columns (`ColumnNames`); where two of those differ only
    /// in the case of ASCII letters (one name to SQLite), the later gets the first of `_2`,
    /// `_3`… that no other column's name holds, so every other column keeps its name.
    package static func columnNames(header: [String], count: Int) -> [String] {
        // SQLite's C strings end at a NUL byte.
        let shown = ColumnNames(header).names(count: count).map { String(decoding: Array($0.utf8).replacing([0], with: Array("\u{FFFD}".utf8)), as: UTF8.self) }
        var reserved = Set(shown.map(folded))
        var used: Set<String> = []
        return shown.map { name in
            guard used.contains(folded(name)) else {
                used.insert(folded(name))
                return name
            }
            var number = 2
            while reserved.contains(folded("\(name)_\(number)")) { number += 1 }
            let made = "\(name)_\(number)"
            reserved.insert(folded(made))
            used.insert(folded(made))
            return made
        }
    }

    /// `name` as an SQL identifier in double quotes.
    package static func quoted(_ name: String) -> String {
        "\"" + String(decoding: Array(name.utf8).replacing([0x22], with: [0x22, 0x22]), as: UTF8.self) + "\""
    }
}

extension SQLNames {
    /// The names of the inputs at `paths` (nil or `-`: standard input), one list per
    /// input: the first is also `t`; every stem is made unique.
    package static func tableNames(forPaths paths: [String?]) -> [[String]] {
        var taken: Set<String> = ["t"]
        return paths.enumerated().map { index, path in
            let stem = tableName(forPath: path)
            if index == 0 && folded(stem) == "t" { return ["t"] }
            let name = unique(stem, taken: &taken)
            return index == 0 ? ["t", name] : [name]
        }
    }
}
