import CellStore
import FreezeLayout

extension Viewer {
    /// Composes the whole screen from the state the last command left; it changes
    /// nothing but its caches (the cells on screen, the rows fetched, the matches).
    ///
    /// - Complexity: proportional to the cells on screen, whatever the size of the input.
    public func frame() -> Frame {
        let notes = FrameComposer.Notes(view: queryNote, hiddenColumns: hiddenColumnsNote, columnName: columnName(cursorColumn),
                                        isGrowing: query.isRunning || query.isPending)
        var composer = FrameComposer(table: table, options: options, screenSize: screenSize, navigation: navigation,
                                     layout: layout, pattern: search.pattern, matcher: search.matcher, message: message,
                                     prompt: input.prompt.map { ($0.kind, $0.line) }, panes: panes, notes: notes, cells: cells,
                                     matchCache: search.matchCache)
        // The composer owns the caches for the frame (held once, they are changed in place).
        cells = CellCache()
        search.matchCache = [:]
        let frame = composer.compose()
        cells = composer.cells
        search.matchCache = composer.matchCache
        return frame
    }

    /// A scroll thumb's cells on a track, for a view of `view` units at `offset` in `total`.
    static func thumb(offset: Int, view: Int, total: Int, track: Int) -> (Int, Int) {
        let first = max(0, offset), last = min(total, offset + view)
        var start = first * track / total
        var end = (last * track + total - 1) / total
        start = min(max(0, start), track - 1)
        end = max(start + 1, min(end, track))
        return (start, end)
    }

    /// Loading progress: a bar, the percentage, the rate and the time left for a file; the
    /// bytes and the rate for a stream.
    static func progressText(_ progress: LoadProgress) -> String {
        let rate = progress.bytesPerSecond > 0 ? "  " + bytes(progress.bytesPerSecond) + "/s" : ""
        guard let fraction = progress.fractionRead else {
            return "reading… " + bytes(Double(progress.bytesRead)) + rate
        }
        let left = progress.secondsLeft.map { "  " + duration($0) + " left" } ?? ""
        return bar(fraction, width: 10) + " \(Int(fraction * 100))%" + rate + left
    }

    /// A bar of `width` cells filled to `fraction`, in eighths of a cell.
    static func bar(_ fraction: Double, width: Int) -> String {
        let eighths = Int((max(0, min(1, fraction)) * Double(width * 8)).rounded(.down))
        let partials = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
        let used = eighths / 8 + (eighths % 8 > 0 ? 1 : 0)
        let text = String(repeating: "█", count: eighths / 8) + partials[eighths % 8]
            + String(repeating: " ", count: width - used)
        return "▕" + text + "▏"
    }

    /// `1536` as `1.5 KB`, `3.2e9` as `3.2 GB`.
    static func bytes(_ value: Double) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var amount = value, unit = 0
        while amount >= 1000 && unit < units.count - 1 { amount /= 1000; unit += 1 }
        let digits = amount >= 100 || unit == 0 ? String(Int(amount.rounded())) : String((amount * 10).rounded() / 10)
        return digits + " " + units[unit]
    }

    /// Seconds as `3 s`, `2 min`, `1 h 5 min`.
    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        if whole < 60 { return "\(max(1, whole)) s" }
        if whole < 3600 { return "\((whole + 59) / 60) min" }
        return "\(whole / 3600) h \((whole % 3600) / 60) min"
    }

    /// `text` shortened to `width` cells with `…`, keeping its end (a path's file name)
    /// or its start.
    static func fitting(_ text: String, width: Int, keepingEnd: Bool) -> String {
        guard DisplayWidth.of(text) > width else { return text }
        guard width >= 2 else { return "" }
        var kept: [Character] = []
        var used = 1
        let characters = keepingEnd ? Array(text.reversed()) : Array(text)
        for character in characters {
            let characterWidth = DisplayWidth.of(character)
            if used + characterWidth > width { break }
            kept.append(character)
            used += characterWidth
        }
        return keepingEnd ? "…" + String(kept.reversed()) : String(kept) + "…"
    }
}
