#if canImport(Glibc)
import Glibc
#endif
import CellStore
import SQL

/// One input of several: where it is and what is known of it without reading it.
package struct TableInput: Sendable, Equatable {
    /// The path as given or found in a directory; nil for standard input.
    package var path: String?
    /// Its size and compression, known before anything is drawn.
    package var facts: InputFacts
    /// Which argument of the command line it comes from (a directory's files share one),
    /// for what is given per argument (`--encoding A,B`).
    package var argument: Int
    /// For an input that can be read only once (standard input, a pipe, a FIFO, a
    /// device): where the one stream opened on it is kept, so that every store over it
    /// (a count, a header, the table) reads what that one read. Nil for a file.
    package var stream: SharedStream.Slot?
    /// Which table of a file that holds several (a database's table or view); nil for a
    /// file that is one table.
    package var table: String?
    /// True for a database or workbook that came on standard input, read from the private
    /// copy `path` opens (`/proc/self/fd/N`): named `stdin` on screen and in messages.
    package var isCopiedStandardInput = false

    package init(path: String?, facts: InputFacts, argument: Int = 0, readsOnce: Bool = false, table: String? = nil) {
        self.path = path
        self.facts = facts
        self.argument = argument
        self.table = table
        stream = readsOnce ? SharedStream.Slot() : nil
    }

    /// The name shown for it: the path as given (and the table: `shop.db:orders`), or `stdin`.
    package var name: String { shownPath + (table.map { ":" + $0 } ?? "") }
    /// The path as shown: `stdin` for standard input, also once copied to a file.
    package var shownPath: String { isCopiedStandardInput ? "stdin" : path ?? "stdin" }
    /// True for a table of a database (read through SQLite, not as text).
    package var isDatabaseTable: Bool { table != nil && facts.format == .sqlite }
    /// True for standard input.
    package var isStandardInput: Bool { path == nil }
    /// True for what can be read only once, as it arrives (see `stream`).
    package var readsOnce: Bool { stream != nil }

    /// The file's own name (`b.csv` for `data/b.csv`), for short messages on the status
    /// line, where a long path would push out the table's own name.
    package var shortName: String {
        (isCopiedStandardInput ? "stdin" : path.map(TableInputs.base) ?? "stdin") + (table.map { ":" + $0 } ?? "")
    }

    /// `problem`, a message that may start with this input's path (`data/b.csv: no such
    /// file`), as `b.csv: no such file`.
    package func shortly(_ problem: String) -> String {
        let path = name
        return shortName + ": " + (problem.hasPrefix(path + ": ") ? String(problem.dropFirst(path.count + 2)) : problem)
    }

    package static func == (left: TableInput, right: TableInput) -> Bool {
        left.path == right.path && left.facts == right.facts && left.argument == right.argument && left.stream === right.stream
            && left.table == right.table && left.isCopiedStandardInput == right.isCopiedStandardInput
    }
}

/// The inputs named on the command line, with directories opened up: what can be shown,
/// what was left out of a directory and why, and what cannot be read.
package struct TableInputs: Sendable {
    /// The inputs to show, in order.
    package var inputs: [TableInput] = []
    /// Entries of a directory that are not delimited files, said on the status line.
    package var skipped: [(name: String, reason: SkipReason)] = []
    /// Inputs that cannot be read: the message names each.
    package var problems: [String] = []
    /// True when the arguments ask for several inputs (more than one, or a directory),
    /// however many of them turn out readable: writing them makes one table with a
    /// column naming each record's input, whose shape must not hang on what was found.
    package var asksForSeveral = false

    /// Why an entry of a directory is not shown.
    package enum SkipReason: String, Sendable {
        case directory = "a directory"
        case notDelimited = "not delimited by its name"
        case hidden = "hidden"
        case special = "not a regular file"

        /// The reason after a count: `2 directories`, `1 not delimited by its name`.
        func counted(_ count: Int) -> String {
            switch self {
            case .directory: return count == 1 ? "directory" : "directories"
            case .notDelimited: return count == 1 ? "not delimited by its name" : "not delimited by their names"
            case .hidden: return "hidden"
            case .special: return count == 1 ? "not a regular file" : "not regular files"
            }
        }
    }

    package init() {}

    /// The inputs `arguments` name (`-` standard input; a directory: every delimited or
    /// compressed file directly in it, by name, in byte order; a database: each of its
    /// tables and views, or only `table` when it is named); no argument means standard
    /// input. Each file is opened once here to learn its size, compression and format, and
    /// closed again: nothing stays open.
    ///
    /// When `looksAtStandardInput`, standard input's first bytes are read here (waiting for
    /// them) to tell its format: a database or workbook is copied to a private file
    /// bounded by `spoolLimit` (`StandardInput.copyToFile`) and read from there, as a file
    /// would be; text stays a stream, its first bytes kept for its reader.
    package static func gather(_ arguments: [String], table: String? = nil, looksAtStandardInput: Bool = false,
                               spoolLimit: SpoolLimit = .keepFree) -> TableInputs {
        var result = TableInputs()
        result.asksForSeveral = arguments.count > 1
        var readStandardInput = false
        for (place, argument) in (arguments.isEmpty ? ["-"] : arguments).enumerated() {
            if argument == "-" {
                if readStandardInput {
                    result.problems.append("standard input (-) can be read only once")
                    continue
                }
                readStandardInput = true
                let format = looksAtStandardInput ? StandardInput.detectFormat() : .csv
                guard format.needsFile else {
                    result.inputs.append(TableInput(path: nil, facts: InputFacts(size: nil, compression: nil), argument: place,
                                                    readsOnce: true))
                    continue
                }
                do {
                    let copy = try StandardInput.copyToFile(limit: spoolLimit, format: format)
                    let facts = try InputFacts.probe(path: copy)
                    let before = result.inputs.count
                    if facts.format == .sqlite {
                        result.addDatabase(copy, facts: facts, argument: place, table: table)
                    } else if facts.format == .xlsx {
                        result.addWorkbook(copy, facts: facts, argument: place, table: table)
                    } else {
                        result.inputs.append(TableInput(path: copy, facts: facts, argument: place))
                    }
                    for index in before..<result.inputs.count { result.inputs[index].isCopiedStandardInput = true }
                    result.problems = result.problems.map { $0.replacing(copy, with: "stdin") }
                } catch {
                    result.problems.append(error.description)
                }
                continue
            }
            var info = stat()
            if stat(argument, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
                result.asksForSeveral = true
                result.addDirectory(argument, argument: place)
                continue
            }
            do {
                // What is not a regular file (`/dev/stdin`, `<(…)`, a FIFO) is read once.
                let facts = try InputFacts.probe(path: argument)
                if facts.format == .sqlite {
                    result.addDatabase(argument, facts: facts, argument: place, table: table)
                    continue
                }
                if facts.format == .xlsx {
                    result.addWorkbook(argument, facts: facts, argument: place, table: table)
                    continue
                }
                result.inputs.append(TableInput(path: argument, facts: facts, argument: place, readsOnce: facts.size == nil))
            } catch {
                result.problems.append(error.description)
            }
        }
        return result
    }

    /// Adds the tables of the database at `path` (only `table` when it is named), or says
    /// why there are none.
    private mutating func addDatabase(_ path: String, facts: InputFacts, argument: Int, table: String?) {
        do {
            let tables = try DatabaseCatalog.tables(path: path)
            if let table {
                guard let found = DatabaseCatalog.table(named: table, in: tables) else {
                    problems.append(DatabaseCatalog.missing(table, path: path, tables: tables).description)
                    return
                }
                inputs.append(TableInput(path: path, facts: facts, argument: argument, table: found.name))
                return
            }
            guard !tables.isEmpty else {
                problems.append("\(path): the database has no tables")
                return
            }
            if tables.count > 1 { asksForSeveral = true }
            for found in tables { inputs.append(TableInput(path: path, facts: facts, argument: argument, table: found.name)) }
        } catch {
            problems.append(error.description)
        }
    }

    /// Adds the sheets of the workbook at `path` (only `table` when it is named): each a
    /// table. A workbook that cannot be listed (encrypted, damaged) is one input, whose
    /// opening says why in one line.
    private mutating func addWorkbook(_ path: String, facts: InputFacts, argument: Int, table: String?) {
        guard let sheets = try? Workbook.sheetNames(path: path), !sheets.isEmpty else {
            inputs.append(TableInput(path: path, facts: facts, argument: argument, table: table))
            return
        }
        if let table {
            guard let found = sheets.first(where: { $0 == table }) ?? sheets.first(where: { $0.lowercased() == table.lowercased() }) else {
                let names = sheets.prefix(20).joined(separator: ", ") + (sheets.count > 20 ? ", … (\(sheets.count) in all)" : "")
                problems.append("\(path): no sheet named '\(table)' (sheets: \(names))")
                return
            }
            inputs.append(TableInput(path: path, facts: facts, argument: argument, table: found))
            return
        }
        for sheet in sheets { inputs.append(TableInput(path: path, facts: facts, argument: argument, table: sheets.count > 1 ? sheet : nil)) }
    }

    /// Adds the files of directory `path` that hold delimited text (by their names) or
    /// compressed data (by their first bytes), in the order of their names' bytes.
    private mutating func addDirectory(_ path: String, argument: Int) {
        guard let directory = opendir(path) else {
            problems.append(CellStoreError.unreadable(path, String(cString: strerror(errno))).description)
            return
        }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(directory)
        names.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let prefix = path.hasSuffix("/") ? path : path + "/"
        var found = 0
        let skippedBefore = skipped.count, problemsBefore = problems.count
        for name in names {
            let full = prefix + name
            var info = stat()
            guard stat(full, &info) == 0 else {
                problems.append(CellStoreError.notFound(full).description)
                continue
            }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                skipped.append((full + "/", .directory))
                continue
            case S_IFREG:
                break
            default:
                skipped.append((full, .special))
                continue
            }
            if name.hasPrefix(".") {
                skipped.append((full, .hidden))
                continue
            }
            let facts: InputFacts
            do {
                facts = try InputFacts.probe(path: full)
            } catch {
                problems.append(error.description)
                continue
            }
            guard facts.compression != nil || InputFacts.hasDelimitedName(name) else {
                skipped.append((full, .notDelimited))
                continue
            }
            inputs.append(TableInput(path: full, facts: facts, argument: argument))
            found += 1
        }
        if found == 0 && problems.count == problemsBefore {
            let others = skipped.count - skippedBefore
            problems.append("\(path): no delimited files in it" + (others > 0 ? " (\(others) other \(others == 1 ? "entry" : "entries"): "
                + skipped[skippedBefore...].prefix(3).map { Self.base($0.name) }.joined(separator: ", ")
                + (others > 3 ? ", …" : "") + ")" : ""))
        }
    }

    /// The line that says what cannot be read: the first problem, and how many more.
    package var problemLine: String? {
        guard let first = problems.first else { return nil }
        let more = problems.count - 1
        return more == 0 ? first : first + " (and \(more) more input\(more == 1 ? "" : "s") that cannot be read)"
    }

    /// Every input that cannot be read, for one line on stderr where no status line
    /// shows `problemLine` (`--skip-bad` writing a table): `left out 2 inputs that cannot
    /// be read: a.csv: no such file; b.csv: permission denied`.
    package var leftOutLine: String? {
        guard !problems.isEmpty else { return nil }
        let count = problems.count
        return "left out \(count) input\(count == 1 ? "" : "s") that cannot be read: " + problems.joined(separator: "; ")
    }

    /// What was left out, for the status line: `skipped in data/: notes.md (not delimited
    /// by its name), old/ (a directory)`, grouped by reason when there are many.
    package var skippedLine: String? {
        guard !skipped.isEmpty else { return nil }
        if skipped.count <= 3 {
            return "skipped " + skipped.map { "\(Self.base($0.name)) (\($0.reason.rawValue))" }.joined(separator: ", ")
        }
        var groups: [(SkipReason, [String])] = []
        for (name, reason) in skipped {
            if let index = groups.firstIndex(where: { $0.0 == reason }) {
                groups[index].1.append(Self.base(name))
            } else {
                groups.append((reason, [Self.base(name)]))
            }
        }
        return "skipped \(skipped.count): " + groups.map { reason, names in
            "\(names.count) \(reason.counted(names.count)) (" + names.prefix(3).joined(separator: ", ")
                + (names.count > 3 ? ", …" : "") + ")"
        }.joined(separator: ", ")
    }

    /// A path's last part (a directory keeps its `/`).
    static func base(_ path: String) -> String {
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        let name = trimmed.split(separator: "/").last.map(String.init) ?? trimmed
        return path.hasSuffix("/") ? name + "/" : name
    }
}
