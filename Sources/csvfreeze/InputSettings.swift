import App
import CellStore

/// How the command line asks every input to be read: the dialect it gives, the text
/// encoding, what leading lines are, and how much of a stream may be spooled. Every mode
/// opens its inputs with all of them, so they travel together.
struct InputSettings: Sendable {
    /// The field delimiter (`-d`); nil: from the file name, a `sep=` line, else detected.
    var delimiter: UInt8?
    /// The quote character (`--quote`); nil: the default.
    var quote: UInt8?
    /// The inputs' encodings (`--encoding`): one for every input, or one for each argument
    /// in order (FILE then OTHER for a diff; a directory's files share one); nil: UTF-8,
    /// or what a byte-order mark says (which wins over a name too).
    var encodings: [TextEncoding?] = [nil]
    /// Which leading lines are a preamble above the header.
    var preamble: PreambleRule
    /// How far a stream or decompressed input may fill its temporary file (`--spool-limit`).
    var spoolLimit: SpoolLimit

    /// The encoding for the input of argument `argument` (from 0).
    func encoding(ofArgument argument: Int) -> TextEncoding? {
        encodings.count == 1 ? encodings[0] : argument < encodings.count ? encodings[argument] : nil
    }

    /// Opens `path` (nil or `-`: standard input), the input of argument `argument`, for the
    /// viewer's store, read as these settings say.
    func open(_ path: String?, argument: Int = 0, follows: Bool = false, readsAtRandom: Bool = false, startsLoader: Bool = true,
              onChange: @escaping @Sendable () -> Void = {}) throws(CellStoreError) -> CellStore {
        try CellStore.open(path: path, delimiter: delimiter, quote: quote, preamble: preamble,
                           encoding: encoding(ofArgument: argument),
                           follows: follows, spoolLimit: spoolLimit, readsAtRandom: readsAtRandom, startsLoader: startsLoader,
                           onChange: onChange)
    }

    /// Opens `input`, one of several, for a store: what is read once is read through the
    /// one stream opened on it, whichever store opens it first.
    func open(_ input: TableInput, follows: Bool = false, readsAtRandom: Bool = false, startsLoader: Bool = true,
              onChange: @escaping @Sendable () -> Void = {}) throws(CellStoreError) -> CellStore {
        try CellStore.open(path: input.path, delimiter: delimiter, quote: quote, preamble: preamble,
                           encoding: encoding(ofArgument: input.argument), shared: input.stream, follows: follows, spoolLimit: spoolLimit, readsAtRandom: readsAtRandom,
                           startsLoader: startsLoader, onChange: onChange)
    }
}
