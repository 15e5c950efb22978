import Foundation
import PasteboardApp

exit(
    HistoryApp.main(
        arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
