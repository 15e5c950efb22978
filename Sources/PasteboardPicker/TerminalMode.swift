#if canImport(Glibc)
import Glibc
import SystemSupport
#endif

/// The terminal settings in force before the picker started, for the signal handlers: restoring them is one
/// `tcsetattr` and one `write`, both async-signal-safe.
/// nonisolated(unsafe): written once before any handler is installed, then only read.
nonisolated(unsafe) private var savedSettings = termios()
nonisolated(unsafe) private var savedDescriptor: Int32 = -1

/// Raw mode on the controlling terminal, the alternate screen, a hidden cursor and mouse reports, undone on
/// every way out: `restore()`, process exit, SIGINT/SIGTERM/SIGHUP/SIGQUIT, and a crash (SIGSEGV, SIGBUS,
/// SIGILL, SIGABRT, SIGFPE), after which the signal is raised again with its default action.
final class TerminalMode {
    let fileDescriptor: Int32
    private var isActive = false

    /// What leaves the screen as it was: mouse off, cursor on, main screen back.
    static let leaveSequence = "\u{1B}[?1006l\u{1B}[?1000l\u{1B}[?25h\u{1B}[?1049l"

    init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    /// Enters raw mode and the alternate screen.
    func enter() throws(PickerError) {
        var settings = termios()
        guard tcgetattr(fileDescriptor, &settings) == 0 else {
            let cause = SystemError.last("tcgetattr")
            throw PickerError("pb pick needs a terminal: \(cause.reason).", cause: cause)
        }
        savedSettings = settings
        savedDescriptor = fileDescriptor
        Self.installHandlers()
        var raw = settings
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_oflag &= ~tcflag_t(OPOST)
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { bytes in
            bytes[Int(VMIN)] = 0
            bytes[Int(VTIME)] = 0
        }
        guard tcsetattr(fileDescriptor, TCSAFLUSH, &raw) == 0 else {
            let cause = SystemError.last("tcsetattr")
            throw PickerError("Cannot put the terminal in raw mode: \(cause.reason).", cause: cause)
        }
        isActive = true
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[?1000h\u{1B}[?1006h")
    }

    /// Leaves raw mode and the alternate screen; safe to call twice.
    func restore() {
        guard isActive else { return }
        isActive = false
        Self.restoreNow()
    }

    deinit { restore() }

    func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.write(fileDescriptor, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            offset += count
        }
    }

    /// The terminal's size in cells; 80×24 when it does not say.
    func size() -> (columns: Int, rows: Int) {
        var window = winsize()
        guard ioctl(fileDescriptor, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    // MARK: - Every way out

    /// For a signal handler that is about to end the process.
    static func restoreFromSignal() { restoreNow() }

    /// Async-signal-safe: only tcsetattr and write.
    private static func restoreNow() {
        guard savedDescriptor >= 0 else { return }
        _ = tcsetattr(savedDescriptor, TCSAFLUSH, &savedSettings)
        leaveSequence.utf8CString.withUnsafeBufferPointer { buffer in
            _ = Glibc.write(savedDescriptor, buffer.baseAddress, buffer.count - 1)
        }
    }

    nonisolated(unsafe) private static var handlersInstalled = false

    private static func installHandlers() {
        guard !handlersInstalled else { return }
        handlersInstalled = true
        atexit { TerminalMode.restoreNow() }
        let fatal: @convention(c) (Int32) -> Void = { number in
            TerminalMode.restoreNow()
            signal(number, SIG_DFL)
            raise(number)
        }
        for number in [SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGFPE, SIGQUIT] { signal(number, fatal) }
    }
}
