import Dispatch
import Foundation
import PasteboardHistory
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One download for "Copy from URL": http(s) only, the body capped, a stall (no bytes for a while) and an overall
/// deadline ending it, cancellable. Reports progress and the end through `handler`, on a thread of its own.
final class URLFetch: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // `@unchecked Sendable`: URLSession calls the delegate on its own queue; every mutable field is in `state`.

    struct Limits: Sendable {
        /// The largest body accepted.
        var maxBytes = 50_000_000
        /// How long the server may send nothing before the download is abandoned.
        var stallTimeout: TimeInterval = 15
        /// How long the whole download may take.
        var totalTimeout: TimeInterval = 300
    }

    /// A finished download.
    struct Download: Sendable {
        /// The address after redirects.
        let url: URL
        let mimeType: String?
        let textEncodingName: String?
        let data: Data
    }

    enum Event: Sendable {
        case progress(received: Int, expected: Int?)
        case finished(Result<Download, AppError>)
        /// Ended by `cancel()`.
        case cancelled
    }

    private struct State {
        var data = Data()
        var expected: Int?
        var response: HTTPURLResponse?
        var lastActivity = Date()
        var isFinished = false
    }

    let url: URL
    private let limits: Limits
    private let handler: @Sendable (Event) -> Void
    private let state = Mutex(State())
    private let started = Date()
    /// Set once by `start()`, before any delegate call; invalidated by `finish(_:)`, which runs once.
    private var session: URLSession?
    private let watchdog = DispatchSource.makeTimerSource(queue: DispatchQueue.global())

    /// Checks the address: an absolute http or https URL with a host.
    static func validatedURL(_ text: String) throws(AppError) -> URL {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(),
            ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            throw AppError(
                "'\(trimmed.prefix(200))' is not an http or https address (for example https://example.com/picture.png)."
            )
        }
        return url
    }

    init(url: URL, limits: Limits = Limits(), handler: @escaping @Sendable (Event) -> Void) {
        self.url = url
        self.limits = limits
        self.handler = handler
        super.init()
    }

    func start() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = limits.stallTimeout
        configuration.timeoutIntervalForResource = limits.totalTimeout
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
        self.session = session
        var request = URLRequest(url: url)
        request.setValue("Pasteboard (pasteboard-gtk)", forHTTPHeaderField: "User-Agent")
        watchdog.schedule(deadline: .now() + 0.25, repeating: 0.25)
        watchdog.setEventHandler { [weak self] in self?.checkStall() }
        state.withLock { $0.lastActivity = Date() }
        watchdog.resume()
        session.dataTask(with: request).resume()
    }

    /// Stops the download; the handler hears `.cancelled` (unless it had finished already).
    func cancel() { finish(.cancelled) }

    // MARK: - URLSessionDataDelegate

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let http = response as? HTTPURLResponse else {
            completionHandler(.cancel)
            return finish(.finished(.failure(AppError("\(url.absoluteString) gave no HTTP response."))))
        }
        guard (200..<300).contains(http.statusCode) else {
            completionHandler(.cancel)
            let reason = HTTPURLResponse.localizedString(forStatusCode: http.statusCode)
            return finish(
                .finished(
                    .failure(
                        AppError(
                            "The server answered \(http.statusCode) (\(reason)) for \(url.absoluteString); nothing was copied."
                        ))))
        }
        let expected = http.expectedContentLength > 0 ? Int(http.expectedContentLength) : nil
        if let expected, expected > limits.maxBytes {
            completionHandler(.cancel)
            return finish(.finished(.failure(tooLarge(declared: expected))))
        }
        state.withLock {
            $0.response = http
            $0.expected = expected
            $0.lastActivity = Date()
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let progress: (Int, Int?)? = state.withLock {
            guard !$0.isFinished else { return nil }
            $0.data.append(data)
            $0.lastActivity = Date()
            return ($0.data.count, $0.expected)
        }
        guard let (received, expected) = progress else { return }
        if received > limits.maxBytes { return finish(.finished(.failure(tooLarge()))) }
        handler(.progress(received: received, expected: expected))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error {
            let timedOut = (error as? URLError)?.code == .timedOut
            let message =
                timedOut
                ? "The server stopped sending (\(Int(limits.stallTimeout)) s without data); nothing was copied."
                : "Could not download \(url.absoluteString): \(error.localizedDescription)"
            return finish(.finished(.failure(AppError(message))))
        }
        let download: Download? = state.withLock {
            guard let response = $0.response else { return nil }
            return Download(
                url: response.url ?? url, mimeType: response.mimeType, textEncodingName: response.textEncodingName,
                data: $0.data)
        }
        guard let download else {
            return finish(.finished(.failure(AppError("\(url.absoluteString) gave no response."))))
        }
        finish(.finished(.success(download)))
    }

    // MARK: - Ending

    private func checkStall() {
        let (idle, total) = state.withLock {
            (Date().timeIntervalSince($0.lastActivity), Date().timeIntervalSince(started))
        }
        if idle > limits.stallTimeout {
            finish(
                .finished(
                    .failure(
                        AppError(
                            "The server stopped sending (\(Int(limits.stallTimeout)) s without data); nothing was copied."
                        ))))
        } else if total > limits.totalTimeout {
            finish(
                .finished(
                    .failure(
                        AppError(
                            "The download took longer than \(Int(limits.totalTimeout)) s and was stopped; nothing was copied."
                        ))))
        }
    }

    private func tooLarge(declared: Int? = nil) -> AppError {
        let limit = limits.maxBytes / 1_000_000
        let size = declared.map { " (it declares \(ByteCountFormatting.string($0)))" } ?? ""
        return AppError(
            "\(url.absoluteString) is larger than \(limit) MB\(size), the most Copy from URL takes; nothing was copied."
        )
    }

    /// Reports `event` once, stops the watchdog and the session.
    private func finish(_ event: Event) {
        let isFirst = state.withLock {
            guard !$0.isFinished else { return false }
            $0.isFinished = true
            $0.data = Data()
            return true
        }
        guard isFirst else { return }
        watchdog.cancel()
        session?.invalidateAndCancel()
        handler(event)
    }
}
