/// How messages name a record of an input: as the screen numbers it. A data row is
/// `row N`, N from 1 as the margin shows it (the header's records not counted); a record
/// of the header is `the header` (`header row N` when the header has several).
public enum RecordPlace {
    /// The name of `record`, counted from 0 with the header's records, of an input whose
    /// first `headerRows` records are its header.
    public static func name(_ record: Int, headerRows: Int) -> String {
        guard record >= headerRows else { return headerRows == 1 ? "the header" : "header row \(record + 1)" }
        return "row \(record - headerRows + 1)"
    }
}
