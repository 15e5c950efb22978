public import FoundationEssentials

extension CaptureMetadata {
    /// The instants a stored date may take, in seconds since 1970: years 1 to 9999 of the proleptic Gregorian
    /// calendar, to the millisecond — what an ISO 8601 date with a four-digit year can write. Every stored date
    /// can therefore be exported and imported again.
    public static let dateRange: ClosedRange<TimeInterval> = -62_135_596_800...253_402_300_799.999

    /// Throws when a date is outside `dateRange` (or not a number), naming it.
    func validateDates() throws(HistoryError) {
        let dates: [(String, Date?)] = [("date", date), ("created", created), ("expiry", expiresAt)]
        for (name, value) in dates {
            guard let seconds = value?.timeIntervalSince1970 else { continue }
            if !Self.dateRange.contains(seconds) {
                throw HistoryError(
                    .invalidInput,
                    "The \(name) \(seconds) s since 1970 is outside the years 1 to 9999; nothing was recorded.")
            }
        }
    }
}
