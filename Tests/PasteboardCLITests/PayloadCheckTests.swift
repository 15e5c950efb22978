import Foundation
import PasteboardTestSupport
import Testing

/// A payload that no longer matches its content hash (a flipped bit on disk, a file someone edited or removed) is
/// reported by `pb doctor --check` and `pb stats`, and never pasted or shown as if it were good. A restore reads no
/// payload: it refuses a payload file that is missing or of another size, and the paste that follows it checks the
/// bytes.
@Suite struct PayloadCheckTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// A payload large enough to be kept as a file.
    static let large = Data("a large text\n".utf8) + Payloads.largeText(count: 100_000)

    /// The payload files under `blobs/`.
    func payloadFiles() -> [URL] {
        let blobs = sandbox.storeDirectory.appendingPathComponent("blobs")
        let walker = FileManager.default.enumerator(at: blobs, includingPropertiesForKeys: [.isRegularFileKey])
        var files: [URL] = []
        while let url = walker?.nextObject() as? URL {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true { files.append(url) }
        }
        return files
    }

    /// Copies the large payload (so it is on the clipboard and item `id`), then flips one byte of its file.
    func copyAndDamage() async throws -> (id: Int64, file: URL) {
        try await sandbox.copy("an intact neighbour")
        try await sandbox.copy(Self.large)
        let id = try #require(try await sandbox.history().first?.id)
        let files = payloadFiles()
        try #require(files.count == 1, "\(files)")
        var bytes = try Data(contentsOf: files[0])
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: files[0])
        return (id, files[0])
    }

    @Test func damagedPayloadIsReportedByDoctorAndStatsAndNeverServed() async throws {
        let (id, file) = try await copyAndDamage()

        let doctor = try await sandbox.run(["doctor", "--check"])
        #expect(doctor.status == 1, "\(doctor)")
        #expect(!doctor.output.contains("All good"))
        #expect(doctor.outputLines.contains("database: integrity ok"), "\(doctor)")
        let problem = doctor.outputLines.first { $0.hasPrefix("payloads: PROBLEM: ") } ?? ""
        #expect(problem.contains("item \(id)") && problem.contains("the clipboard"), "\(doctor)")
        #expect(problem.contains("damaged") && problem.contains(file.path), "\(doctor)")
        #expect(doctor.outputLines.contains("  fix: 'pb delete \(id)' (or copy the same content again)"), "\(doctor)")
        #expect(try await sandbox.run(["doctor"]).status == 0, "without --check the doctor reads no payload")

        let stats = try await sandbox.succeed(["stats", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: stats.stdout) as? [String: Any])
        #expect(json["damagedPayloads"] as? Int == 1, "\(json)")
        #expect(json["missingPayloads"] as? Int == 0, "\(json)")
        #expect(try await sandbox.succeed(["stats"]).output.contains("PROBLEM: 0 missing, 1 damaged"))

        for arguments in [["paste"], ["decode", String(id)], ["show", String(id)]] {
            let result = try await sandbox.run(arguments)
            #expect(result.status == 1 && !result.wasSignalled, "pb \(arguments): \(result)")
            #expect(result.stdout.range(of: Data("a large text".utf8)) == nil, "pb \(arguments) served it: \(result)")
            #expect(result.errorLines.count == 1 && result.stderr.contains("is damaged"), "pb \(arguments): \(result)")
        }
        // A restore reads no payload (it is a move), so it cannot see a flipped byte; what pastes the item can.
        try await sandbox.succeed(["restore", String(id)])
        let paste = try await sandbox.run(["paste"])
        #expect(paste.status == 1 && paste.stdout.isEmpty, "\(paste)")
        #expect(paste.stderr.hasPrefix("Error: The clipboard's public.utf8-plain-text payload file"), "\(paste)")
        #expect(paste.stderr.contains("is damaged"), "\(paste)")
        // A file cut short is seen without reading it: the restore refuses.
        try Data(contentsOf: file).dropLast(10).write(to: file)
        let restore = try await sandbox.run(["restore", String(id)])
        #expect(restore.status == 1, "\(restore)")
        #expect(restore.stderr.hasPrefix("Error: Item \(id)'s public.utf8-plain-text payload file"), "\(restore)")
        #expect(restore.errorLines.count == 1 && restore.stderr.contains("is damaged"), "\(restore)")
        // The intact neighbour is still served.
        let neighbour = try #require(try await sandbox.history().last?.id)
        #expect(try await sandbox.succeed(["decode", String(neighbour)]).stdout == Data("an intact neighbour".utf8))
    }

    @Test func missingPayloadFileIsCounted() async throws {
        let (id, file) = try await copyAndDamage()
        try FileManager.default.removeItem(at: file)
        let stats = try await sandbox.succeed(["stats", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: stats.stdout) as? [String: Any])
        #expect(json["missingPayloads"] as? Int == 1 && json["damagedPayloads"] as? Int == 0, "\(json)")
        let doctor = try await sandbox.run(["doctor", "--check"])
        #expect(doctor.status == 1)
        #expect(doctor.output.contains("item \(id), the clipboard: missing, its file is missing"), "\(doctor)")
        let decode = try await sandbox.run(["decode", String(id)])
        #expect(decode.status == 1 && decode.stderr.contains("is missing"), "\(decode)")
    }

    @Test func deletingTheDamagedItemMakesTheStoreHealthyAgain() async throws {
        let (id, _) = try await copyAndDamage()
        try await sandbox.succeed(["delete", String(id)])
        let doctor = try await sandbox.run(["doctor", "--check"])
        #expect(doctor.status == 0, "\(doctor)")
        #expect(doctor.outputLines.contains { $0.hasPrefix("payloads: ") && $0.hasSuffix("all intact") }, "\(doctor)")
        #expect(doctor.outputLines.last == "All good.")
    }
}
