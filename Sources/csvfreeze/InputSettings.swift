import App
import CellStore

/// How the command line's inputs are read: one `InputSpec` for each input argument, in
/// order (FILE then OTHER for a diff), or one for every input. Every mode opens its
/// inputs from these, so what the options say of reading reaches them all.
struct InputSettings: Sendable {
    /// One spec for every input, or one for each input argument (their `--encoding`
    /// differs); a directory's files are read as its argument's spec says.
    var specs: [InputSpec]

    /// The same specs, none followed: what is written is read as it is when opened
    /// (`--follow` is for the screen).
    var asOfNow: InputSettings {
        InputSettings(specs: specs.map { spec in
            var spec = spec
            spec.follows = false
            return spec
        })
    }

    /// The spec for `path` (nil or `-`: standard input), the input of argument `argument`
    /// (from 0).
    func spec(_ path: String?, argument: Int = 0) -> InputSpec {
        if specs.count == 1 || argument < specs.count { return specs[specs.count == 1 ? 0 : argument].reading(path) }
        var spec = specs[0].reading(path)
        spec.encoding = nil
        return spec
    }

    /// Opens `path` (nil or `-`: standard input), the input of argument `argument`, for a
    /// store, read as its spec says.
    func open(_ path: String?, argument: Int = 0, readsAtRandom: Bool = false, startsLoader: Bool = true,
              onChange: @escaping @Sendable () -> Void = {}) throws(CellStoreError) -> CellStore {
        try CellStore.open(spec(path, argument: argument), readsAtRandom: readsAtRandom, startsLoader: startsLoader,
                           onChange: onChange)
    }

    /// Opens `input`, one of several, for a store: what is read once is read through the
    /// one stream opened on it, whichever store opens it first. `asOfNow` reads it as it
    /// is now, whatever `--follow` says (a count).
    func open(_ input: TableInput, asOfNow: Bool = false, readsAtRandom: Bool = false, startsLoader: Bool = true,
              onChange: @escaping @Sendable () -> Void = {}) throws(CellStoreError) -> CellStore {
        var spec = spec(input.path, argument: input.argument)
        // A workbook's sheet (a database's table is not a store: see `TableShelf.source`).
        if let table = input.table { spec.table = table }
        if asOfNow { spec.follows = false }
        return try CellStore.open(spec, shared: input.stream, readsAtRandom: readsAtRandom, startsLoader: startsLoader,
                                  onChange: onChange)
    }
}
