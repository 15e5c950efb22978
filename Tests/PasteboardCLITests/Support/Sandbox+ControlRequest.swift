import Foundation

extension Sandbox {
    /// Sends one request line on the daemon's socket and returns its reply line (python3, as a client).
    func controlRequest(_ line: String) throws -> String {
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(sys.argv[1])
            s.sendall(sys.argv[2].encode() + b"\\n")
            reply = b""
            while not reply.endswith(b"\\n"):
                chunk = s.recv(65536)
                if not chunk: break
                reply += chunk
            print(reply.decode().strip())
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, socketPath, line]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
