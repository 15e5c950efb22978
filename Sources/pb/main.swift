import Glibc
import PasteboardCLI

exit(PBCommandLine.main(CommandLine.arguments, context: .standard()))
