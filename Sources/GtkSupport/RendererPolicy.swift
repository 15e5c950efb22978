import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// How the app asks GTK to draw, decided from the environment before GTK starts: with cairo, and without
/// initialising OpenGL, unless the user asked for something else through `GSK_RENDERER` or a GL flag in
/// `GDK_DEBUG`.
///
/// A list of rows, chips and thumbnails draws as fast with cairo as with GL, and GTK 4.8 opens a GL context at
/// display start-up on X11 even when it then draws with cairo: with Mesa's software GL (a machine without a GPU
/// driver, Xvfb) that maps about 43 MB of libLLVM and costs start-up time for nothing. `GDK_DEBUG=gl-disable`
/// keeps GL closed.
///
/// ```swift
/// RendererPolicy.apply()  // before Gtk.initialize()
/// ```
public enum RendererPolicy {
    /// The renderer asked for when the user names none.
    public static let defaultRenderer = "cairo"

    /// The variables to set in an environment like `environment` (only those that change).
    public static func settings(for environment: [String: String]) -> [String: String] {
        var settings: [String: String] = [:]
        let asked = environment["GSK_RENDERER", default: ""].trimmingCharacters(in: .whitespaces)
        if asked.isEmpty { settings["GSK_RENDERER"] = defaultRenderer }
        let renderer = asked.isEmpty ? defaultRenderer : asked.lowercased()
        // Only cairo can do without GL; any other renderer the user names keeps it.
        guard renderer == defaultRenderer else { return settings }
        let debug = environment["GDK_DEBUG", default: ""]
        let flags = debug.split(whereSeparator: { ",: ;".contains($0) }).map { $0.lowercased() }
        // A GL flag of the user's own (gl-gles, gl-glx, gl-disable, …) says they want a say in GL: leave it.
        guard !flags.contains(where: { $0.hasPrefix("gl-") || $0 == "all" }) else { return settings }
        settings["GDK_DEBUG"] = flags.isEmpty ? "gl-disable" : debug + ",gl-disable"
        return settings
    }

    /// Sets `settings(for:)` of this process's environment in it. Call before GTK starts, on the main thread,
    /// before other threads read the environment.
    public static func apply() {
        for (name, value) in settings(for: ProcessInfo.processInfo.environment) {
            // setenv copies both strings; it fails only for an invalid name (these are constants) or no memory.
            if setenv(name, value, 1) != 0 {
                FileHandle.standardError.write(
                    Data("pasteboard-gtk: could not set \(name)=\(value): \(String(cString: strerror(errno)))\n".utf8))
            }
        }
    }
}
