import CellStore
import FreezeLayout
import Table

extension Viewer {
    /// Composes the whole screen from the state the last command left; it changes
    /// nothing but its caches (the cells on screen, the rows fetched, the matches).
    ///
    /// - Complexity: proportional to the cells on screen, whatever the size of the input.
    public func frame() -> Frame {
        let sections = self.sections
        let name = sections?.columnName(table.fileColumn(cursorColumn), cursorRow: cursorRow) ?? columnName(cursorColumn)
        var notes = FrameComposer.Notes(view: queryNote, hiddenColumns: table.hiddenColumnsNote, columnName: name,
                                        isGrowing: query.isRunning || query.isPending, rows: knownDataRows,
                                        isComplete: laidOutComplete, progress: laidOutProgress)
        (notes.bandCursor, notes.bandProgress) = bandNotes
        var composer = FrameComposer(table: table, options: options, screenSize: screenSize, navigation: navigation,
                                     layout: layout, pattern: search.pattern, matcher: search.matcher, message: message,
                                     prompt: input.prompt.map { ($0.kind, $0.line) }, panes: panes, notes: notes, cells: cells,
                                     matchCache: search.matchCache)
        if let sections {
            composer.stacked = FrameComposer.Stacked(sections: sections, pinnedHeaderStart: pinnedHeaderStart,
                                                     status: sections.status(cursorRow: cursorRow))
        }
        composer.band = bandDrawing
        if sideBySide.isOn, let paired = source as? PairedRows {
            composer.sides = FrameComposer.Sides(rows: paired, rightX: SideBySide.rightX(grid: fullGridWidth))
        }
        // The composer owns the caches for the frame (held once, they are changed in place).
        cells = CellCache()
        search.forgetMatches()
        let frame = composer.compose()
        cells = composer.cells
        search.keep(matches: composer.matchCache)
        return frame
    }
}
