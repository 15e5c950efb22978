import Foundation
import PasteboardHistory
import PasteboardModel
import Testing
@testable import PasteboardSync

/// A seeded generator (SplitMix64), so a failing order reproduces.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Three devices act offline (copies, repeated copies, pins, unpins, deletes, clears), hearing from each other only
/// now and then; then three fresh replicas apply every segment, one at a time, each in its own random order. Every
/// replica, and every device once it has seen everything, must show the same history.
@Suite struct ConvergenceTests {
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomOrdersConverge(seed: UInt64) throws {
        var random = SeededGenerator(state: seed)
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("folder")
        let phrase = try #require(
            try SyncSession.initialize(folder: folder, location: StoreLocation(directory: scratch.url.appendingPathComponent("d0"))))
        let devices = [
            try Device("d0", in: scratch, folder: folder),
            try Device("d1", in: scratch, folder: folder, phrase: phrase),
            try Device("d2", in: scratch, folder: folder, phrase: phrase),
        ]
        let texts = (0..<8).map { "text \($0)" }
        for _ in 0..<60 {
            let device = devices[Int.random(in: 0..<3, using: &random)]
            let items = try device.store.items(limit: 100)
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<45: try device.copy(texts[Int.random(in: 0..<texts.count, using: &random)])
            case 45..<60: if let item = items.randomElement(using: &random) { try device.store.setPinned(true, id: item.id) }
            case 60..<70: if let item = items.randomElement(using: &random) { try device.store.setPinned(false, id: item.id) }
            case 70..<88: if let item = items.randomElement(using: &random) { try device.store.delete(id: item.id) }
            case 88..<91: try device.store.clear()
            default:
                // Hears some of what the others wrote so far.
                let some = SyncFolder(root: folder).segmentPaths().filter { _ in Bool.random(using: &random) }
                try device.engine.applyArrivals(paths: some)
            }
            try device.engine.writeLocalChanges()
        }
        let segments = SyncFolder(root: folder).segmentPaths()
        var histories: [[String]] = []
        for index in 0..<3 {
            let replica = try Device("r\(index)", in: scratch, folder: folder, phrase: phrase)
            for path in segments.shuffled(using: &random) { try replica.engine.applyArrivals(paths: [path]) }
            histories.append(try replica.history())
        }
        for device in devices {
            try device.engine.applyArrivals()
            histories.append(try device.history())
        }
        for history in histories.dropFirst() {
            #expect(history == histories[0], "seed \(seed): \(history) != \(histories[0])")
        }
    }
}
