/// How the grid behaves when pushed past an edge, after DQKFreezeWindowView's styles.
public enum BounceStyle: String, Sendable, CaseIterable {
    /// The whole sheet is pulled: at the top or left edge the header band, the left band
    /// and the corner move with main, leaving a blank strip at the grid's top or left.
    case all
    /// Only main's content moves; the bands stay, and a gap opens inside main.
    case main
    /// Offsets are clamped: nothing moves past an edge.
    case none
}
