// A model type moving through the real clipboard as on Apple's platforms.
//
//   profile copy "Ada Lovelace" 36    copies a Profile; it stays on the clipboard while this runs (--hold SECONDS)
//   profile paste                     reads a whole Profile, or else just a name from plain text
//
// Pasting into any text field gives the name; pasting into another `profile paste` gives the whole profile.
import Foundation
import PasteboardKit

extension UTType {
    static let profile = UTType(exportedAs: "com.example.profile", conformingTo: [.json], description: "Example profile")
}

struct Profile: Codable, Transferable, Equatable {
    var name: String
    var age: Int

    static var transferRepresentation: some TransferRepresentation {
        CodableRepresentation(contentType: .profile)
        ProxyRepresentation(exporting: \.name)
    }
}

@main
struct ProfileExample {
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        var hold: Double = 0
        if let index = arguments.firstIndex(of: "--hold"), index + 1 < arguments.count {
            hold = Double(arguments[index + 1]) ?? 0
            arguments.removeSubrange(index...(index + 1))
        }
        do {
            switch arguments.first {
            case "copy" where arguments.count == 3:
                guard let age = Int(arguments[2]) else { return fail("AGE must be a number") }
                try await Pasteboard.general.write(Profile(name: arguments[1], age: age))
                print("copied")
                if hold > 0 { try await Task.sleep(for: .seconds(hold)) }
            case "paste":
                if let profile = try await Pasteboard.general.read(Profile.self) {
                    print("profile: \(profile.name), \(profile.age)")
                } else if let name = try await Pasteboard.general.read(String.self) {
                    print("name only: \(name)")
                } else {
                    fail("the clipboard holds neither a profile nor text")
                }
            default:
                fail("usage: profile copy NAME AGE [--hold SECONDS] | profile paste")
            }
        } catch {
            fail("\(error)")
        }
    }

    static func fail(_ message: String) {
        FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
        exit(1)
    }
}
