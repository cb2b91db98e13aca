/// Wrapped texts one after another (one cell in the inspector, a record's cells in the
/// record view), paged from a top line.
///
/// The top is a position (a text and a line start in it), not a line number, so every
/// step costs what is on screen: a line down lays out the lines in view, a page up wraps
/// back at most a segment of each text crossed, `G` lays out only the last page.
struct PagedText {
    /// A line start: which text, and where in its bytes.
    struct Position: Sendable, Equatable, Comparable {
        var section: Int
        var offset: Int

        static func < (lhs: Position, rhs: Position) -> Bool {
            (lhs.section, lhs.offset) < (rhs.section, rhs.offset)
        }
    }

    let sections: [WrappedText]

    var first: Position { Position(section: 0, offset: sections.first?.start ?? 0) }

    var last: Position {
        guard let text = sections.last else { return first }
        return Position(section: sections.count - 1, offset: text.lastLineStart)
    }

    /// The line at `position`'s glyphs, and the next line's position.
    func line(at position: Position) -> (glyphs: [CellText.Glyph], next: Position?) {
        guard sections.indices.contains(position.section) else { return ([], nil) }
        let (glyphs, next) = sections[position.section].line(at: position.offset)
        return (glyphs, next.map { Position(section: position.section, offset: $0) } ?? start(of: position.section + 1))
    }

    /// Up to `count` line starts from `position` on (itself first).
    func starts(from position: Position, count: Int) -> [Position] {
        var result: [Position] = []
        var current: Position? = position
        while let here = current, result.count < count, sections.indices.contains(here.section) {
            let starts = sections[here.section].starts(from: here.offset, count: count - result.count)
            result += starts.map { Position(section: here.section, offset: $0) }
            current = start(of: here.section + 1)
        }
        return result
    }

    /// Up to `count` line starts before `position`, nearest last.
    func starts(before position: Position, count: Int) -> [Position] {
        var result: [Position] = []
        var here = position
        while result.count < count, sections.indices.contains(here.section) {
            let found = sections[here.section].starts(before: here.offset, count: count - result.count)
            result = found.map { Position(section: here.section, offset: $0) } + result
            guard result.count < count, here.section > 0 else { break }
            // The previous text's last line comes right before this text's first.
            let previous = here.section - 1
            here = Position(section: previous, offset: sections[previous].lastLineStart)
            result = [here] + result
        }
        return Array(result.suffix(count))
    }

    /// `position` moved to a line start for the current widths (after a resize).
    func snapped(_ position: Position) -> Position {
        guard sections.indices.contains(position.section) else { return last }
        return Position(section: position.section, offset: sections[position.section].lineStart(atOrBefore: position.offset))
    }

    /// The top line after a scrolling command, `page` lines in view; the last line never
    /// scrolls above the bottom of the page.
    func scrolled(_ top: Position, _ command: PagerCommand, page: Int) -> Position {
        let page = max(1, page)
        switch command {
        case .lineDown:
            let ahead = starts(from: top, count: page + 1)
            return ahead.count > page ? ahead[1] : top
        case .pageDown:
            let ahead = starts(from: top, count: 2 * page)
            guard ahead.count > page else { return top }
            return ahead[min(page, ahead.count - page)]
        case .lineUp:
            return starts(before: top, count: 1).first ?? top
        case .pageUp:
            return starts(before: top, count: page).first ?? top
        case .top:
            return first
        case .bottom:
            let end = last
            return starts(before: end, count: page - 1).first ?? end
        case .next, .previous, .close:
            return top
        }
    }

    private func start(of section: Int) -> Position? {
        sections.indices.contains(section) ? Position(section: section, offset: sections[section].start) : nil
    }
}
