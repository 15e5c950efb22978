public import FoundationEssentials
public import ClipboardBackend
public import PasteboardModel
import CSystemShim
import DBusWire
import SystemSupport
import X11Backend
#if canImport(Glibc)
import Glibc
#endif

/// The clipboard of a GNOME Wayland session, where mutter offers no data-control protocol: the daemon's backend
/// there (`pb daemon` only; clients use Xwayland).
///
/// - **Sensor:** the Pasteboard GNOME Shell extension (`ShellLink`) while it runs: every owner change of CLIPBOARD
///   and PRIMARY, Wayland and X11 applications alike, with the focused application's id, and every type read
///   through a pipe. Without it, Xwayland's XFixes events, as on X11 (the copies of Wayland applications reach
///   Xwayland through mutter's bridge, without their source).
/// - **Server:** an X11 owner on Xwayland, which mutter hands on to Wayland applications with every type and no
///   focus needed. With no Xwayland at all, the extension serves the richest single type from the shell's memory.
/// - **Mutter's own copy:** when an owner goes, mutter offers a text-only copy of it (its clipboard manager). That
///   copy is never recorded; the daemon takes the selection over with the whole item as usual, and when the owner
///   that went had a secret, its copy is cleared.
///
/// Our own X11 owner is told from others by a marker type it offers (`ownerMarker`): the extension lists it.
public final class GnomeClipboard: ClipboardBackend, PasteTyping {
    public var name: String { shell.isPresent ? "gnome" : "gnome-xwayland" }
    public var limits = CaptureLimits() {
        didSet { x11?.limits = limits }
    }
    /// Xwayland's display, when it opened.
    let x11: X11Clipboard?
    let shell: ShellLink
    private let poll: EventPoll
    private let relay = X11Relay()
    private weak var observer: (any SelectionObserver)?
    private var watched: Set<Selection> = []
    /// The last owner the extension reported for each selection.
    private var owners: [Selection: ShellOwner] = [:]
    private var reads: [Selection: ShellRead] = [:]
    /// The owner serial of each selection whose capture ended as a secret: mutter's copy of it is cleared.
    private var secretOwners: [Selection: UInt32] = [:]
    /// What this process serves from the shell's memory (no Xwayland), per selection.
    private var offered: [Selection: PasteboardItem] = [:]
    /// The marker type of our X11 owners.
    let ownerMarker: String

    /// Connects to the session bus (and the extension when it runs) and to Xwayland's `display` when given.
    public init(environment: [String: String], xwayland display: String?) throws(GnomeError) {
        shell = try ShellLink(environment: environment)
        do {
            poll = try EventPoll()
        } catch {
            throw GnomeError("Cannot create an epoll instance: \(error.reason).", cause: error)
        }
        var random = SystemRandomNumberGenerator()
        ownerMarker = "PASTEBOARD_OWNER_\(String(random.next() as UInt64, radix: 16))"
        if let display {
            do {
                let x11 = try X11Clipboard(displayName: display, watch: [])
                x11.ownerMarker = ownerMarker
                self.x11 = x11
            } catch {
                // No Xwayland: the extension senses and serves alone (one type).
                self.x11 = nil
            }
        } else {
            x11 = nil
        }
        if let x11 { poll.watch(x11.fileDescriptor) }
        poll.watch(shell.fileDescriptor)
        relay.target = self
        shell.onOwnerChanged = { [weak self] owner in self?.ownerChanged(owner) }
        shell.onPresence = { [weak self] present in self?.presenceChanged(present) }
        if shell.isPresent {
            for selection in Selection.allCases { owners[selection] = shell.currentOwner(selection) }
        }
        guard x11 != nil || shell.isPresent else {
            throw GnomeError(
                "Neither Xwayland nor the Pasteboard GNOME Shell extension is there to reach the clipboard"
                    + (shell.problem.map { " (\($0))" } ?? "") + ": run 'pb gnome-extension install', then log out and in.")
        }
    }

    /// What the backend can see and do now, in words for `pb doctor` and the daemon's start line.
    public var summary: String? { describe() }

    private func describe() -> String {
        switch (shell.isPresent, x11 != nil) {
        case (true, true):
            return "GNOME through the Pasteboard Shell extension (every application's copies with their source, "
                + "CLIPBOARD and PRIMARY), serving through Xwayland"
        case (true, false):
            return "GNOME through the Pasteboard Shell extension, without Xwayland: copies are served with their "
                + "richest type only"
        case (false, _):
            return "GNOME through Xwayland only (copies are seen without their source application, mutter's "
                + "text-only copy is recorded when an application exits, secrets stay on the clipboard): "
                + (shell.problem ?? "install the Shell extension with 'pb gnome-extension install'")
        }
    }

    // MARK: - The loop

    public var fileDescriptor: Int32 { poll.descriptor }

    public var nextDeadline: Date? {
        let times = [x11?.nextDeadline].compactMap { $0 } + reads.values.map(\.deadline)
        var earliest = times.min()
        if let instant = shell.bus.nextDeadline {
            let wait = ContinuousClock.now.duration(to: instant).components
            let busDate = Date().addingTimeInterval(Double(wait.seconds) + Double(wait.attoseconds) / 1e18)
            earliest = min(earliest ?? busDate, busDate)
        }
        return earliest
    }

    public func processEvents() {
        _ = poll.ready()  // level-triggered: each descriptor below is read until it has nothing more
        x11?.processEvents()
        do {
            try shell.bus.processIncoming()
            if shell.bus.wantsWrite { try shell.bus.flush() }
            poll.change(shell.fileDescriptor, output: shell.bus.wantsWrite)
        } catch {
            busFailure = error.message
        }
        for read in Array(reads.values) { read.readPipes() }
        dropFinishedReads()
    }

    public func processTimeouts(now: Date) {
        x11?.processTimeouts(now: now)
        shell.bus.processTimeouts(now: .now)
        for read in Array(reads.values) { read.processTimeouts(now: now) }
        dropFinishedReads()
    }

    private var busFailure: String?

    public var problem: String? {
        if let busFailure { return "the session bus connection failed: \(busFailure)" }
        return x11?.problem
    }

    // MARK: - Watching

    public func watch(_ selections: Set<Selection>, observer: any SelectionObserver) {
        self.observer = observer
        watched = selections
        x11?.watch(selections, observer: relay)
    }

    public func becomeClipboardManager() -> Bool {
        // Mutter is Xwayland's window manager and keeps the clipboard of exiting X11 clients itself; the take-over
        // after an owner goes does the rest.
        x11?.becomeClipboardManager() ?? true
    }

    /// An owner change the extension reported.
    private func ownerChanged(_ owner: ShellOwner) {
        let selection = owner.selection
        let previous = owners[selection]
        owners[selection] = owner
        // A new owner ends what is known of a secret's: only mutter's copy of it, after it went, is cleared.
        if owner.origin != .saved && owner.origin != .none { secretOwners[selection] = nil }
        guard watched.contains(selection) else { return }
        if let read = reads.removeValue(forKey: selection) {
            read.stop()
            read.run.fail(.superseded)
        }
        switch owner.origin {
        case .none:
            observer?.ownerGone(selection, clientExited: false)
            if previous.map(isOurs) == true { observer?.lostOwnership(selection) }
        case .saved:
            // Mutter's text copy of the owner that went: never a copy of its own. The take-over replaces it with the
            // whole item; the copy of a secret is cleared now.
            if secretOwners.removeValue(forKey: selection) != nil {
                clearShellCopy(selection, serial: owner.serial)
            }
        case .pasteboard:
            observer?.ownerChanged(OwnerChange(selection, owner: .thisProcess, time: UInt(owner.serial)))
        case .application, .shell:
            if isOurs(owner) {
                observer?.ownerChanged(OwnerChange(selection, owner: .thisProcess, time: UInt(owner.serial)))
            } else {
                offered[selection] = nil
                if previous.map(isOurs) == true { observer?.lostOwnership(selection) }
                observer?.ownerChanged(OwnerChange(selection, owner: .application, time: UInt(owner.serial)))
            }
        }
    }

    private func isOurs(_ owner: ShellOwner) -> Bool {
        owner.origin == .pasteboard || owner.types.contains(ownerMarker)
    }

    private func presenceChanged(_ present: Bool) {
        reads.values.forEach { $0.stop() }
        for read in reads.values { read.run.fail(.superseded) }
        reads = [:]
        owners = [:]
        guard present else { return }
        for selection in Selection.allCases {
            guard let owner = shell.currentOwner(selection) else { continue }
            ownerChanged(owner)
        }
    }

    fileprivate func x11OwnerChanged(_ change: OwnerChange) {
        if !shell.isPresent { observer?.ownerChanged(change) }
    }

    fileprivate func x11OwnerGone(_ selection: Selection, clientExited: Bool) {
        if !shell.isPresent { observer?.ownerGone(selection, clientExited: clientExited) }
    }

    /// Our X11 owner served its paste-once item: said at once, whether or not the extension senses (it reports only
    /// that the owner went).
    fileprivate func x11PastedOnce(_ selection: Selection) {
        observer?.pastedOnce(selection)
    }

    fileprivate func x11LostOwnership(_ selection: Selection) {
        // While the extension senses, it reports our owner's end itself (a new owner without our marker).
        if !shell.isPresent { observer?.lostOwnership(selection) }
    }

    // MARK: - Reading

    public func startReading(_ selection: Selection, into run: CaptureRun) -> ReadStart {
        guard shell.isPresent else {
            guard let x11 else { return .empty }
            return x11.startReading(selection, into: run)
        }
        guard let owner = owners[selection], !owner.types.isEmpty else { return .empty }
        if isOurs(owner) {
            if let item = offered[selection] { return .ours(item, offered: owner.types) }
            guard let x11 else { return .empty }
            return x11.startReading(selection, into: run)
        }
        // Mutter's copy of an owner that went is never read as a copy: it may be a password's.
        if owner.origin == .saved { return .empty }
        if let previous = reads.removeValue(forKey: selection) {
            previous.stop()
            previous.run.fail(.superseded)
        }
        run.ownerTime = UInt(owner.serial)
        let source = SourceApplication(name: owner.appID.isEmpty ? nil : owner.appID)
        let first = run.listed(owner.types, source: source, limits: limits)
        let read = ShellRead(run: run, owner: owner, link: shell, poll: poll, limits: limits)
        run.abandon = { [weak self, weak read] in
            guard let self, let read, self.reads[selection] === read else { return }
            self.reads[selection] = nil
            read.stop()
        }
        reads[selection] = read
        read.start(first)
        if read.isFinished {
            reads[selection] = nil
            noteOutcome(read)
        }
        return .reading
    }

    private func dropFinishedReads() {
        for (selection, read) in reads where read.isFinished {
            reads[selection] = nil
            noteOutcome(read)
        }
    }

    /// Remembers a secret's owner, whose copy mutter will offer once it goes.
    private func noteOutcome(_ read: ShellRead) {
        if case .skipped(.secret)? = read.run.outcome { secretOwners[read.owner.selection] = read.owner.serial }
    }

    private func clearShellCopy(_ selection: Selection, serial: UInt32) {
        do {
            try shell.clear(selection, serial: serial) { _ in }
        } catch {
            busFailure = error.message
        }
    }

    // MARK: - Serving

    public func own(_ selection: Selection, item: PasteboardItem, once: Bool) -> Bool {
        if let x11 { return x11.own(selection, item: item, once: once) }
        return offer(selection, item: item)
    }

    public func owns(_ selection: Selection) -> Bool {
        (x11?.owns(selection) ?? false) || offered[selection] != nil
    }

    public func disown(_ selection: Selection) {
        x11?.disown(selection)
        if offered.removeValue(forKey: selection) != nil, let owner = owners[selection] {
            clearShellCopy(selection, serial: owner.serial)
        }
    }

    public func clear(_ selection: Selection) {
        offered[selection] = nil
        if shell.isPresent, let owner = owners[selection], !owner.types.isEmpty {
            x11?.disown(selection)
            clearShellCopy(selection, serial: owner.serial)
        } else {
            x11?.clear(selection)
        }
    }

    public func currentOwnerTime(_ selection: Selection) -> UInt? {
        x11?.currentOwnerTime(selection)
    }

    /// Serves the richest single type of `item` from the shell's memory: the fallback without Xwayland.
    private func offer(_ selection: Selection, item: PasteboardItem) -> Bool {
        guard shell.isPresent,
            let served = TargetPlan.servedTargets(for: item).first(where: { $0.name.contains("/") && $0.conversion == nil })
        else { return false }
        let data: Data
        do {
            data = try item.representations[served.representation].contents()
        } catch {
            return false  // an unreadable payload: the caller reports that the selection was not taken
        }
        let fd = pb_memfd_cloexec("pasteboard-offer")
        guard fd >= 0 else { return false }
        defer { close(fd) }
        do {
            try FileDescriptor.write(data, to: fd)
            guard lseek(fd, 0, SEEK_SET) == 0 else { return false }
            try shell.offer(selection, type: served.name, fd: fd, size: data.count) { _ in }
        } catch {
            return false
        }
        offered[selection] = item
        return true
    }

    /// Just after a restore, mutter may not yet offer our new X11 owner to Wayland applications (it reads its
    /// types from Xwayland first): a paste then would get the old content, or nothing. Waits, up to half a second,
    /// until the extension sees our owner.
    private func waitUntilMutterHasOurClipboard() {
        guard x11?.owns(.clipboard) == true else { return }
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(500))
        while ContinuousClock.now < deadline {
            if let owner = shell.currentOwner(.clipboard), isOurs(owner) { return }
            usleep(10_000)
        }
    }

    // MARK: - Allow Paste

    /// Xwayland holds readers' requests, but every Wayland application reads through mutter's bridge: no reader
    /// is named.
    public var pasteGating: PasteGating { x11 == nil ? .unsupported : .unnamedReaders }
    public func setPasteGate(_ gate: (any PasteGate)?) { x11?.setPasteGate(gate) }
    public func resolvePaste(ticket: Int, allow: Bool) { x11?.resolvePaste(ticket: ticket, allow: allow) }

    // MARK: - Paste

    /// Types `key` (`ctrl+v`, `shift+insert`, `ctrl+shift+v`) into the focused window through the extension.
    public func typePaste(_ key: String) throws(BackendError) {
        guard shell.isPresent else {
            throw BackendError(
                "On GNOME only the Pasteboard Shell extension can type the paste key, and it is not running"
                    + (shell.problem.map { " (\($0))" } ?? "") + ": run 'pb gnome-extension install', then log out and in.")
        }
        waitUntilMutterHasOurClipboard()
        do {
            try shell.pasteAndWait(key)
        } catch {
            throw BackendError("The GNOME Shell extension could not type \(key): \(error.message)", cause: error)
        }
    }
}

/// Hears the X11 side's events for the GNOME backend (which passes them on only while the extension is away).
private final class X11Relay: SelectionObserver {
    weak var target: GnomeClipboard?

    func ownerChanged(_ change: OwnerChange) { target?.x11OwnerChanged(change) }
    func ownerGone(_ selection: Selection, clientExited: Bool) { target?.x11OwnerGone(selection, clientExited: clientExited) }
    func lostOwnership(_ selection: Selection) { target?.x11LostOwnership(selection) }
    func pastedOnce(_ selection: Selection) { target?.x11PastedOnce(selection) }
}
