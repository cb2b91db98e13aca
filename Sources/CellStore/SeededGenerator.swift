/// A small deterministic random number generator (SplitMix64): a query's key sample picks
/// the same keys each time, and randomized tests and the benchmark repeat from a seed.
package struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    package init(seed: UInt64) { state = seed &+ 0x9E3779B97F4A7C15 }

    package mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}
