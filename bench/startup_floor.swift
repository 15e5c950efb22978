// The floors for `pb --version` in bench/startup_bench.py: a program linked the way `make build` links pb, against
// the same system libraries (SQLite, Xlib), that reads its environment as pb does before it looks at its arguments
// and prints one line. Built twice: with all of Foundation, as pb uses it (JSONSerialization and NSRegularExpression
// bring CoreFoundation and ICU), and with -D ESSENTIALS_ONLY against FoundationEssentials alone. What pb takes beyond
// the first is its own start-up work; the second shows what Foundation's older half costs.
#if ESSENTIALS_ONLY
import FoundationEssentials
#else
import Foundation
#endif

let environment = ProcessInfo.processInfo.environment
#if !ESSENTIALS_ONLY
if environment["STARTUP_FLOOR_JSON"] != nil {
    // Never taken in the benchmark; it makes the linker keep JSONSerialization (and with it CoreFoundation, ICU and
    // their initializers), as pb's own use of it does.
    print(String(decoding: try JSONSerialization.data(withJSONObject: ["floor": 1]), as: UTF8.self))
}
#endif
print("startup-floor 1.0")
