import Foundation
import GtkSupport
import Testing

/// The app draws with cairo and leaves OpenGL closed unless the user asks for GL.
@Suite struct RendererPolicyTests {
    @Test(arguments: [
        // Nothing asked: cairo, and no GL context at all.
        ([:], ["GSK_RENDERER": "cairo", "GDK_DEBUG": "gl-disable"]),
        // Cairo asked for: GL still kept closed; other debug flags kept.
        (["GSK_RENDERER": "cairo"], ["GDK_DEBUG": "gl-disable"]),
        (["GSK_RENDERER": "Cairo", "GDK_DEBUG": "interactive"], ["GDK_DEBUG": "interactive,gl-disable"]),
        // A GL renderer, or a GL flag of the user's own: left alone.
        (["GSK_RENDERER": "ngl"], [:]),
        (["GSK_RENDERER": "gl", "GDK_DEBUG": "misc"], [:]),
        (["GDK_DEBUG": "gl-gles"], ["GSK_RENDERER": "cairo"]),
        (["GSK_RENDERER": "cairo", "GDK_DEBUG": "gl-disable"], [:]),
        (["GSK_RENDERER": " ", "GDK_DEBUG": ""], ["GSK_RENDERER": "cairo", "GDK_DEBUG": "gl-disable"]),
    ] as [([String: String], [String: String])])
    func settingsFollowWhatTheUserAsked(environment: [String: String], expected: [String: String]) {
        #expect(RendererPolicy.settings(for: environment) == expected)
    }

    /// Under Xvfb GTK's GL is Mesa's software renderer, which maps libLLVM (about 43 MB) into the app.
    @Test(.timeLimit(.minutes(1))) func theAppStartsWithoutMappingGL() async throws {
        let session = try await AppSession()
        try await session.seed("drawn without GL")
        try await session.launchApp(environment: ["GSK_RENDERER": nil, "GDK_DEBUG": nil])
        let pid = try #require(session.appPID)
        // Read to the end: /proc files have no size, and a one-shot read may stop at the first page.
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/\(pid)/maps"))
        let maps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        try handle.close()
        #expect(maps.contains("libgtk-4"), "the maps are the app's")
        for library in ["libLLVM", "_dri.so", "libGLX_mesa", "libEGL_mesa"] {
            #expect(!maps.contains(library), "\(library) is mapped")
        }
        let statistics = try await session.imageStatistics(try await session.screenshot("without-gl"))
        #expect(statistics.colours > 100, "the window is drawn: \(statistics)")
        #expect(session.gtkComplaints.isEmpty, "\(session.gtkComplaints)")
    }
}
