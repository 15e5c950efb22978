/// What became of the text recognition of an image item (the `outcome` of its `recognized_text` row).
public enum RecognitionOutcome: String, Sendable, CaseIterable {
    /// Its text was read (possibly none: a photo without words).
    case recognized
    /// Its picture is in no format the recognizer reads, or too large to decode.
    case unreadable
    /// Recognition ran past its time limit.
    case timedOut
    /// The recognizer failed on it (it is not tried again; `pb` keeps the reason in the daemon's log).
    case failed
    /// Never looked at: the item is secret (asks before paste), expires, or never leaves this device.
    case excluded
}
