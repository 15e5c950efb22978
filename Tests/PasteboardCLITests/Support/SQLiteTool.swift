import Foundation

/// The `sqlite3` command-line tool, for looking into (or forging) a store without going through pb.
enum SQLiteTool {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `sql` on `database` and returns the output, trimmed; output files go into `sandbox`.
    @discardableResult
    static func run(_ sql: String, on database: URL, in sandbox: Sandbox) throws -> String {
        let candidates = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3", "/opt/homebrew/bin/sqlite3"]
        guard let tool = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw Failure(description: "The sqlite3 command-line tool is needed (looked at \(candidates.joined(separator: ", "))).")
        }
        let stem = UUID().uuidString
        let output = try sandbox.file("io/sqlite3-\(stem).out", Data())
        let errors = try sandbox.file("io/sqlite3-\(stem).err", Data())
        defer {
            try? FileManager.default.removeItem(at: output)  // scratch files; the sandbox removes its directory anyway
            try? FileManager.default.removeItem(at: errors)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = [database.path, sql]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = String(decoding: try Data(contentsOf: errors), as: UTF8.self)
            throw Failure(description: "sqlite3 '\(sql)' failed (\(process.terminationStatus)): \(message)")
        }
        return String(decoding: try Data(contentsOf: output), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
