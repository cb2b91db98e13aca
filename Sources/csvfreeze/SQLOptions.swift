import ArgumentParser

/// `--sql`: the option that asks a question of the inputs in SQL.
struct SQLOptions: ParsableArguments {
    @Option(name: .customLong("sql"),
            help: ArgumentHelp("Answer QUERY with SQLite over the input(s) instead of viewing, and write the answer (--output chooses the format, default table). Each FILE is a table named by its file name without extensions (sales-2024.csv.gz is sales_2024), the first also t; columns by header name, each typed once from its first 1,000 filled cells (a number column's numbers are numbers, a text column's cells text as written; pragma table_info(t) shows the types), empty cells NULL; json and jsonl write numbers bare and NULL as null, the other formats NULL as an empty cell. Several FILEs can be joined. A table has at most 2,000 columns (SQLite's limit): a wider FILE is queried over its first 2,000, said on standard error, exit 1. SQL may only read: a statement that would write, create, attach or set a pragma is refused (exit 65).",
                               valueName: "query"))
    var query: String?
}
