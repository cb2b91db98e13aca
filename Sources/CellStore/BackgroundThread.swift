#if canImport(Glibc)
import Glibc
#endif
import CThread

/// Threads of the project's own: the loader, the unpacker, scans and their workers.
///
/// A POSIX thread, so no product module needs Foundation (whose `Thread` loads it, and ICU
/// with it, at every start; see DECISIONS.md).
package enum BackgroundThread {
    /// Runs `body` on a new detached thread named `name` (cut to the 15 bytes Linux keeps),
    /// with `stackSize` bytes of stack (nil: the system's default). Should no thread be
    /// had (the process is out of them), `body` runs on the calling thread: late, not never.
    /// A thread that `yieldsToInteractiveThreads` runs at nice +5 (Linux's nice value is a
    /// thread's), so the thread that reads keys and draws gets a shared core first.
    package static func start(name: String, stackSize: Int? = nil, yieldsToInteractiveThreads: Bool = false,
                              _ body: @escaping @Sendable () -> Void) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        if let stackSize { pthread_attr_setstacksize(&attributes, max(stackSize, Int(PTHREAD_STACK_MIN))) }
        let work = Work(name: name, yields: yieldsToInteractiveThreads, body: body)
        let context = Unmanaged.passRetained(work).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, &attributes, { context in
            guard let context else { return nil }
            let work = Unmanaged<Work>.fromOpaque(context).takeRetainedValue()
            ct_set_thread_name(work.name)
            #if os(Linux)
            if work.yields { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 5) }
            #endif
            work.body()
            return nil
        }, context)
        if started != 0 {
            Unmanaged<Work>.fromOpaque(context).release()
            body()
        }
    }

    /// What a new thread runs, handed to it through `pthread_create`'s context pointer.
    private final class Work: Sendable {
        let name: String
        let yields: Bool
        let body: @Sendable () -> Void

        init(name: String, yields: Bool, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.yields = yields
            self.body = body
        }
    }

    /// Processors this process may run on (its affinity mask), as `nproc` counts them;
    /// at least 1.
    package static var processorCount: Int { Int(ct_processor_count()) }
}
