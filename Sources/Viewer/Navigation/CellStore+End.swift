import CellStore

extension CellStore {
    /// For `G`, or a row past what is read: looks for the end of a file still loading
    /// (see `jumpToEnd`), reading the last screens' worth of a `screenHeight` screen.
    /// What the status line says: that row numbers are estimates, or that the input is
    /// still loading (`knownRows` known so far); nil when the file is read whole, or
    /// followed (its end moves).
    func reachEnd(screenHeight: Int, follows: Bool, knownRows: @autoclosure () -> Int) -> String? {
        guard !isComplete && !follows else { return nil }
        return jumpToEnd(rows: max(200, screenHeight * 4)) ? "≈ row numbers are estimates until the file is read"
            : "still loading: row \(Viewer.grouped(knownRows()))+ is the last known so far"
    }
}
