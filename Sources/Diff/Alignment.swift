/// The alignment of two sequences of record hashes: runs of equal records and the hunks
/// between them, found left to right in memory that does not grow with the inputs.
///
/// Minimal means the fewest rows changed, added or removed, a changed record (an old and a
/// new one between the same two equal ones) being one row: the edit distance with unit
/// costs, not Myers' count of deletions and insertions, which counts a changed record as
/// two and so cannot tell `a 1 1 1` to `a 1 X 1` read as one changed record from one
/// added and one removed. Of the alignments with the fewest rows, one keeping the most
/// records the same is taken (`1 2 3 4` to `1 2' 4 5`: 2 changed, 3 removed, 5 added,
/// not three changed).
///
/// At each difference a greedy search over diagonals runs forward (Ukkonen's, the edit
/// distance's form of Myers' search; one array of furthest points per edit) until a
/// path reaches the end, or reaches a run of `resync` equal records that no other path
/// can beat: the search goes `confirm` edits further, and the run is given up if a path
/// on another diagonal reaches as far with fewer edits than it would need to cross over
/// to that run (in repeated records a run of equal ones also sits on neighbouring
/// diagonals, and the first one found is often not on a minimal path). A stretch of
/// changes is so aligned minimally, and memory is the search's, not the inputs'.
///
/// When the edits in one stretch pass `maxEdits` (a block of thousands of records
/// inserted, or two unrelated tables), the search gives way to an anchor pass: the next
/// record of one side that occurs in a window of the other (a hash table of `window`
/// records) ends the hunk. That finds a block inserted or deleted whole; a hunk where both
/// sides changed that way, or a window with no anchor at all, may not be minimal, and
/// `approximateFrom` says where the first such hunk is.
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
    var confirm = 4
    var window = 1 << 16
    var scanLimit = 1 << 20
    /// The first hunk (old, new record index) that the search did not align minimally.
    private(set) var approximateFrom: (old: Int, new: Int)?
    /// Diagonals the search looked at (for tests: bounded for unrelated inputs).
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

    /// The furthest points of the search after d edits, on diagonals k = x - y from -d to
    /// d: the old place x reached (-1 where none is), and the changed records (edits that
    /// step both sides) on the way, fewest first among paths reaching as far.
    struct Front {
        var x: [Int32]
        var changes: [UInt16]

        init(edits d: Int) {
            x = [Int32](repeating: -1, count: 2 * d + 1)
            changes = [UInt16](repeating: 0, count: 2 * d + 1)
        }
    }

    /// A run of `resync` equal records a path reached: after `edits` edits, on diagonal
    /// `k`, ending on antidiagonal x + y = `reach`.
    private struct Candidate {
        var edits: Int
        var k: Int
        var reach: Int
    }

    /// The forward search from the difference at (`i`, `j`): the steps up to the end, or
    /// up to the end of a run of `resync` equal records on a minimal path (see the type's
    /// notes); nil past `budget` edits.
    ///
    /// A run reached after d edits on diagonal k, ending on antidiagonal A, is on a minimal
    /// path when no path reaches A on another diagonal k' with fewer than d + |k - k'|
    /// edits: from the run's end, |k - k'| edits reach any point further on k', so no path
    /// through k' can do better. That is checked for `confirm` edits past d, which covers
    /// every diagonal within `confirm` of k.
    private mutating func search(_ i: Int, _ j: Int, budget: Int) -> [Step]? {
        let n = old.count - i, m = new.count - j
        var trace: [Front] = []
        var candidates: [Candidate] = []
        var d = 0
        while d <= budget || (!candidates.isEmpty && d <= budget + confirm) {
            var current = Front(edits: d)
            for slot in 0...(2 * d) {
                let k = slot - d
                guard let (start, changes, _) = Alignment.reach(trace, d: d, k: k, n: n, m: m) else { continue }
                var x = start, y = start - k
                while x < n && y < m && old[i + x] == new[j + y] {
                    x += 1
                    y += 1
                }
                searchSteps += 1
                current.x[slot] = Int32(x)
                current.changes[slot] = changes
                if x >= n && y >= m {
                    trace.append(current)
                    return steps(from: i, j, trace: trace, d: d, k: k)
                }
                if d > 0 && d <= budget && x - start >= resync { candidates.append(Candidate(edits: d, k: k, reach: x + y)) }
            }
            trace.append(current)
            // A path on another diagonal reaching as far, too cheaply, gives a run up.
            candidates.removeAll { candidate in
                for slot in 0...(2 * d) where current.x[slot] >= 0 {
                    let k = slot - d
                    if k != candidate.k && d < candidate.edits + abs(k - candidate.k) && 2 * Int(current.x[slot]) - k >= candidate.reach {
                        return true
                    }
                }
                return false
            }
            if let confirmed = candidates.first(where: { d >= $0.edits + confirm }) {
                return steps(from: i, j, trace: trace, d: confirmed.edits, k: confirmed.k)
            }
            d += 1
        }
        return nil
    }

    /// How a path of `d` edits first reaches diagonal `k`, before its run of equal records:
    /// the old place it reaches, its changed records, and the edit it ends with (0 none,
    /// the start; 1 deletion; 2 insertion; 3 a changed record); the furthest of those
    /// `trace[d - 1]` allows, with the fewest changed records among equals; nil when none
    /// reaches `k` (outside the `n` by `m` grid).
    private static func reach(_ trace: [Front], d: Int, k: Int, n: Int, m: Int) -> (x: Int, changes: UInt16, edit: UInt8)? {
        guard d > 0 else { return k == 0 ? (0, 0, 0) : nil }
        let before = trace[d - 1]
        var best: (x: Int, changes: UInt16, edit: UInt8)?
        func consider(_ x: Int, _ changes: UInt16, _ edit: UInt8) {
            if let current = best, current.x > x || (current.x == x && current.changes <= changes) { return }
            best = (x, changes, edit)
        }
        // From diagonal k - 1: an old record removed.
        let left = k - 1 + d - 1
        if left >= 0 && left < before.x.count, before.x[left] >= 0, Int(before.x[left]) < n {
            consider(Int(before.x[left]) + 1, before.changes[left], 1)
        }
        // From diagonal k + 1: a new record added.
        let right = k + 1 + d - 1
        if right >= 0 && right < before.x.count, before.x[right] >= 0, Int(before.x[right]) - (k + 1) < m {
            consider(Int(before.x[right]), before.changes[right], 2)
        }
        // From the same diagonal: a changed record (both sides step).
        let same = k + d - 1
        if same >= 0 && same < before.x.count, before.x[same] >= 0, Int(before.x[same]) < n, Int(before.x[same]) - k < m {
            consider(Int(before.x[same]) + 1, before.changes[same] &+ 1, 3)
        }
        return best
    }

    /// Walks the trace back from diagonal `k` after `d` edits into steps, in order.
    private func steps(from i: Int, _ j: Int, trace: [Front], d: Int, k: Int) -> [Step] {
        let n = old.count - i, m = new.count - j
        var moves: [(kind: UInt8, x: Int, y: Int, count: Int)] = []   // 0 same, 1 delete, 2 insert, 3 both
        var d = d, k = k
        var x = Int(trace[d].x[k + d])
        while d > 0 {
            guard let (startX, _, edit) = Alignment.reach(trace, d: d, k: k, n: n, m: m) else { break }
            if x > startX { moves.append((0, startX, startX - k, x - startX)) }
            switch edit {
            case 1:
                moves.append((1, startX - 1, startX - k, 1))
                k -= 1
            case 2:
                moves.append((2, startX, startX - k - 1, 1))
                k += 1
            default:
                moves.append((3, startX - 1, startX - k - 1, 1))
            }
            d -= 1
            x = Int(trace[d].x[k + d])
        }
        if x > 0 { moves.append((0, 0, 0, x)) }
        // In order, with adjacent edits made one hunk.
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
            if move.kind == 0 {
                close()
                result.append(.same(old: i + move.x, new: j + move.y, count: move.count))
                cursorOld = i + move.x + move.count
                cursorNew = j + move.y + move.count
                continue
            }
            if move.kind != 2 {
                pendingOld = (pendingOld?.lowerBound ?? i + move.x)..<(i + move.x + 1)
                cursorOld = i + move.x + 1
            }
            if move.kind != 1 {
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
