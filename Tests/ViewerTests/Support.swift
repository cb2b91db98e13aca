#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Foundation
import Testing
import TestSupport
import FreezeLayout
@testable import Viewer

/// Display widths follow the locale; tests run under C.UTF-8 like a user's UTF-8 terminal.
let utf8Locale: Void = {
    setlocale(LC_ALL, "C.UTF-8")
}()

/// A viewer over `csv` at `width`×`height`, after `commands`.
func viewer(_ csv: String, width: Int = 40, height: Int = 8, options: ViewerOptions = .plain,
            commands: [Command] = []) -> Viewer {
    _ = utf8Locale
    let viewer = Viewer(store: CellStore(bytes: Array(csv.utf8), name: "t.csv"), options: options,
                        screenSize: Size(width: width, height: height))
    for command in commands { viewer.handle(command) }
    return viewer
}

/// A CSV of `rows` data rows: id, a name, a city and an amount.
func sampleCSV(rows: Int) -> String {
    let names = ["Ann", "Bo", "Chen", "Dmitri"]
    let cities = ["Lyon", "Oslo", "Kraków", "Zürich"]
    var text = "id,name,city,amount\n"
    for index in 1...rows {
        text += "\(index),\(names[index % 4]),\(cities[index % 4]),\(index * 3).5\n"
    }
    return text
}

/// A CSV with many wide columns, so it scrolls sideways.
func wideCSV(rows: Int, columns: Int) -> String {
    var text = (0..<columns).map { "column\($0)" }.joined(separator: ",") + "\n"
    for row in 1...rows {
        text += (0..<columns).map { "r\(row)c\($0)-xxxx" }.joined(separator: ",") + "\n"
    }
    return text
}

extension ViewerOptions {
    /// No bounce and no indicators: frames that tests can compare as plain text.
    static let plain = ViewerOptions(bounce: .none, showsIndicators: false)

    /// `plain` with other header rows, frozen columns or row numbers.
    static func plain(headerRows: Int = 1, frozenColumns: Int = 0, showsRowNumbers: Bool = true) -> ViewerOptions {
        ViewerOptions(headerRows: headerRows, frozenColumns: frozenColumns, showsRowNumbers: showsRowNumbers,
                      bounce: .none, showsIndicators: false)
    }
}



/// Waits, bounded (`turn`), until `condition` holds (for work on other threads); records
/// an issue when it does not.
func waitUntil(_ what: String, timeout: Double = 60, sourceLocation: SourceLocation = #_sourceLocation,
               _ condition: () -> Bool) {
    if !turn(within: timeout, until: condition) {
        Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation)
    }
}
