import CURLShim
public import FoundationEssentials
import PasteboardHistory
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One download for Copy from URL (the app's and `pb copy --url`'s): http(s) only, through libcurl. The body is
/// decoded (gzip, deflate) as it arrives and the download stops the moment the decoded bytes pass the limit, so a
/// compression bomb never inflates past it. Redirects are followed here, one at a time: each must be http(s), and
/// every connection is checked by `AddressPolicy`. A stall, a connection that never opens and an overall deadline
/// end it; `cancel()` too, from any thread.
public final class URLFetcher: Sendable {
    public struct Limits: Sendable {
        /// The largest body accepted, after decoding.
        public var maxBytes = 50_000_000
        /// How long the server may send nothing (or the connection take to open) before the download is abandoned.
        public var stallTimeout: Double = 15
        /// How long the whole download may take, redirects included.
        public var totalTimeout: Double = 300
        public var maxRedirects = 10

        public init() {}
    }

    /// A finished download.
    public struct Download: Sendable {
        /// The address after redirects.
        public let url: String
        public let mimeType: String?
        public let textEncodingName: String?
        public let data: Data

        public init(url: String, mimeType: String?, textEncodingName: String?, data: Data) {
            self.url = url
            self.mimeType = mimeType
            self.textEncodingName = textEncodingName
            self.data = data
        }
    }

    public let address: FetchAddress
    public let limits: Limits
    private let userAgent: String
    private let isCancelled = Atomic(false)

    public init(address: FetchAddress, limits: Limits = Limits(), userAgent: String) {
        self.address = address
        self.limits = limits
        self.userAgent = userAgent
    }

    /// Stops a running download: `run` returns `.cancelled`.
    public func cancel() { isCancelled.store(true, ordering: .relaxed) }

    /// Downloads, blocking the calling thread. `progress` hears the raw bytes received so far and the declared
    /// length (nil when unknown), on the calling thread, many times a second.
    public func run(progress: @escaping (Int, Int?) -> Void = { _, _ in }) -> Result<Download, FetchError> {
        let policy = AddressPolicy(typedHost: address.host, port: address.port)
        let started = ContinuousClock.now
        var current = address
        var hops = 0
        while true {
            let elapsed = Self.seconds(ContinuousClock.now - started)
            let left = limits.totalTimeout - elapsed
            guard left > 0 else { return .failure(totalTimeout()) }
            let transfer = Transfer(
                policy: policy, maxBytes: limits.maxBytes, isCancelled: { self.isCancelled.load(ordering: .relaxed) },
                progress: progress)
            let answer = transfer.get(
                current.text, userAgent: userAgent, stall: limits.stallTimeout, total: left)
            if isCancelled.load(ordering: .relaxed) {
                return .failure(FetchError(.cancelled, "Download cancelled; nothing was copied."))
            }
            if let failure = failure(of: answer, transfer: transfer, url: current, hop: hops, started: started) {
                return .failure(failure)
            }
            guard (300..<400).contains(answer.status) else {
                let (mime, charset) = Self.mediaType(answer.contentType)
                return .success(Download(url: current.text, mimeType: mime, textEncodingName: charset, data: transfer.body))
            }
            hops += 1
            switch next(after: answer, from: current, hop: hops) {
            case .success(let address): current = address
            case .failure(let error): return .failure(error)
            }
        }
    }

    /// Where a redirect leads, if it may be followed.
    func next(after answer: Transfer.Answer, from current: FetchAddress, hop: Int) -> Result<FetchAddress, FetchError> {
        guard let location = answer.redirectURL, !location.isEmpty else {
            return .failure(
                FetchError(
                    .httpStatus(answer.status),
                    "The server answered \(answer.status) (\(HTTPStatus.reason(answer.status))) for \(current.text) "
                        + "without saying where to; nothing was copied."))
        }
        guard hop <= limits.maxRedirects else {
            return .failure(
                FetchError(
                    .refused,
                    "\(address.text) redirected more than \(limits.maxRedirects) times (last to \(location.prefix(200))); nothing was copied."))
        }
        if let scheme = Self.scheme(of: location), scheme != "http", scheme != "https" {
            return .failure(
                FetchError(
                    .refused,
                    "\(current.text) redirected to \(location.prefix(200)), which is not an http or https address; "
                        + "Copy from URL follows redirects to web addresses only. Nothing was copied."))
        }
        let target: FetchAddress?
        do {
            target = try FetchAddress.parse(location, relativeTo: current.text)
        } catch {
            return .failure(error)
        }
        guard let target else {
            return .failure(
                FetchError(
                    .refused, "\(current.text) redirected to '\(location.prefix(200))', which is not a valid address; nothing was copied."))
        }
        guard target.isWeb, !target.host.isEmpty else {
            return .failure(
                FetchError(
                    .refused,
                    "\(current.text) redirected to \(target.text.prefix(200)), which is not an http or https address; "
                        + "Copy from URL follows redirects to web addresses only. Nothing was copied."))
        }
        return .success(target)
    }

    private func failure(
        of answer: Transfer.Answer, transfer: Transfer, url: FetchAddress, hop: Int, started: ContinuousClock.Instant
    ) -> FetchError? {
        if let refusal = transfer.refusal {
            let via = hop > 0 ? " (reached through a redirect from \(address.text))" : ""
            return FetchError(
                .refused,
                "Refused to connect to \(refusal.address) port \(refusal.port) for \(url.text)\(via): it is a "
                    + "\(refusal.address.scope.rawValue) address, and Copy from URL reaches loopback, private and "
                    + "link-local addresses only at the address and port you type yourself. Nothing was copied.")
        }
        if transfer.overLimit != nil { return tooLarge(declared: transfer.overLimit.flatMap { $0 }) }
        switch answer.code {
        case 0: return nil
        case 22:  // CURLE_HTTP_RETURNED_ERROR
            return FetchError(
                .httpStatus(answer.status),
                "The server answered \(answer.status) (\(HTTPStatus.reason(answer.status))) for \(url.text); nothing was copied.")
        case 28:  // CURLE_OPERATION_TIMEDOUT
            if Self.seconds(ContinuousClock.now - started) >= limits.totalTimeout - 0.5 { return totalTimeout() }
            if !transfer.connected {
                return FetchError(
                    .timeout, "Could not connect to \(url.host) within \(Int(limits.stallTimeout)) s; nothing was copied.")
            }
            return FetchError(
                .timeout, "The server stopped sending (\(Int(limits.stallTimeout)) s without data); nothing was copied.")
        case 6:  // CURLE_COULDNT_RESOLVE_HOST
            return FetchError(.network, "Could not find the host \(url.host) (\(answer.message)); nothing was copied.")
        case 61:  // CURLE_BAD_CONTENT_ENCODING
            return FetchError(.network, "\(url.text) sent a corrupt compressed body (\(answer.message)); nothing was copied.")
        default:
            return FetchError(.network, "Could not download \(url.text): \(answer.message); nothing was copied.")
        }
    }

    private func totalTimeout() -> FetchError {
        FetchError(
            .timeout, "The download took longer than \(Int(limits.totalTimeout)) s and was stopped; nothing was copied.")
    }

    private func tooLarge(declared: Int?) -> FetchError {
        let size = declared.map { " (it declares \(ByteCountFormatting.string($0)))" } ?? ""
        return FetchError(
            .tooLarge,
            "\(address.text) is larger than \(limits.maxBytes / 1_000_000) MB\(size), the most Copy from URL takes; nothing was copied.")
    }

    /// The scheme `location` names (`file` in `file:///etc/passwd`, lowercased), or nil for a relative reference.
    static func scheme(of location: String) -> String? {
        guard let colon = location.firstIndex(of: ":") else { return nil }
        let name = location[..<colon]
        guard let first = name.first, first.isASCII, first.isLetter,
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return name.lowercased()
    }

    /// `text/html; charset=UTF-8` as ("text/html", "utf-8").
    static func mediaType(_ header: String?) -> (String?, String?) {
        guard let header else { return (nil, nil) }
        let parts = header.split(separator: ";").map { $0.trimmingWhitespace().lowercased() }
        guard let first = parts.first, !first.isEmpty else { return (nil, nil) }
        let charset = parts.dropFirst().first { $0.hasPrefix("charset=") }.map {
            String($0.dropFirst("charset=".count)).trimming(where: { $0 == "\"" || $0 == "'" })
        }
        return (first, charset)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// One GET through libcurl and the state its callbacks share (on the calling thread).
final class Transfer {
    struct Answer {
        var code: Int32
        var status: Int
        var contentType: String?
        var redirectURL: String?
        var message: String
    }

    let policy: AddressPolicy
    let maxBytes: Int
    let isCancelled: () -> Bool
    let progress: (Int, Int?) -> Void
    var body = Data()
    /// Set when the body passed the limit: the declared length, if that was what passed it.
    var overLimit: Int??
    var refusal: (address: AddressPolicy.Address, port: Int)?
    var connected = false

    init(policy: AddressPolicy, maxBytes: Int, isCancelled: @escaping () -> Bool, progress: @escaping (Int, Int?) -> Void) {
        self.policy = policy
        self.maxBytes = maxBytes
        self.isCancelled = isCancelled
        self.progress = progress
    }

    func get(_ url: String, userAgent: String, stall: Double, total: Double) -> Answer {
        var result = pb_curl_result()
        let context = Unmanaged.passUnretained(self).toOpaque()
        var callbacks = pb_curl_callbacks(
            context: context,
            write: { context, data, length in
                let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
                guard transfer.body.count + length <= transfer.maxBytes else {
                    transfer.overLimit = .some(nil)
                    transfer.body = Data()
                    return 0  // libcurl stops with CURLE_WRITE_ERROR
                }
                if let data { transfer.body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: length) }
                return length
            },
            progress: { context, total, now in
                let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
                if transfer.isCancelled() { return 1 }
                if total > transfer.maxBytes {
                    transfer.overLimit = .some(Int(total))
                    return 1
                }
                if now > 0 { transfer.connected = true }
                transfer.progress(Int(now), total > 0 ? Int(total) : nil)
                return 0
            },
            allow_address: { context, family, bytes, port in
                let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
                let count = family == AF_INET ? 4 : 16
                guard let bytes, let address = AddressPolicy.Address(bytes: Array(UnsafeBufferPointer(start: bytes, count: count)))
                else { return 0 }
                if transfer.policy.allows(address, port: Int(port)) {
                    transfer.connected = true
                    return 1
                }
                transfer.refusal = (address, Int(port))
                return 0
            })
        var options = pb_curl_options(
            user_agent: nil, connect_timeout_seconds: max(1, Int(stall.rounded(.up))),
            stall_seconds: max(1, Int(stall.rounded(.up))), total_timeout_ms: max(1, Int(total * 1000)))
        userAgent.withCString { agent in
            options.user_agent = agent
            pb_curl_get(url, &options, &callbacks, &result)
        }
        defer { pb_curl_result_free(&result) }
        let message = withUnsafeBytes(of: result.message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return Answer(
            code: result.code, status: result.status, contentType: result.content_type.map(cText),
            redirectURL: result.redirect_url.map(cText), message: message)
    }
}

/// Reason phrases for the statuses a download meets.
enum HTTPStatus {
    static func reason(_ status: Int) -> String {
        switch status {
        case 300: "Multiple Choices"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 410: "Gone"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: status >= 500 ? "server error" : status >= 400 ? "client error" : "redirect"
        }
    }
}
