import ArgumentParser
import CellStore

/// How every input is read, as the command line says: the dialect, the text encoding,
/// what leading lines are, following, and how much of a stream may be spooled. It makes
/// the `InputSpec` of each input argument (`settings(arguments:)`), so every mode opens
/// its inputs from the same description.
///
/// Each value is read by its own type as far as it can be alone; what is wrong with one
/// is said by `validate()` in csvfreeze's words (a failing `init?(argument:)` would get
/// swift-argument-parser's generic line), and what depends on another option or on the
/// number of inputs is judged there or by the command.
struct InputOptions: ParsableArguments {
    @Option(name: [.customShort("d"), .long],
            help: ArgumentHelp("Field delimiter: one character, or 'tab' (default: from the file name, or a first line 'sep=;' as Excel writes it, else detected).",
                               valueName: "char"))
    var delimiter: DelimiterArgument?

    @Option(help: ArgumentHelp("Of a file that holds several tables (a SQLite database, known by its header whatever its name, or an Excel workbook): open only the table, view or worksheet NAME (case does not matter when no name matches exactly). Without it every table, view or worksheet opens, } and { switch, T lists them with their row counts. A name not there stops with one line listing the names (exit 1). --output, --frequency, --summary, --diff and --sql (a workbook's sheet as t) of several tables need it (exit 2 without).",
                               valueName: "name"))
    var table: String?

    @Option(help: ArgumentHelp("The quote character (default: \"), or 'none': no field is quoted, a quote is data (TSV files with literal quotes).", valueName: "char"))
    var quote: QuoteArgument?

    @Option(help: ArgumentHelp("The input's character encoding, converted to UTF-8 as it is read: latin1, windows-1252, utf-16, or any name iconv knows (default: UTF-8, or UTF-16/UTF-32 when the file starts with their byte-order mark; UTF-16 without one, the status line names, and output modes on stderr). One name is for every input; a comma list gives each input argument its own, in order (FILE then OTHER with --diff: --encoding OLD,NEW; a directory's files share one; an empty item is the default). A byte-order mark wins over the name: where they differ, one line says so. Bytes not valid in it show as U+FFFD and one line says where the first is (exit 1 with output); UTF-8 named so is checked as it is read (one U+FFFD per invalid sequence), unnamed it is not.",
                               valueName: "name[,name…]"))
    var encoding: EncodingsArgument?

    @Option(parsing: .unconditional, help: ArgumentHelp("Lines before the header shown above it as plain text (default: leading '#' lines that read as comments, not those shaped like the records or holding a spreadsheet error such as #N/A); blank lines after them belong to them.",
                               valueName: "n"))
    var preamble: Int?

    @Flag(help: "Do not treat leading '#' lines as a preamble.")
    var noPreamble = false

    @Flag(name: .shortAndLong,
          help: "Keep reading the file as it grows, like tail -F: after a truncation, from its new start; after a rotation by renaming, the new file under the name. The view stays at the bottom if it was there. JSON lines are followed too; compressed files, text read through --encoding and JSON arrays are read once. On the screen only: not with --output, --frequency or --summary.")
    var follow = false

    @Option(help: ArgumentHelp("Standard input, a pipe, or decompressed zstd, xz or bzip2 is kept in a temporary file; reading pauses when it reaches SIZE (100M, 2G; default: while the temporary file system has at least 1 GiB or a tenth free). A database or workbook on standard input is copied to a file first: past SIZE, one line and exit 1.",
                               valueName: "size"))
    var spoolLimit: SpoolLimitArgument?

    func validate() throws {
        let delimiterByte = try delimiter.map { try $0.byte.get() }
        if delimiterByte == 0x22 && quote == nil {
            throw ValidationError("--delimiter cannot be the quote character (choose another with --quote)")
        }
        if let quoteByte = try quote.map({ try $0.byte.get() }), quoteByte == delimiterByte {
            throw ValidationError("--quote and --delimiter cannot be the same character")
        }
        if let preamble, preamble < 0 { throw ValidationError("--preamble must be 0 or more") }
        _ = try spoolLimit?.limit.get()
    }

    /// The encodings named by `--encoding` for `inputs` input arguments: one for every
    /// input, or a comma list with one for each in order (FILE then OTHER for a diff), an
    /// empty item for the default.
    func encodings(forInputs inputs: Int) throws -> [TextEncoding?] {
        guard let encoding else { return [nil] }
        if encoding.names.count > 1 && encoding.names.count != inputs {
            let count = encoding.names.count
            throw ValidationError("--encoding names \(count) encodings for \(inputs) input\(inputs == 1 ? "" : "s"): "
                                  + "give one for all, or one for each in order (an empty one for the default)")
        }
        return try encoding.encodings.get()
    }

    /// A '#' preamble is detected unless told otherwise, on screen and in output alike, so
    /// both take the same line for the header (CSV output writes the preamble back as it was).
    var preambleRule: PreambleRule {
        if let preamble { return .lines(preamble) }
        return noPreamble ? .none : .detect
    }

    /// The specs of `inputs` input arguments, as the options say (checked by `validate()`
    /// and `encodings(forInputs:)` before).
    func settings(arguments inputs: Int) throws -> InputSettings {
        let spec = InputSpec(.standardInput, delimiter: try delimiter?.byte.get(), quote: try quote?.byte.get(),
                             preamble: preambleRule, spoolLimit: try spoolLimit?.limit.get() ?? .keepFree, follows: follow,
                             table: table)
        return InputSettings(specs: try encodings(forInputs: inputs).map { encoding in
            var each = spec
            each.encoding = encoding
            return each
        })
    }
}

/// `-d` as given: one single-byte character, or `tab`.
struct DelimiterArgument: ExpressibleByArgument {
    /// The byte, or what is wrong with the argument.
    let byte: Result<UInt8, ValidationError>

    init?(argument: String) {
        switch argument {
        case "tab", "\\t", "\t": byte = .success(0x09)
        default:
            let bytes = Array(argument.utf8)
            if bytes.count != 1 {
                byte = .failure(ValidationError("--delimiter takes one single-byte character or 'tab', not '\(shownSafely(argument))'"))
            } else if bytes[0] == 0x0A || bytes[0] == 0x0D {
                byte = .failure(ValidationError("--delimiter cannot be a line break"))
            } else {
                byte = .success(bytes[0])
            }
        }
    }
}

/// `--quote` as given: one single-byte character, or `none` (a byte that never quotes).
struct QuoteArgument: ExpressibleByArgument {
    /// The byte, or what is wrong with the argument.
    let byte: Result<UInt8, ValidationError>

    init?(argument: String) {
        let bytes = Array(argument.utf8)
        if argument == "none" {
            byte = .success(Dialect.noQuote)
        } else if bytes.count == 1, bytes[0] != 0x0A, bytes[0] != 0x0D {
            byte = .success(bytes[0])
        } else {
            byte = .failure(ValidationError("--quote takes one single-byte character or 'none', not '\(shownSafely(argument))'"))
        }
    }
}

/// `--encoding` as given: one name, or a comma list of names (an empty one: the default).
struct EncodingsArgument: ExpressibleByArgument {
    /// The items as given.
    let names: [String]
    /// The encodings, or what is wrong with the first name iconv does not know.
    let encodings: Result<[TextEncoding?], ValidationError>

    init?(argument: String) {
        names = argument.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        var encodings: [TextEncoding?] = []
        for name in names {
            if name.isEmpty && names.count > 1 {
                encodings.append(nil)
                continue
            }
            do {
                encodings.append(try TextEncoding(named: name))
            } catch {
                self.encodings = .failure(ValidationError("--encoding: \(shownSafely(error.description))"))
                return
            }
        }
        self.encodings = .success(encodings)
    }
}

/// `--spool-limit` as given: a size such as `100M` or `2G`.
struct SpoolLimitArgument: ExpressibleByArgument {
    /// The limit, or what is wrong with the argument.
    let limit: Result<SpoolLimit, ValidationError>

    init?(argument: String) {
        if let limit = SpoolLimit(parsing: argument) {
            self.limit = .success(limit)
        } else {
            limit = .failure(ValidationError("--spool-limit takes a size above zero such as 100M, 2G or 500MB, not '\(shownSafely(argument))'"))
        }
    }
}
