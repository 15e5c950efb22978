import Foundation
import PasteboardConfiguration
import PasteboardHistory
import PasteboardModel
import Testing
@testable import PasteboardSync

/// A temporary directory removed when the test's last reference goes.
final class Scratch {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("pb-sync-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)  // best effort: a leftover temporary directory is harmless
    }
}

/// One device: its own store, joined to the shared folder.
final class Device {
    let location: StoreLocation
    let store: HistoryStore
    let engine: SyncEngine

    init(_ name: String, in scratch: Scratch, folder: URL, phrase: String? = nil, settings: SyncSettings = SyncSettings()) throws {
        location = StoreLocation(directory: scratch.url.appendingPathComponent(name))
        store = try HistoryStore(location: location)
        if let phrase {
            try SyncSession.join(folder: folder, location: location, secret: phrase)
        }
        guard let setup = try SyncSetup.load(for: location) else { throw SyncError(.notJoined, "not joined") }
        engine = try SyncEngine(store: store, location: location, setup: setup, settings: settings)
    }

    /// Writes what happened here, then applies what arrived.
    func sync() throws {
        try engine.writeLocalChanges()
        try engine.applyArrivals()
    }

    @discardableResult
    func copy(_ text: String) throws -> Int64 { try store.record(PasteboardItem(string: text)).id }

    /// Imports `count` texts "`prefix` `offset + i`" in one transaction, a second apart (from 2023-11-14 plus
    /// `offset` seconds), the newest last.
    func importItems(_ count: Int, named prefix: String = "item", from offset: Int = 0) throws {
        let bulk = try HistoryImport(store: store)
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        for index in 0..<count {
            try bulk.add(
                PasteboardItem(string: "\(prefix) \(offset + index)"),
                metadata: CaptureMetadata(date: start.addingTimeInterval(Double(offset + index))))
        }
        try bulk.commit()
    }

    func id(of text: String) throws -> Int64? {
        try store.items(limit: 10_000).first { $0.preview == text }?.id
    }

    /// The history as (text, pinned), newest first.
    func history() throws -> [String] {
        try store.items(limit: 10_000).map { $0.preview + ($0.isPinned ? " [pinned]" : "") }
    }
}

/// Every file in the folder, decrypted with the folder's key (segments and payloads), concatenated; the payloads a
/// segment carries inline are appended decoded too (in the segment they are base64).
func decryptedFolder(_ folder: URL, key: SyncKey) throws -> Data {
    var all = Data()
    let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)!
    while let url = enumerator.nextObject() as? URL {
        let path = String(url.path.dropFirst(folder.path.count + 1))
        guard !url.hasDirectoryPath, let data = FileManager.default.contents(atPath: url.path) else { continue }
        if path.hasSuffix(".pblog") {
            let messages = try SecretStream.open(data, key: key.logKey, context: path)
            for message in messages { all.append(message) }
            let header = try JSONDecoder().decode(SyncEngine.SegmentHeader.self, from: messages[0])
            let device = try #require(SyncFolder.parseSegmentPath(path)?.device)
            let operations = try #require(
                SegmentCodec.decode(Data(messages.dropFirst().joined()), count: header.count, types: header.types, device: device))
            for operation in operations {
                for representation in operation.representations ?? [] { all.append(representation.inline ?? Data()) }
            }
        } else if path.hasSuffix(".pbsnap") {
            // Inline payloads are kept as they are in a snapshot's body.
            for message in try SecretStream.open(data, key: key.snapshotKey, context: path) { all.append(message) }
        } else if path.hasSuffix(".pbdata") {
            for message in try SecretStream.open(data, key: key.payloadKey, context: path) { all.append(message) }
        } else {
            all.append(data)
        }
    }
    return all
}
