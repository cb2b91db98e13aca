import CellStore
import FreezeLayout

extension Viewer {
    // MARK: Layout

    /// Brings the geometry up to date with the source and the screen: the columns' layout,
    /// the header band, the window and the cursor's bounds. Once per command, at the end of
    /// `handle(_:)`.
    func reconcile() {
        remakeDamagedResults()
        followBand()
        layOut()
    }

    /// Takes in rows a pass added since the geometry last did (it runs on another thread:
    /// a row just looked up may lie past the count the cursor is bounded by), so the cursor
    /// put on `row` is not held at the old last row.
    func takeInRows(upTo row: Int) {
        if row >= navigation.extent.rows && row < dataRowCount { layOut() }
    }

    /// The geometry part of `reconcile()`: layout, window and the cursor's bounds.
    private func layOut() {
        // Read first, in one piece: once complete, every row below is in, so the layout
        // sees them all; and the loader's news (the input ended early, reading paused) are
        // shown with the count they were read with, not a frame before it.
        laidOutProgress = file?.progress
        laidOutComplete = laidOutProgress?.isComplete ?? source.isComplete
        // Make sure the first screen's rows (and the width sample) are parsed, even when
        // the loader has not reached them yet. A sorted or filtered view's rows are
        // records from anywhere: its screen is read in the frame's batch instead.
        let screenEnd = table.isMapped ? 0 : mainFirstRow + window.offset.y + screenSize.height
        file?.prefetch(upTo: options.headerRows + max(ColumnSizer.sampleRows, screenEnd))
        // A marked record's sign takes a cell of its own at the margin's left.
        let numbers = options.showsRowNumbers ? Self.digits(table.estimatedDataRowCount) + (table.marks.isEmpty ? 0 : 1) : 0
        layout.update(table: table, grid: gridSize, rowNumberWidth: numbers, requestedFrozenColumns: requestedFrozenColumns,
                      labels: options.emptyCellLabels)
        if !sideBySideFits() {
            layout.update(table: table, grid: gridSize, rowNumberWidth: numbers, requestedFrozenColumns: requestedFrozenColumns,
                          labels: options.emptyCellLabels)
        }
        navigation.reconcile(Navigation.Extent(rows: dataRowCount, columns: columnCount, frozenColumns: layout.frozenColumns,
                                               main: layout.main, left: layout.left, leftHasRowNumbers: options.showsRowNumbers),
                             grid: gridSize, headerRecords: headerRecords, leftWidth: layout.left.totalWidth,
                             preambleLines: file?.preamble.count ?? 0, showsBand: band.isOn)
        if query.sorted?.stored != nil || query.filtered?.stored != nil, dataRowCount > 0, cursorRow < dataRowCount {
            let record = table.record(ofRow: cursorRow)
            if record >= 0 { keptCursorRecord = record }
        }
    }

    /// Header records on top (at least one when the header is asked for, even before any
    /// row is read).
    var headerRecords: Int { options.headerRows > 0 ? max(min(options.headerRows, source.rowCount), 1) : 0 }

    /// True when the source has rows the geometry has not taken in yet (they arrived, were
    /// replaced, or turned out to be all, after the last command), or the loader has news
    /// the status line has not taken in: the loop then sends `.refresh` before drawing.
    public var needsRefresh: Bool { dataRowCount != knownDataRows || source.generation != query.sourceGeneration || band.hasNews
        || source.isComplete != laidOutComplete || file.map { $0.progress != laidOutProgress } == true }

    /// Says when some header rows scroll with the data because the screen is too short
    /// to keep them all on top.
    func noteScrollingHeaderRows() {
        guard scrollingHeaderRows > 0 else { return }
        let kept = window.headerHeight - frozenDataRows.count
        message = "\(Self.counted(kept + scrollingHeaderRows, "header row")) do not fit on top: "
            + "\(Self.grouped(scrollingHeaderRows)) scroll\(scrollingHeaderRows == 1 ? "s" : "") above row 1"
    }

    /// The grid's area: the screen less the status line, and less the rightmost column
    /// when it is kept for the scroll indicator (so the thumb never hides data); side by
    /// side, one half of that (both halves share the one geometry).
    var gridSize: Size {
        let width = fullGridWidth
        return Size(width: sideBySide.isOn ? SideBySide.halfWidth(width) : width, height: max(0, screenSize.height - 1))
    }

    /// The grid's width on the whole screen, whatever the layout.
    var fullGridWidth: Int { screenSize.width - (options.showsIndicators && screenSize.width >= 10 ? 1 : 0) }
}
