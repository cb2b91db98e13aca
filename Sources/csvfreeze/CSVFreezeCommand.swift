#if canImport(Glibc)
import Glibc
#endif
import App
import ArgumentParser
import CellStore
import Export
import FreezeLayout
import Scan
import Terminal
import Viewer

extension OutputFormat: ExpressibleByArgument {}
extension BounceStyle: ExpressibleByArgument {}
extension EchoMode: ExpressibleByArgument {}
extension Theme: ExpressibleByArgument {}

/// The command line: options, then either the interactive viewer or a text output.
@main
struct CSVFreezeCommand: ParsableCommand {
    static let version = "0.1.0"

    /// What `--version` prints: the program's version and its C libraries'.
    static var versionText: String {
        (["csvfreeze \(version)"] + CellStore.libraryVersions + PatternLibrary.libraryVersions
         + TerminalSession.libraryVersions).joined(separator: "\n")
    }

    /// Reads the defaults (config file, `CSVFREEZE`) before the command line, which wins.
    static func main() {
        // `--version` alone is answered before the parser, which costs several times the
        // rest of the program's start (see DECISIONS.md); with other words it is parsed.
        if CommandLine.arguments.count == 2 && CommandLine.arguments[1] == "--version" {
            print(versionText)
            Glibc.exit(0)
        }
        var environment: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let pair = String(cString: pointer)
            if let equals = pair.firstIndex(of: "=") {
                environment[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            }
            entry += 1
        }
        let arguments: [String]
        do {
            arguments = try Defaults.arguments(commandLine: Array(CommandLine.arguments.dropFirst()), environment: environment) { words in
                do {
                    _ = try CSVFreezeCommand.parse(words)
                } catch {
                    throw Defaults.Problem(place: "", reason: CSVFreezeCommand.message(for: error))
                }
            }
        } catch let problem as Defaults.Problem {
            fail(problem.description, status: 64)
        } catch {
            fail("\(error)", status: 64)
        }
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch {
            end(with: error)
        }
        prepareForExit()
        Glibc.exit(0)
    }

    /// Ends on a thrown error: `--help` and `--version` as swift-argument-parser prints them,
    /// an `ExitCode` with its status and nothing said, and every other error (a bad option, a
    /// clash, a bad value) as one line, exit 64 for the options (`EX_USAGE`).
    static func end(with error: Error) -> Never {
        let code = exitCode(for: error)
        prepareForExit()
        if let exit = error as? ExitCode { Glibc.exit(exit.rawValue) }
        if code == .success { exit(withError: error) }
        var line = message(for: error).split(whereSeparator: \.isNewline).joined(separator: " ")
        // swift-argument-parser's own sentences start with a capital; ours do not.
        if let first = line.first, first.isUppercase, line.dropFirst().first?.isLowercase == true {
            line = first.lowercased() + line.dropFirst()
        }
        fail(line, status: code.rawValue)
    }

    static let configuration = CommandConfiguration(
        commandName: "csvfreeze",
        abstract: "View CSV and other delimited text in the terminal, with frozen header rows and columns.",
        usage: "csvfreeze [OPTIONS] [FILE|DIR...]\n  csvfreeze --sql QUERY [OPTIONS] FILE...\n  csvfreeze --diff OTHER [--key COL,...] [OPTIONS] FILE",
        discussion: """
        FILE '-', or no FILE while standard input is not a terminal, reads standard input; keys \
        then come from the terminal. When standard output is not a terminal, or with --output, \
        nothing is drawn and the table is written as text; several inputs (or a directory, \
        however many of them can be read) are written as one table, as csvstack does: one \
        header (the union of their columns by name when the headers differ), a first column \
        naming each record's input (--source-column, --no-source-column; a column written \
        with its name stops csvfreeze, exit 2), and --filter, --sort and --columns across \
        all of them.

        A SQLite database (known by its header, whatever its name) opens every table \
        and view as a table (} and { switch, T lists them; --table NAME opens one), read \
        through SQLite, read only and immutable, a window of rows at a time.

        Compressed input (gzip, zstd, xz, bzip2) is known by its first bytes, from a file or \
        a pipe, and shows the table it holds; the first screen does not wait for the rest. \
        A damaged file shows what comes before the damage, and the status line says where \
        it is. A compressed file is read once: --follow does not follow it, R reads it again.

        JSON lines (.jsonl, .ndjson, or any input whose first line is a JSON object, also \
        piped or compressed) and JSON arrays (.json starting with '[') are tables too: \
        columns are the keys in the order first met (the status line says how many came \
        late), values as written (numbers exactly, nested objects and arrays as compact \
        JSON; null an empty cell that SQL reads as NULL and the record view shows as null, \
        an empty string ''); a line that is not a JSON object is shown whole in the \
        first column, marked ! in the grid and named on the status line. --follow \
        follows a JSON lines file as it follows a CSV. A .json holding one object (or not \
        JSON) says so, exit 65. Ctrl-S never writes CSV over a JSON input. --output \
        json/jsonl write a column of only numbers, true/false and nested values bare, null \
        as null (JSON piped in is read whole first for that; a compressed pipe streams, as strings).

        An Excel workbook (.xlsx) opens every worksheet as a table (--table NAME opens \
        one): cells streamed from the zip, \
        numbers as stored, dates by their format as ISO 8601, formulas as their cached \
        values. Its table is CSV: edits are saved to a new file, never over the workbook. \
        An encrypted workbook or an old .xls is refused in one line (see FORMATS in the \
        man page).

        A record keeps at most 1,048,576 fields in memory: the screen shows those and says \
        so; --frequency and --summary stop only at a column past 1,048,576 (--summary takes \
        every column unless --columns chooses), with one line (exit 1), and count the \
        columns within it in every record; --output, with --filter and --sort too, writes \
        every field of any record.

        KEYS:
        \(KeyMap.helpLines.map { "  " + $0 }.joined(separator: "\n"))

        SEARCH PATTERNS:
          PCRE2 regular expressions, as grep -P reads them, matched in each cell's
          value: ^ and $ are the cell's start and end, and no match spans two cells.
          Case does not matter unless the pattern has a capital letter (Unicode case
          folding: zürich finds ZÜRICH). A bad pattern is reported with the place
          where it is wrong. Over a file already read, a search that finds nothing
          takes about as long as grep on the same file.

        IN THE CELL INSPECTOR, THE RECORD VIEW AND THE HELP SCREEN:
        \(KeyMap.pagerHelpLines.map { "  " + $0 }.joined(separator: "\n"))

        AT A PROMPT (/, \\, :, Q):
          Left/Right, Home/End, Ctrl-A/E move; Backspace, Delete, Ctrl-U/W/K
          erase; Up/Down walk earlier entries, kept across sessions in
          $XDG_STATE_HOME/csvfreeze/history (CSVFREEZE_HISTORY names another
          file; set empty, none is kept); an empty / repeats the last search.
          Pasted text is typed at a prompt and does nothing in the grid.

        DEFAULTS:
          Options in ~/.config/csvfreeze/config (or $XDG_CONFIG_HOME/csvfreeze/
          config, or the file CSVFREEZE_CONFIG names; empty: none), one or more a
          line, then those in CSVFREEZE, come before the command line's own; an
          option given again takes the later value, so the command line wins.

        SQL (--sql QUERY FILE...):
          Each FILE is an SQLite table read through csvfreeze's index, named by
          its file name without extensions (sales-2024.csv.gz is sales_2024); the
          first is also t. Columns by header name, "column N" for a blank one;
          rowid is the row's number. Each column is typed once, from its first
          1,000 filled cells: in a number column numbers are numbers, in a text
          column every cell is text as written; empty cells are NULL (pragma
          table_info(t) shows the types). Several statements run in turn; the
          last one's answer is written. SQL may only read: ATTACH, VACUUM,
          writes, CREATE, DROP and pragmas that set are refused (exit 65), and
          a query that holds more than 128 MiB in SQLite stops (exit 65).
          A SQLite database is attached as it is, read only, under its stem:
          its tables and views by name (orders, shop.orders), joined with the
          CSV files beside it; t is its only table, or the one --table names.
          On screen, Q asks a query of the file viewed (t): the answer is a sheet,
          at most 1,000,000 rows or 256 MiB; Esc stops it; Enter on a row with t's
          rowid goes to that row.

        DIFF (--diff OTHER FILE):
          FILE is the old table, OTHER the new one ('-' for standard input;
          compressed, piped, each in its own dialect; JSON, a sheet, or a
          database's table: --table, else its only one). Columns are matched by
          name. With --key, records are matched by the key's values and come
          in its order (as --sort orders it); repeated and empty keys are said
          on stderr. Without it, by position: the fewest records changed,
          added or removed (an old and a new record between the same two equal
          ones are one changed record). Rows as daff writes them: a ! row when
          columns were added (+++), removed (---) or moved (:), the @@ header,
          then +++ added, --- removed, -> changed (old->new in the changed
          cells; a longer arrow where a value holds ->), + for a row that only
          fills new columns, blank for unchanged context rows (--context N,
          default 1), ... for rows left out: daff patch OLD DIFF rebuilds the
          new table. --summary writes only the changed cells per column.
          On a terminal without --output or --summary, the diff is one table
          on screen, filling in while it is compared: the marker column @@
          and the key pinned, every row of both tables aligned, changed cells
          old→new; added rows bold, removed dim, changed cells reversed and
          underlined (colours too, but for mono). ) and ( go from change to
          change; the status line counts them (+ while comparing); filters,
          search, sort (a changed cell by its new value) and sheets work on it
          (| . on @@: the rows that differ).
          D shows it side by side, old values left and new right, rows aligned
          and scrolled together, @@ and the key pinned on each side (when the
          terminal is wide enough; else D says how wide it needs to be);
          Ctrl-S and Y still write the one table.

        EXIT STATUS:
          0 success (--skip-bad writing a table: what it left out named on
          stderr); 1 the input cannot be read (stdin is a terminal or closed,
          compressed input is damaged, bytes not valid in --encoding, a record
          is too wide), or is empty (not even a header) for --frequency or
          --summary, or the output cannot be written (a full disk); 2 the
          screen cannot be drawn, no such column for --frequency, --columns,
          --sort, --filter-column or --filter-out-column, a bad pattern,
          --frequency or --summary over several inputs, a column named as
          --source-column; 64 bad options, one line and no usage (also options
          that do not combine: --echo or --follow with --output, --frequency or
          --summary; --stack, --skip-bad, --source-column or --no-source-column
          with --sql, --diff, --frequency or --summary; --in-place with
          --output or stdin); 65 a query SQLite refuses, or one that would
          write or outgrows SQL's memory (--sql), a row or column --set or
          --delete-row names that the file lacks, a .json that holds one object,
          a string or a number, or is not JSON; 128+N after signal N; 130
          with --echo, quit without choosing.
          With --diff, as diff: 0 no differences, 1 differences, 2 trouble (an
          input cannot be read, no such --key column, output that cannot be
          written); 64 bad options.
        """,
        version: versionText
    )

    @OptionGroup var input: InputOptions

    @Flag(help: "The first record is data, not a header row.")
    var noHeader = false

    // `.unconditional`: `-c -1` reaches validate() (which says why) instead of reading
    // `-1` as an option and failing with "Missing value".
    @Option(name: [.customShort("r"), .customLong("freeze-rows")], parsing: .unconditional,
            help: ArgumentHelp("Header rows kept on top (default 1; 0 with --no-header).", valueName: "n"))
    var freezeRows: Int?

    @Option(name: [.customShort("c"), .customLong("freeze-cols")], parsing: .unconditional,
            help: ArgumentHelp("Columns kept on the left while the rest scrolls.", valueName: "n"))
    var freezeColumns = 0

    @Flag(help: "Hide the row-number column.")
    var noRowNumbers = false

    @Option(help: ArgumentHelp("Bounce at the edges: all (the whole sheet is pulled), main (only the data), none.",
                               valueName: "style"))
    var bounce: BounceStyle = .all

    @Flag(help: "Do not use the mouse (wheel and clicks).")
    var noMouse = false

    @Option(help: ArgumentHelp("Colours: auto (from the terminal's background), dark, light, or mono (none; also when NO_COLOR is set).",
                               valueName: "theme"))
    var theme: Theme?

    @Option(name: .customLong("esc-delay"), parsing: .unconditional,
            help: ArgumentHelp("Milliseconds a key's escape sequence may take to arrive after its Esc (default: ESCDELAY, else 100).",
                               valueName: "ms"))
    var escapeDelay: Int?

    @Flag(help: "Hide the scroll position indicators.")
    var noIndicators = false

    @Flag(help: "Show the reuse pool's cell counts in the status line.")
    var debugStats = false

    @Flag(inversion: .prefixedNo,
          help: "Show the distribution band from the start: under the header, each column's values as a one-line picture (a histogram of numbers and dates, the shares of the most common values of text), computed in the background beside the index, dim until exact (B toggles it; 'band = on' in the config file).")
    var band = false

    @Flag(inversion: .prefixedNo,
          help: "On quitting, keep the view of each file (the cursor's record, freeze, widths, columns, sort, filters, search, marks) and its row index in $XDG_STATE_HOME/csvfreeze (default ~/.local/state/csvfreeze), private to you, and take them back when the same, unchanged file is opened again. With several files, each keeps its own, and which was shown and whether they were stacked; a followed file keeps its index as far as read and is read on from there. Standard input and a database's or workbook's tables are never kept. --no-session neither reads nor writes one ('session = off' in the config file turns sessions off). After Ctrl-S saved edits over the file, the session is kept for the saved file.")
    var session = true

    @Flag(help: "Open the file as if for the first time: the kept session is not read, and is replaced on quitting.")
    var fresh = false

    @Option(help: ArgumentHelp("The most all kept sessions together may take (100M, 2G; default 1 GiB, or 1 % of the file system when that is less); the least recently used are removed first.",
                               valueName: "size"))
    var sessionLimit: String?

    @Option(help: ArgumentHelp("Enter quits and prints the cursor's cell, its row as CSV (the columns shown), its whole column (the rows shown, in their order), or rows: the marked records (m, M; the cursor's when none is marked) as CSV in the file's order, on stdout, each value followed by a line feed (line breaks inside a value are printed as they are; see -0). Quitting without Enter exits with 130.",
                               valueName: "cell|row|column|rows"))
    var echo: EchoMode?

    @Flag(name: [.customShort("0"), .customLong("print0")],
          help: "With --echo: end each value with a NUL byte instead of a line feed (for xargs -0), so a value with line breaks stays one value.")
    var print0 = false

    @Option(help: ArgumentHelp("Write the table as text instead of viewing it: table (each column as wide as its widest cell in the first 1,000 rows; a wider cell later is written whole, running past its column), csv, tsv (both keep the input's byte-order mark and preamble; a record written whole in the input's own dialect leaves as its own bytes), json (arrays) or jsonl (an object a line, keyed by the columns' names: a repeated header name gets the first free _2, _3, …, an empty one is 'column N'; --summary and column options use the same names).",
                               valueName: "format"))
    var output: OutputFormat?

    @Option(parsing: .unconditional,
            help: ArgumentHelp("With table output (--output table, or a pipe or a file without --output): cut cells wider than N cells, ending them with '…'. Without it every cell is written whole, a long one running past its column.",
                               valueName: "n"))
    var maxWidth: Int?

    @OptionGroup(title: "Filter, sort, columns") var query: QueryOptions
    @OptionGroup var insight: InsightOptions
    @OptionGroup var sql: SQLOptions
    @OptionGroup(title: "Compare two tables") var diff: DiffOptions
    @OptionGroup(title: "Edit from the command line") var edit: EditOptions

    @Flag(help: "With several inputs: leave out those that cannot be read instead of stopping; the status line names them, or, writing the table, one line on stderr (exit 0). Not with --sql, --diff, --frequency or --summary.")
    var skipBad = false

    @Flag(help: "With several inputs: start with every table in one vertical scroll, each table's header pinned while it is under the top (S toggles). Not with --sql, --diff, --frequency or --summary.")
    var stack = false

    @Option(help: ArgumentHelp("Writing several inputs (or a directory) as one table: the name of its first column, which names each record's input (default: file). A column written with the same name stops csvfreeze (exit 2): give another. Not with --sql, --diff, --frequency or --summary.",
                               valueName: "name"))
    var sourceColumn: String?

    @Flag(help: "Writing several inputs as one table: no column naming each record's input.")
    var noSourceColumn = false

    @Argument(help: ArgumentHelp("The files to view ('-' for standard input; a directory: every delimited or compressed file in it). Several open as tables side by side: } and { switch, T lists them, S stacks them in one scroll.", valueName: "file"))
    var files: [String] = []

    /// True when standard input is one of the inputs (named `-`, or no file at all).
    var readsStandardInput: Bool { files.isEmpty || files.contains("-") }

    func validate() throws {
        _ = try input.encodings(forInputs: inputArguments)
        if let freezeRows, freezeRows < 0 { throw ValidationError("--freeze-rows must be 0 or more") }
        if let maxWidth, maxWidth < 1 { throw ValidationError("--max-width must be 1 or more") }
        if maxWidth != nil, let output, output != .table {
            throw ValidationError("--max-width cuts cells of table output only; --output \(output.rawValue) writes every cell whole")
        }
        if freezeColumns < 0 { throw ValidationError("--freeze-cols must be 0 or more") }
        if let sessionLimit, SpoolLimit(parsing: sessionLimit) == nil {
            throw ValidationError("--session-limit takes a size above zero such as 100M or 2G, not '\(shownSafely(sessionLimit))'")
        }
        if print0 && echo == nil { throw ValidationError("--print0 (-0) goes with --echo") }
        if let escapeDelay, !(0...10_000).contains(escapeDelay) { throw ValidationError("--esc-delay takes milliseconds from 0 to 10000") }
        if sourceColumn != nil && noSourceColumn { throw ValidationError("--source-column names the column --no-source-column leaves out: give one of them") }
        if sql.query != nil && (insight.isRequested || query.isActive || echo != nil || input.follow) {
            throw ValidationError("--sql answers a query by itself: not with --frequency, --histogram, --summary, --filter, --sort, --columns, --echo or --follow")
        }
        if diff.isRequested && (sql.query != nil || insight.frequency != nil || insight.histogram != nil || query.isActive || echo != nil || input.follow) {
            throw ValidationError("--diff compares two tables by itself: not with --sql, --frequency, --histogram, --filter, --sort, --columns, --echo or --follow")
        }
        if echo != nil, let writer = output != nil ? "--output" : insight.frequency != nil ? "--frequency"
            : insight.histogram != nil ? "--histogram" : insight.summary ? "--summary" : nil {
            throw ValidationError("--echo prints what is chosen on the screen; \(writer) writes without one: give one of them")
        }
        // A mode that reads its own inputs its own way takes none of the options for
        // viewing or writing several inputs: refused, where they used to be ignored.
        if let mode = sql.query != nil ? "--sql" : diff.isRequested ? "--diff" : insight.frequency != nil ? "--frequency"
            : insight.summary ? "--summary" : nil,
           let stray = [(stack, "--stack"), (skipBad, "--skip-bad"), (sourceColumn != nil, "--source-column"),
                        (noSourceColumn, "--no-source-column")].first(where: \.0)?.1 {
            throw ValidationError("\(stray) is for viewing or writing several inputs: not with \(mode)")
        }
        if input.follow, let writer = output != nil ? "--output" : insight.frequency != nil ? "--frequency" : insight.summary ? "--summary" : nil {
            throw ValidationError("--follow follows a file on the screen; \(writer) writes it once: give one of them")
        }
        if sourceColumn == "" { throw ValidationError("--source-column takes a name for the column naming each input, not an empty one") }
        try validateEdits()
        if diff.isRequested && files.count > 1 { throw ValidationError("--diff OTHER takes one FILE: the old table") }
        if diff.other == "-" && (files.first ?? "-") == "-" {
            throw ValidationError("standard input ('-') can be given once: FILE or OTHER (no FILE reads it too)")
        }
    }

    /// Where sessions are kept, or nil when they are not (`--no-session`).
    func sessionStore() -> SessionStore? {
        guard session else { return nil }
        var limit: Int64?
        if let sessionLimit, case .bytes(let bytes, _) = SpoolLimit(parsing: sessionLimit) { limit = bytes }
        return SessionStore.fromEnvironment(limit: limit, fresh: fresh)
    }

    /// Input arguments, each read as its own `--encoding` item says: FILE then OTHER for a diff.
    var inputArguments: Int { diff.isRequested ? 2 : max(1, files.count) }

    var headerRows: Int { freezeRows ?? (noHeader ? 0 : 1) }

    /// `--theme`, else `mono` when NO_COLOR is set and not empty (no-color.org), else `auto`.
    var chosenTheme: Theme {
        if let theme { return theme }
        if let value = getenv("NO_COLOR"), value.pointee != 0 { return .mono }
        return .auto
    }

    mutating func run() throws {
        if diff.isRequested {
            if files.count > 1 { fail("--diff compares one FILE with OTHER", status: 2) }
            if diff.other == "-" || readsStandardInput {
                // Trouble is 2 for --diff, as for diff.
                if fcntl(0, F_GETFD) < 0 { fail(CellStoreError.closedInput.description, status: 2) }
                if isatty(0) != 0 { fail("no input: standard input is a terminal; give FILE and OTHER", status: 2) }
            }
        }
        if readsStandardInput && fcntl(0, F_GETFD) < 0 {
            // Checked before anything opens a descriptor, which would take number 0.
            fail(CellStoreError.closedInput.description, status: 1)
        }
        let userCodeset = Locale.setUpUTF8()
        if readsStandardInput && isatty(0) != 0 {
            // Reading the keyboard as data while also reading keys from it helps nobody.
            fail("no input: give a FILE, or pipe data in (csvfreeze --help for more)", status: 1)
        }
        let reading = try input.settings(arguments: inputArguments)
        // A `.json` that is not a table (one object, a string) is said at once, before
        // any screen or output: the data is not what the name promises (65, as sysexits'
        // EX_DATAERR).
        let named = files + (diff.isRequested ? [diff.other].compactMap { $0 } : [])
        for (argument, path) in named.enumerated() where path.lowercased().contains(".json") {
            do throws(CellStoreError) {
                _ = try reading.spec(path, argument: argument).detectFormat()
            } catch {
                if case .notATable = error { fail(error.description, status: 65) }
            }
        }
        let request = OutputRequest(reading: reading.asOfNow, format: output ?? .table, headerRows: headerRows, maximumWidth: maxWidth)
        if let sqlQuery = sql.query {
            let status = SQLOutput.run(sqlQuery, paths: files.isEmpty ? [nil] : files, request, table: input.table)
            if status != 0 { throw ExitCode(status) }
            return
        }
        if diff.isRequested && output == nil && !insight.summary && isatty(1) != 0 {
            var options = ViewerOptions(headerRows: headerRows, frozenColumns: freezeColumns, showsRowNumbers: !noRowNumbers,
                                        bounce: bounce, showsIndicators: !noIndicators, showsDebugStats: debugStats)
            options.showsBand = band
            options.drawsBlocks = TerminalAbilities.drawsBlocks(term: getenv("TERM").map { String(cString: $0) },
                                                                userCodeset: userCodeset)
            let status = DiffScreen.run(diff, specs: diffSpecs(reading), options: options, mouse: !noMouse,
                                        theme: chosenTheme, escapeDelay: escapeDelay)
            if status != 0 { throw ExitCode(status) }
            return
        }
        if diff.isRequested {
            let status = DiffOutput.run(diff, specs: diffSpecs(request.reading), request, summary: insight.summary)
            if status != 0 { throw ExitCode(status) }
            return
        }
        // Every input is looked at (and directories opened up) before anything is drawn or
        // written, so one that cannot be read stops here, with one line naming it.
        let gathered = TableInputs.gather(files, table: input.table, looksAtStandardInput: true,
                                          spoolLimit: reading.spec(nil).spoolLimit)
        if let problem = gathered.problemLine, !skipBad || gathered.inputs.isEmpty {
            fail(problem, status: 1)
        }
        let leftOut = gathered.problemLine.map { "left out " + $0 }
        let inputs = gathered.inputs
        let path = inputs.first?.path
        // What was asked decides, not how many inputs turn out readable.
        // A database's tables, or a workbook's sheets, are one input: `--table` chooses (below).
        let oneContainer = files.count <= 1 && inputs.count > 1 && inputs.allSatisfy { $0.table != nil && $0.path == inputs[0].path }
        if insight.isRequested && gathered.asksForSeveral && !oneContainer {
            fail("--frequency, --histogram and --summary read one input (--sql can count over several)", status: 2)
        }
        if let database = inputs.first(where: { $0.facts.format == .sqlite }), edit.isRequested || edit.recover != nil {
            fail("--set, --delete-row and --recover edit text, not a database: \(database.shownPath) is read only", status: 64)
        }
        if gathered.asksForSeveral && (edit.isRequested || edit.recover != nil) {
            fail("--set, --delete-row and --recover edit one FILE, not a directory", status: 64)
        }
        let recovery = edit.recover.map { journal in (journal: Session.recovery(journal, file: path ?? "-"), path: journal) }
        if edit.isRequested || (recovery != nil && (output != nil || edit.inPlace || isatty(1) == 0)) {
            let status = EditOutput.run(path: path, request, query: query, edits: edit, recovery: recovery)
            if status != 0 { throw ExitCode(status) }
            return
        }
        let writes = insight.isRequested || output != nil || (isatty(1) == 0 && echo == nil)
        // Without a status line, what --skip-bad left out is said on stderr, each input named,
        // and so are the entries of a directory that were not read (a FIFO, a subdirectory).
        if writes, let line = gathered.leftOutLine { say(line) }
        if writes, let line = gathered.skippedLine { say(line) }
        let tables = inputs.filter(\.isDatabaseTable)
        if let table = tables.first {
            if insight.isRequested {
                guard inputs.count == 1 else { fail(severalWithTables(inputs, tables), status: 2) }
                // Counted as the CSV its rows make, so every count reads one kind of input.
                let copy = DatabaseAsCSV.copy(table)
                var converted = request
                converted.reading = DatabaseAsCSV.reading(request.reading)
                let blocks = TerminalAbilities.drawsBlocks(term: getenv("TERM").map { String(cString: $0) }, userCodeset: userCodeset)
                let status = InsightOutput.run(insight, path: copy, converted, query: query, drawsBlocks: blocks, shownName: table.name)
                if status != 0 { throw ExitCode(status) }
                return
            }
            if writes {
                guard inputs.count == 1 else { fail(severalWithTables(inputs, tables), status: 2) }
                let status = DatabaseOutput.write(table, request, query: query)
                if status != 0 { throw ExitCode(status) }
                return
            }
        } else if writes, !gathered.asksForSeveral, let book = inputs.first, book.facts.format == .xlsx, inputs.count > 1 {
            // Several sheets and no --table: as a database's tables, never the first silently.
            fail(Self.severalTables(book.shownPath, "sheets", names: inputs.compactMap(\.table)), status: 2)
        } else if input.table != nil, !inputs.contains(where: { $0.facts.format == .xlsx }) {
            fail("--table chooses a table of a database; " + (inputs.first?.name ?? "stdin") + " is one table", status: 64)
        }
        if insight.isRequested {
            let blocks = TerminalAbilities.drawsBlocks(term: getenv("TERM").map { String(cString: $0) }, userCodeset: userCodeset)
            let status = InsightOutput.run(insight, path: path, request, query: query, drawsBlocks: blocks)
            if status != 0 { throw ExitCode(status) }
            return
        }
        if writes {
            if gathered.asksForSeveral {
                let settings = StackedOutput.Settings(request: request, query: query,
                                                      sourceColumn: noSourceColumn ? nil : sourceColumn ?? "file")
                let status = StackedOutput.write(inputs: inputs, settings: settings)
                if status != 0 { throw ExitCode(status) }
                return
            }
            // A file goes through the export pipeline; a stream without a query is streamed.
            let status = query.isActive || Output.readsThroughStore(path) || Output.keepsJSONTypes(path, request.format)
                ? Output.write(path: path, request, query: query)
                : Output.write(path: path, request)
            if status != 0 { throw ExitCode(status) }
            return
        }
        var options = ViewerOptions(headerRows: headerRows, frozenColumns: freezeColumns, showsRowNumbers: !noRowNumbers,
                                    bounce: bounce, showsIndicators: !noIndicators, showsDebugStats: debugStats,
                                    follows: input.follow, echo: echo)
        options.showsBand = band
        options.drawsBlocks = TerminalAbilities.drawsBlocks(term: getenv("TERM").map { String(cString: $0) }, userCodeset: userCodeset)
        let single = stack && inputs.count == 1 ? "one table: --stack stacks several"
            : stack && !tables.isEmpty ? "--stack stacks files, not a database's tables" : nil
        let note = [leftOut, gathered.skippedLine, single].compactMap { $0 }.joined(separator: "; ")
        let status = Session.run(inputs: inputs, note: note.isEmpty ? nil : note, reading: reading, options: options,
                                 mouse: !noMouse, theme: chosenTheme, terminator: print0 ? 0x00 : 0x0A, query: query,
                                 escapeDelay: escapeDelay, stacked: stack, sessions: sessionStore(), recovery: recovery)
        if status != 0 { throw ExitCode(status) }
    }

    /// The old table's spec and the new one's: FILE (no FILE: standard input), then OTHER.
    func diffSpecs(_ reading: InputSettings) -> [InputSpec] {
        [reading.spec(files.first, argument: 0), reading.spec(diff.other, argument: 1)].map(DatabaseAsCSV.diffing)
    }
}

/// Prints `csvfreeze: message` on stderr and exits.
func fail(_ message: String, status: Int32) -> Never {
    say(message)
    prepareForExit()
    exit(status)
}

/// Says on stderr what the start of an input showed that the output does not: a byte-order
/// mark that overruled `--encoding` (it wins: see DECISIONS.md), and NUL bytes, which text
/// does not hold: UTF-16 with no byte-order mark (every other byte NUL) names the
/// `--encoding` to give, other NULs are probably not text. What is written is the input as
/// read; this says why it may look wrong, as the screen's status line does.
func noteStart(in dialect: Dialect?, of name: String) {
    if let named = dialect?.overruledEncoding, let marked = dialect?.encoding {
        say("\(name): read as \(marked), as its byte-order mark says, not --encoding \(named)")
    }
    guard let dialect, dialect.looksBinary else { return }
    if let encoding = dialect.likelyUTF16 {
        say("\(name): looks like UTF-16 without a byte-order mark: --encoding \(encoding) reads it")
    } else {
        say("\(name): binary data? (NUL bytes)")
    }
}

/// Prints `csvfreeze: message` on stderr, on one line. A message may quote a file name, a
/// header or what the user typed: its control characters, escape sequences, line breaks
/// and characters that draw nothing are shown as the screen shows them (`␛`, `↵`,
/// `<U+200B>`), so nothing from the data reaches the terminal raw.
func say(_ message: String) {
    let line = Array("csvfreeze: \(shownSafely(message))\n".utf8)
    _ = line.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
}

/// `text` as the screen shows it (`CellText`): safe to print on a terminal.
func shownSafely(_ text: String) -> String {
    if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
    return CellText.glyphs(text).map(\.text).joined()
}

enum Locale {
    /// Takes the user's locale, falling back to C.UTF-8 so widths and wide output work;
    /// returns the user's own character set (what the terminal was told to expect).
    @discardableResult
    static func setUpUTF8() -> String {
        setlocale(LC_ALL, "")
        let codeset = String(cString: nl_langinfo(nl_item(CODESET)))
        if codeset.uppercased().filter({ $0 != "-" }) != "UTF8" {
            if setlocale(LC_CTYPE, "C.UTF-8") == nil { setlocale(LC_CTYPE, "en_US.UTF-8") }
        }
        return codeset
    }
}
