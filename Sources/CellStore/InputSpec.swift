/// One input as the user describes it: where its bytes are, what format they are in, how
/// its text is read (delimiter, quote, encoding, preamble), how far a stream may spool,
/// and whether it is followed as it grows.
///
/// Every way of reading a table (the screen, an output, `--sql`, `--diff`) opens its
/// stores from one (`CellStore.open(_:)`), so what the command line says of an input
/// reaches them all, and a new kind of input (another format, a URL) is a new case here
/// rather than another parameter through every caller. What is not the input's but the
/// reader's (a sorted output reads at random, a test runs the loader itself) stays a
/// parameter of `open`.
package struct InputSpec: Sendable, Equatable {
    /// Where the bytes are.
    package enum Location: Sendable, Equatable {
        /// Standard input (`-`, or no file named).
        case standardInput
        /// A path as given: a file, a FIFO, a device, `/dev/stdin`.
        case file(String)
        /// A URL: described, not read yet (opening one says so).
        case url(String)
    }

    /// How the bytes make a table (or tables: a database or a workbook holds several).
    package enum Format: String, Sendable, Equatable, CaseIterable {
        /// Delimited text: CSV, TSV and their kin, compressed or not.
        case csv
        /// One JSON object per line (`.jsonl`, `.ndjson`, `jq -c` output).
        case jsonLines
        /// One JSON array of objects (`.json`, as APIs and `--output json` write).
        case jsonArray
        /// A SQLite database: each table and view a table.
        case sqlite
        /// An Excel workbook (`.xlsx`): each worksheet a table.
        case xlsx
    }

    /// Where the bytes are.
    package var location: Location
    /// How the bytes make a table.
    package var format: Format
    /// The field delimiter; nil: from the file name, a `sep=` line, else detected.
    package var delimiter: UInt8?
    /// The quote character (`Dialect.noQuote`: none); nil: the default.
    package var quote: UInt8?
    /// What the text is written in, converted to UTF-8 as it is read; nil: UTF-8, or what
    /// a byte-order mark says (a mark wins over a name too).
    package var encoding: TextEncoding?
    /// Which leading lines are a preamble above the header.
    package var preamble: PreambleRule
    /// How far a stream, or a decompressed input, may fill its spool (see `SpoolLimit`).
    package var spoolLimit: SpoolLimit
    /// True when the input is read on as it grows (`--follow`).
    package var follows: Bool
    /// Which table of an input that holds several (a database's table or view, a
    /// workbook's sheet, by name); nil: every one, or the only one.
    package var table: String?
    /// What messages and the screen call the input when not its path (a database's table
    /// read from a copy of its rows: `shop.db:orders`); nil: its path.
    package var shownName: String?

    package init(_ location: Location, format: Format = .csv, delimiter: UInt8? = nil, quote: UInt8? = nil,
                 encoding: TextEncoding? = nil, preamble: PreambleRule = .none, spoolLimit: SpoolLimit = .keepFree,
                 follows: Bool = false, table: String? = nil) {
        self.location = location
        self.format = format
        self.table = table
        self.delimiter = delimiter
        self.quote = quote
        self.encoding = encoding
        self.preamble = preamble
        self.spoolLimit = spoolLimit
        self.follows = follows
    }

    /// The input at `path`, read as the other arguments say; nil or `-` is standard input.
    package init(path: String?, delimiter: UInt8? = nil, quote: UInt8? = nil, encoding: TextEncoding? = nil,
                 preamble: PreambleRule = .none, spoolLimit: SpoolLimit = .keepFree, follows: Bool = false) {
        self.init(path.flatMap { $0 == "-" ? nil : Location.file($0) } ?? .standardInput, delimiter: delimiter, quote: quote,
                  encoding: encoding, preamble: preamble, spoolLimit: spoolLimit, follows: follows)
    }

    /// The same description for another input (the same options, another file).
    package func reading(_ path: String?) -> InputSpec {
        var spec = self
        spec.location = InputSpec(path: path).location
        return spec
    }

    /// The path of a file input; nil for standard input and a URL.
    package var path: String? {
        if case .file(let path) = location { return path }
        return nil
    }

    /// What the input is called on screen and in messages: the path or URL as given, or
    /// `stdin`.
    package var name: String {
        switch location {
        case .standardInput: return "stdin"
        case .file(let path), .url(let path): return path
        }
    }

    /// The path the readers below open (nil: standard input), or why they cannot read it.
    func readablePath() throws(CellStoreError) -> String? {
        switch location {
        case .standardInput: return nil
        case .file(let path): return path
        case .url(let url): throw .unreadable(url, "reading a URL is not supported yet")
        }
    }
}
