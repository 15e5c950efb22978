import Glibc
import PasteboardCLI
import PasteboardDaemon

exit(PBCommandLine.main(CommandLine.arguments, context: .standard(daemon: Daemon.launch)))
