import GtkSupport
import PasteboardControl

/// The daemon's events, delivered on the main loop: the history updates live, without polling.
@MainActor
final class DaemonEvents {
    private let client: ControlClient
    private var task: Task<Void, Never>?
    /// Whether a subscription is running.
    private(set) var isSubscribed = false
    /// Each event, on the main actor.
    var onEvent: (@MainActor (ControlEvent) -> Void)?
    /// The subscription ended or could not start (the reason); call `subscribe()` to try again.
    var onEnd: (@MainActor (String) -> Void)?

    /// With `approving`, the app answers "Allow Paste" questions (`paste-requested` events) too.
    private let isApproving: Bool

    init(client: ControlClient, approving: Bool) {
        self.client = client
        isApproving = approving
    }

    /// Starts listening unless already listening. Returns false (and calls nothing) when no daemon answers.
    @discardableResult
    func subscribe() -> Bool {
        guard !isSubscribed else { return true }
        guard client.isRunning else { return false }
        isSubscribed = true
        let stream = client.events(approving: isApproving)
        task = Task.detached { [weak self] in
            var reason = "The daemon stopped."
            do {
                for try await event in stream {
                    MainLoop.post { self?.onEvent?(event) }
                }
            } catch let error as ControlError {
                reason = error.message
            } catch {
                reason = "\(error)"
            }
            let ended = reason
            MainLoop.post {
                guard let self else { return }
                self.isSubscribed = false
                self.onEnd?(ended)
            }
        }
        return true
    }

    deinit { task?.cancel() }
}
