extension ClipboardBackend {
    /// A backend that does not reconnect stays as it is when its connection is lost.
    public func enableReconnection() {}
    /// A backend that reports no problem.
    public var problem: String? { nil }
}
