// A large file moving through a FileRepresentation: never loaded whole into memory.
//
//   video-file copy FILE     puts FILE on the clipboard as a movie
//   video-file paste DIR     saves the clipboard's movie into DIR (a unique name when one exists)
// Both print the process's peak resident memory, so the bound can be checked.
import Foundation
import PasteboardKit

struct Video: Transferable {
    var file: URL

    static var transferRepresentation: some TransferRepresentation {
        FileRepresentation(contentType: .mpeg4Movie) { video in
            SentTransferredFile(video.file)
        } importing: { received in
            // The received file is temporary: keep a copy in the current directory, under a unique name.
            Video(file: try received.copy(to: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)))
        }
        .suggestedFileName("video.mp4")
    }
}

func peakResidentMegabytes() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
}

@main
struct VideoFileExample {
    static func main() async throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch (arguments.first, arguments.count) {
        case ("copy", 2):
            try await Pasteboard.general.write(Video(file: URL(fileURLWithPath: arguments[1])))
            print("copied; peak memory \(peakResidentMegabytes()) MB")
        case ("paste", 2):
            guard FileManager.default.changeCurrentDirectoryPath(arguments[1]) else {
                print("Error: \(arguments[1]) is not a directory")
                exit(1)
            }
            guard let video = try await Pasteboard.general.read(Video.self) else {
                print("Error: the clipboard holds no movie")
                exit(1)
            }
            print("saved \(video.file.path); peak memory \(peakResidentMegabytes()) MB")
        default:
            print("usage: video-file copy FILE | video-file paste DIR")
            exit(64)
        }
    }
}
