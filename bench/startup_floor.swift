// The floor for `pb --version` in bench/startup_bench.py: a program linked the way `make build` links pb, against
// the same libraries (all of Foundation, with CoreFoundation; SQLite; Xlib), that reads its environment as pb does
// before it looks at its arguments and prints one line. What pb takes beyond this is its own start-up work.
import Foundation

let environment = ProcessInfo.processInfo.environment
if environment["STARTUP_FLOOR_JSON"] != nil {
    // Never taken in the benchmark; it makes the linker keep Foundation's JSONSerialization (and with it
    // CoreFoundation and its initializers), as pb's own use of it does.
    print(String(decoding: try JSONSerialization.data(withJSONObject: ["floor": 1]), as: UTF8.self))
}
print("startup-floor 1.0")
