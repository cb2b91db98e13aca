import ArgumentParser

/// `--diff OTHER`: the options that compare FILE (the old table) with OTHER (the new one).
struct DiffOptions: ParsableArguments {
    @Option(name: .customLong("diff"),
            help: ArgumentHelp("Compare FILE (the old table) with OTHER (the new one). On a terminal: one table on screen, the changes marked, ) and ( from change to change, D the old and new tables side by side (a wide enough terminal). With --output (or to a pipe): the differences in daff's highlighter format (@@ header, +++ added, --- removed, -> changed with old->new in the cells, : moved (by key), ... for rows left out; csv, tsv, json or jsonl, default an aligned table); Ctrl-S on screen writes every row so, the ! row first. Columns are matched by name. Without --key, records are aligned by position: the fewest rows changed, added or removed (a changed record is one). Exit status as diff: 0 no differences, 1 differences, 2 trouble.",
                               valueName: "other"))
    var other: String?

    @Option(name: .customLong("key"),
            help: ArgumentHelp("With --diff: match records by these columns' values (names or numbers from 1, separated by commas; repeatable) instead of by position. Rows come in the new table's order (a removed record where the old one had it; a record the new table has elsewhere marked : as moved), so daff patch rebuilds it; a key that several records have is reported and matched in order.",
                               valueName: "column,…"))
    var keys: [String] = []

    @Option(parsing: .unconditional,
            help: ArgumentHelp("With --diff: unchanged rows shown before and after each difference (default 1, as daff: its patch places rows by them).",
                               valueName: "n"))
    var context: Int?

    var isRequested: Bool { other != nil }

    func validate() throws {
        if let context, context < 0 { throw ValidationError("--context must be 0 or more") }
        if other == nil && (!keys.isEmpty || context != nil) { throw ValidationError("--key and --context go with --diff") }
        if keys.contains(where: \.isEmpty) { throw ValidationError("--key takes a column name or number") }
    }

    /// The key's columns as given: each `--key` split at commas, unless the whole text is
    /// meant (resolved later; a name holding a comma is given in a `--key` of its own).
    var keyColumns: [String] {
        keys.flatMap { text in text.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    }
}
