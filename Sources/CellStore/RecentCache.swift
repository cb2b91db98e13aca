/// What a `RecentCache` counts against its byte budget.
protocol MemoryCosting {
    var memoryCost: Int { get }
}

extension Block: MemoryCosting {}
extension Row: MemoryCosting {}

/// A least-recently-used cache keyed by an integer, bounded by a count and a byte budget.
///
/// Parsed blocks (keyed by checkpoint index) are the only place cells live, so memory is
/// bounded by this cache, not by the file. The cache of single records (rows of a sorted
/// or filtered view, keyed by record number) is the same cache with another eviction.
struct RecentCache<Value: MemoryCosting> {
    /// How entries leave when the cache is over its count or budget.
    enum Eviction {
        /// The least recently used, one by one, the newest always staying: for blocks,
        /// a few dozen at most, and a block of huge records must stay once read.
        case oldest
        /// The least recently used half at once, so eviction costs O(1) per insert on
        /// average: for single records, thousands of them.
        case oldestHalf
    }

    let capacity: Int
    let budget: Int
    let eviction: Eviction
    private var entries: [Int: (value: Value, lastUse: Int)] = [:]
    private var clock = 0
    private var bytes = 0

    init(capacity: Int, budget: Int, eviction: Eviction) {
        self.capacity = max(1, capacity)
        self.budget = budget
        self.eviction = eviction
    }

    var count: Int { entries.count }

    mutating func value(at key: Int) -> Value? {
        guard let entry = entries[key] else { return nil }
        clock += 1
        entries[key] = (entry.value, clock)
        return entry.value
    }

    mutating func insert(_ value: Value, at key: Int) {
        clock += 1
        if let old = entries.updateValue((value, clock), forKey: key) { bytes -= old.value.memoryCost }
        bytes += value.memoryCost
        switch eviction {
        case .oldest:
            while entries.count > 1 && (entries.count > capacity || bytes > budget),
                  let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                bytes -= oldest.value.value.memoryCost
                entries[oldest.key] = nil
            }
        case .oldestHalf:
            if entries.count > capacity || bytes > budget {
                let keep = entries.sorted { $0.value.lastUse > $1.value.lastUse }.prefix(entries.count / 2)
                entries = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
                bytes = entries.values.reduce(0) { $0 + $1.value.memoryCost }
            }
        }
    }
}
