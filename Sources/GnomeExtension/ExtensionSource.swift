// Made by scripts/gnome_extension.py from contrib/gnome-shell/pasteboard@pasteboard.org: do not edit.

/// The Pasteboard GNOME Shell extension's files, for GNOME 43-44 (legacy imports) and 45+ (ES modules).
public enum ExtensionSource {
    public static let uuid = "pasteboard@pasteboard.org"
    /// The extension's version (metadata.json).
    public static let version = 2
    /// The first GNOME Shell version that loads only ES modules.
    public static let firstModuleShell = 45

    /// extension.js and metadata.json for GNOME Shell `major`.
    public static func files(forShell major: Int) -> [(name: String, contents: String)] {
        major >= firstModuleShell
            ? [("extension.js", moduleScript), ("metadata.json", moduleMetadata)]
            : [("extension.js", legacyScript), ("metadata.json", legacyMetadata)]
    }

    static let legacyScript = #"""
/* Pasteboard for GNOME Shell 43 and 44 (legacy imports).
 *
 * A sensor and an actuator for the pb daemon, which owns the data: it reports owner changes of CLIPBOARD and
 * PRIMARY (the offered types and the focused application), reads one type into a file descriptor when the daemon
 * asks, and types paste keystrokes. It owns org.pasteboard.Shell on the session bus and answers only the current
 * owner of org.pasteboard.Daemon. The interface is described in docs/gnome.md of the pb repository.
 *
 * Only the selection, Clutter and window-tracker API that GNOME 45+ also has is used, so the ES-module version
 * differs only in its imports and its Extension class. */
const { Clutter, Gio, GLib, Meta, Shell } = imports.gi;

const BUS_NAME = 'org.pasteboard.Shell';
const OBJECT_PATH = '/org/pasteboard/Shell';
const INTERFACE = 'org.pasteboard.Shell1';
const DAEMON_NAME = 'org.pasteboard.Daemon';
const ERROR = 'org.pasteboard.Shell1.Error';
const VERSION = 2;
/* A memory owner that comes this soon after its selection went empty is mutter's own copy of the owner that went. */
const SAVED_WINDOW_US = 1000 * 1000;
/* Offer: the largest type the daemon may hand over to be served from the shell's memory. */
const OFFER_LIMIT = 64 * 1024 * 1024;

const INTERFACE_XML = `<node>
  <interface name="${INTERFACE}">
    <property name="Version" type="u" access="read"/>
    <signal name="OwnerChanged">
      <arg name="selection" type="s"/>
      <arg name="types" type="as"/>
      <arg name="app_id" type="s"/>
      <arg name="serial" type="u"/>
      <arg name="origin" type="s"/>
    </signal>
    <method name="GetSelection">
      <arg name="selection" type="s" direction="in"/>
      <arg name="types" type="as" direction="out"/>
      <arg name="app_id" type="s" direction="out"/>
      <arg name="serial" type="u" direction="out"/>
      <arg name="origin" type="s" direction="out"/>
    </method>
    <method name="ReadType">
      <arg name="selection" type="s" direction="in"/>
      <arg name="serial" type="u" direction="in"/>
      <arg name="mime_type" type="s" direction="in"/>
      <arg name="fd" type="h" direction="in"/>
      <arg name="max_bytes" type="t" direction="in"/>
      <arg name="size" type="t" direction="out"/>
    </method>
    <method name="Paste">
      <arg name="key" type="s" direction="in"/>
    </method>
    <method name="Clear">
      <arg name="selection" type="s" direction="in"/>
      <arg name="serial" type="u" direction="in"/>
    </method>
    <method name="Offer">
      <arg name="selection" type="s" direction="in"/>
      <arg name="mime_type" type="s" direction="in"/>
      <arg name="fd" type="h" direction="in"/>
      <arg name="size" type="t" direction="in"/>
    </method>
  </interface>
</node>`;

const SELECTIONS = {
    CLIPBOARD: Meta.SelectionType.SELECTION_CLIPBOARD,
    PRIMARY: Meta.SelectionType.SELECTION_PRIMARY,
};

/* ICCCM targets that name an operation, not data: never reported, never read. */
const PSEUDO_TYPES = new Set(['TARGETS', 'TIMESTAMP', 'MULTIPLE', 'SAVE_TARGETS', 'DELETE', 'INSERT_SELECTION',
    'INSERT_PROPERTY']);

const PASTE_KEYS = {
    'ctrl+v': [Clutter.KEY_Control_L, Clutter.KEY_v],
    'shift+insert': [Clutter.KEY_Shift_L, Clutter.KEY_Insert],
    'ctrl+shift+v': [Clutter.KEY_Control_L, Clutter.KEY_Shift_L, Clutter.KEY_v],
};

class Pasteboard {
    enable() {
        this._selection = global.display.get_selection();
        this._state = {};
        for (const name of Object.keys(SELECTIONS))
            this._state[name] = { types: [], appId: '', serial: 0, origin: '', time: 0 };
        this._serial = 0;
        /* The memory sources this extension set for the daemon (Clear, Offer): reported as origin 'pasteboard'. */
        this._ownSources = new Set();
        this._daemon = null;
        this._ownerChangedId = this._selection.connect('owner-changed', (_selection, type, source) => {
            this._ownerChanged(type, source);
        });
        const seat = Clutter.get_default_backend().get_default_seat();
        this._keyboard = seat.create_virtual_device(Clutter.InputDeviceType.KEYBOARD_DEVICE);
        this._dbus = Gio.DBusExportedObject.wrapJSObject(INTERFACE_XML, this);
        this._dbus.export(Gio.DBus.session, OBJECT_PATH);
        this._watchId = Gio.bus_watch_name_on_connection(Gio.DBus.session, DAEMON_NAME,
            Gio.BusNameWatcherFlags.NONE,
            (_connection, _name, owner) => {
                this._daemon = owner;
            },
            () => {
                this._daemon = null;
            });
        this._nameId = Gio.bus_own_name_on_connection(Gio.DBus.session, BUS_NAME, Gio.BusNameOwnerFlags.NONE,
            null, null);
    }

    disable() {
        Gio.bus_unown_name(this._nameId);
        Gio.bus_unwatch_name(this._watchId);
        this._dbus.unexport();
        this._dbus = null;
        this._selection.disconnect(this._ownerChangedId);
        this._selection = null;
        this._ownSources = null;
        this._keyboard = null;
        this._daemon = null;
    }

    get Version() {
        return VERSION;
    }

    _ownerChanged(type, source) {
        const name = Object.keys(SELECTIONS).find(key => SELECTIONS[key] === type);
        if (name === undefined)
            return;
        this._serial = (this._serial + 1) >>> 0;
        const previous = this._state[name];
        const now = GLib.get_monotonic_time();
        const origin = this._origin(source, previous, now);
        const types = source ? this._selection.get_mimetypes(type).filter(mime => !PSEUDO_TYPES.has(mime)) : [];
        let appId = '';
        if (origin === 'application')
            appId = focusedAppId();
        else if (origin === 'shell')
            appId = 'org.gnome.Shell';
        const state = { types, appId, serial: this._serial, origin, time: now };
        this._state[name] = state;
        if (this._daemon === null)
            return;
        Gio.DBus.session.emit_signal(this._daemon, OBJECT_PATH, INTERFACE, 'OwnerChanged',
            new GLib.Variant('(sassus)', [name, state.types, state.appId, state.serial, state.origin]));
    }

    /* Who set the new owner: '' nobody (the selection is empty); 'pasteboard' this extension for the daemon;
     * 'saved' mutter's own copy of an owner that just went (a memory source right after the selection went empty);
     * 'shell' another memory source of the shell (St.Clipboard); 'application' a client, Wayland or X11. */
    _origin(source, previous, now) {
        if (!source)
            return '';
        if (!(source instanceof Meta.SelectionSourceMemory))
            return 'application';
        if (this._ownSources.has(source))
            return 'pasteboard';
        if (previous.origin === '' && previous.serial !== 0 && now - previous.time < SAVED_WINDOW_US)
            return 'saved';
        return 'shell';
    }

    /* Makes a memory source of this extension the owner of a selection, forgetting the ones it replaced. */
    _setOwnSource(name, mime, bytes) {
        const source = Meta.SelectionSourceMemory.new(mime, bytes);
        this._ownSources.add(source);
        source.connect('deactivated', () => this._ownSources?.delete(source));
        this._selection.set_owner(SELECTIONS[name], source);
    }

    /* Runs body(selection name) when the caller is the owner of the daemon's name; answers AccessDenied otherwise.
     * The cached owner comes from a name watch; when it differs (the watch may lag a new owner), the bus is asked.
     * The sender is the unique name the bus daemon stamped on the call, which no client can forge. */
    _fromDaemon(invocation, body, denied = () => {}) {
        const sender = invocation.get_sender();
        if (sender !== null && sender === this._daemon) {
            body();
            return;
        }
        Gio.DBus.session.call('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
            'GetNameOwner', new GLib.Variant('(s)', [DAEMON_NAME]), new GLib.VariantType('(s)'),
            Gio.DBusCallFlags.NONE, -1, null, (connection, result) => {
                let owner = null;
                try {
                    [owner] = connection.call_finish(result).deepUnpack();
                } catch (e) {
                    owner = null;
                }
                if (owner !== null && owner === sender) {
                    this._daemon = owner;
                    body();
                } else {
                    denied();
                    invocation.return_dbus_error('org.freedesktop.DBus.Error.AccessDenied',
                        `only the owner of ${DAEMON_NAME} may call ${BUS_NAME}`);
                }
            });
    }

    GetSelectionAsync([name], invocation) {
        this._fromDaemon(invocation, () => {
            const state = this._state[name];
            if (state === undefined) {
                invocation.return_dbus_error(`${ERROR}.UnknownSelection`,
                    `no selection named '${name}': use CLIPBOARD or PRIMARY`);
                return;
            }
            invocation.return_value(new GLib.Variant('(assus)',
                [state.types, state.appId, state.serial, state.origin]));
        });
    }

    ReadTypeAsync([name, serial, mime, fdIndex, maxBytes], invocation) {
        // Steal the descriptors out of the message: a copy left in its list would keep the caller's pipe open
        // until the garbage collector frees the message, and the caller would see no end of the data.
        const fdList = invocation.get_message().get_unix_fd_list();
        const fds = fdList ? fdList.steal_fds() : [];
        const fd = fdIndex < fds.length ? fds[fdIndex] : -1;
        fds.filter((_, index) => index !== fdIndex).forEach(other => GLib.close(other));
        if (fd < 0) {
            invocation.return_dbus_error(`${ERROR}.Failed`, 'no file descriptor came with the call');
            return;
        }
        const fail = (error, message) => {
            GLib.close(fd);
            invocation.return_dbus_error(`${ERROR}.${error}`, message);
        };
        this._fromDaemon(invocation, () => {
            const state = this._state[name];
            if (state === undefined) {
                fail('UnknownSelection', `no selection named '${name}': use CLIPBOARD or PRIMARY`);
                return;
            }
            if (state.serial !== serial) {
                fail('Stale', `the ${name} owner changed: serial ${serial} is now ${state.serial}`);
                return;
            }
            if (PSEUDO_TYPES.has(mime) || !state.types.includes(mime)) {
                fail('NotOffered', `the ${name} owner does not offer '${mime}'`);
                return;
            }
            const memory = Gio.MemoryOutputStream.new_resizable();
            this._selection.transfer_async(SELECTIONS[name], mime, -1, memory, null, (selection, result) => {
                try {
                    selection.transfer_finish(result);
                    memory.close(null);
                } catch (e) {
                    fail('Failed', `reading '${mime}' from the ${name} owner failed: ${e.message}`);
                    return;
                }
                if (this._state[name].serial !== serial) {
                    fail('Stale', `the ${name} owner changed while '${mime}' was read`);
                    return;
                }
                const bytes = memory.steal_as_bytes();
                const size = bytes.get_size();
                if (size > maxBytes) {
                    fail('TooLarge', `'${mime}' is larger than ${maxBytes} bytes`);
                    return;
                }
                invocation.return_value(new GLib.Variant('(t)', [size]));
                this._write(fd, bytes);
            });
        }, () => GLib.close(fd));
    }

    /* Writes bytes into fd without blocking the compositor (a pipe's reader may be slow), then closes it. */
    _write(fd, bytes) {
        try {
            GLib.unix_set_fd_nonblocking(fd, true);
        } catch (e) {
            // A regular file or memfd: writes do not block for long.
        }
        const output = new Gio.UnixOutputStream({ fd, close_fd: true });
        const input = Gio.MemoryInputStream.new_from_bytes(bytes);
        output.splice_async(input,
            Gio.OutputStreamSpliceFlags.CLOSE_SOURCE | Gio.OutputStreamSpliceFlags.CLOSE_TARGET,
            GLib.PRIORITY_DEFAULT, null, (stream, result) => {
                try {
                    stream.splice_finish(result);
                } catch (e) {
                    log(`pasteboard: writing a type to the daemon failed: ${e.message}`);
                    stream.close(null);
                }
            });
    }

    PasteAsync([key], invocation) {
        this._fromDaemon(invocation, () => {
            const keys = PASTE_KEYS[key];
            if (keys === undefined) {
                invocation.return_dbus_error(`${ERROR}.UnknownKey`,
                    `no paste key '${key}': use ${Object.keys(PASTE_KEYS).join(', ')}`);
                return;
            }
            let time = GLib.get_monotonic_time();
            for (const keyval of keys)
                this._keyboard.notify_keyval(time++, keyval, Clutter.KeyState.PRESSED);
            for (const keyval of [...keys].reverse())
                this._keyboard.notify_keyval(time++, keyval, Clutter.KeyState.RELEASED);
            invocation.return_value(null);
        });
    }

    /* Leaves a selection empty when `serial` still names its owner: an empty text of this extension's becomes the
     * owner. (Unsetting mutter's saved copy would only make mutter offer it again.) */
    ClearAsync([name, serial], invocation) {
        this._fromDaemon(invocation, () => {
            const state = this._state[name];
            if (state === undefined) {
                invocation.return_dbus_error(`${ERROR}.UnknownSelection`,
                    `no selection named '${name}': use CLIPBOARD or PRIMARY`);
                return;
            }
            if (state.serial !== serial) {
                invocation.return_dbus_error(`${ERROR}.Stale`,
                    `the ${name} owner changed: serial ${serial} is now ${state.serial}`);
                return;
            }
            this._setOwnSource(name, 'text/plain;charset=utf-8', new GLib.Bytes(new Uint8Array(0)));
            invocation.return_value(null);
        });
    }

    /* Serves one type from the shell's memory (where no X11 owner can serve every type): reads `size` bytes from
     * `fd`, then owns the selection with them. */
    OfferAsync([name, mime, fdIndex, size], invocation) {
        const fdList = invocation.get_message().get_unix_fd_list();
        const fds = fdList ? fdList.steal_fds() : [];
        const fd = fdIndex < fds.length ? fds[fdIndex] : -1;
        fds.filter((_, index) => index !== fdIndex).forEach(other => GLib.close(other));
        if (fd < 0) {
            invocation.return_dbus_error(`${ERROR}.Failed`, 'no file descriptor came with the call');
            return;
        }
        this._fromDaemon(invocation, () => {
            if (SELECTIONS[name] === undefined) {
                GLib.close(fd);
                invocation.return_dbus_error(`${ERROR}.UnknownSelection`,
                    `no selection named '${name}': use CLIPBOARD or PRIMARY`);
                return;
            }
            if (size > OFFER_LIMIT || mime === '' || PSEUDO_TYPES.has(mime)) {
                GLib.close(fd);
                invocation.return_dbus_error(`${ERROR}.TooLarge`,
                    `only one data type of up to ${OFFER_LIMIT} bytes can be offered from the shell`);
                return;
            }
            // The caller is the daemon, which writes `size` bytes and closes its end (a pipe, a file or a memfd).
            const input = new Gio.UnixInputStream({ fd, close_fd: true });
            const memory = Gio.MemoryOutputStream.new_resizable();
            memory.splice_async(input,
                Gio.OutputStreamSpliceFlags.CLOSE_SOURCE | Gio.OutputStreamSpliceFlags.CLOSE_TARGET,
                GLib.PRIORITY_DEFAULT, null, (stream, result) => {
                    try {
                        stream.splice_finish(result);
                    } catch (e) {
                        invocation.return_dbus_error(`${ERROR}.Failed`, `reading the offer failed: ${e.message}`);
                        return;
                    }
                    const bytes = memory.steal_as_bytes();
                    if (bytes.get_size() !== size) {
                        invocation.return_dbus_error(`${ERROR}.Failed`,
                            `the offer has ${bytes.get_size()} bytes, not ${size}`);
                        return;
                    }
                    this._setOwnSource(name, mime, bytes);
                    invocation.return_value(null);
                });
        }, () => GLib.close(fd));
    }
}

/* The focused application's id: its desktop id (without '.desktop') when the shell knows the application, else
 * the window's Wayland app_id (or X11 WM_CLASS: both are the WM class to mutter); '' when no window has the focus. */
function focusedAppId() {
    const window = global.display.get_focus_window();
    if (window === null)
        return '';
    const app = Shell.WindowTracker.get_default().get_window_app(window);
    if (app !== null && !app.is_window_backed())
        return app.get_id().replace(/\.desktop$/, '');
    return window.get_wm_class() || window.get_gtk_application_id() || '';
}

function init() {
    return new Pasteboard();
}

"""#

    static let legacyMetadata = #"""
{
  "uuid": "pasteboard@pasteboard.org",
  "name": "Pasteboard",
  "description": "Lets the pb clipboard daemon see every copy on GNOME (CLIPBOARD and PRIMARY, every type, the copying application) and paste into the focused window. It answers only the daemon's bus name.",
  "shell-version": ["43", "44"],
  "version": 2
}

"""#

    static let moduleScript = #"""
/* Pasteboard for GNOME Shell 45 and later (ES modules), made by scripts/gnome_extension.py from
 * the GNOME 43-44 source.
 *
 * A sensor and an actuator for the pb daemon, which owns the data: it reports owner changes of CLIPBOARD and
 * PRIMARY (the offered types and the focused application), reads one type into a file descriptor when the daemon
 * asks, and types paste keystrokes. It owns org.pasteboard.Shell on the session bus and answers only the current
 * owner of org.pasteboard.Daemon. The interface is described in docs/gnome.md of the pb repository.
 *
 * Only the selection, Clutter and window-tracker API that GNOME 45+ also has is used, so the ES-module version
 * differs only in its imports and its Extension class. */
import Clutter from 'gi://Clutter';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Meta from 'gi://Meta';
import Shell from 'gi://Shell';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';

const BUS_NAME = 'org.pasteboard.Shell';
const OBJECT_PATH = '/org/pasteboard/Shell';
const INTERFACE = 'org.pasteboard.Shell1';
const DAEMON_NAME = 'org.pasteboard.Daemon';
const ERROR = 'org.pasteboard.Shell1.Error';
const VERSION = 2;
/* A memory owner that comes this soon after its selection went empty is mutter's own copy of the owner that went. */
const SAVED_WINDOW_US = 1000 * 1000;
/* Offer: the largest type the daemon may hand over to be served from the shell's memory. */
const OFFER_LIMIT = 64 * 1024 * 1024;

const INTERFACE_XML = `<node>
  <interface name="${INTERFACE}">
    <property name="Version" type="u" access="read"/>
    <signal name="OwnerChanged">
      <arg name="selection" type="s"/>
      <arg name="types" type="as"/>
      <arg name="app_id" type="s"/>
      <arg name="serial" type="u"/>
      <arg name="origin" type="s"/>
    </signal>
    <method name="GetSelection">
      <arg name="selection" type="s" direction="in"/>
      <arg name="types" type="as" direction="out"/>
      <arg name="app_id" type="s" direction="out"/>
      <arg name="serial" type="u" direction="out"/>
      <arg name="origin" type="s" direction="out"/>
    </method>
    <method name="ReadType">
      <arg name="selection" type="s" direction="in"/>
      <arg name="serial" type="u" direction="in"/>
      <arg name="mime_type" type="s" direction="in"/>
      <arg name="fd" type="h" direction="in"/>
      <arg name="max_bytes" type="t" direction="in"/>
      <arg name="size" type="t" direction="out"/>
    </method>
    <method name="Paste">
      <arg name="key" type="s" direction="in"/>
    </method>
    <method name="Clear">
      <arg name="selection" type="s" direction="in"/>
      <arg name="serial" type="u" direction="in"/>
    </method>
    <method name="Offer">
      <arg name="selection" type="s" direction="in"/>
      <arg name="mime_type" type="s" direction="in"/>
      <arg name="fd" type="h" direction="in"/>
      <arg name="size" type="t" direction="in"/>
    </method>
  </interface>
</node>`;

const SELECTIONS = {
    CLIPBOARD: Meta.SelectionType.SELECTION_CLIPBOARD,
    PRIMARY: Meta.SelectionType.SELECTION_PRIMARY,
};

/* ICCCM targets that name an operation, not data: never reported, never read. */
const PSEUDO_TYPES = new Set(['TARGETS', 'TIMESTAMP', 'MULTIPLE', 'SAVE_TARGETS', 'DELETE', 'INSERT_SELECTION',
    'INSERT_PROPERTY']);

const PASTE_KEYS = {
    'ctrl+v': [Clutter.KEY_Control_L, Clutter.KEY_v],
    'shift+insert': [Clutter.KEY_Shift_L, Clutter.KEY_Insert],
    'ctrl+shift+v': [Clutter.KEY_Control_L, Clutter.KEY_Shift_L, Clutter.KEY_v],
};

class Pasteboard {
    enable() {
        this._selection = global.display.get_selection();
        this._state = {};
        for (const name of Object.keys(SELECTIONS))
            this._state[name] = { types: [], appId: '', serial: 0, origin: '', time: 0 };
        this._serial = 0;
        /* The memory sources this extension set for the daemon (Clear, Offer): reported as origin 'pasteboard'. */
        this._ownSources = new Set();
        this._daemon = null;
        this._ownerChangedId = this._selection.connect('owner-changed', (_selection, type, source) => {
            this._ownerChanged(type, source);
        });
        const seat = Clutter.get_default_backend().get_default_seat();
        this._keyboard = seat.create_virtual_device(Clutter.InputDeviceType.KEYBOARD_DEVICE);
        this._dbus = Gio.DBusExportedObject.wrapJSObject(INTERFACE_XML, this);
        this._dbus.export(Gio.DBus.session, OBJECT_PATH);
        this._watchId = Gio.bus_watch_name_on_connection(Gio.DBus.session, DAEMON_NAME,
            Gio.BusNameWatcherFlags.NONE,
            (_connection, _name, owner) => {
                this._daemon = owner;
            },
            () => {
                this._daemon = null;
            });
        this._nameId = Gio.bus_own_name_on_connection(Gio.DBus.session, BUS_NAME, Gio.BusNameOwnerFlags.NONE,
            null, null);
    }

    disable() {
        Gio.bus_unown_name(this._nameId);
        Gio.bus_unwatch_name(this._watchId);
        this._dbus.unexport();
        this._dbus = null;
        this._selection.disconnect(this._ownerChangedId);
        this._selection = null;
        this._ownSources = null;
        this._keyboard = null;
        this._daemon = null;
    }

    get Version() {
        return VERSION;
    }

    _ownerChanged(type, source) {
        const name = Object.keys(SELECTIONS).find(key => SELECTIONS[key] === type);
        if (name === undefined)
            return;
        this._serial = (this._serial + 1) >>> 0;
        const previous = this._state[name];
        const now = GLib.get_monotonic_time();
        const origin = this._origin(source, previous, now);
        const types = source ? this._selection.get_mimetypes(type).filter(mime => !PSEUDO_TYPES.has(mime)) : [];
        let appId = '';
        if (origin === 'application')
            appId = focusedAppId();
        else if (origin === 'shell')
            appId = 'org.gnome.Shell';
        const state = { types, appId, serial: this._serial, origin, time: now };
        this._state[name] = state;
        if (this._daemon === null)
            return;
        Gio.DBus.session.emit_signal(this._daemon, OBJECT_PATH, INTERFACE, 'OwnerChanged',
            new GLib.Variant('(sassus)', [name, state.types, state.appId, state.serial, state.origin]));
    }

    /* Who set the new owner: '' nobody (the selection is empty); 'pasteboard' this extension for the daemon;
     * 'saved' mutter's own copy of an owner that just went (a memory source right after the selection went empty);
     * 'shell' another memory source of the shell (St.Clipboard); 'application' a client, Wayland or X11. */
    _origin(source, previous, now) {
        if (!source)
            return '';
        if (!(source instanceof Meta.SelectionSourceMemory))
            return 'application';
        if (this._ownSources.has(source))
            return 'pasteboard';
        if (previous.origin === '' && previous.serial !== 0 && now - previous.time < SAVED_WINDOW_US)
            return 'saved';
        return 'shell';
    }

    /* Makes a memory source of this extension the owner of a selection, forgetting the ones it replaced. */
    _setOwnSource(name, mime, bytes) {
        const source = Meta.SelectionSourceMemory.new(mime, bytes);
        this._ownSources.add(source);
        source.connect('deactivated', () => this._ownSources?.delete(source));
        this._selection.set_owner(SELECTIONS[name], source);
    }

    /* Runs body(selection name) when the caller is the owner of the daemon's name; answers AccessDenied otherwise.
     * The cached owner comes from a name watch; when it differs (the watch may lag a new owner), the bus is asked.
     * The sender is the unique name the bus daemon stamped on the call, which no client can forge. */
    _fromDaemon(invocation, body, denied = () => {}) {
        const sender = invocation.get_sender();
        if (sender !== null && sender === this._daemon) {
            body();
            return;
        }
        Gio.DBus.session.call('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
            'GetNameOwner', new GLib.Variant('(s)', [DAEMON_NAME]), new GLib.VariantType('(s)'),
            Gio.DBusCallFlags.NONE, -1, null, (connection, result) => {
                let owner = null;
                try {
                    [owner] = connection.call_finish(result).deepUnpack();
                } catch (e) {
                    owner = null;
                }
                if (owner !== null && owner === sender) {
                    this._daemon = owner;
                    body();
                } else {
                    denied();
                    invocation.return_dbus_error('org.freedesktop.DBus.Error.AccessDenied',
                        `only the owner of ${DAEMON_NAME} may call ${BUS_NAME}`);
                }
            });
    }

    GetSelectionAsync([name], invocation) {
        this._fromDaemon(invocation, () => {
            const state = this._state[name];
            if (state === undefined) {
                invocation.return_dbus_error(`${ERROR}.UnknownSelection`,
                    `no selection named '${name}': use CLIPBOARD or PRIMARY`);
                return;
            }
            invocation.return_value(new GLib.Variant('(assus)',
                [state.types, state.appId, state.serial, state.origin]));
        });
    }

    ReadTypeAsync([name, serial, mime, fdIndex, maxBytes], invocation) {
        // Steal the descriptors out of the message: a copy left in its list would keep the caller's pipe open
        // until the garbage collector frees the message, and the caller would see no end of the data.
        const fdList = invocation.get_message().get_unix_fd_list();
        const fds = fdList ? fdList.steal_fds() : [];
        const fd = fdIndex < fds.length ? fds[fdIndex] : -1;
        fds.filter((_, index) => index !== fdIndex).forEach(other => GLib.close(other));
        if (fd < 0) {
            invocation.return_dbus_error(`${ERROR}.Failed`, 'no file descriptor came with the call');
            return;
        }
        const fail = (error, message) => {
            GLib.close(fd);
            invocation.return_dbus_error(`${ERROR}.${error}`, message);
        };
        this._fromDaemon(invocation, () => {
            const state = this._state[name];
            if (state === undefined) {
                fail('UnknownSelection', `no selection named '${name}': use CLIPBOARD or PRIMARY`);
                return;
            }
            if (state.serial !== serial) {
                fail('Stale', `the ${name} owner changed: serial ${serial} is now ${state.serial}`);
                return;
            }
            if (PSEUDO_TYPES.has(mime) || !state.types.includes(mime)) {
                fail('NotOffered', `the ${name} owner does not offer '${mime}'`);
                return;
            }
            const memory = Gio.MemoryOutputStream.new_resizable();
            this._selection.transfer_async(SELECTIONS[name], mime, -1, memory, null, (selection, result) => {
                try {
                    selection.transfer_finish(result);
                    memory.close(null);
                } catch (e) {
                    fail('Failed', `reading '${mime}' from the ${name} owner failed: ${e.message}`);
                    return;
                }
                if (this._state[name].serial !== serial) {
                    fail('Stale', `the ${name} owner changed while '${mime}' was read`);
                    return;
                }
                const bytes = memory.steal_as_bytes();
                const size = bytes.get_size();
                if (size > maxBytes) {
                    fail('TooLarge', `'${mime}' is larger than ${maxBytes} bytes`);
                    return;
                }
                invocation.return_value(new GLib.Variant('(t)', [size]));
                this._write(fd, bytes);
            });
        }, () => GLib.close(fd));
    }

    /* Writes bytes into fd without blocking the compositor (a pipe's reader may be slow), then closes it. */
    _write(fd, bytes) {
        try {
            GLib.unix_set_fd_nonblocking(fd, true);
        } catch (e) {
            // A regular file or memfd: writes do not block for long.
        }
        const output = new Gio.UnixOutputStream({ fd, close_fd: true });
        const input = Gio.MemoryInputStream.new_from_bytes(bytes);
        output.splice_async(input,
            Gio.OutputStreamSpliceFlags.CLOSE_SOURCE | Gio.OutputStreamSpliceFlags.CLOSE_TARGET,
            GLib.PRIORITY_DEFAULT, null, (stream, result) => {
                try {
                    stream.splice_finish(result);
                } catch (e) {
                    log(`pasteboard: writing a type to the daemon failed: ${e.message}`);
                    stream.close(null);
                }
            });
    }

    PasteAsync([key], invocation) {
        this._fromDaemon(invocation, () => {
            const keys = PASTE_KEYS[key];
            if (keys === undefined) {
                invocation.return_dbus_error(`${ERROR}.UnknownKey`,
                    `no paste key '${key}': use ${Object.keys(PASTE_KEYS).join(', ')}`);
                return;
            }
            let time = GLib.get_monotonic_time();
            for (const keyval of keys)
                this._keyboard.notify_keyval(time++, keyval, Clutter.KeyState.PRESSED);
            for (const keyval of [...keys].reverse())
                this._keyboard.notify_keyval(time++, keyval, Clutter.KeyState.RELEASED);
            invocation.return_value(null);
        });
    }

    /* Leaves a selection empty when `serial` still names its owner: an empty text of this extension's becomes the
     * owner. (Unsetting mutter's saved copy would only make mutter offer it again.) */
    ClearAsync([name, serial], invocation) {
        this._fromDaemon(invocation, () => {
            const state = this._state[name];
            if (state === undefined) {
                invocation.return_dbus_error(`${ERROR}.UnknownSelection`,
                    `no selection named '${name}': use CLIPBOARD or PRIMARY`);
                return;
            }
            if (state.serial !== serial) {
                invocation.return_dbus_error(`${ERROR}.Stale`,
                    `the ${name} owner changed: serial ${serial} is now ${state.serial}`);
                return;
            }
            this._setOwnSource(name, 'text/plain;charset=utf-8', new GLib.Bytes(new Uint8Array(0)));
            invocation.return_value(null);
        });
    }

    /* Serves one type from the shell's memory (where no X11 owner can serve every type): reads `size` bytes from
     * `fd`, then owns the selection with them. */
    OfferAsync([name, mime, fdIndex, size], invocation) {
        const fdList = invocation.get_message().get_unix_fd_list();
        const fds = fdList ? fdList.steal_fds() : [];
        const fd = fdIndex < fds.length ? fds[fdIndex] : -1;
        fds.filter((_, index) => index !== fdIndex).forEach(other => GLib.close(other));
        if (fd < 0) {
            invocation.return_dbus_error(`${ERROR}.Failed`, 'no file descriptor came with the call');
            return;
        }
        this._fromDaemon(invocation, () => {
            if (SELECTIONS[name] === undefined) {
                GLib.close(fd);
                invocation.return_dbus_error(`${ERROR}.UnknownSelection`,
                    `no selection named '${name}': use CLIPBOARD or PRIMARY`);
                return;
            }
            if (size > OFFER_LIMIT || mime === '' || PSEUDO_TYPES.has(mime)) {
                GLib.close(fd);
                invocation.return_dbus_error(`${ERROR}.TooLarge`,
                    `only one data type of up to ${OFFER_LIMIT} bytes can be offered from the shell`);
                return;
            }
            // The caller is the daemon, which writes `size` bytes and closes its end (a pipe, a file or a memfd).
            const input = new Gio.UnixInputStream({ fd, close_fd: true });
            const memory = Gio.MemoryOutputStream.new_resizable();
            memory.splice_async(input,
                Gio.OutputStreamSpliceFlags.CLOSE_SOURCE | Gio.OutputStreamSpliceFlags.CLOSE_TARGET,
                GLib.PRIORITY_DEFAULT, null, (stream, result) => {
                    try {
                        stream.splice_finish(result);
                    } catch (e) {
                        invocation.return_dbus_error(`${ERROR}.Failed`, `reading the offer failed: ${e.message}`);
                        return;
                    }
                    const bytes = memory.steal_as_bytes();
                    if (bytes.get_size() !== size) {
                        invocation.return_dbus_error(`${ERROR}.Failed`,
                            `the offer has ${bytes.get_size()} bytes, not ${size}`);
                        return;
                    }
                    this._setOwnSource(name, mime, bytes);
                    invocation.return_value(null);
                });
        }, () => GLib.close(fd));
    }
}

/* The focused application's id: its desktop id (without '.desktop') when the shell knows the application, else
 * the window's Wayland app_id (or X11 WM_CLASS: both are the WM class to mutter); '' when no window has the focus. */
function focusedAppId() {
    const window = global.display.get_focus_window();
    if (window === null)
        return '';
    const app = Shell.WindowTracker.get_default().get_window_app(window);
    if (app !== null && !app.is_window_backed())
        return app.get_id().replace(/\.desktop$/, '');
    return window.get_wm_class() || window.get_gtk_application_id() || '';
}

export default class PasteboardExtension extends Extension {
    enable() {
        this._pasteboard = new Pasteboard();
        this._pasteboard.enable();
    }

    disable() {
        this._pasteboard.disable();
        this._pasteboard = null;
    }
}

"""#

    static let moduleMetadata = #"""
{
  "uuid": "pasteboard@pasteboard.org",
  "name": "Pasteboard",
  "description": "Lets the pb clipboard daemon see every copy on GNOME (CLIPBOARD and PRIMARY, every type, the copying application) and paste into the focused window. It answers only the daemon's bus name.",
  "shell-version": [
    "45",
    "46",
    "47",
    "48",
    "49"
  ],
  "version": 2
}

"""#
}
