import Foundation
import PasteboardTestSupport
import Testing

/// A compositor without data-control (as GNOME's mutter is): `pb doctor` says so and names the options, and with
/// DISPLAY set too (XWayland) pb uses the X11 display instead. A stand-in compositor offering only a seat.
@Suite(.timeLimit(.minutes(1))) struct NoDataControlTests {
    /// The sandbox, and the socket of a running plain compositor in it.
    private func plainCompositor(_ sandbox: ProcessSandbox) async throws -> (ChildProcess, String) {
        let directory = try sandbox.directory("compositor")
        let compositor = try sandbox.launch(
            try TestSource.plainCompositor().path, ["wayland-plain"],
            environment: ["XDG_RUNTIME_DIR": directory.path])
        let ready = try await eventually(within: .seconds(10), every: .milliseconds(10)) {
            !compositor.isRunning || compositor.stdout.starts(with: Data("ready".utf8))
        }
        guard ready, compositor.isRunning else {
            throw SetupFailure("wayland-plain-compositor did not start: \(compositor.stderr)")
        }
        return (compositor, directory.appendingPathComponent("wayland-plain").path)
    }

    @Test func doctorSaysThereIsNoDataControlAndNamesTheOptions() async throws {
        let sandbox = try ProcessSandbox(label: "pbwlnodc")
        let (_, socket) = try await plainCompositor(sandbox)
        let doctor = try await sandbox.launch(try Product.pb.path(), ["doctor"], environment: ["WAYLAND_DISPLAY": socket])
            .finish(timeout: .seconds(20))
        #expect(doctor.status == 1, "\(doctor)")
        #expect(doctor.output.contains("offers no data-control protocol"), "\(doctor)")
        #expect(doctor.output.contains("XWayland") && doctor.output.contains("GNOME Shell"), "\(doctor)")
        let paste = try await sandbox.launch(try Product.pb.path(), ["paste"], environment: ["WAYLAND_DISPLAY": socket])
            .finish(timeout: .seconds(20))
        #expect(paste.status == 1 && paste.stderr.contains("no data-control"), "\(paste)")
    }

    @Test func pickPasteSaysTheCompositorHasNoVirtualKeyboard() async throws {
        let sandbox = try ProcessSandbox(label: "pbwlnodc")
        let (_, socket) = try await plainCompositor(sandbox)
        let pick = try await sandbox.launch(
            try Product.pb.path(), ["pick", "--paste"], environment: ["WAYLAND_DISPLAY": socket, "DISPLAY": nil]
        ).finish(timeout: .seconds(20))
        #expect(pick.status == 1, "\(pick)")
        #expect(pick.stderr.contains("no virtual-keyboard protocol (zwp_virtual_keyboard_manager_v1)"), "\(pick)")
        #expect(pick.stderr.contains("paste with Ctrl+V"), "\(pick)")
    }

    @Test func withDisplaySetTooTheXWaylandDisplayIsUsed() async throws {
        let sandbox = try await ProcessSandbox(label: "pbwlnodc", requiredBy: "the XWayland fallback test")
        let (_, socket) = try await plainCompositor(sandbox)
        let doctor = try await sandbox.launch(try Product.pb.path(), ["doctor"], environment: ["WAYLAND_DISPLAY": socket])
            .finish(timeout: .seconds(20))
        #expect(doctor.succeeded && doctor.output.contains("x11 on XWayland"), "\(doctor)")
        let copy = try await sandbox.launch(
            try Product.pb.path(), ["copy"], stdin: Data("through XWayland".utf8), environment: ["WAYLAND_DISPLAY": socket]
        ).finish(timeout: .seconds(20))
        #expect(copy.succeeded, "\(copy)")
        let paste = try await sandbox.launch(try Product.pb.path(), ["paste"], environment: ["WAYLAND_DISPLAY": socket])
            .finish(timeout: .seconds(20))
        #expect(paste.succeeded && paste.output == "through XWayland", "\(paste)")
    }
}
