/* A test-only extension for a headless GNOME Shell (never shipped).
 *
 * A headless shell starts in the overview, where no window gets the focus, and its seat has no keyboard, so no
 * client is ever active and mutter ignores a client's set_selection. At startup-complete this hides the overview
 * and creates a Clutter virtual keyboard, kept for the shell's life, then writes the file
 * $XDG_RUNTIME_DIR/pasteboard-test-ready, which the test session waits for. */
const { Clutter, GLib } = imports.gi;
const Main = imports.ui.main;

class TestSession {
    enable() {
        if (Main.layoutManager._startingUp)
            this._startupId = Main.layoutManager.connect('startup-complete', () => this._ready());
        else
            this._ready();
    }

    disable() {
        if (this._startupId) {
            Main.layoutManager.disconnect(this._startupId);
            this._startupId = 0;
        }
        this._keyboard = null;
    }

    _ready() {
        Main.overview.hide();
        const seat = Clutter.get_default_backend().get_default_seat();
        this._keyboard = seat.create_virtual_device(Clutter.InputDeviceType.KEYBOARD_DEVICE);
        const path = GLib.build_filenamev([GLib.get_user_runtime_dir(), 'pasteboard-test-ready']);
        GLib.file_set_contents(path, `${Date.now()}\n`);
    }
}

function init() {
    return new TestSession();
}
