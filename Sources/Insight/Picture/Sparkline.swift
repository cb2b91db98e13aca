/// The characters a picture is drawn with: the eight block levels, or, on a terminal that
/// cannot draw them (vt100, a locale that is not UTF-8), eight ASCII levels.
package enum PictureGlyphs: Sendable, Equatable {
    case blocks
    case ascii

    /// Heights from nothing (a blank) to full.
    package var levels: [String] {
        switch self {
        case .blocks: return [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
        case .ascii: return [" ", ".", ":", "-", "=", "+", "*", "#"]
        }
    }

    /// A text bar's segments, in turn (the most common value first), and the rest.
    var segments: [String] {
        switch self {
        case .blocks: return ["█", "▓", "▒"]
        case .ascii: return ["#", "=", "-"]
        }
    }

    var rest: String { self == .blocks ? "░" : "." }
    /// Marks an estimate (a distinct count past the budget; a picture not exact yet).
    package var approximately: String { self == .blocks ? "≈" : "~" }
    /// A flat line: one distinct value, or none.
    var flat: String { self == .blocks ? "▁" : "_" }
}

/// A column's picture before it is drawn: a flat line, heights of bins, or the shares of
/// the most common values (then how many distinct values there are).
package enum ColumnShape: Sendable, Equatable {
    case flat
    case histogram([Int])
    case shares(counts: [Int], total: Int, distinct: Int, isEstimate: Bool)

    /// The picture in `width` cells, one string a cell: bins as heights (the highest full,
    /// blanks after the last), shares as segments in turn with the rest after them and the
    /// distinct count when at least four cells are left for the bar, a flat line.
    package func cells(width: Int, glyphs: PictureGlyphs) -> [String] {
        guard width > 0 else { return [] }
        switch self {
        case .flat:
            return Array(repeating: glyphs.flat, count: width)
        case .histogram(let counts):
            let levels = glyphs.levels
            let top = levels.count - 1
            let most = counts.max() ?? 0
            var cells = counts.prefix(width).map { count -> String in
                guard count > 0, most > 0 else { return levels[0] }
                return levels[max(1, min(top, (count * top + most - 1) / most))]
            }
            while cells.count < width { cells.append(levels[0]) }
            return cells
        case .shares(let counts, let total, let distinct, let isEstimate):
            let suffix = " " + (isEstimate ? glyphs.approximately : "") + ColumnShape.compact(distinct)
            let barWidth = width - suffix.count >= 4 ? width - suffix.count : width
            // Each segment ends where its cumulative share rounds to, so the shares add up.
            // The shades go in turn over the segments drawn, not the values: a value too rare
            // for a cell of its own leaves no gap in the turn, so the bar starts full and two
            // segments side by side never share a shade (and read as one).
            var cells: [String] = []
            var seen = 0, drawn = 0
            for count in counts {
                seen += count
                let end = min(barWidth, Int((Double(seen) / Double(max(1, total)) * Double(barWidth)).rounded()))
                guard end > cells.count else { continue }
                cells += Array(repeating: glyphs.segments[drawn % glyphs.segments.count], count: end - cells.count)
                drawn += 1
            }
            while cells.count < barWidth { cells.append(glyphs.rest) }
            if barWidth < width { cells += suffix.map(String.init) }
            return cells
        }
    }

    /// The picture as one string (the summary's `shape`).
    package func text(width: Int, glyphs: PictureGlyphs) -> String { cells(width: width, glyphs: glyphs).joined() }

    /// A count in at most five characters: `950`, `1234`, `12k`, `1.2M`.
    static func compact(_ count: Int) -> String {
        if count < 10_000 { return "\(count)" }
        if count < 1_000_000 { return "\(count / 1000)k" }
        if count < 10_000_000 { return "\(count / 1_000_000).\(count / 100_000 % 10)M" }
        if count < 1_000_000_000 { return "\(count / 1_000_000)M" }
        return "\(count / 1_000_000_000)G"
    }

    /// Segments a text bar draws at most.
    static let segments = 12
}

extension ColumnPicture {
    /// The picture's shape at `width` cells: a histogram of the numbers or instants (one
    /// group of whole fine bins a cell), the shares of the most common values, or a flat
    /// line for one distinct value or none.
    /// - Complexity: O(fine bins + width), whatever the rows counted.
    package func shape(width: Int) -> ColumnShape {
        if isFlat { return .flat }
        switch kind {
        case .numbers, .instants:
            guard let bins else { return .flat }
            return .histogram(bins.groups(cells: width).counts)
        case .text:
            let (distinct, isEstimate) = self.distinct
            return .shares(counts: topValues(ColumnShape.segments).map(\.count), total: valuesCounted, distinct: distinct,
                           isEstimate: isEstimate)
        case .empty:
            return .flat
        }
    }

    /// The picture drawn in `width` cells (see `ColumnShape.cells`).
    package func sparkline(width: Int, glyphs: PictureGlyphs) -> [String] {
        shape(width: width).cells(width: width, glyphs: glyphs)
    }
}
