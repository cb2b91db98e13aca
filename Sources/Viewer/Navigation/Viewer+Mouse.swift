import FreezeLayout

extension Viewer {
    /// The wheel scrolls the region under the pointer, each band in its own axis (as in
    /// DQK); a press selects the cell, column or row under it, and nothing on blank space.
    func handleMouse(_ event: MouseEvent) {
        // A prompt keeps the mouse from the grid while a line is typed.
        if input.prompt != nil { return }
        if mode != .grid {
            // A pane on top gets the mouse: the wheel scrolls it, and nothing reaches the
            // grid hidden behind it.
            if event.kind != .press {
                for _ in 0..<Self.wheelRows { applyPager(event.kind == .wheelUp ? .lineUp : .lineDown) }
            }
            return
        }
        // Side by side, the right half shows the same cells as the left.
        guard let event = sideBySide.isOn ? SideBySide.folded(event, grid: fullGridWidth) : event else { return }
        navigation.apply(event, wheelRows: Self.wheelRows, sidewaysCells: Navigation.sidewaysCells)
        // A press on the band opens the column under it, as Enter there does.
        if event.kind == .press, navigation.isOnBand, let line = navigation.bandLine,
           event.position.y == window.headerBand.minY + line {
            openBandColumn()
        }
    }
}
