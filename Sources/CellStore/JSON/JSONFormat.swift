/// How a JSON format is read (its detection is `InputSpec.Format.detect`, in
/// FormatDetection.swift at the module's root, with every other format's).
extension InputSpec.Format {
    /// The JSON conversion this format needs, nil for one read as it is.
    var jsonMode: JSONMode? {
        switch self {
        case .jsonLines: return .lines
        case .jsonArray: return .array
        case .csv, .sqlite, .xlsx: return nil
        }
    }
}

extension InputSpec {
    /// The format of this input as its name and first bytes say (see `Format.detect`),
    /// reading no more than `Format.detectionLength` of it (decompressed). A stream is
    /// not looked into (that may wait): `.csv`, and its loader decides as it reads.
    package func detectFormat() throws(CellStoreError) -> Format {
        guard case .file(let path) = location else { return format }
        do {
            return try Format.detect(path: path, count: Format.detectionLength)
        } catch {
            throw .notATable(path, error.found)
        }
    }
}
