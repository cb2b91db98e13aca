/// What a viewer asks of the event loop about the open tables: the loop holds them, the
/// viewer only knows its own.
public enum TableRequest: Sendable, Equatable {
    /// The next table (`}`), the previous one (`{`), wrapping around.
    case next
    case previous
    /// The list of open tables, as a sheet (`T`).
    case list
    /// Table `n`, from 0 (Enter on its line in that list).
    case show(Int)
    /// Every table in one scroll, or back from it to the table under the cursor (`S`).
    case stack
}

extension Viewer {
    /// The table this viewer asks to show, once (the event loop takes it).
    public func takeTableRequest() -> TableRequest? {
        defer { requests.table = nil }
        return requests.table
    }
}
