import Synchronization
import Testing
@testable import Insight

/// A pass's partial results are published when its owner asks for them, never on a clock.
@Suite("Partial results on request", .timeLimit(.minutes(30)))
struct BoardTests {
    @Test("each share publishes after its first piece, then only once asked again; a publish wakes the owner")
    func publishedWhenAsked() {
        let wakes = Atomic<Int>(0)
        let board = Board<Int>(shares: 2, wake: { wakes.add(1, ordering: .relaxed) })
        #expect(board.isDue(share: 0) && board.isDue(share: 1), "the first piece of each share publishes")
        #expect(!board.isDue(share: 0) && !board.isDue(share: 1), "then nothing until asked, however long it runs")
        board.publish(10, share: 0)
        board.publish(20, share: 1)
        #expect(wakes.load(ordering: .relaxed) == 2)
        #expect(board.values == [10, 20])
        // Reading asked for fresher values: each share publishes once more after its next piece.
        #expect(board.isDue(share: 1) && !board.isDue(share: 1))
        #expect(board.isDue(share: 0))
        #expect(!board.isDue(share: 2), "a share that does not exist never publishes")
    }
}
