public import FoundationEssentials
public import PasteboardModel
import TextSupport

/// Which copies ask before they are pasted ("Allow Paste"), from the configuration file:
///
/// ```
/// ask-app = KeePassXC        # copies from this application (X11: WM_CLASS or process name; case-insensitive)
/// ask-type = text/x-secret   # copies offering this type (the patterns of ignore-type: image/*, public.png, …)
/// ask-timeout = 30s          # how long the daemon waits for Allow before it refuses the paste (1s to 10m)
/// ```
///
/// `pb copy --ask` and the app's toggle mark single items the same way.
public struct PasteApprovalRules: Sendable {
    public var applications: [String] = []
    public var types: [String] = []
    /// How long a paste waits for the user's answer before it is refused.
    public var timeout: TimeInterval = 30

    /// The shortest and longest `ask-timeout`.
    public static let timeoutRange: ClosedRange<TimeInterval> = 1...600

    public init() {}

    /// Whether a copy of `item` from `application` asks before it is pasted.
    public func asks(_ item: PasteboardItem, application: String?) -> Bool {
        if let application, applications.contains(where: { $0.isEqualIgnoringCase(application) }) {
            return true
        }
        return types.contains { pattern in item.types.contains { CaptureRules.matches($0, pattern: pattern) } }
    }
}
