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
    /// The input's encoding (`--encoding`); nil: UTF-8, or what a byte-order mark says.
    var encoding: TextEncoding?
    /// Which leading lines are a preamble above the header.
    var preamble: PreambleRule
    /// How far a stream or decompressed input may fill its temporary file (`--spool-limit`).
    var spoolLimit: SpoolLimit

    /// Opens `path` (nil or `-`: standard input) for the viewer's store, read as these settings say.
    func open(_ path: String?, follows: Bool = false, readsAtRandom: Bool = false, startsLoader: Bool = true,
              onChange: @escaping @Sendable () -> Void = {}) throws(CellStoreError) -> CellStore {
        try CellStore.open(path: path, delimiter: delimiter, quote: quote, preamble: preamble, encoding: encoding,
                           follows: follows, spoolLimit: spoolLimit, readsAtRandom: readsAtRandom, startsLoader: startsLoader,
                           onChange: onChange)
    }

    /// Opens `input`, one of several, for a store: what is read once is read through the
    /// one stream opened on it, whichever store opens it first.
    func open(_ input: TableInput, follows: Bool = false, readsAtRandom: Bool = false, startsLoader: Bool = true,
              onChange: @escaping @Sendable () -> Void = {}) throws(CellStoreError) -> CellStore {
        try CellStore.open(path: input.path, delimiter: delimiter, quote: quote, preamble: preamble, encoding: encoding,
                           shared: input.stream, follows: follows, spoolLimit: spoolLimit, readsAtRandom: readsAtRandom,
                           startsLoader: startsLoader, onChange: onChange)
    }
}
