import FoundationEssentials
import PasteboardHistory

/// Dates as `pb` writes and reads them: ISO 8601 in the proleptic Gregorian calendar, as the standard says.
///
/// Written as `2026-11-29T14:55:34.123Z` (UTC, milliseconds, rounded to the nearest); read in the forms people and
/// other programs write: `2024-01-01`, `2024-01-01T12:34Z`, `2024-01-01T12:34:56`, `…:56.123456Z`, `…+05:30`,
/// `…+0530`, `…-08`, with `T` or a space between date and time. A date or time without an offset is UTC. Only
/// instants in `CaptureMetadata.dateRange` (years 1 to 9999) are dates: anything else could not be written back.
///
/// Written here rather than with `ISO8601DateFormatter`, which is slow for a million dates, switches to the Julian
/// calendar before 1582-10-15, and (through ICU 76) died of SIGFPE on a fraction of 35 digits or more.
enum DateText {
    /// What reading a date found.
    enum Parsed: Equatable {
        case seconds(Double)
        /// Not a date in any accepted form.
        case malformed
        /// A well-formed date outside years 1 to 9999.
        case outOfRange
    }

    // MARK: - Writing

    /// The date as text (`2026-11-29T14:55:34.123Z`).
    static func string(_ date: Date) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        append(date.timeIntervalSince1970, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the 24 bytes of `seconds` since 1970 as text. Values outside years 1 to 9999 (which no store holds:
    /// `HistoryStore` refuses them) are written as the nearest end of that range, so the text stays readable.
    static func append(_ seconds: Double, to out: inout [UInt8]) {
        let range = CaptureMetadata.dateRange
        let clamped = seconds.isNaN ? 0 : min(max(seconds, range.lowerBound), range.upperBound)
        let milliseconds = Int64((clamped * 1000).rounded())
        var days = milliseconds / 86_400_000
        var inDay = milliseconds % 86_400_000
        if inDay < 0 {
            inDay += 86_400_000
            days -= 1
        }
        let (year, month, day) = civil(fromDays: days)
        let hour = inDay / 3_600_000
        let minute = inDay / 60_000 % 60
        let second = inDay / 1000 % 60
        let millisecond = inDay % 1000
        // Filled on the stack and appended at once: an export writes two or three of these per line.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { text in
            func digit(_ value: Int64) -> UInt8 { UInt8(truncatingIfNeeded: 48 + value) }
            text[0] = digit(year / 1000)
            text[1] = digit(year / 100 % 10)
            text[2] = digit(year / 10 % 10)
            text[3] = digit(year % 10)
            text[4] = UInt8(ascii: "-")
            text[5] = digit(month / 10)
            text[6] = digit(month % 10)
            text[7] = UInt8(ascii: "-")
            text[8] = digit(day / 10)
            text[9] = digit(day % 10)
            text[10] = UInt8(ascii: "T")
            text[11] = digit(hour / 10)
            text[12] = digit(hour % 10)
            text[13] = UInt8(ascii: ":")
            text[14] = digit(minute / 10)
            text[15] = digit(minute % 10)
            text[16] = UInt8(ascii: ":")
            text[17] = digit(second / 10)
            text[18] = digit(second % 10)
            text[19] = UInt8(ascii: ".")
            text[20] = digit(millisecond / 100)
            text[21] = digit(millisecond / 10 % 10)
            text[22] = digit(millisecond % 10)
            text[23] = UInt8(ascii: "Z")
            out.append(contentsOf: UnsafeBufferPointer(text))
        }
    }

    // MARK: - Reading

    /// Reads a date from text (see the type's summary for the forms).
    static func parse(_ text: String) -> Parsed {
        var copy = text
        return copy.withUTF8 { parse(UnsafeRawBufferPointer($0)) }
    }

    /// Reads a date from UTF-8 bytes.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> Parsed {
        var reader = Reader(bytes: bytes)
        guard let year = reader.digits(4), reader.skip("-"), let month = reader.digits(2), reader.skip("-"),
            let day = reader.digits(2), (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
        else { return .malformed }
        var seconds = Double(days(fromCivil: year, month, day)) * 86_400
        if reader.atEnd { return checked(seconds) }
        guard reader.skip("T") || reader.skip(" "), let hour = reader.digits(2), hour < 24, reader.skip(":"),
            let minute = reader.digits(2), minute < 60
        else { return .malformed }
        seconds += Double(hour * 3600 + minute * 60)
        if reader.skip(":") {
            guard let second = reader.digits(2), second < 60 else { return .malformed }
            seconds += Double(second)
            if reader.skip(".") || reader.skip(",") {
                // At most nanoseconds: more digits mean nothing a clock measures.
                var fraction: Int64 = 0
                var scale: Int64 = 1
                var count = 0
                while let digit = reader.digit() {
                    count += 1
                    if count > 9 { return .malformed }
                    fraction = fraction * 10 + digit
                    scale *= 10
                }
                if count == 0 { return .malformed }
                seconds += Double(fraction) / Double(scale)
            }
        }
        if reader.skip("Z") || reader.skip("z") {
        } else if let sign = reader.sign() {
            guard let hours = reader.digits(2), hours < 24 else { return .malformed }
            var minutes: Int64 = 0
            if !reader.atEnd {
                _ = reader.skip(":")
                guard let value = reader.digits(2), value < 60 else { return .malformed }
                minutes = value
            }
            seconds -= Double(sign * (hours * 3600 + minutes * 60))
        }
        guard reader.atEnd else { return .malformed }
        return checked(seconds)
    }

    private static func checked(_ seconds: Double) -> Parsed {
        CaptureMetadata.dateRange.contains(seconds) ? .seconds(seconds) : .outOfRange
    }

    /// Reads a date given as seconds since 1970 (a JSON number).
    static func seconds(_ value: Double) -> Parsed {
        value.isFinite ? checked(value) : .outOfRange
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        var atEnd: Bool { index == bytes.count }

        mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }

        mutating func digit() -> Int64? {
            guard index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 else { return nil }
            index += 1
            return Int64(bytes[index - 1] - 48)
        }

        mutating func digits(_ count: Int) -> Int64? {
            var value: Int64 = 0
            for _ in 0..<count {
                guard let digit = digit() else { return nil }
                value = value * 10 + digit
            }
            return value
        }

        mutating func sign() -> Int64? {
            if skip("+") { return 1 }
            if skip("-") { return -1 }
            return nil
        }
    }

    // MARK: - The calendar (Howard Hinnant's days-from-civil algorithms)

    private static func isLeap(_ year: Int64) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01.
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
