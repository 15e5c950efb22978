/// An error from a pasteboard operation, with a message a user can act on.
public struct PasteboardError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        public var description: String { name }
        public static let noSuchPasteboard = Code(name: "noSuchPasteboard")
        public static let noSuchItem = Code(name: "noSuchItem")
        public static let typeNotAvailable = Code(name: "typeNotAvailable")
        public static let invalidContent = Code(name: "invalidContent")
        public static let storage = Code(name: "storage")
        public static let conversion = Code(name: "conversion")
        public static let unavailable = Code(name: "unavailable")
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
