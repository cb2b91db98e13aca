/// The alignment of two sequences of record hashes: runs of equal records and the hunks
/// between them, found left to right in memory that does not grow with the inputs.
///
/// At each difference, Myers' greedy search runs forward (linear space in the edits, one
/// array of furthest points per step) until some path reaches a run of `resync` equal
/// records or the end: the fewest edits that get there, so a stretch of changes between
/// longer equal runs is aligned minimally. When the edits in one stretch pass `maxEdits`
/// (a block of thousands of records inserted, or two unrelated tables), the search gives
/// way to an anchor pass: the next record of one side that occurs in a window of the other
/// (a hash table of `window` records) ends the hunk. That finds a block inserted or deleted
/// whole; a hunk where both sides changed that way, or a window with no anchor at all, may
/// not be minimal, and `approximateFrom` says where the first such hunk is.
struct Alignment {
    enum Step: Equatable {
        /// `count` equal records from `old` and `new` on.
        case same(old: Int, new: Int, count: Int)
        /// Records that differ: those of `old` deleted, those of `new` inserted.
        case hunk(old: Range<Int>, new: Range<Int>)
    }

    let old: [UInt64]
    let new: [UInt64]
    var maxEdits = 1024
    var resync = 4
    var window = 1 << 16
    var scanLimit = 1 << 20
    /// The first hunk (old, new record index) that the search did not align minimally.
    private(set) var approximateFrom: (old: Int, new: Int)?
    /// Steps of Myers' search made (for tests: bounded for unrelated inputs).
    private(set) var searchSteps = 0

    init(old: [UInt64], new: [UInt64]) {
        self.old = old
        self.new = new
    }

    /// Calls `step` with each step in order; stops early when it returns false.
    mutating func run(isCancelled: () -> Bool = { false }, _ step: (Step) -> Bool) {
        var i = 0, j = 0
        // Where searches keep failing (edits dense over a long stretch), each tries less
        // before the anchor pass, so a stretch costs about its length, not its length
        // times the search's bound; one that succeeds lets the next try more again.
        let fullBudget = maxEdits
        var budget = maxEdits
        let n = old.count, m = new.count
        while i < n || j < m {
            if isCancelled() { return }
            var run = 0
            while i + run < n && j + run < m && old[i + run] == new[j + run] { run += 1 }
            if run > 0 {
                guard step(.same(old: i, new: j, count: run)) else { return }
                i += run
                j += run
            }
            if i == n || j == m {
                if i < n || j < m { _ = step(.hunk(old: i..<n, new: j..<m)) }
                return
            }
            if let path = search(i, j, budget: budget) {
                budget = min(fullBudget, budget * 2)
                for item in path { guard step(item) else { return } }
                let end = path.last.map(Alignment.end) ?? (i, j)
                (i, j) = end
            } else {
                budget = max(16, budget / 4)
                let (p, q, exact) = anchor(i, j)
                if !exact && approximateFrom == nil { approximateFrom = (i, j) }
                guard step(.hunk(old: i..<p, new: j..<q)) else { return }
                (i, j) = (p, q)
            }
        }
    }

    private static func end(_ step: Step) -> (Int, Int) {
        switch step {
        case .same(let old, let new, let count): return (old + count, new + count)
        case .hunk(let old, let new): return (old.upperBound, new.upperBound)
        }
    }

    /// Myers' forward search from the difference at (`i`, `j`): the steps up to and
    /// including the first run of `resync` equal records (or the end) that the fewest edits
    /// reach; nil past `maxEdits` edits.
    private mutating func search(_ i: Int, _ j: Int, budget: Int) -> [Step]? {
        let n = old.count - i, m = new.count - j
        // trace[d] holds the furthest x on diagonals k = -d, -d+2, …, d after d edits.
        var trace: [[Int32]] = []
        var previous: [Int32] = []
        for d in 0...budget {
            var current = [Int32](repeating: 0, count: d + 1)
            for slot in 0...d {
                let k = 2 * slot - d
                var x: Int
                if d == 0 {
                    x = 0
                } else if k == -d || (k != d && previous[slot - 1] < previous[slot]) {
                    // Down from diagonal k + 1 (an insertion).
                    x = Int(previous[slot])
                } else {
                    // Right from diagonal k - 1 (a deletion).
                    x = Int(previous[slot - 1]) + 1
                }
                var y = x - k
                let start = x
                while x < n && y < m && old[i + x] == new[j + y] {
                    x += 1
                    y += 1
                }
                searchSteps += 1
                current[slot] = Int32(x)
                let reachedEnd = x >= n && y >= m
                if reachedEnd || (d > 0 && x - start >= resync) {
                    trace.append(current)
                    return steps(from: i, j, trace: trace, d: d, k: k)
                }
            }
            trace.append(current)
            previous = current
        }
        return nil
    }

    /// Walks the trace back from diagonal `k` after `d` edits into steps, in order.
    private func steps(from i: Int, _ j: Int, trace: [[Int32]], d: Int, k: Int) -> [Step] {
        var moves: [(kind: UInt8, x: Int, y: Int, count: Int)] = []   // 0 same, 1 delete, 2 insert
        var d = d, k = k
        var x = Int(trace[d][(k + d) / 2])
        while d > 0 {
            let before = trace[d - 1]
            let down = k == -d || (k != d && before[(k - 1 + d - 1) / 2] < before[(k + 1 + d - 1) / 2])
            let previousK = down ? k + 1 : k - 1
            let previousX = Int(before[(previousK + d - 1) / 2])
            let startX = down ? previousX : previousX + 1
            if x > startX { moves.append((0, startX, startX - k, x - startX)) }
            if down { moves.append((2, previousX, previousX - previousK, 1)) } else { moves.append((1, previousX, previousX - previousK, 1)) }
            x = previousX
            k = previousK
            d -= 1
        }
        if x > 0 { moves.append((0, 0, 0, x)) }
        // In order, with adjacent deletions and insertions made one hunk.
        var result: [Step] = []
        var pendingOld: Range<Int>?, pendingNew: Range<Int>?
        var cursorOld = i, cursorNew = j
        func close() {
            guard pendingOld != nil || pendingNew != nil else { return }
            result.append(.hunk(old: pendingOld ?? cursorOld..<cursorOld, new: pendingNew ?? cursorNew..<cursorNew))
            pendingOld = nil
            pendingNew = nil
        }
        for move in moves.reversed() {
            switch move.kind {
            case 0:
                close()
                result.append(.same(old: i + move.x, new: j + move.y, count: move.count))
                cursorOld = i + move.x + move.count
                cursorNew = j + move.y + move.count
            case 1:
                pendingOld = (pendingOld?.lowerBound ?? i + move.x)..<(i + move.x + 1)
                cursorOld = i + move.x + 1
            default:
                pendingNew = (pendingNew?.lowerBound ?? j + move.y)..<(j + move.y + 1)
                cursorNew = j + move.y + 1
            }
        }
        close()
        return result
    }

    /// The next place both sides agree on after the difference at (`i`, `j`): the nearer of
    /// the first old record found among the next `window` new ones and the other way round.
    /// `exact` is false when the hunk up to it may not be minimal (both sides changed, or no
    /// anchor was found and a window of each side is taken as changed).
    private func anchor(_ i: Int, _ j: Int) -> (Int, Int, exact: Bool) {
        func firstMatch(of a: [UInt64], from i: Int, in b: [UInt64], from j: Int, window: Int, scan: Int) -> (Int, Int)? {
            var places: [UInt64: Int] = [:]
            let end = min(b.count, j + window)
            places.reserveCapacity(end - j)
            for q in j..<end where places[b[q]] == nil { places[b[q]] = q }
            for p in i..<min(a.count, i + scan) {
                if let q = places[a[p]] { return (p, q) }
            }
            return nil
        }
        // Small windows first: the next agreement is usually near.
        var size = min(256, window)
        while true {
            let scan = size < window ? size : scanLimit
            let fromOld = firstMatch(of: old, from: i, in: new, from: j, window: size, scan: scan)
            let fromNew = firstMatch(of: new, from: j, in: old, from: i, window: size, scan: scan).map { ($0.1, $0.0) }
            let best = [fromOld, fromNew].compactMap { $0 }.min { ($0.0 - i) + ($0.1 - j) < ($1.0 - i) + ($1.1 - j) }
            if let (p, q) = best { return (p, q, p == i || q == j) }
            if size >= window { break }
            size = min(window, size * 16)
        }
        return (min(old.count, i + window), min(new.count, j + window), false)
    }
}
