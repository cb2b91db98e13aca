/// Which of the input's columns a view shows, in which order.
///
/// The identity (every column, in the file's order) holds no list, so a file with any
/// number of columns costs nothing until a column is hidden or moved.
public struct ColumnMap: Sendable, Equatable {
    /// The file columns shown, in view order; nil shows every column in order.
    package private(set) var shown: [Int]?

    package init(shown: [Int]? = nil) { self.shown = shown }

    package static let all = ColumnMap()

    package var isIdentity: Bool { shown == nil }

    /// Columns in view, given the input's column count.
    package func count(of fileColumns: Int) -> Int { shown?.count ?? fileColumns }

    /// The file column shown at `viewColumn`.
    package func fileColumn(_ viewColumn: Int) -> Int { shown.map { viewColumn < $0.count ? $0[viewColumn] : -1 } ?? viewColumn }

    /// The view column that shows `fileColumn`, or nil when it is hidden.
    package func viewColumn(of fileColumn: Int) -> Int? {
        guard let shown else { return fileColumn }
        return shown.firstIndex(of: fileColumn)
    }

    /// Hides view column `viewColumn` (at least one column stays).
    package mutating func hide(_ viewColumn: Int, of fileColumns: Int) {
        var list = shown ?? Array(0..<fileColumns)
        guard list.count > 1, list.indices.contains(viewColumn) else { return }
        list.remove(at: viewColumn)
        shown = list
    }

    /// Moves view column `viewColumn` by `offset` places; returns where it went.
    @discardableResult
    package mutating func move(_ viewColumn: Int, by offset: Int, of fileColumns: Int) -> Int {
        var list = shown ?? Array(0..<fileColumns)
        guard list.indices.contains(viewColumn) else { return viewColumn }
        let target = max(0, min(list.count - 1, viewColumn + offset))
        let column = list.remove(at: viewColumn)
        list.insert(column, at: target)
        shown = list == Array(0..<fileColumns) ? nil : list
        return target
    }

    /// Shows exactly `fileColumns`, in that order.
    package mutating func show(only fileColumns: [Int]) { shown = fileColumns }

    /// Shows every column in the file's order again.
    package mutating func showAll() { shown = nil }
}
