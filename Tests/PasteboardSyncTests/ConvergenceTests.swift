import Foundation
import PasteboardHistory
import PasteboardModel
import PasteboardTestSupport
import Testing
@testable import PasteboardSync

/// Three devices act offline (copies, repeated copies, pins, unpins, deletes, clears), hearing from each other only
/// now and then; then three fresh replicas apply every segment, one at a time, each in its own random order. Every
/// replica, and every device once it has seen everything, must show the same history.
@Suite struct ConvergenceTests {
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomOrdersConverge(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
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

    /// The same with snapshots: devices write snapshots now and then (which removes the segments they cover), and
    /// hear from each other through snapshots too. Fresh replicas that start from the folder as it ends (snapshots and
    /// the segments left) must show the same history as replicas that replay every segment ever written, one at a
    /// time in a random order, and as the devices themselves.
    @Test(arguments: [11, 12, 13, 14] as [UInt64])
    func snapshotReplicasConvergeWithLogReplays(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("folder")
        let archive = scratch.url.appendingPathComponent("archive")
        let phrase = try #require(
            try SyncSession.initialize(folder: folder, location: StoreLocation(directory: scratch.url.appendingPathComponent("d0"))))
        let devices = [
            try Device("d0", in: scratch, folder: folder),
            try Device("d1", in: scratch, folder: folder, phrase: phrase),
            try Device("d2", in: scratch, folder: folder, phrase: phrase),
        ]
        let manager = FileManager.default
        // Every segment ever written, kept aside before a snapshot removes it (same relative paths, so they open).
        func keepSegments() throws {
            for path in SyncFolder(root: folder).segmentPaths() + [SyncFolder.headerName] {
                let target = archive.appendingPathComponent(path)
                guard !manager.fileExists(atPath: target.path) else { continue }
                try manager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try manager.copyItem(at: folder.appendingPathComponent(path), to: target)
            }
        }
        let texts = (0..<8).map { "text \($0)" }
        var snapshots = 0
        for _ in 0..<80 {
            let device = devices[Int.random(in: 0..<3, using: &random)]
            let items = try device.store.items(limit: 100)
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<40: try device.copy(texts[Int.random(in: 0..<texts.count, using: &random)])
            case 40..<52: if let item = items.randomElement(using: &random) { try device.store.setPinned(true, id: item.id) }
            case 52..<60: if let item = items.randomElement(using: &random) { try device.store.setPinned(false, id: item.id) }
            case 60..<75: if let item = items.randomElement(using: &random) { try device.store.delete(id: item.id) }
            case 75..<77: try device.store.clear()
            case 77..<87:
                try device.engine.writeLocalChanges()
                try keepSegments()
                try device.engine.writeSnapshot()
                snapshots += 1
            case 87..<93:
                try device.engine.applyArrivals()  // snapshots too
            default:
                let some = SyncFolder(root: folder).segmentPaths().filter { _ in Bool.random(using: &random) }
                try device.engine.applyArrivals(paths: some)
            }
            try device.engine.writeLocalChanges()
        }
        try keepSegments()
        #expect(snapshots > 0)
        #expect(!SyncFolder(root: folder).snapshotPaths().isEmpty)
        var histories: [(String, [String])] = []
        // From the folder as it is: one round, then a replica that heard a part of the segments first.
        let fromSnapshot = try Device("s0", in: scratch, folder: folder, phrase: phrase)
        try fromSnapshot.engine.applyArrivals()
        histories.append(("s0", try fromSnapshot.history()))
        let partial = try Device("s1", in: scratch, folder: folder, phrase: phrase)
        try partial.engine.applyArrivals(paths: SyncFolder(root: folder).segmentPaths().filter { _ in Bool.random(using: &random) })
        try partial.engine.applyArrivals()
        histories.append(("s1", try partial.history()))
        // Every segment ever written, one at a time.
        for index in 0..<2 {
            let replica = try Device("l\(index)", in: scratch, folder: archive, phrase: phrase)
            for path in SyncFolder(root: archive).segmentPaths().shuffled(using: &random) {
                try replica.engine.applyArrivals(paths: [path])
            }
            histories.append(("l\(index)", try replica.history()))
        }
        for (index, device) in devices.enumerated() {
            try device.engine.applyArrivals()
            histories.append(("d\(index)", try device.history()))
        }
        for (name, history) in histories.dropFirst() {
            #expect(history == histories[0].1, "seed \(seed): \(name) \(history) != \(histories[0].0) \(histories[0].1)")
        }
    }
}
