import Dispatch
import DisplayBackends
import Foundation
import PasteboardConfiguration
import PasteboardControl
import PasteboardHistory
import PasteboardModel
import PasteboardSystem

/// Puts items on the clipboard off the main thread, as `pb copy` and `pb restore` do: recorded in the history, then
/// delivered through the daemon when it runs, else through a short-lived owner process (this app's own binary,
/// `pasteboard-gtk __serve ID`, which outlives the window).
final class ClipboardWorker: Sendable {
    /// What a copy came to.
    enum Outcome: Sendable {
        /// Recorded as history item `id` and on the clipboard.
        case recorded(id: Int64)
        /// On the clipboard but not in the history: the user's rules keep it out (the reason).
        case unrecorded(reason: String)
    }

    private let queue = DispatchQueue(label: "pasteboard-gtk.clipboard", qos: .userInitiated)
    private let box: StoreBox
    let clipboard: SystemClipboard
    private let environment: [String: String]
    /// The program that serves the clipboard when no daemon runs.
    static let ownerExecutable = "/proc/self/exe"

    init(clipboard: SystemClipboard, location: StoreLocation, environment: [String: String]) {
        self.clipboard = clipboard
        self.environment = environment
        box = StoreBox(location: location)
    }

    /// Records `item` (from `source`) and puts it on the clipboard, unless the configuration's ignore rules keep it out
    /// of the history; then it only goes on the clipboard. `completion` runs on the worker's thread.
    func copy(
        _ item: PasteboardItem, source: String, completion: @escaping @Sendable (Result<Outcome, AppError>) -> Void
    ) {
        queue.async { [self] in
            completion(Result { () throws(AppError) -> Outcome in try self.copyNow(item, source: source) })
        }
    }

    /// Puts history item `id` back on the clipboard with all its representations (with `plain`, its plain text
    /// alone). `completion` runs on the worker's thread.
    func restore(id: Int64, plain: Bool = false, completion: @escaping @Sendable (Result<Void, AppError>) -> Void) {
        queue.async { [self] in
            completion(
                Result { () throws(AppError) in
                    let store = try self.box.store()
                    do throws(ClipboardError) {
                        // A move to the top: no payload is read here (whoever serves the item reads it when pasted).
                        try self.clipboard.restore(
                            id: id, store: store, plain: plain, fallback: plain ? Self.plainOwnerFallback : Self.ownerFallback)
                    } catch {
                        throw AppError(error.message)
                    }
                })
        }
    }

    /// Copies the texts of items `ids`, in this order, joined with `separator`, as one new item (refused, with
    /// nothing copied, when one has no text). `completion` runs on the worker's thread.
    func copyJoined(
        ids: [Int64], separator: String, source: String,
        completion: @escaping @Sendable (Result<Outcome, AppError>) -> Void
    ) {
        queue.async { [self] in
            completion(
                Result { () throws(AppError) -> Outcome in
                    let joined: PasteboardItem
                    do {
                        joined = try self.box.store().joinedText(of: ids, separator: separator)
                    } catch let error as AppError {
                        throw error
                    } catch {
                        throw AppError((error as? HistoryError)?.message ?? "\(error)")
                    }
                    return try self.copyNow(joined, source: source)
                })
        }
    }

    /// A paste stack: items `ids` go on the clipboard one per paste, in this order, through the daemon (which counts
    /// the pastes). `completion` runs on the worker's thread.
    func stack(ids: [Int64], completion: @escaping @Sendable (Result<Void, AppError>) -> Void) {
        queue.async { [clipboard] in
            completion(
                Result { () throws(AppError) in
                    do throws(ClipboardError) {
                        try clipboard.stack(ids: ids)
                    } catch {
                        throw AppError(error.message)
                    }
                })
        }
    }

    /// Answers the daemon's "Allow Paste" question `request`. `failed` runs on the worker's thread, only when the
    /// answer did not arrive (the question timed out meanwhile, the daemon stopped).
    func answerPaste(_ request: Int, allow: Bool, failed: @escaping @Sendable (AppError) -> Void) {
        queue.async { [clipboard] in
            do {
                try clipboard.daemon.perform(.answerPaste(request: request, allow: allow), timeout: 2)
            } catch let error as ControlError {
                failed(AppError("The answer did not reach the daemon: \(error.message)"))
            } catch {
                failed(AppError("The answer did not reach the daemon: \(error)"))
            }
        }
    }

    private func copyNow(_ item: PasteboardItem, source: String) throws(AppError) -> Outcome {
        let configuration: Configuration
        do {
            configuration = try Configuration.load(environment: environment)
        } catch {
            throw AppError(error.message)
        }
        let store = try box.store()
        store.retention = configuration.retention
        do {
            if let reason = configuration.capture.rejection(of: item, application: nil) {
                let first = item.representations[0]
                try clipboard.copyUnrecorded(
                    item, store: store, executable: Self.ownerExecutable,
                    arguments: ["__serve", "-", "--type", first.type.identifier], input: first.data)
                return .unrecorded(reason: reason)
            }
            var metadata = CaptureMetadata(source: source, selection: "clipboard")
            metadata.asksBeforePaste = configuration.pasteApproval.asks(item, application: source)
            let id = try clipboard.copy(
                item, metadata: metadata, store: store,
                fallback: Self.ownerFallback)
            return .recorded(id: id)
        } catch {
            throw AppError(error.message)
        }
    }

    /// `pasteboard-gtk __serve ID`: this binary in owner mode (see `OwnerMode`).
    static func ownerFallback(_ id: Int64) -> SystemClipboard.Fallback {
        .ownerProcess(executable: ownerExecutable, arguments: ["__serve", String(id)])
    }

    /// `pasteboard-gtk __serve ID --plain`: the item's plain text alone.
    static func plainOwnerFallback(_ id: Int64) -> SystemClipboard.Fallback {
        .ownerProcess(executable: ownerExecutable, arguments: ["__serve", String(id), "--plain"])
    }
}
