import ArgumentParser

extension CSVFreezeCommand {
    /// `--set`, `--delete-row` and `--in-place`: one file, written or saved, nothing else.
    func validateEdits() throws {
        guard edit.isRequested || edit.inPlace || edit.recover != nil else { return }
        if !edit.isRequested && edit.recover == nil {
            throw ValidationError("--in-place saves edits over FILE: give --set, --delete-row or --recover")
        }
        if edit.recover != nil && (files.count != 1 || files == ["-"]) {
            throw ValidationError("--recover JOURNAL FILE: give the one FILE the edits were made on")
        }
        if edit.inPlace && output != nil {
            throw ValidationError("--in-place saves over FILE, --output writes to standard output: give one of them")
        }
        if edit.inPlace && readsStandardInput {
            throw ValidationError("--in-place saves over FILE: standard input has no file to save over (write it with --output)")
        }
        if edit.isRequested && !edit.inPlace && output == nil {
            throw ValidationError("--set and --delete-row write the edited table: give --output FORMAT (to standard output) or --in-place")
        }
        if files.count > 1 { throw ValidationError("--set, --delete-row and --in-place edit one FILE") }
        if let mode = [(sql.query != nil, "--sql"), (diff.isRequested, "--diff"), (insight.frequency != nil, "--frequency"),
                       (insight.histogram != nil, "--histogram"), (insight.summary, "--summary"), (echo != nil, "--echo"),
                       (input.follow, "--follow"), (stack, "--stack"), (skipBad, "--skip-bad"),
                       (sourceColumn != nil, "--source-column")].first(where: \.0)?.1 {
            throw ValidationError("\(edit.recover != nil ? "--recover" : "--set and --delete-row") edit one file: not with \(mode)")
        }
        if edit.inPlace && query.isActive {
            throw ValidationError("--in-place saves every record of FILE: not with --filter, --sort or --columns (use --output)")
        }
    }
}
