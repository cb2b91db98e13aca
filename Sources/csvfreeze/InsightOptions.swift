import ArgumentParser

/// The options that answer "what is in this column?" without opening the viewer.
struct InsightOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Write each distinct value of COLUMN (a header name or a number from 1) with its count and percentage, most frequent first, instead of viewing (value,count,percent; --output chooses the format, default table). A record too short to have COLUMN counts as the empty value, as the screen shows its missing cell (so in --summary's empty count). A value over 1 MiB counts whole; csv and json write it whole, a table its start and size. A table shows the empty value as (empty), and a value that reads (empty) or starts with a double quote in double quotes, as CSV quotes it.",
                               valueName: "column"))
    var frequency: String?

    @Flag(help: "Write one row per column instead of viewing (with --columns, those columns in that order): its kind (integer, decimal, date/time, boolean, text for a mix, or empty), filled and empty counts, distinct values, min and max (the first and last filled values of an ascending --sort on the column, whatever its kind), mean and sample standard deviation for number columns (the mean inf or -inf when a value is past a double's range such as 1e400, blank with both signs; the deviation blank when a value is past a double's range, inf only when it is itself past a double's range), shortest and longest length, most common values (those --frequency lists first, with the same counts and distinct estimate) (--output chooses the format, default table). A value over 1 MiB counts whole and shows as its start, '…' and its size.")
    var summary = false

    @Option(help: ArgumentHelp("Write COLUMN's numbers (or dates) in bins of one round width instead of viewing: low,high,count,percent, a row a bin from the first holding a value to the last, each [low, high) and its exact count (percent of the records counted). Widths are 1, 2 or 5 × 10^k for numbers; seconds, minutes, hours, days, weeks (from Monday), months and years for dates (whole numbers no narrower than 1, dates without a time than a day). Empty cells and values that are not numbers are in no bin: standard error says how many. A text column is refused (exit 2).",
                               valueName: "column"))
    var histogram: String?

    @Option(parsing: .unconditional,
            help: ArgumentHelp("With --histogram (default 20), or --frequency, which then writes bins as --histogram does: at most N bins, 2 to 1000, the narrowest round width that fits.",
                               valueName: "n"))
    var bins: Int?

    /// True when one of these modes is asked for.
    var isRequested: Bool { frequency != nil || summary || histogram != nil }

    /// The column to bin (`--histogram`, or `--frequency` with `--bins`).
    var binned: String? { histogram ?? (bins != nil ? frequency : nil) }

    func validate() throws {
        if frequency != nil && summary { throw ValidationError("--frequency and --summary cannot be used together") }
        if histogram != nil && (frequency != nil || summary) {
            throw ValidationError("--histogram writes one column's bins: not with --frequency or --summary")
        }
        if let frequency, frequency.isEmpty { throw ValidationError("--frequency takes a column name or number") }
        if let histogram, histogram.isEmpty { throw ValidationError("--histogram takes a column name or number") }
        if let bins {
            guard histogram != nil || frequency != nil else { throw ValidationError("--bins goes with --histogram or --frequency") }
            guard (2...1000).contains(bins) else { throw ValidationError("--bins takes a number of bins from 2 to 1000") }
        }
    }
}
