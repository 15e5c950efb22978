import CSystemShim

#if canImport(Glibc)
import Glibc
#endif

/// A POSIX thread that runs one closure and ends, nobody joining it: what `Thread.detachNewThread` did, without the
/// part of Foundation that brings CoreFoundation along.
public enum DetachedThread {
    /// Starts a detached thread named `name` (the kernel keeps its first 15 bytes: `top -H`, `/proc/…/comm`) that
    /// runs `body`.
    ///
    /// - Throws: `SystemError` of `pthread_create` when no thread can be made (`EAGAIN`: a resource limit).
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) throws(SystemError) {
        let job = Job(name: name, body: body)
        let context = Unmanaged.passRetained(job).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            // The retain taken before pthread_create is this thread's to release.
            let job = Unmanaged<Job>.fromOpaque(context!).takeRetainedValue()
            job.run()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<Job>.fromOpaque(context).release()  // the thread never started: the retain is still ours
            throw SystemError("pthread_create", errno: status)
        }
        // A detached thread's resources go back to the system when it ends. It cannot fail for a thread just made.
        pthread_detach(thread)
    }

    private final class Job {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }

        func run() {
            // Linux keeps 15 bytes and a NUL: pthread_setname_np refuses a longer name (ERANGE) instead of cutting it.
            var bytes = name.utf8.prefix(15).map { CChar(bitPattern: $0) }
            bytes.append(0)
            // Only a name for tools to show; a refusal changes nothing about the work.
            _ = pb_name_current_thread(bytes)
            body()
        }
    }
}
