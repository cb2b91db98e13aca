import Insight
import Query
import Table

extension Viewer {
    /// `B`: the distribution band on or off.
    func toggleBand() {
        band.toggle()
        guard band.isOn else {
            band.stop()
            navigation.leaveBand()
            return
        }
        followBand()
        guard band.isAvailable else {
            band.stop()
            band.toggle()
            message = "no band here: it pictures one table's rows"
            return
        }
        band.takeNews()
        message = "band: each column's distribution (Up from the first row steps onto it; Enter there opens it)"
    }

    /// Starts the band's pass over the rows the view shows, when they changed (a filter, a
    /// source's new rows, `"` and its marked rows); a sort changes nothing. Cheap when
    /// nothing changed.
    func followBand() {
        guard band.isOn else { return }
        band.follow(table, filters: query.filters, filtered: query.filtered, marked: query.marksOnly ? query.marked : nil,
                    headerRows: options.headerRows)
    }

    /// Enter on the band, or a press on it: the column's histogram (its values, for text).
    func openBandColumn() {
        openColumnSheet(of: cursorFileColumn)
    }

    /// `%`: a column's sheet switches between bins and exact values (the event loop puts
    /// the other sheet in its place); elsewhere it says what it is for.
    func toggleBins() {
        guard options.isSheet, options.switchesBins else {
            message = "% switches a number or date column's sheet (#) between bins and exact values"
            return
        }
        requests.switchesSheet = true
    }

    /// True once, after `%` asked for the sheet's other form (the event loop takes it).
    public func takeSheetSwitch() -> Bool {
        defer { requests.switchesSheet = false }
        return requests.switchesSheet
    }

    /// True while the cursor is on the band.
    var isCursorOnBand: Bool { navigation.isOnBand }

    /// What the frame draws the band from, while it shows.
    var bandDrawing: FrameComposer.Band? {
        guard band.isOn, navigation.bandLine != nil else { return nil }
        return FrameComposer.Band(session: band, glyphs: options.drawsBlocks ? .blocks : .ascii,
                                  isCursorOnBand: navigation.isOnBand)
    }

    /// The status line's notes on the band: the picture under the cursor, and the pass's
    /// progress while the pictures are not exact.
    var bandNotes: (cursor: String?, progress: String?) {
        guard band.isOn else { return (nil, nil) }
        var progress: String?
        if !band.isExact {
            if let shown = band.shown, !band.isStale, shown.total > 0 {
                progress = "band: picturing… \(Viewer.percent(shown.done, of: shown.total))%  (dim until exact)"
            } else {
                progress = query.filters.isEmpty ? "band: picturing…  (dim until exact)"
                    : "band: waiting for the filter's rows  (dim until exact)"
            }
        }
        guard navigation.isOnBand else { return (nil, progress) }
        if cursorFileColumn >= PictureScan.columnLimit {
            return ("not pictured: the band pictures the first \(PictureScan.columnLimit) columns  (Enter: histogram or values)",
                    progress)
        }
        guard let picture = band.picture(ofFileColumn: cursorFileColumn), !band.isStale else {
            return ("band: nothing pictured yet", progress)
        }
        return ((band.isExact ? "" : "so far: ") + Self.describe(picture), progress)
    }

    /// One column's picture in words, for the status line.
    static func describe(_ picture: ColumnPicture) -> String {
        var asides: [String] = []
        if picture.others > 0 {
            asides.append("\(grouped(picture.others)) not \(picture.kind == .instants ? "dates" : "numbers")")
        }
        if picture.infinities > 0 { asides.append("\(grouped(picture.infinities)) past a double's range") }
        if picture.empty > 0 { asides.append("\(grouped(picture.empty)) empty") }
        let aside = asides.isEmpty ? "" : "; " + asides.joined(separator: ", ")
        switch picture.kind {
        case .empty:
            return "no value: every cell is empty"
        case .numbers, .instants:
            let isTime = picture.kind == .instants
            let noun = isTime ? "date" : "number"
            guard let bins = picture.bins else { return "no finite number" + aside }
            let low = ValueText.value(bins.minimum, isTime: isTime), high = ValueText.value(bins.maximum, isTime: isTime)
            if picture.isFlat {
                return "one value, \(low), \(times(bins.total)) (a flat line)" + aside
            }
            // What is left out comes before the range, whose values may be long, and not as
            // an aside, which a narrow status line drops first: 80 columns keep it.
            let apart = asides.isEmpty ? " " : ", " + asides.joined(separator: ", ") + ": "
            return "\(counted(bins.total, noun))\(apart)from \(low) to \(high)  (Enter: histogram)"
        case .text:
            let (distinct, isEstimate) = picture.distinct
            if picture.isFlat, let only = picture.topValues(1).first {
                return "one value, " + CellText.shown(String(decoding: only.value.prefix(40), as: UTF8.self)) + " (a flat line)" + aside
            }
            var text = "\(isEstimate ? "≈" : "")\(grouped(distinct)) distinct value\(distinct == 1 ? "" : "s")"
            if let first = picture.topValues(1).first {
                let share = Double(first.count) * 100 / Double(max(1, picture.valuesCounted))
                text += ", most common " + CellText.shown(String(decoding: first.value.prefix(40), as: UTF8.self))
                    + " (\(FrequencyRow.text(ofPercent: share))%)"
            }
            if picture.isTextPartial { text += " (numbers not counted by value)" }
            return text + aside + "  (Enter: values)"
        }
    }
}
