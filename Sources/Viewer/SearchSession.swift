import Scan

/// The last search, its matcher, the one running in the background, and which cells on
/// screen match.
struct SearchSession {
    var pattern: SearchPattern?
    var matcher: PatternMatcher?
    var matchCache: [Int: Bool] = [:]
    /// The search running in the background, if any (dropping it cancels and joins it).
    var searcher: Searcher?
    /// Data rows a search could look at when the input was still loading (nil: all).
    var searchedRows: Int?
    /// Matches still to step over after the one running (`3n` runs one search, then two more).
    var stepsLeft = 0
    /// Whether a step of a counted search wrapped around.
    var hasWrapped = false
    /// Whether the place before this search's first match was kept for `''`.
    var hasMarkedJump = false
}
