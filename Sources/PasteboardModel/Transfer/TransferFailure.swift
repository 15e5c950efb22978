/// Turns errors thrown while converting items into `PasteboardError`s that say what failed.
enum TransferFailure {
    /// The name of `type` as messages show it.
    static func name<Value>(of type: Value.Type) -> String { String(describing: type) }

    /// Runs an exporter, wrapping its error as a `.conversion` error naming the item and content type.
    static func wrap<Result>(
        exporting item: String, as contentType: ContentType, _ body: () async throws -> Result
    ) async throws -> Result {
        do {
            return try await body()
        } catch {
            throw converted(error, "Could not export \(item) as '\(contentType)'")
        }
    }

    /// Runs an importer, wrapping its error as a `.conversion` error naming the item and content type.
    static func wrap<Result>(
        importing item: String, from contentType: ContentType, _ body: () async throws -> Result
    ) async throws -> Result {
        do {
            return try await body()
        } catch {
            throw converted(error, "Could not read \(item) from the '\(contentType)' representation")
        }
    }

    /// `error` itself when it is already a `PasteboardError` or a cancellation, else a `.conversion` error.
    private static func converted(_ error: any Error, _ context: String) -> any Error {
        if error is PasteboardError || error is CancellationError { return error }
        return PasteboardError(.conversion, "\(context): \(reason(error))", cause: error)
    }

    /// A short description of a conversion failure, without the content being converted.
    static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context),
            DecodingError.keyNotFound(_, let context),
            DecodingError.typeMismatch(_, let context),
            DecodingError.valueNotFound(_, let context):
            return describe(context.debugDescription, at: context.codingPath)
        case EncodingError.invalidValue(_, let context):
            return describe(context.debugDescription, at: context.codingPath)
        default:
            return String(describing: error)
        }
    }

    private static func describe(_ message: String, at codingPath: [any CodingKey]) -> String {
        guard !codingPath.isEmpty else { return message }
        let path = codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return "\(message) (at \(path))"
    }
}
