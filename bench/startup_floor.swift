// The floors for `pb --version` in bench/startup_bench.py: a program linked the way `make build` links pb, against
// the same system libraries (SQLite, Xlib), that reads its environment as pb does before it looks at its arguments
// and prints one line. Built twice: with -D ESSENTIALS_ONLY against FoundationEssentials alone, as pb links it now
// (scripts/check_essentials.py keeps it so), and with all of Foundation, as pb linked it until it stopped importing
// Foundation: the JSONSerialization call below keeps CoreFoundation and ICU in that build the way pb's own uses of
// Foundation-only APIs (FileHandle, NSLock, String(format:) and others) did. What pb takes beyond the first is its
// own start-up work; the difference between the two is what Foundation's older half costs at every start.
#if ESSENTIALS_ONLY
import FoundationEssentials
#else
import Foundation
#endif

let environment = ProcessInfo.processInfo.environment
#if !ESSENTIALS_ONLY
if environment["STARTUP_FLOOR_JSON"] != nil {
    // Never taken in the benchmark; it makes the linker keep JSONSerialization (and with it CoreFoundation, ICU and
    // their initializers), as any use of the older half of Foundation does.
    print(String(decoding: try JSONSerialization.data(withJSONObject: ["floor": 1]), as: UTF8.self))
}
#endif
print("startup-floor 1.0")
