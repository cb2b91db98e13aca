import Table

/// A viewer over stacked tables (`StackRows`): what `StackSections` works out, applied.
extension Viewer {
    /// The stack as the view shows it now; nil when the source is not a stack.
    var sections: StackSections? {
        stack.map { StackSections(rows: $0, table: table, headerRows: options.headerRows) }
    }

    /// The first of the header records pinned on top (0 when not stacked).
    var pinnedHeaderStart: Int {
        sections?.pinnedHeaderStart(lineAbove: mainFirstRow + window.drawingOffset.y - scrollingHeaderRows) ?? 0
    }

    /// `}` and `{` in a stack; false when not stacked.
    func moveToSection(forward: Bool) -> Bool {
        guard let sections else { return false }
        if let jump = sections.nextSection(from: cursorRow, forward: forward) { follow(jump, markingJump: true) }
        return true
    }

    /// `:table:row` in a stack; false when not stacked or `text` is not one.
    func goToSectionRow(_ text: String) -> Bool {
        guard let jump = sections?.jump(to: text) else { return false }
        follow(jump)
        return true
    }

    /// Row `number` of the table under the cursor (`:250`, `250G` in a stack).
    func goToRowOfSection(_ number: Int) -> Bool {
        guard let jump = sections?.jump(toRow: number, from: cursorRow) else { return false }
        follow(jump)
        return true
    }

    /// What a stack does not do, said instead (true when said).
    func refusedInStack(_ command: Command) -> Bool {
        guard stack != nil, let why = StackSections.refusal(of: command) else { return false }
        message = why
        return true
    }

    private func follow(_ jump: StackSections.Jump, markingJump: Bool = false) {
        switch jump {
        case .note(let note):
            message = note
        case .row(let row, let note):
            if let note { message = note }
            if markingJump { markJump() }
            moveCursor(toRow: row, column: cursorColumn)
        }
    }
}
