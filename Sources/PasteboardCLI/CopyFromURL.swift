import FoundationEssentials
import PasteboardHistory
import PasteboardModel
import TextSupport
import URLFetching

/// `pb copy --url URL`: the app's Copy from URL on the command line, through the same `URLFetching` code (http and
/// https only, 50 MB after decoding, redirects and addresses checked, a stall and an overall deadline).
enum CopyFromURL {
    /// Downloads `text` and makes the item to copy: an image, or a page's text with its HTML and address, or text.
    static func item(_ text: String, timeout: Double?, context: Context) throws -> (item: PasteboardItem, summary: String) {
        let address: FetchAddress
        do {
            address = try FetchAddress.typed(text)
        } catch where error.kind == .badAddress {
            throw CommandUsageError("--url: \(error.message)")
        } catch {
            throw CommandFailure(error.message, cause: error)
        }
        var limits = URLFetcher.Limits()
        if let timeout {
            limits.totalTimeout = timeout
            limits.stallTimeout = min(limits.stallTimeout, timeout)
        }
        let fetcher = URLFetcher(address: address, limits: limits, userAgent: "Pasteboard (pb copy --url)")
        let progress = DownloadProgress(output: context.stderr, isEnabled: context.stderrIsTerminal)
        let result = fetcher.run { received, expected in progress.update(received: received, expected: expected) }
        progress.finish()
        do {
            return try FetchedContent.item(from: try result.get())
        } catch {
            throw CommandFailure(error.message, cause: error)
        }
    }
}

/// `Downloading: 1.2 MB of 4.0 MB`, redrawn in place on standard error a few times a second, and erased at the end;
/// nothing unless standard error is a terminal.
final class DownloadProgress {
    private let output: Output
    private let isEnabled: Bool
    private var lastDraw: ContinuousClock.Instant?
    private var isShown = false

    init(output: Output, isEnabled: Bool) {
        self.output = output
        self.isEnabled = isEnabled
    }

    func update(received: Int, expected: Int?) {
        guard isEnabled else { return }
        let now = ContinuousClock.now
        if let lastDraw, now - lastDraw < .milliseconds(200) { return }
        lastDraw = now
        var text = "\rDownloading: \(ByteCountFormatting.string(received))"
        if let expected, expected > 0 {
            text += " of \(ByteCountFormatting.string(expected)) (\(min(100, received * 100 / expected)) %)"
        }
        output.write(text + "\u{1B}[K")
        output.flush()
        isShown = true
    }

    func finish() {
        guard isShown else { return }
        output.write("\r\u{1B}[K")
        output.flush()
        isShown = false
    }
}
