public import FoundationEssentials

/// One request a client sends the daemon. See `docs/protocol.md`.
public enum ControlRequest: Sendable, Equatable {
    /// Is a daemon there? Replies with its pid and protocol version.
    case ping
    /// Pid, backend, store, socket, item count.
    case status
    /// Put history item `id` on the clipboard with all its representations (with `plain`, its plain text alone);
    /// `once`: only for the first paste; `expire`: only for that many seconds.
    case restore(id: Int64, once: Bool = false, expire: TimeInterval? = nil, plain: Bool = false)
    /// A paste stack: history items `ids` go on the clipboard one after another, each for one paste, in the order
    /// given (at most `stackLimit`); the last one stays.
    case stack(ids: [Int64])
    /// Leave the clipboard empty.
    case clear
    /// History items `ids` were deleted: never serve them again. The daemon empties each selection that holds one
    /// of them (whoever owns it) and forgets them as what to take over when an owner exits.
    case forget(ids: [Int64])
    /// Re-read expiry times and apply retention (after a client changed the store).
    case reschedule
    /// Read the configuration file again and apply it: retention (at once), the capture and Allow Paste rules (from
    /// the next copy). PRIMARY, take-over-delay and sync keep their values until the daemon restarts. A file with a
    /// problem is refused with its message, and the daemon keeps the configuration it had.
    case reloadConfiguration
    /// Pass `event` on to every watcher (a client changed the store itself).
    case notify(ControlEvent)
    /// Send every event on this connection from now on; with `since` (the `seq` of the last history event the
    /// client saw), first every change of the history after it, from the store's change feed.
    case watch(since: Int64? = nil)
    /// As `watch`, and this connection answers "Allow Paste" questions (`paste-requested` events) with
    /// `answerPaste`: the app. While no connection approves, pastes of items that ask are refused.
    case approve(since: Int64? = nil)
    /// The user's answer to the `paste-requested` event numbered `request`.
    case answerPaste(request: Int, allow: Bool)
    /// Type the paste keystroke `key` (`ctrl+v`, `shift+insert`, `ctrl+shift+v`) into the focused window, where
    /// only the daemon's backend can (GNOME, through its Shell extension).
    case paste(key: String)
    /// Stop the daemon.
    case stop

    /// The request's `command` name.
    public var command: String {
        switch self {
        case .ping: return "ping"
        case .status: return "status"
        case .restore: return "restore"
        case .stack: return "stack"
        case .clear: return "clear"
        case .forget: return "forget"
        case .reschedule: return "reschedule"
        case .reloadConfiguration: return "reload-config"
        case .notify: return "notify"
        case .watch: return "watch"
        case .approve: return "approve"
        case .answerPaste: return "answer-paste"
        case .paste: return "paste"
        case .stop: return "stop"
        }
    }

    /// Every command name.
    public static let commands = [
        "ping", "status", "restore", "stack", "clear", "forget", "reschedule", "reload-config", "notify", "watch",
        "approve", "answer-paste", "paste", "stop",
    ]

    /// The most items one paste stack holds.
    public static let stackLimit = 1_000
}

extension ControlRequest: Codable {
    private enum Keys: String, CodingKey {
        case command, id, ids, once, expire, event, request, allow, since, key, plain
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let command = try container.decode(String.self, forKey: .command)
        switch command {
        case "ping": self = .ping
        case "status": self = .status
        case "restore":
            let expire = try container.decodeIfPresent(Double.self, forKey: .expire)
            if let expire, !(expire > 0 && expire.isFinite) {
                throw DecodingError.dataCorruptedError(forKey: .expire, in: container, debugDescription: "not a positive duration")
            }
            self = .restore(
                id: try container.decode(Int64.self, forKey: .id),
                once: try container.decodeIfPresent(Bool.self, forKey: .once) ?? false, expire: expire,
                plain: try container.decodeIfPresent(Bool.self, forKey: .plain) ?? false)
        case "stack":
            let ids = try container.decode([Int64].self, forKey: .ids)
            guard !ids.isEmpty, ids.count <= Self.stackLimit else {
                throw DecodingError.dataCorruptedError(
                    forKey: .ids, in: container, debugDescription: "1 to \(Self.stackLimit) item ids")
            }
            self = .stack(ids: ids)
        case "clear": self = .clear
        case "forget": self = .forget(ids: try container.decode([Int64].self, forKey: .ids))
        case "reschedule": self = .reschedule
        case "reload-config": self = .reloadConfiguration
        case "notify": self = .notify(try container.decode(ControlEvent.self, forKey: .event))
        case "watch": self = .watch(since: try Self.decodeSince(container))
        case "approve": self = .approve(since: try Self.decodeSince(container))
        case "answer-paste":
            self = .answerPaste(
                request: try container.decode(Int.self, forKey: .request),
                allow: try container.decode(Bool.self, forKey: .allow))
        case "paste": self = .paste(key: try container.decode(String.self, forKey: .key))
        case "stop": self = .stop
        default:
            throw UnknownCommand(name: command)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(command, forKey: .command)
        switch self {
        case .restore(let id, let once, let expire, let plain):
            try container.encode(id, forKey: .id)
            try container.encode(once, forKey: .once)
            try container.encodeIfPresent(expire, forKey: .expire)
            if plain { try container.encode(plain, forKey: .plain) }
        case .notify(let event):
            try container.encode(event, forKey: .event)
        case .forget(let ids), .stack(let ids):
            try container.encode(ids, forKey: .ids)
        case .answerPaste(let request, let allow):
            try container.encode(request, forKey: .request)
            try container.encode(allow, forKey: .allow)
        case .watch(let since), .approve(let since):
            try container.encodeIfPresent(since, forKey: .since)
        case .paste(let key):
            try container.encode(key, forKey: .key)
        case .ping, .status, .clear, .reschedule, .reloadConfiguration, .stop:
            break
        }
    }

    private static func decodeSince(_ container: KeyedDecodingContainer<Keys>) throws -> Int64? {
        let since = try container.decodeIfPresent(Int64.self, forKey: .since)
        if let since, since < 0 {
            throw DecodingError.dataCorruptedError(forKey: .since, in: container, debugDescription: "not a sequence number")
        }
        return since
    }

    /// Whether this request subscribes to events (`watch` or `approve`), and from which change on.
    public var subscription: (approving: Bool, since: Int64?)? {
        switch self {
        case .watch(let since): return (false, since)
        case .approve(let since): return (true, since)
        default: return nil
        }
    }

    /// Decodes one request line, with a message for the reply when it is not one.
    public static func parse(_ line: Data) throws(ControlError) -> ControlRequest {
        do {
            return try JSONDecoder().decode(ControlRequest.self, from: line)
        } catch let unknown as UnknownCommand {
            throw ControlError("unknown command \"\(unknown.name)\"", code: .malformed, cause: unknown)
        } catch {
            // The message names the field at fault ("id" is missing, "event.event" is missing, …).
            throw ControlError("not a control request: \(ControlProtocol.summary(of: error))", code: .malformed, cause: error)
        }
    }

    /// A `command` no version of the protocol this daemon speaks has.
    struct UnknownCommand: Error, Sendable {
        let name: String
    }
}
