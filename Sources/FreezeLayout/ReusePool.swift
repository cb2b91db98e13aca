/// Objects handed back when they scroll out and handed out again when others scroll in,
/// as UITableView reuses its cells: the number ever created is bounded by what fits on
/// screen (plus the pool's slack), however large the input and however long the session.
public struct ReusePool<Element: AnyObject> {
    private var free: [Element] = []
    /// Objects made so far.
    package private(set) var created = 0
    /// Times an object came from the pool instead of being made.
    package private(set) var reused = 0

    package init() {}

    /// Objects waiting to be reused.
    package var pooled: Int { free.count }

    /// An object from the pool, or a new one from `make` when the pool is empty.
    package mutating func dequeue(_ make: () -> Element) -> Element {
        if let element = free.popLast() {
            reused += 1
            return element
        }
        created += 1
        return make()
    }

    /// Takes an object back for reuse.
    package mutating func enqueue(_ element: Element) {
        free.append(element)
    }

    /// Keeps at most `limit` objects waiting (after the screen shrinks).
    package mutating func trim(to limit: Int) {
        if free.count > limit { free.removeLast(free.count - limit) }
    }
}
