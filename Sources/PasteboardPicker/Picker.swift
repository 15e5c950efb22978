import FoundationEssentials
#if canImport(Glibc)
import Glibc
import SystemSupport
#endif

/// The write end of the picker's self-pipe, for the SIGWINCH handler.
/// nonisolated(unsafe): written before the handler is installed, then only read by it.
nonisolated(unsafe) private var resizePipeWrite: Int32 = -1

/// `pb pick`: a full-screen picker over the history on the controlling terminal. It queries the store in
/// windows as the user types and moves, so it starts at once on any size of history, and it gives the
/// terminal back as it found it on every way out.
public struct Picker {
    /// What the user chose.
    public enum Result: Equatable, Sendable {
        /// These items, in this order; `plainText`: only their text (several are always joined as text).
        case picked([Int64], plainText: Bool)
        /// A paste stack of these items, in the order marked: one per paste.
        case stacked([Int64])
        case cancelled
    }

    let source: any PickerSource
    let mode: FilterMode
    let usesColor: Bool
    /// How images are drawn; nil: ask the terminal.
    let graphics: TerminalGraphics?
    let chafa: Chafa?
    /// Inside tmux or GNU screen, which take the kitty query's APC sequence for a title (tmux) or a hardstatus
    /// line (screen) and keep it after pb exits; neither passes kitty graphics on, so it is not asked.
    private let isMultiplexed: Bool
    /// How much of an item's text the preview reads.
    static let previewBytes = 16 << 10
    /// The largest image the preview reads; a larger one is only described.
    static let previewImageBytes = 32 << 20
    /// How long the terminal has to answer the graphics query.
    static let graphicsQueryTimeout = 300
    /// How long the first screen waits for the first rows, in milliseconds.
    static let firstRowsWait: Int32 = 250

    /// News of changes to the history made elsewhere while the picker is open.
    private var changes: (any HistoryChangeSignal)? { (source as? StorePickerSource)?.changes }

    /// Takes the rows the list model read meanwhile.
    private func applyUpdates(to model: inout PickerModel) {
        for update in source.takeUpdates() { model.apply(update, source: source) }
    }

    public init(
        source: any PickerSource, mode: FilterMode = .substring, graphics: TerminalGraphics? = nil,
        environment: [String: String]
    ) {
        self.source = source
        self.mode = mode
        self.graphics = graphics
        usesColor = environment["NO_COLOR"].map(\.isEmpty) ?? true
        chafa = Chafa.find(path: environment["PATH"])
        isMultiplexed = TerminalGraphics.isMultiplexer(environment: environment)
    }

    /// Runs on the terminal `terminal` (an open `/dev/tty`) until the user picks or quits.
    public func run(terminal: Int32) throws(PickerError) -> Result {
        let mode = TerminalMode(fileDescriptor: terminal)
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            let cause = SystemError.last("pipe")
            throw PickerError("Cannot create a pipe: \(cause.reason).", cause: cause)
        }
        defer {
            resizePipeWrite = -1
            close(fds[0])
            close(fds[1])
        }
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
        resizePipeWrite = fds[1]
        try mode.enter()
        defer { mode.restore() }
        let previous = Self.installSignalHandlers()
        defer { Self.restoreSignalHandlers(previous) }

        var model = PickerModel(mode: self.mode)
        var decoder = KeyDecoder()
        var previewCache: (id: Int64, text: String?)?
        var pendingKeys: [Key] = []
        let graphics: TerminalGraphics
        if let chosen = self.graphics {
            graphics = chosen
        } else {
            let detected = TerminalGraphics.detect(
                terminal: terminal, timeout: Self.graphicsQueryTimeout, asksKitty: !isMultiplexed)
            graphics = detected.graphics
            pendingKeys = decoder.feed(detected.rest)
        }
        let renderer = ImagePreviewRenderer(graphics: graphics, chafa: chafa, usesColor: usesColor, terminal: terminal)
        var images = ImagePreviewState()
        var size = mode.size()
        var screen = PickerScreen(columns: size.columns, rows: size.rows, usesColor: usesColor)
        model.visibleRows = screen.layout.listRows
        model.reload(from: source)
        // The first rows come from the list model's thread: wait for them a moment rather than draw an empty list.
        var first = [pollfd(fd: source.wakeDescriptor, events: Int16(POLLIN), revents: 0)]
        _ = poll(&first, 1, Self.firstRowsWait)
        applyUpdates(to: &model)

        func draw() {
            let layout = screen.layout
            var text: String?
            if let item = model.selectedItem {
                if previewCache?.id != item.id {
                    do {
                        previewCache = (item.id, try source.text(of: item.id, limit: Self.previewBytes))
                    } catch {
                        previewCache = (item.id, "(the preview cannot be read: \(error))")
                    }
                }
                text = previewCache?.text
            }
            var overlay = ""
            var isGraphic = false
            if let item = model.selectedItem, item.kind == .image {
                let box = ImagePreviewRenderer.Request(
                    id: item.id, columns: layout.previewWidth, rows: max(0, layout.previewHeight - 3))
                let shown = images.preview(of: item, box: box, source: source, renderer: renderer)
                text = shown.description
                overlay = shown.overlay(at: layout.previewRow + 3, column: layout.previewColumn)
                isGraphic = shown.isGraphic
            }
            let lines = screen.previewLines(
                for: model.selectedItem, text: text, width: layout.previewWidth, height: layout.previewHeight)
            // A picture drawn last time may outlive the text written over it (sixel, kitty): clear it first.
            var start = images.lastGraphic != nil && images.lastGraphic != overlay ? "\u{1B}[2J" : ""
            if graphics == .kitty { start += "\u{1B}_Ga=d,q=2\u{1B}\\" }
            images.lastGraphic = isGraphic ? overlay : nil
            mode.write(start + screen.frame(model, preview: lines) + overlay)
        }

        model.handle(pendingKeys, source: source)
        if let outcome = model.outcome { return Self.result(outcome) }
        draw()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var polled = [
                pollfd(fd: terminal, events: Int16(POLLIN), revents: 0), pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0),
                pollfd(fd: renderer?.wakeDescriptor ?? -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: source.wakeDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: changes?.fileDescriptor ?? -1, events: Int16(POLLIN), revents: 0),
            ]
            // A lone ESC waits briefly for the rest of a sequence; otherwise sleep until something happens.
            let ready = poll(&polled, 5, decoder.isWaiting ? 30 : -1)
            if ready < 0 {
                if errno == EINTR { continue }
                let cause = SystemError.last("poll")
                throw PickerError("The terminal could not be read: \(cause.reason).", cause: cause)
            }
            var keys: [Key] = []
            if ready == 0 { keys = decoder.flush() }
            if polled[2].revents != 0 { renderer?.drainWakeups() }
            if polled[1].revents != 0 {
                while read(fds[0], &buffer, buffer.count) > 0 {}
                size = mode.size()
                screen = PickerScreen(columns: size.columns, rows: size.rows, usesColor: usesColor)
                model.visibleRows = screen.layout.listRows
                mode.write("\u{1B}[2J")
            }
            if polled[0].revents & Int16(POLLIN) != 0 {
                let count = read(terminal, &buffer, buffer.count)
                if count == 0 { return .cancelled }  // the terminal went away
                if count > 0 { keys += decoder.feed(buffer[0..<count]) }
            } else if polled[0].revents & Int16(POLLHUP | POLLERR) != 0 {
                return .cancelled
            }
            if polled[3].revents != 0 { applyUpdates(to: &model) }
            // Someone else changed the history (a copy, an import, a sync arrival): list the rows again, keeping
            // the selected item.
            if polled[4].revents != 0, changes?.take() == true { model.historyChanged(source) }
            model.handle(keys, source: source)
            if let outcome = model.outcome { return Self.result(outcome) }
            draw()
        }
    }

    private static func result(_ outcome: PickerModel.Outcome) -> Result {
        switch outcome {
        case .picked(let ids, let plainText): return .picked(ids, plainText: plainText)
        case .stacked(let ids): return .stacked(ids)
        case .cancelled: return .cancelled
        }
    }

    // MARK: - Signals

    private typealias Handler = @convention(c) (Int32) -> Void

    /// SIGWINCH redraws; SIGTERM, SIGHUP and SIGINT give the terminal back and end the process with the
    /// status a shell expects (128 + the signal).
    private static func installSignalHandlers() -> [Int32: sighandler_t?] {
        let resize: Handler = { _ in
            var byte: UInt8 = 1
            _ = write(resizePipeWrite, &byte, 1)
        }
        let stop: Handler = { number in
            TerminalMode.restoreFromSignal()
            _exit(128 + number)
        }
        var previous: [Int32: sighandler_t?] = [:]
        previous[SIGWINCH] = signal(SIGWINCH, resize)
        for number in [SIGTERM, SIGHUP, SIGINT] { previous[number] = signal(number, stop) }
        return previous
    }

    private static func restoreSignalHandlers(_ previous: [Int32: sighandler_t?]) {
        for (number, handler) in previous { signal(number, handler ?? SIG_DFL) }
    }
}
