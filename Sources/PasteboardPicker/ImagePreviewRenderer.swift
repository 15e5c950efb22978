import CSystemShim
import FoundationEssentials
import Synchronization
import TextSupport
import SystemSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Draws image previews off the picker's loop: one worker thread renders the latest request (older ones that
/// were never started are dropped) and writes a byte to `wakeDescriptor`, which the loop polls, when a rendering
/// is ready. A few renderings are kept, so moving back and forth draws at once.
final class ImagePreviewRenderer: Sendable {
    /// One image in one box of cells.
    struct Request: Hashable, Sendable {
        var id: Int64
        var columns: Int
        var rows: Int
    }

    enum Rendering: Equatable, Sendable {
        /// Escape sequences that draw the image with its top-left corner at the cursor (sixel, kitty).
        case graphic(String)
        /// Lines of coloured half-blocks, each to be written at the box's left edge.
        case lines([String])
        /// Why there is no picture.
        case failed(String)
    }

    let graphics: TerminalGraphics
    private let chafa: Chafa?
    private let usesColor: Bool
    private let terminal: Int32
    let wakeDescriptor: Int32
    private let wakeWrite: Int32

    private struct State {
        var pending: (Request, [UInt8])?
        var isRunning = false
        var done: [Request: Rendering] = [:]
        var order: [Request] = []
    }
    private let state = Mutex(State())
    private static let kept = 8

    /// nil when images are only described (`graphics` is `.text`) or no pipe could be made.
    init?(graphics: TerminalGraphics, chafa: Chafa?, usesColor: Bool, terminal: Int32) {
        guard graphics != .text else { return nil }
        var fds: [Int32] = [-1, -1]
        guard pb_pipe_cloexec_nonblock(&fds) == 0 else { return nil }
        self.graphics = graphics
        self.chafa = chafa
        self.usesColor = usesColor
        self.terminal = terminal
        wakeDescriptor = fds[0]
        wakeWrite = fds[1]
    }

    deinit {
        close(wakeDescriptor)
        close(wakeWrite)
    }

    /// The rendering for `request`, if done.
    func rendering(for request: Request) -> Rendering? {
        state.withLock { $0.done[request] }
    }

    /// Starts rendering `image` for `request` unless it is done or under way.
    func render(_ request: Request, image: [UInt8]) {
        let start = state.withLock { state -> Bool in
            guard state.done[request] == nil, state.pending?.0 != request else { return false }
            state.pending = (request, image)
            guard !state.isRunning else { return false }
            state.isRunning = true
            return true
        }
        guard start else { return }
        do {
            try DetachedThread.start(name: "pb-pick-preview") { self.work() }
        } catch {
            // No thread to draw with: the preview keeps its placeholder, and a later request tries again.
            state.withLock { state in
                state.pending = nil
                state.isRunning = false
            }
        }
    }

    /// Empties the pipe `wakeDescriptor` after the loop woke on it.
    func drainWakeups() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wakeDescriptor, &buffer, buffer.count) > 0 {}
    }

    private func work() {
        while true {
            let next = state.withLock { state -> (Request, [UInt8])? in
                defer { state.pending = nil }
                if state.pending == nil { state.isRunning = false }
                return state.pending
            }
            guard let (request, image) = next else { return }
            let rendering = draw(image, request: request)
            state.withLock { state in
                state.done[request] = rendering
                state.order.append(request)
                if state.order.count > Self.kept { state.done[state.order.removeFirst()] = nil }
            }
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)  // a full pipe already holds a wake-up
        }
    }

    private func draw(_ image: [UInt8], request: Request) -> Rendering {
        if let header = ImageHeader(image), header.isTooLargeToDecode {
            return .failed("too large to preview")
        }
        guard let chafa else {
            if graphics == .kitty, let header = ImageHeader(image), header.format == "PNG" {
                // Keep the picture's shape, taking a cell to be twice as high as it is wide.
                let aspect = Double(max(1, header.width)) / Double(max(1, header.height)) * 2
                let columns = max(1, min(request.columns, Int(Double(request.rows) * aspect)))
                let rows = max(1, min(request.rows, Int((Double(columns) / aspect).rounded())))
                return .graphic(Self.kittyPNG(image, columns: columns, rows: rows))
            }
            // Without chafa: half-blocks from our own PNG decoder, where there are colours to draw them with.
            if usesColor, let decoded = PNGImage(image) {
                return .lines(HalfBlocks.lines(decoded, columns: request.columns, rows: request.rows))
            }
            return .failed("install chafa to see it here")
        }
        do {
            let output = try chafa.render(
                image, graphics: graphics, columns: request.columns, rows: request.rows, usesColor: usesColor,
                terminal: terminal)
            let text = String(decoding: output, as: UTF8.self)
                .replacingEvery("\u{1B}[?25l", with: "").replacingEvery("\u{1B}[?25h", with: "")
            switch graphics {
            case .kitty, .sixel: return .graphic(text)
            case .blocks, .text:
                return .lines(text.split(separator: "\n").prefix(request.rows).map(String.init))
            }
        } catch {
            return .failed(error.message)
        }
    }

    /// A PNG sent to a kitty terminal as it is (format 100), in chunks of at most 4096 base64 bytes as the
    /// protocol asks, scaled by the terminal into the box; `q=2` keeps the terminal from answering.
    static func kittyPNG(_ image: [UInt8], columns: Int, rows: Int) -> String {
        let encoded = Array(Data(image).base64EncodedString().utf8)
        var out = ""
        var offset = 0
        repeat {
            let end = min(encoded.count, offset + 4096)
            let more = end < encoded.count ? 1 : 0
            let control = offset == 0 ? "a=T,f=100,t=d,q=2,c=\(columns),r=\(rows),m=\(more)" : "m=\(more)"
            out += "\u{1B}_G\(control);" + String(decoding: encoded[offset..<end], as: UTF8.self) + "\u{1B}\\"
            offset = end
        } while offset < encoded.count
        return out
    }
}
