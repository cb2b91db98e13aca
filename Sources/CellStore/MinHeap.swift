/// What a `MinHeap` orders by.
public protocol HeapOrdered {
    /// True when `self` comes out of the heap before `other`.
    func precedes(_ other: Self) -> Bool
}

/// A binary heap, the element that `precedes` all others on top: the merges of sorted
/// runs (the sort's and the diff's) and of sorted inputs (a stack's `--sort`).
///
/// Inlinable, so that each merge gets it specialized for its elements: the sort's merge
/// goes through it once per record.
public struct MinHeap<Element: HeapOrdered> {
    @usableFromInline var elements: [Element]

    /// A heap of `elements`, in O(n).
    @inlinable public init(_ elements: [Element] = []) {
        self.elements = elements
        for index in stride(from: self.elements.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    @inlinable public var top: Element? { elements.first }
    @inlinable public var isEmpty: Bool { elements.isEmpty }

    @inlinable public mutating func push(_ element: Element) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard elements[child].precedes(elements[parent]) else { break }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    /// Takes the top element out.
    @inlinable @discardableResult public mutating func pop() -> Element? {
        guard !elements.isEmpty else { return nil }
        elements.swapAt(0, elements.count - 1)
        let top = elements.removeLast()
        if !elements.isEmpty { siftDown(0) }
        return top
    }

    /// Puts the top back in its place after it moved on (an element that is a cursor).
    @inlinable public mutating func topChanged() {
        if !elements.isEmpty { siftDown(0) }
    }

    @inlinable mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var first = parent
            if left < elements.count && elements[left].precedes(elements[first]) { first = left }
            if right < elements.count && elements[right].precedes(elements[first]) { first = right }
            if first == parent { return }
            elements.swapAt(parent, first)
            parent = first
        }
    }
}
