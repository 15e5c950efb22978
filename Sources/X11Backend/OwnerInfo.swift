import ClipboardBackend
import CX11

/// Which application owns a selection: WM_CLASS and _NET_WM_PID of the owner window, or of the nearest
/// ancestor or client leader that has them (owner windows are often unmapped helpers).
///
/// Many owner windows carry none of these (Chromium's clipboard window, xclip's): then the process the X server
/// knows behind the owning client (X-Resource, `serverPID`) names the application, by its `/proc` name; for a
/// client that forked and left (xclip, xsel), the process that kept the connection (`OwnerProcess.heir`). That
/// process id is also preferred to `_NET_WM_PID`, which the client writes itself.
enum OwnerInfo {
    /// The longest WM_CLASS read; a longer one is not believed.
    static let maxClassBytes = 4096

    static func lookup(window: Window, display x: XDisplay, serverPID: Int?) -> SourceApplication {
        var candidates: [Window] = [window]
        if let leader = x.property(x.atom("WM_CLIENT_LEADER"), of: window, delete: false, limit: 64)?.longs.first,
            leader != 0
        {
            candidates.append(leader)
        }
        var current = window
        for _ in 0..<8 {
            var root: Window = 0
            var parent: Window = 0
            var children: UnsafeMutablePointer<Window>?
            var count: UInt32 = 0
            guard XQueryTree(x.handle, current, &root, &parent, &children, &count) != 0 else { break }
            if let children { XFree(children) }
            if parent == 0 || parent == root { break }
            candidates.append(parent)
            current = parent
        }
        var application: String?
        var pid: Int?
        for candidate in candidates {
            // Limits: the owner sets these properties, and could make them any size.
            if application == nil,
                let value = x.property(x.atom("WM_CLASS"), of: candidate, delete: false, limit: Self.maxClassBytes),
                !value.data.isEmpty
            {
                // WM_CLASS is "instance\0Class\0": the class names the application.
                let parts = value.data.split(separator: 0, omittingEmptySubsequences: true)
                application = parts.last.map { String(decoding: $0, as: UTF8.self) }
            }
            if pid == nil,
                let value = x.property(x.atom("_NET_WM_PID"), of: candidate, delete: false, limit: 64)?.longs.first
            {
                pid = Int(value)
            }
            if application != nil && pid != nil { break }
        }
        _ = pb_x_take_last_error()  // a window that vanished meanwhile is not an error worth reporting
        if var serverPID {
            if let heir = OwnerProcess.heir(ofGone: serverPID, displaySockets: x.socketNames) { serverPID = heir }
            pid = serverPID
            if application == nil { application = OwnerProcess.name(pid: serverPID) }
        }
        return SourceApplication(name: application, pid: pid)
    }
}
