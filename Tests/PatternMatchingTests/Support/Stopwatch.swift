import Foundation

/// The wall-clock and CPU time a piece of synchronous work takes on the calling thread.
///
/// CPU time measures the work itself, whatever else the machine is running; wall-clock time is what a user would
/// wait, which on a busy machine can be several times longer.
struct Stopwatch {
    let wallClock: Duration
    let cpu: Duration

    init(_ body: () -> Void) {
        let cpuStart = Self.threadCPUTime()
        let clock = ContinuousClock()
        let wallStart = clock.now
        body()
        wallClock = clock.now - wallStart
        cpu = Self.threadCPUTime() - cpuStart
    }

    private static func threadCPUTime() -> Duration {
        var time = timespec()
        // CLOCK_THREAD_CPUTIME_ID cannot fail for the calling thread; a zero reading would only loosen the bound.
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return .zero }
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
}
