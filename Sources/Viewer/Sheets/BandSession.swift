import CellStore
import Display
import FreezeLayout
import Insight
import Query
import Scan
import Table

/// The distribution band under the header (`B`): whether it shows, the pass that pictures
/// the columns (`PictureScan`), and the pictures the last refresh took from it.
///
/// The pass pictures the rows of the view: over a filter, the rows it keeps (a pass of
/// their own, started once the filter is made); a sort changes no picture. Drawing reads
/// `shown` only, one column's fine bins at a time, so a frame costs what the screen holds.
struct BandSession {
    /// True while the band shows.
    private(set) var isOn = false
    private var scan: PictureScan?
    /// The pictures as of the last refresh (kept until a new pass publishes, so a new
    /// filter's band replaces the old one without a blank between).
    private(set) var shown: PictureScan.Snapshot?
    /// True while `shown` is from a pass over other rows than the view's now.
    private(set) var isStale = false
    /// What the pass was started over: the view's filters, the source's generation, the
    /// file's edits (their patch), and the marked records `"` keeps (nil without `"`).
    private var madeFor: (filters: [RecordFilter], generation: Int, patch: Int?, marked: ObjectIdentifier?)?
    /// Laid-out pictures by column, width and glyphs, for the pictures in `shown`.
    let cache = BandCache()

    /// True when the pictures on screen are every row's, exactly.
    var isExact: Bool { !isStale && shown?.isComplete == true }

    mutating func toggle() { isOn.toggle() }
    mutating func turnOn() { isOn = true }

    /// Starts the pass over what `table` shows now (its filters' rows, or with `"` the
    /// marked ones among them, `marked`), unless one already runs for it; nothing when the
    /// band is off.
    mutating func follow(_ table: TableView, filters: [RecordFilter], filtered: (any RecordSequence)?, marked: RecordList? = nil,
                         headerRows: Int) {
        guard isOn else {
            stop()
            return
        }
        let markedKey = marked.map(ObjectIdentifier.init)
        let patch = table.file?.patch.id
        if let madeFor, madeFor.filters == filters, madeFor.generation == table.source.generation, madeFor.patch == patch,
           madeFor.marked == markedKey {
            return
        }
        scan?.cancel()
        scan = nil
        isStale = shown != nil
        madeFor = (filters, table.source.generation, patch, markedKey)
        let records: (any RecordSequence)? = marked ?? (filters.isEmpty ? nil : filtered)
        if let file = table.file {
            scan = PictureScan(readers: file.follows ? file.recordReadersAsOfNow : file.recordReaders, headerRows: headerRows,
                               records: records, wake: table.source.wake)
        } else if let rows = table.source.snapshot() {
            scan = PictureScan(rows: rows, headerRows: headerRows, records: records, wake: table.source.wake)
        }
    }

    /// Stops the pass and forgets the pictures (the band was turned off).
    mutating func stop() {
        scan?.cancel()
        scan = nil
        shown = nil
        madeFor = nil
        isStale = false
        cache.clear()
    }

    /// Takes what the pass published since the last refresh; true when it changed.
    @discardableResult
    mutating func takeNews() -> Bool {
        guard let scan, let latest = scan.snapshot else { return false }
        if let shown, !isStale, shown.records == latest.records, shown.isComplete == latest.isComplete,
           shown.pictures.count == latest.pictures.count {
            return false
        }
        shown = latest
        isStale = false
        cache.clear()
        return true
    }

    /// True when the pass has pictures the screen does not show yet.
    var hasNews: Bool {
        guard let scan, let latest = scan.snapshot else { return false }
        return isStale || shown?.records != latest.records || shown?.isComplete != latest.isComplete
    }

    /// Whether a pass exists for the band (a table whose rows can be read).
    var isAvailable: Bool { scan != nil }

    /// The picture of input column `column`, if the band has one.
    func picture(ofFileColumn column: Int) -> ColumnPicture? {
        guard let shown, column >= 0, column < shown.pictures.count else { return nil }
        return shown.pictures[column]
    }
}

/// Pictures laid out for the screen, kept while the pictures stay the same: a column's
/// cells by width, and each region's band line as last drawn, so a frame whose band shows
/// what the last one showed (the pictures, the columns' places and widths, the cursor on
/// it) costs a copy of that line.
final class BandCache {
    private struct Key: Hashable {
        var column: Int
        var width: Int
        var isASCII: Bool
    }

    /// What one column's part of a band line was drawn from.
    struct Slot: Equatable {
        var column: Int
        var fileColumn: Int
        var width: Int
        var slice: ColumnSlice
        var isCursor: Bool
        var isBorder: Bool
    }

    /// A region's band line as drawn: what it was drawn from, and its cells by slot.
    struct Line {
        var region: Int
        var x: Int
        var y: Int
        var isExact: Bool
        var isASCII: Bool
        var slots: [Slot]
        var cells: [[FrameCell]]
    }

    private var entries: [Key: [String]] = [:]
    private var lines: [Line] = []
    /// How many band lines were laid out (not copied), for tests.
    private(set) var linesMade = 0

    func clear() {
        entries.removeAll(keepingCapacity: true)
        lines.removeAll(keepingCapacity: true)
    }

    /// The cells of column `column`'s picture at `width`, made once.
    func cells(column: Int, width: Int, glyphs: PictureGlyphs, make: () -> [String]) -> [String] {
        let key = Key(column: column, width: width, isASCII: glyphs == .ascii)
        if let cells = entries[key] { return cells }
        if entries.count > 4096 { entries.removeAll(keepingCapacity: true) }
        let cells = make()
        entries[key] = cells
        return cells
    }

    /// The line last drawn for `region` at (`x`, `y`), when it was drawn from the same
    /// slots; `slot(i)` gives the slot the frame would draw for its `i`th slice.
    func line(region: Int, x: Int, y: Int, isExact: Bool, glyphs: PictureGlyphs, count: Int,
              slot: (Int) -> Slot) -> Line? {
        guard let line = lines.first(where: { $0.region == region && $0.x == x && $0.y == y }),
              line.isExact == isExact, line.isASCII == (glyphs == .ascii), line.slots.count == count else { return nil }
        for index in 0..<count where line.slots[index] != slot(index) { return nil }
        return line
    }

    /// Keeps `line` as its region's last drawn.
    func keep(_ line: Line) {
        linesMade += 1
        lines.removeAll { $0.region == line.region && $0.x == line.x && $0.y == line.y }
        if lines.count >= 8 { lines.removeFirst() }
        lines.append(line)
    }
}
