extension Viewer {
    /// Shows a one-shot message in the status line (cleared by the next command), for news
    /// the event loop learns itself, such as a followed file read again from its start.
    public func say(_ text: String) { message = text }
}
