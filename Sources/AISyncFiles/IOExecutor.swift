import Dispatch
import Foundation
import Synchronization

/// Serial executors on dedicated threads, for actors whose work is blocking file I/O.
///
/// The store's work is `read`, `write`, `fsync` and `flock`: calls that block their thread.
/// Run on Swift's cooperative pool (one thread per core), a slow disk or an fsync would hold
/// a thread an app's UI tasks and network requests also need. An actor that uses one of these
/// executors runs its jobs here instead. A few threads serve every store (each store keeps
/// one executor, so its jobs stay serial); they live as long as the process.
package final class IOExecutor: SerialExecutor {
    private let jobs = Mutex<[UnownedJob]>([])
    private let wake = DispatchSemaphore(value: 0)

    private init() {}

    /// Runs jobs in the order they were enqueued, one at a time, forever.
    private func run() {
        Self.threads.withLock { _ = $0.insert(ObjectIdentifier(Thread.current)) }
        while true {
            wake.wait()
            guard let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
            job.runSynchronously(on: asUnownedSerialExecutor())
        }
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        wake.signal()
    }

    package func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    /// How many I/O threads the process has: enough that two stores rarely share one, few
    /// enough to cost nothing.
    private static let pool: [IOExecutor] = (0..<4).map { n in
        let executor = IOExecutor()
        let thread = Thread { executor.run() }
        thread.name = "aisync-io-\(n)"
        thread.start()
        return executor
    }

    private static let counter = Atomic<Int>(0)
    private static let threads = Mutex<Set<ObjectIdentifier>>([])

    /// Whether the caller runs on one of these threads (for tests and assertions).
    package static var isCurrentThread: Bool {
        let current = ObjectIdentifier(Thread.current)
        return threads.withLock { $0.contains(current) }
    }

    /// An executor for a new actor, taken round-robin from the pool.
    package static func next() -> IOExecutor {
        pool[counter.wrappingAdd(1, ordering: .relaxed).oldValue % pool.count]
    }
}
