import CellStore
import Foundation
import Synchronization
import Testing

/// The queue between threads that waits on a signal, never on a clock.
@Suite("A bounded queue between threads", .timeLimit(.minutes(30)))
struct BoundedQueueTests {
    @Test("elements come out in order, in takes of any size; the end after the last")
    func order() {
        let queue = BoundedQueue<Int>(limit: 8)
        #expect(queue.push(contentsOf: [1, 2, 3]))
        #expect(queue.push(4))
        #expect(queue.poll(2) == [1, 2])
        #expect(queue.take(10) == [3, 4])
        #expect(queue.poll(1) == [], "none yet, and not the end")
        queue.push(5)
        queue.finish()
        #expect(queue.pop() == 5)
        #expect(queue.pop() == nil && queue.poll(1) == nil && queue.take(3) == nil)
    }

    @Test("a close makes the producer's push fail, even one waiting for room; what was queued stays readable")
    func close() {
        let queue = BoundedQueue<Int>(limit: 2)
        let last = Mutex<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            // In one push, so that 2 is there once 1 is taken.
            queue.push(contentsOf: [1, 2])
            // Full: this one waits until the consumer makes room or goes.
            let pushed = queue.push(3)
            last.withLock { $0 = pushed }
            done.signal()
        }.start()
        #expect(queue.take(1) == [1], "the first, once it came")
        // Room for one: the third push goes in if it comes before the close, else fails.
        queue.close()
        done.wait()
        #expect(queue.isClosed)
        let pushed = last.withLock { $0 }
        #expect(pushed != nil)
        #expect(!queue.push(4), "a push after the close fails")
        let rest = queue.take(10) ?? []
        #expect(rest == [2] || rest == [2, 3], "\(rest)")
        #expect(pushed == (rest == [2, 3]))
        #expect(queue.pop() == nil)
    }

    @Test("the consumer is told when elements come into an empty queue, once per time it emptied it")
    func arrivals() {
        let arrivals = Atomic<Int>(0)
        let queue = BoundedQueue<Int>(limit: 100, onArrival: { arrivals.add(1, ordering: .relaxed) })
        queue.push(contentsOf: [1, 2])
        queue.push(3)
        #expect(arrivals.load(ordering: .relaxed) == 1)
        _ = queue.poll(2)
        queue.push(4)
        #expect(arrivals.load(ordering: .relaxed) == 1, "not emptied")
        _ = queue.poll(10)
        queue.push(5)
        #expect(arrivals.load(ordering: .relaxed) == 2)
    }

    @Test("a producer and a consumer that wait on each other, 200,000 elements through four places: none lost, none waits for ever")
    func handOff() {
        let queue = BoundedQueue<Int>(limit: 4)
        let count = 200_000
        Thread {
            var next = 0
            while next < count {
                let size = 1 + next % 3
                let batch = Array(next..<min(count, next + size))
                guard queue.push(contentsOf: batch) else { return }
                next += batch.count
            }
            queue.finish()
        }.start()
        var expected = 0
        var inOrder = true
        while let taken = queue.take(1 + expected % 5) {
            for (offset, value) in taken.enumerated() where value != expected + offset { inOrder = false }
            expected += taken.count
        }
        #expect(inOrder && expected == count)
    }
}
