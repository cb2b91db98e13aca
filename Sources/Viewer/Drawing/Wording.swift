import CellStore

/// How the viewer and its parts say things: counts with their nouns, grouped digits,
/// sizes, durations, progress bars, text fitted to a width.
///
/// A protocol with only static helpers, so that the viewer (and its extensions in other
/// files, `Self.counted(…)`) and its parts share one wording without any of them owning it.
package protocol Wording {}

extension Wording {
    /// How far a pass running in the background is, in whole percent: 99 at most, so 100
    /// means done.
    package static func percent(_ done: Int64, of total: Int64) -> Int {
        total > 0 ? min(99, Int(done * 100 / total)) : 0
    }

    static func digits(_ value: Int) -> Int {
        max(3, String(max(0, value)).count)
    }

    /// `1234567` as `1,234,567`.
    static func grouped(_ value: Int) -> String { value.grouped }

    /// "is" for one, "are" for any other count.
    static func isAre(_ count: Int) -> String { count == 1 ? "is" : "are" }

    /// `1 row`, `2 rows`, `1,024 bytes`: a count with its noun, singular for one.
    package static func counted(_ count: Int, _ noun: String) -> String {
        "\(grouped(count)) \(noun)\(count == 1 ? "" : "s")"
    }

    /// `once`, `2 times`, `1,024 times`.
    static func times(_ count: Int) -> String { count == 1 ? "once" : "\(grouped(count)) times" }

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
    package static func bytes(_ value: Double) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var amount = value, unit = 0
        while amount >= 1000 && unit < units.count - 1 { amount /= 1000; unit += 1 }
        let digits = amount >= 100 || unit == 0 ? String(Int(amount.rounded())) : String((amount * 10).rounded() / 10)
        return digits + " " + units[unit]
    }

    /// Seconds as `3 s`, `2 min`, `1 h 5 min`.
    package static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        if whole < 60 { return "\(max(1, whole)) s" }
        if whole < 3600 { return "\((whole + 59) / 60) min" }
        return "\(whole / 3600) h \((whole % 3600) / 60) min"
    }

    /// `text` shortened to `width` cells with `…`, keeping its end (a path's file name)
    /// or its start.
    /// A path's last part (`b.csv` of `data/b.csv`).
    static func lastPathPart(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

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

extension Viewer: Wording {}
