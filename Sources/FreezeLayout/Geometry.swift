/// A position in terminal cells: x counts columns of characters, y counts lines.
public struct Point: Sendable, Equatable, Hashable, CustomStringConvertible {
    package var x: Int
    package var y: Int
    package init(x: Int, y: Int) { self.x = x; self.y = y }
    package static let zero = Point(x: 0, y: 0)
    public var description: String { "(\(x), \(y))" }
}

/// A size in terminal cells.
public struct Size: Sendable, Equatable, Hashable, CustomStringConvertible {
    package var width: Int
    package var height: Int
    package init(width: Int, height: Int) { self.width = max(0, width); self.height = max(0, height) }
    package static let zero = Size(width: 0, height: 0)
    public var description: String { "\(width)×\(height)" }
}

/// A rectangle in terminal cells.
public struct Rect: Sendable, Equatable, Hashable, CustomStringConvertible {
    package var origin: Point
    package var size: Size
    package init(x: Int, y: Int, width: Int, height: Int) {
        origin = Point(x: x, y: y)
        size = Size(width: width, height: height)
    }
    package var minX: Int { origin.x }
    package var minY: Int { origin.y }
    package var maxX: Int { origin.x + size.width }
    package var maxY: Int { origin.y + size.height }
    package var width: Int { size.width }
    package var height: Int { size.height }
    package var isEmpty: Bool { size.width == 0 || size.height == 0 }

    package func contains(_ point: Point) -> Bool {
        point.x >= minX && point.x < maxX && point.y >= minY && point.y < maxY
    }

    /// The part of this rectangle inside `other` (empty when they do not meet).
    package func intersection(_ other: Rect) -> Rect {
        let x0 = max(minX, other.minX), y0 = max(minY, other.minY)
        let x1 = min(maxX, other.maxX), y1 = min(maxY, other.maxY)
        return Rect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }

    public var description: String { "\(origin) \(size)" }
}
