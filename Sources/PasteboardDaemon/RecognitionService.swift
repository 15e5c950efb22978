import FoundationEssentials
import PasteboardConfiguration
import PasteboardHistory
import PasteboardSync
import Synchronization
import CSystemShim
import SystemSupport
#if canImport(Glibc)
import Glibc
#endif

/// Reads the text of image items in the background, on a thread of its own with its own connection to the store,
/// through a `pasteboard-ocr` process (`RecognitionProcess`) at idle priority on one core.
///
/// It works off every image item the store has not looked at (`itemsAwaitingRecognition`, newest first: a copy just
/// made before an import's backlog), a few at a time, and sleeps when none is left until the daemon wakes it (the
/// change feed moved: a capture, an import, a sync arrival). Capture never waits for it: the recognizer is another
/// process at SCHED_IDLE, and the one write per picture is a transaction of a few rows. Items that ask before paste,
/// that expire or that never leave this device are marked excluded without being read.
final class RecognitionService: Sendable {
    private struct State {
        var isStopped = false
        var isWakePending = false
        var helper: pid_t?
        var messages: [String] = []
    }

    private let state = Mutex(State())
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// Pictures larger than this are not sent to the recognizer (marked unreadable).
    static let largestPicture = 64 << 20
    /// Items taken from the store at once.
    static let sliceItems = 8
    /// Beyond the recognizer's own time limit, how long a reply may take (loading the language models) before the
    /// process is killed.
    static let replyGrace: Duration = .seconds(20)
    /// Time limit of one picture.
    static let timeLimit: Duration = .seconds(30)

    private init(wakeRead: Int32, wakeWrite: Int32) {
        self.wakeRead = wakeRead
        self.wakeWrite = wakeWrite
    }

    /// Starts the worker for the store at `location`.
    static func start(location: StoreLocation, settings: TextRecognitionSettings) throws(SystemError) -> RecognitionService {
        var fds: [Int32] = [-1, -1]
        guard pb_pipe_cloexec_nonblock(&fds) == 0 else { throw SystemError.last("pipe2") }
        let service = RecognitionService(wakeRead: fds[0], wakeWrite: fds[1])
        let languages = settings.languages
        try DetachedThread.start(name: "pb-ocr") {
            service.run(location: location, languages: languages)
        }
        return service
    }

    /// The recognizer: `pasteboard-ocr` beside the running executable, else the first on `PATH`.
    static func executable() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        var candidates: [String] = []
        if count > 0 {
            let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let slash = path.lastIndex(of: "/") { candidates.append(path[..<slash] + "/pasteboard-ocr") }
        }
        let search = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        candidates += search.split(separator: ":").map { $0 + "/pasteboard-ocr" }
        return candidates.first { access($0, X_OK) == 0 }
    }

    /// Wakes the worker to look for new image items (cheap when it is awake already).
    func wake() {
        let pending = state.withLock { state -> Bool in
            defer { state.isWakePending = true }
            return state.isWakePending
        }
        if !pending {
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
    }

    /// Stops the worker: the picture being read is abandoned (its recognizer killed), and nothing more is written.
    func stop() {
        let helper = state.withLock { state -> pid_t? in
            state.isStopped = true
            return state.helper
        }
        if let helper { kill(helper, SIGKILL) }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// What the worker has to say since the last call, for the daemon's log.
    func takeMessages() -> [String] {
        state.withLock { state in
            defer { state.messages.removeAll() }
            return state.messages
        }
    }

    private var isStopped: Bool { state.withLock { $0.isStopped } }

    private func note(_ message: String) {
        state.withLock { $0.messages.append(message) }
    }

    // MARK: - The worker thread

    private func run(location: StoreLocation, languages: String) {
        // Nice 10 for this thread alone (on Linux a niceness is a thread's, and `who` 0 is the calling thread): the
        // database work is small, and a thread at idle priority holding the write lock would keep a capture waiting.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        defer {
            close(wakeRead)
            close(wakeWrite)
        }
        let store: HistoryStore
        do {
            store = try HistoryStore(location: location)
        } catch {
            note("text recognition is off: \(error.message)")
            return
        }
        guard let executable = Self.executable() else {
            note("text recognition is off: pasteboard-ocr is not installed beside pb nor on PATH")
            return
        }
        var process: RecognitionProcess?
        while !isStopped {
            let ids: [Int64]
            do {
                ids = try store.itemsAwaitingRecognition(limit: Self.sliceItems)
            } catch {
                note("text recognition: \(error.message)")
                sleep(until: 60)
                continue
            }
            if ids.isEmpty {
                process = nil  // its models' memory goes back while nothing is to be read
                sleep(until: nil)
                continue
            }
            for id in ids {
                if isStopped { break }
                do {
                    try recognize(id: id, store: store, location: location, languages: languages) { () throws(SystemError) in
                        if let process { return process }
                        let started = try RecognitionProcess(
                            executable: executable, languages: languages, timeLimit: Self.timeLimit, errorDescriptor: 2)
                        state.withLock { $0.helper = started.pid }
                        process = started
                        return started
                    } discard: {
                        process = nil
                    }
                } catch {
                    note("text recognition of item \(id): \(error)")
                    process = nil
                    sleep(until: 60)
                    break
                }
            }
        }
    }

    private func recognize(
        id: Int64, store: HistoryStore, location: StoreLocation, languages: String,
        process: () throws(SystemError) -> RecognitionProcess, discard: () -> Void
    ) throws {
        func record(_ text: String, _ outcome: RecognitionOutcome) throws {
            try store.recordRecognition(id: id, text: text, outcome: outcome, languages: languages)
        }
        guard try store.allowsRecognition(id: id),
            try !SyncSession.isLocalOnly(try store.pasteboardItem(id: id), location: location)
        else { return try record("", .excluded) }
        guard let picture = try store.recognitionPicture(id: id) else { return try record("", .unreadable) }
        guard picture.count <= Self.largestPicture else { return try record("", .unreadable) }
        let deadline = ContinuousClock.now + Self.timeLimit + Self.replyGrace
        guard let reply = try process().recognize(picture, deadline: deadline) else {
            discard()
            if isStopped { return }
            note("text recognition of item \(id): the recognizer did not answer in time or stopped; it was restarted")
            return try record("", ContinuousClock.now >= deadline ? .timedOut : .failed)
        }
        switch reply {
        case .text(let text): try record(text, .recognized)
        case .unreadable(let message):
            note("text recognition of item \(id): \(message)")
            try record("", .unreadable)
        case .timedOut(let message):
            note("text recognition of item \(id): \(message)")
            try record("", .timedOut)
        case .failed(let message):
            note("text recognition of item \(id): \(message)")
            try record("", .failed)
        }
    }

    /// Waits for a wake-up, or `seconds` (nil: no limit), then forgets the wake-ups so far.
    private func sleep(until seconds: Int32?) {
        var descriptor = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, seconds.map { $0 * 1000 } ?? -1)
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &buffer, buffer.count) > 0 {}
        state.withLock { $0.isWakePending = false }
    }
}
