import Foundation
import PasteboardTestSupport
import Testing

@testable import URLFetching

/// The download itself against a hostile server on 127.0.0.1: limits while decoding, redirects, addresses, errors.
@Suite struct URLFetcherTests {
    let sandbox: ProcessSandbox
    let server: HostileHTTPServer

    init() async throws {
        sandbox = try ProcessSandbox(label: "pbfetch")
        server = try await HostileHTTPServer(in: sandbox)
    }

    func fetch(
        _ text: String, limits: URLFetcher.Limits = URLFetcher.Limits()
    ) async throws -> Result<URLFetcher.Download, FetchError> {
        await offThePool(URLFetcher(address: try FetchAddress.typed(text), limits: limits, userAgent: "pasteboard-tests"))
    }

    @Test func plainTextArrives() async throws {
        let download = try await fetch(server.url("text")).get()
        #expect(download.data == Data("hello from the hostile server\n".utf8))
        #expect(download.mimeType == "text/plain")
        #expect(download.textEncodingName == "utf-8")
    }

    @Test func aGzipEncodedPageIsDecoded() async throws {
        let download = try await fetch(server.url("page.html")).get()
        #expect(String(decoding: download.data, as: UTF8.self).contains("Gzipped page body."))
    }

    /// Finding 4: 1 GiB of zeros in about 1 MB of gzip (or deflate) stops at the limit while decoding.
    @Test(arguments: ["gzip-bomb", "deflate-bomb"])
    func aCompressionBombStopsAtTheLimit(path: String) async throws {
        var limits = URLFetcher.Limits()
        limits.maxBytes = 5_000_000
        let started = ContinuousClock.now
        let result = try await fetch(server.url(path), limits: limits)
        #expect(throws: FetchError.self) { try result.get() }
        guard case .failure(let error) = result else { return }
        #expect(error.kind == .tooLarge, "\(error)")
        #expect(error.message.contains("larger than 5 MB"), "\(error)")
        // Stopped at the limit, not after inflating the whole gigabyte (a bound that holds on a loaded machine).
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test func aCorruptGzipBodyIsAnError() async throws {
        let result = try await fetch(server.url("corrupt-gzip"))
        guard case .failure(let error) = result else { Issue.record("a corrupt body was accepted"); return }
        #expect(error.kind == .network)
        #expect(error.message.contains("corrupt"), "\(error)")
    }

    @Test func aDeclaredLengthOverTheLimitIsRefusedAtOnce() async throws {
        let result = try await fetch(server.url("huge"))
        guard case .failure(let error) = result else { Issue.record("60 MB were accepted"); return }
        #expect(error.kind == .tooLarge)
        #expect(error.message.contains("declares 60"), "\(error)")
    }

    @Test(arguments: [404, 500, 403])
    func anErrorStatusIsReportedWithItsNumber(status: Int) async throws {
        let result = try await fetch(server.url("status/\(status)"))
        guard case .failure(let error) = result else { Issue.record("status \(status) was accepted"); return }
        #expect(error.kind == .httpStatus(status))
        #expect(error.message.contains("answered \(status)"), "\(error)")
    }

    /// Finding 7: a redirect from the typed 127.0.0.1:PORT to another port on 127.0.0.1 is refused.
    @Test func aRedirectToAnotherLocalPortIsRefused() async throws {
        let other = try await HostileHTTPServer(in: sandbox)
        let result = try await fetch(server.redirect(to: other.url("text")))
        guard case .failure(let error) = result else { Issue.record("the redirect to another port was followed"); return }
        #expect(error.kind == .refused)
        #expect(error.message.contains("port \(other.port)"), "\(error)")
        #expect(error.message.contains("loopback"), "\(error)")
    }

    @Test func aRedirectToTheSameHostAndPortIsFollowed() async throws {
        let download = try await fetch(server.redirect(to: server.url("text"))).get()
        #expect(download.url == server.url("text"))
        #expect(download.data == Data("hello from the hostile server\n".utf8))
        let relative = try await fetch(server.url("redirect-chain/3")).get()
        #expect(relative.url.hasSuffix("/text"))
    }

    @Test func tooManyRedirectsStop() async throws {
        let result = try await fetch(server.url("redirect-chain/20"))
        guard case .failure(let error) = result else { Issue.record("20 redirects were followed"); return }
        #expect(error.message.contains("more than 10 times"), "\(error)")
    }

    /// Finding 7: `file://` (and every other scheme) is named as such, not "The server answered 404".
    @Test(arguments: ["file:///etc/passwd", "ftp://127.0.0.1/x", "gopher://127.0.0.1:70/", "data:text/plain,hi"])
    func aRedirectToAnotherSchemeIsRefusedClearly(target: String) async throws {
        let result = try await fetch(server.redirect(to: target))
        guard case .failure(let error) = result else { Issue.record("followed \(target)"); return }
        #expect(error.kind == .refused)
        #expect(error.message.contains("not an http or https address"), "\(error)")
        #expect(!error.message.contains("answered 404"), "\(error)")
    }

    /// The user typing a local name that is no literal (localhost) may reach loopback, on that port only.
    @Test func localhostIsAllowedOnItsOwnPort() async throws {
        let download = try await fetch("http://localhost:\(server.port)/text").get()
        #expect(download.data.count == 30)
        let other = try await HostileHTTPServer(in: sandbox)
        let result = try await fetch("http://localhost:\(server.port)/redirect?to=http%3A%2F%2Flocalhost%3A\(other.port)%2Ftext")
        guard case .failure(let error) = result else { Issue.record("localhost reached another port"); return }
        #expect(error.kind == .refused)
    }

    /// Numeric IPv4 forms count as the address they are: typed, 2130706433 is 127.0.0.1 and allowed on its port;
    /// as a redirect target on another port it is refused.
    @Test func decimalLoopbackCountsAsLoopback() async throws {
        let download = try await fetch("http://2130706433:\(server.port)/text").get()
        #expect(download.data.count == 30)
        let other = try await HostileHTTPServer(in: sandbox)
        for form in ["2130706433", "0x7f000001", "017700000001", "127.1", "0177.0.0.1"] {
            let result = try await fetch(server.redirect(to: "http://\(form):\(other.port)/text"))
            guard case .failure(let error) = result else { Issue.record("\(form) reached another port"); return }
            #expect(error.kind == .refused, "\(form): \(error)")
        }
    }

    @Test func aStallEndsTheDownload() async throws {
        var limits = URLFetcher.Limits()
        limits.stallTimeout = 2
        let result = try await fetch(server.url("stall"), limits: limits)
        guard case .failure(let error) = result else { Issue.record("a stalled download finished"); return }
        #expect(error.kind == .timeout)
        #expect(error.message.contains("stopped sending"), "\(error)")
    }

    @Test func cancelStopsAStalledDownload() async throws {
        // A stall timeout far beyond the cancel: under a loaded test run only the cancel can end it.
        var limits = URLFetcher.Limits()
        limits.stallTimeout = 120
        let fetcher = URLFetcher(
            address: try FetchAddress.typed(server.url("stall")), limits: limits, userAgent: "pasteboard-tests")
        let task = Task { await offThePool(fetcher) }
        try await Task.sleep(for: .milliseconds(500))
        fetcher.cancel()
        let result = await task.value
        guard case .failure(let error) = result else { Issue.record("a cancelled download finished"); return }
        #expect(error.kind == .cancelled)
    }

    @Test(arguments: ["ftp://example.com/a", "example.com", "https://", "file:///etc/passwd", "", "http://[::1", "javascript:alert(1)"])
    func onlyHTTPAddressesAreAccepted(text: String) {
        #expect(throws: FetchError.self) { try FetchAddress.typed(text) }
    }
}

/// Runs a download on a thread of its own: `run()` blocks until it ends, and blocking the test runner's cooperative
/// threads (two on a two-core machine) would stall every other test of the run meanwhile.
func offThePool(_ fetcher: URLFetcher) async -> Result<URLFetcher.Download, FetchError> {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: fetcher.run()) }
    }
}
