import CellStore
import Table
import Viewer

/// The loop as the container of several open tables: `}` and `{` show the next and the
/// previous, `T` lists them, Enter in that list shows one.
///
/// Each table has its own viewer (its store, dialect, header, freeze, widths, cursor,
/// search, filters and sort) and its own stack of sheets, kept while another is shown.
/// A viewer is made when its table is first shown. Past `liveLimit` tables with a viewer,
/// the one shown least recently is put away: what the user did in it is kept as a
/// `ViewState` (a few hundred bytes), its store and viewer go, and showing it again
/// makes new ones that take the state back. So memory follows what was shown lately, not
/// the number of files.
extension AppLoop {
    /// A table's place in the loop while it is not on screen.
    final class Slot {
        /// Its viewer and sheets (empty until shown, and after being put away).
        var entries: [Entry] = []
        /// What the user did in it before it was put away.
        var parked: ViewState?
        var hasBeenShown = false
        /// When it was last shown (the loop's `useClock`).
        var lastUse = 0
    }

    /// Tables with a viewer at most (the one on screen included); what is read once
    /// (standard input, a pipe, a FIFO) always keeps its own.
    static var liveLimit: Int { 8 }

    /// Tables open in the loop.
    package var tableCount: Int { slots.count }

    /// The input of the table on screen (nil with one table made without a shelf).
    package var currentInput: TableInput? { shelf?.inputs[current] }

    /// The viewer of every table that has one (the one on screen first).
    package var tableViewers: [Viewer] {
        [table] + slots.indices.filter { $0 != current }.compactMap { slots[$0].entries.first?.viewer }
    }

    /// Each table's own viewer with its index, for the tables that have one (not the
    /// stacked view's, not the sheets over them).
    package var viewersByTable: [(index: Int, viewer: Viewer)] {
        slots.indices.compactMap { index in
            let held = index == current && !isStacked ? entries : slots[index].entries
            return held.first.map { (index, $0.viewer) }
        }
    }

    /// Shows table `index` and stacks the tables or not, as a kept session of them says.
    package func restoreTables(showing index: Int, stacked: Bool) {
        if index != current, index >= 0, index < slots.count {
            if isStacked {
                leaveStack(to: index)
                enterStack()
            } else {
                show(index)
            }
        }
        if stacked && !isStacked && shelf?.hasDatabaseTables == false { enterStack() }
    }

    /// Tables that have a viewer now (for tests).
    package var liveTables: [Int] { slots.indices.filter { $0 == current ? !entries.isEmpty : !slots[$0].entries.isEmpty } }

    /// Does what a viewer asked about the tables.
    func perform(_ request: TableRequest) {
        let count = slots.count
        switch request {
        case .next, .previous:
            guard count > 1 else {
                top.say("only one table is open")
                return
            }
            if isStacked {
                show((current + (request == .next ? 1 : count - 1)) % count)
            } else {
                showNext(forward: request == .next)
            }
        case .list:
            guard let shelf else {
                top.say("only one table is open: T lists several (csvfreeze a.csv b.csv, or a directory)")
                return
            }
            let changed = noticeTableChanges()
            push(TableListSheet(shelf: shelf, current: sectionUnderCursor ?? current, like: table, headerRows: tableOptions.headerRows))
            if let changed { top.say(changed) }
        case .stack:
            guard let shelf else {
                top.say("only one table is open: S stacks several (csvfreeze a.csv b.csv, or a directory)")
                return
            }
            guard !shelf.hasDatabaseTables else {
                top.say("S stacks files, not a database's tables")
                return
            }
            if isStacked { leaveStack() } else { enterStack() }
        case .show(let index):
            guard index >= 0, index < count else { return }
            if index == current && !isStacked {
                closeTableList()
            } else {
                show(index)
            }
        }
    }

    /// `}` and `{`: shows the next table (or the previous) that can be shown, passing
    /// over those that cannot (a file deleted since), said on the arriving table's status
    /// line; when none can, the table on screen stays and says why.
    func showNext(forward: Bool) {
        guard let shelf else { return }
        var skipped: [String] = []
        var index = current
        for _ in 1..<slots.count {
            index = (index + (forward ? 1 : slots.count - 1)) % slots.count
            // Opened here to know it can be shown, and held until its viewer holds it.
            var opened: (any RowSource)?
            do throws(CellStoreError) {
                if slots[index].entries.isEmpty { opened = try shelf.source(index) }
            } catch {
                skipped.append(shelf.inputs[index].shortly(error.description))
                continue
            }
            withExtendedLifetime(opened) { show(index) }
            if !skipped.isEmpty { table.say("skipped " + skipped.joined(separator: "; ")) }
            return
        }
        top.say("no other table can be shown: " + skipped.joined(separator: "; "))
    }

    /// Shows table `index`, making its viewer if it has none; on failure the table on
    /// screen stays and says why.
    package func show(_ index: Int) {
        if isStacked { return leaveStack(to: index) }
        guard index != current, index >= 0, index < slots.count else { return }
        closeTableList()
        let leaving = table
        guard let arriving = viewer(of: index) else { return }
        slots[current].entries = entries
        slots[current].lastUse = useClock
        useClock += 1
        entries = arriving
        slots[index].entries = []
        current = index
        slots[index].lastUse = useClock
        // The prompts' history is the session's, whichever table it was typed in.
        table.history = leaving.history
        for entry in entries { entry.viewer.handle(.resize(screen.size)) }
        lastFrame = nil
        putAwayUnused()
        if let progress = table.file?.progress, table.options.follows && (progress.wasTruncated || progress.wasReplaced) {
            replaceTable(restarting: progress.wasTruncated ? "file truncated: following from its new start"
                                                           : "file replaced: following the new file")
        }
    }

    /// Table `index`'s sheets, or a new viewer for it (taking back what the user did there
    /// before it was put away); nil, said on screen, when its input cannot be opened.
    func viewer(of index: Int) -> [Entry]? {
        if !slots[index].entries.isEmpty { return slots[index].entries }
        guard let shelf else { return nil }
        let source: any RowSource
        do {
            source = try shelf.source(index)
        } catch {
            top.say("cannot show " + shelf.inputs[index].shortly(error.description))
            return nil
        }
        var options = tableOptions
        options.place = "\(index + 1)/\(slots.count)"
        let viewer = (source as? CellStore).map { Viewer(store: $0, options: options, screenSize: screen.size) }
            ?? Viewer(source: source, options: options, screenSize: screen.size)
        if let parked = slots[index].parked {
            viewer.restore(parked)
            slots[index].parked = nil
        } else if !slots[index].hasBeenShown {
            slots[index].hasBeenShown = true
            prepare(viewer, index)
        }
        return [Entry(viewer: viewer, source: nil)]
    }

    /// Puts away the viewers of the tables shown least recently, past `liveLimit`: each
    /// keeps what the user did, its sheets close, its store goes (unless the stacked view
    /// keeps it).
    func putAwayUnused() {
        let live = slots.indices.filter { $0 != current && !slots[$0].entries.isEmpty }
        guard live.count + 1 > Self.liveLimit else { return }
        // A table with unsaved edits keeps its viewer: the edits live there.
        let candidates = live.filter { shelf?.inputs[$0].readsOnce != true && slots[$0].entries.first?.viewer.unsavedEdits == 0 }
            .sorted { slots[$0].lastUse < slots[$1].lastUse }
        for index in candidates.prefix(live.count + 1 - Self.liveLimit) {
            let slot = slots[index]
            guard let viewer = slot.entries.first?.viewer else { continue }
            onPutAway?(index, viewer)
            slot.parked = viewer.keptState()
            for entry in slot.entries.dropFirst() { entry.source?.cancel() }
            slot.entries = []
        }
    }

    /// Looks whether the files of the tables counted changed on disk (deleted, shorter,
    /// replaced), for the list and the stack, which show them: each is counted again, and
    /// the stack takes it (and those after it) out until it is, so neither shows old
    /// counts as if they were current. Looked at only while one of them is on screen, and
    /// when one opens. Returns what to say (after the keys that come with it, which would
    /// clear it).
    func noticeTableChanges() -> String? {
        guard let shelf else { return nil }
        let changes = shelf.noticeChanges()
        guard let first = changes.first else { return nil }
        for stack in [isStacked ? table.stack : nil, stackEntries?.first?.viewer.stack].compactMap({ $0 }) {
            stack.unsettle(from: first.index)
        }
        let name = shelf.inputs[first.index].shortName
        // Short, to fit beside the position on 80 columns.
        switch (changes.count, first.change) {
        case (1, .deleted): return "\(name) was deleted: counted again"
        case (1, .replaced): return "\(name) was replaced: counted again"
        case (1, .shorter): return "\(name) is shorter now: counted again"
        case (1, .changed): return "\(name) changed on disk: counted again"
        case (2, _): return "\(name) and \(shelf.inputs[changes[1].index].shortName) changed: counted again"
        default: return "\(name) and \(changes.count - 1) more changed: counted again"
        }
    }

    /// Closes the list of tables if it is on top.
    func closeTableList() {
        while entries.count > 1, entries[entries.count - 1].source is TableListSheet {
            entries.removeLast()
            lastFrame = nil
        }
    }
}
