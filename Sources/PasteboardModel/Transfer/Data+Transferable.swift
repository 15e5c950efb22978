public import FoundationEssentials

extension Data: Transferable {
    /// Bytes export as `.data` and import from `.data`, or else from the first representation whose
    /// content type conforms to `.data` (bytes are bytes).
    ///
    /// ```swift
    /// try await Pasteboard.general.write(Data([0xCA, 0xFE]))
    /// try await Pasteboard.general.read(Data.self)  // 2 bytes
    /// ```
    public static var transferRepresentation: some TransferRepresentation<Data> {
        DataRepresentation(contentType: .data) { data in
            data
        } importing: { data in
            data
        }
    }
}
