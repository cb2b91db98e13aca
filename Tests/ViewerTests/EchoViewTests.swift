import CellStore
import Foundation
import FreezeLayout
import Testing
@testable import Viewer

/// Copying and `--echo` give what the view shows: its columns, its rows, its order.
@Suite(.timeLimit(.minutes(30))) struct EchoViewTests {
    let csv = "id,name,city\n1,Ann,Oslo\n2,Bo,Lyon\n3,Chen,Oslo\n4,Dmitri,Oslo\n"

    private func type(_ subject: Viewer, _ text: String) {
        for character in text { subject.handle(key: character == "\n" ? .enter : .character(character)) }
    }

    private func settle(_ subject: Viewer) {
        waitUntil("the view's passes") {
            subject.handle(.refresh)
            return !subject.isQueryRunning
        }
        subject.handle(.refresh)
    }

    @Test("Y copies the row's shown columns, in the view's order")
    func copyRowHonoursHiddenColumns() {
        let subject = viewer(csv)
        type(subject, "l-")   // hide `name`
        type(subject, "Y")
        #expect(subject.takeClipboard() == Array("1,Oslo".utf8))
        subject.apply(filters: [], sortKeys: [], columns: [2, 0])
        type(subject, "Y")
        #expect(subject.takeClipboard() == Array("Oslo,1".utf8))
    }

    @Test("--echo row prints the row's shown columns")
    func echoRowHonoursHiddenColumns() {
        var options = ViewerOptions.plain
        options.echo = .row
        let subject = viewer(csv, options: options)
        type(subject, "l-")
        subject.handle(.inspect)
        #expect(subject.chosen == .bytes(Array("1,Oslo".utf8)))
    }

    @Test("--echo column gives the column's cells in the view's rows and order")
    func echoColumnHonoursFilterAndSort() {
        var options = ViewerOptions.plain
        options.echo = .column
        let subject = viewer(csv, options: options)
        type(subject, "l")
        type(subject, "]")          // name, descending
        type(subject, "&Oslo\n")    // only Oslo
        settle(subject)
        subject.handle(.inspect)
        #expect(subject.chosen == .column(1))
        var cells: [String] = []
        let failure = subject.forEachShownCell(inColumn: 1) { cells.append(String(decoding: $0, as: UTF8.self)); return true }
        #expect(failure == nil)
        #expect(cells == ["Dmitri", "Chen", "Ann"])
    }
}
