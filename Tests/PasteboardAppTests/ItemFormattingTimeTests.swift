import Foundation
import Testing

@testable import PasteboardApp
@testable import PasteboardHistory

/// Times in the preview come from the C library, in the user's locale, without ICU.
@MainActor @Suite struct ItemFormattingTimeTests {
    @Test func aCopyTimeIsDayMonthYearAndTime() throws {
        let date = Date(timeIntervalSince1970: 1_764_600_000)  // 2025-12-01, 14:40 UTC
        let text = ItemFormatting.copyTime(date)
        let pattern = try Regex("^[1-9][0-9]? [^ ]+ 20(25|26), [0-2][0-9]:[0-5][0-9]$")
        #expect(text.wholeMatch(of: pattern) != nil, "\(text)")
        var time = time_t(1_764_600_000)
        var parts = tm()
        _ = localtime_r(&time, &parts)
        #expect(text.hasPrefix("\(parts.tm_mday) "), "the local day of the month first: \(text)")
        #expect(text.hasSuffix(String(format: "%02d:%02d", parts.tm_hour, parts.tm_min)), "\(text)")
    }

    @Test func detailsAndThePasteLogShowTheirTimes() {
        let item = RowPayloadsTests.item(7)
        let details = ItemFormatting.details(of: item)
        #expect(details.contains("Copied \(ItemFormatting.copyTime(item.lastCopied))"), "\(details)")
        let log = ItemFormatting.pasteLog([
            PasteRecord(
                date: Date(timeIntervalSince1970: 1_764_600_000), reader: "xclip", readerPID: nil, outcome: .served)
        ])
        #expect(log.hasPrefix("Pasted by xclip, "), "\(log)")
        #expect(log.count > "Pasted by xclip, ".count + 4, "a time follows: \(log)")
    }
}
