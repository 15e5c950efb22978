/// The keys a paste keystroke needs, in a keymap of their own that `VirtualKeyboard` uploads: Ctrl, Shift, V and
/// Insert, nothing else. A keymap this small types the same chord whatever layout the user's keyboard has (a
/// virtual keyboard brings its own; the compositor hands it to the focused client with the keys).
enum PasteKeymap {
    /// One key: its Linux evdev code (what `key` requests carry; the keymap's keycode is 8 more) and, for a
    /// modifier, its bit in the modifier masks (xkbcommon numbers the real modifiers Shift 0, Lock 1, Control 2).
    struct Key: Equatable {
        let evdev: UInt32
        let modifier: UInt32
    }

    /// The keys by X keysym name, the names `PasteKeystroke` gives.
    static let keys: [String: Key] = [
        "Shift_L": Key(evdev: 42, modifier: 1 << 0),
        "Control_L": Key(evdev: 29, modifier: 1 << 2),
        "v": Key(evdev: 47, modifier: 0),
        "Insert": Key(evdev: 110, modifier: 0),
    ]

    /// The keymap in xkb v1 text: keycodes, two key types, the modifier actions and the symbols.
    static let text = """
        xkb_keymap {
        xkb_keycodes "pasteboard" {
            minimum = 8;
            maximum = 255;
            <LFSH> = 50;
            <LCTL> = 37;
            <AB04> = 55;
            <INS> = 118;
        };
        xkb_types "pasteboard" {
            type "ONE_LEVEL" {
                modifiers = none;
                level_name[Level1] = "Any";
            };
            type "ALPHABETIC" {
                modifiers = Shift+Lock;
                map[Shift] = Level2;
                map[Lock] = Level2;
                level_name[Level1] = "Base";
                level_name[Level2] = "Caps";
            };
        };
        xkb_compatibility "pasteboard" {
            interpret Shift_L { action = SetMods(modifiers = Shift); };
            interpret Control_L { action = SetMods(modifiers = Control); };
        };
        xkb_symbols "pasteboard" {
            key <LFSH> { type = "ONE_LEVEL", [ Shift_L ] };
            key <LCTL> { type = "ONE_LEVEL", [ Control_L ] };
            key <AB04> { type = "ALPHABETIC", [ v, V ] };
            key <INS> { type = "ONE_LEVEL", [ Insert ] };
            modifier_map Shift { <LFSH> };
            modifier_map Control { <LCTL> };
        };
        };

        """
}
