#!/usr/bin/env bash
# Makes the README's screenshots of the Pasteboard History window, from a fresh store seeded with `pb copy`:
# - on X11, a private Xvfb, the app driven with xdotool, `import` cropped to the window: docs/app-main.png (the
#   strip), docs/app-list.png (the list, dark theme), docs/app-marks.png (three items marked for a paste stack),
#   docs/app-search.png (a search, matches in bold), docs/app-settings.png (the settings window),
#   docs/app-allow-paste.png and docs/app-popup.png;
# - on Wayland, a private headless sway (as the unprivileged user `pbsway` when run as root: sway refuses root),
#   the app driven with wtype, `grim` cropped to the window: docs/app-wayland.png (dark theme).
#
# Usage: scripts/app-screenshots.sh [BUILD_DIR]     (default .build/debug)
# Needs Xvfb, xdotool, xclip, ImageMagick, sway, swaymsg, wtype, grim (and useradd, runuser when run as root).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/.build/debug}
for tool in Xvfb xdotool xclip convert import sway swaymsg wtype grim; do
    command -v "$tool" >/dev/null || { echo "app-screenshots: $tool is missing (install it)" >&2; exit 1; }
done
for binary in pb pasteboard-gtk; do
    [ -x "$bin/$binary" ] || { echo "app-screenshots: no $bin/$binary (swift build --product $binary)" >&2; exit 1; }
done
work=$(mktemp -d /tmp/pb-shots-XXXXXX)
display=:$((200 + RANDOM % 50))
Xvfb "$display" -screen 0 1024x768x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
app=
daemon=
sway=
cleanup() {
    [ -n "$app" ] && kill "$app" 2>/dev/null
    [ -n "$daemon" ] && kill "$daemon" 2>/dev/null
    [ -n "$sway" ] && kill -- -"$sway" 2>/dev/null
    kill "$xvfb" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work"/{data,config,run,home,state}
export XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/config XDG_RUNTIME_DIR=$work/run PB_RUNTIME_DIR=$work/run \
    HOME=$work/home XDG_STATE_HOME=$work/state LANG=C.UTF-8 GSK_RENDERER=cairo GTK_A11Y=none
sleep 0.5

seed() { printf '%s' "$1" | env -u DISPLAY "$bin/pb" copy; }
convert -size 400x260 plasma:fractal -seed 7 "$work/plasma.png" 2>/dev/null || convert -size 400x260 gradient:'#3584e4-#c061cb' "$work/plasma.png"
convert rose: -resize 300x200 "$work/rose.png"
env -u DISPLAY "$bin/pb" copy "$work/rose.png"
seed "https://www.swift.org/documentation/"
seed $'Meeting notes, Tuesday\n- ship the GTK app\n- benchmark a million items\n- write the README section'
seed "ssh -L 8080:localhost:80 build@ci.example.org"
env -u DISPLAY "$bin/pb" copy "$work/plasma.png"
seed "The quick brown fox jumps over the lazy dog."
seed "https://github.com/swiftlang/swift-foundation"
seed $'func greet(_ name: String) -> String {\n    "Hello, \\(name)!"\n}'
env -u DISPLAY "$bin/pb" pin 3 >/dev/null
start_daemon() { # display environment (DISPLAY=... or WAYLAND_DISPLAY=...)
    env -u DISPLAY "$@" "$bin/pb" daemon >/dev/null 2>&1 &
    daemon=$!
    for _ in $(seq 100); do [ -S "$work/run/control.sock" ] && break; sleep 0.05; done
    [ -S "$work/run/control.sock" ] || { echo "app-screenshots: pb daemon did not start" >&2; exit 1; }
}
stop_daemon() {
    kill "$daemon"; wait "$daemon" 2>/dev/null || true; daemon=
    for _ in $(seq 100); do [ -S "$work/run/control.sock" ] || break; sleep 0.05; done
}
start_daemon DISPLAY="$display"

# The PNG written three times smaller: no metadata, a palette of 256 colours without dithering (the text and
# controls look the same; only the photo-like test image bands a little).
crush() { # FILE
    convert "$1" -strip +dither -colors 256 -define png:compression-level=9 "PNG8:$1.new.png" && mv "$1.new.png" "$1"
}

shoot() { # NAME [GEOMETRY]
    sleep 0.6
    xdotool mousemove 1020 764
    sleep 0.2
    import -window root -crop "${2:-980x640+0+0}" +repage "$root/docs/$1.png"
    crush "$root/docs/$1.png"
    echo "docs/$1.png"
}

stop() {
    kill "$app"; wait "$app" 2>/dev/null || true; app=
}

start() { # extra environment
    env DISPLAY="$display" "$@" "$bin/pasteboard-gtk" >/dev/null 2>&1 &
    app=$!
    export DISPLAY=$display
    xdotool search --sync --onlyvisible --name '^Pasteboard History$' windowfocus --sync >/dev/null
    sleep 0.8
}

mkdir -p "$work/state/pasteboard" && printf 'layout = strip\n' > "$work/state/pasteboard/app-state"
start
xdotool key ctrl+f Down Right Right Right
shoot app-main
stop

# A paste stack: three items marked with Ctrl+Space, numbered in the order marked, and the marks bar.
start
xdotool key ctrl+f Down ctrl+space Right Right ctrl+space Right Right ctrl+space
shoot app-marks
stop

# The settings window (Ctrl+,), cropped to it. Its status line names the configuration file: as root, the app runs
# in a private mount namespace where the scratch home is /home/you, so the line reads as on a desktop.
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
    mkdir -p "$work/home/.config/pasteboard"
    env DISPLAY="$display" unshare --mount sh -c 'mount -t tmpfs none /home && mkdir /home/you &&
        mount --bind "$1" /home/you && exec env HOME=/home/you XDG_CONFIG_HOME=/home/you/.config "$2"' \
        sh "$work/home" "$bin/pasteboard-gtk" >/dev/null 2>&1 &
    app=$!
    export DISPLAY=$display
    xdotool search --sync --onlyvisible --name '^Pasteboard History$' windowfocus --sync >/dev/null
    sleep 0.8
else
    start
fi
xdotool key ctrl+comma
settings=$(xdotool search --sync --onlyvisible --name '^Pasteboard Settings$' | head -1)
xdotool windowfocus --sync "$settings" >/dev/null 2>&1 || true
sleep 0.8
eval "$(xdotool getwindowgeometry --shell "$settings")"
shoot app-settings "${WIDTH}x${HEIGHT}+${X}+${Y}"
stop

printf 'layout = list\n' > "$work/state/pasteboard/app-state"
start GTK_THEME=Adwaita:dark
xdotool key ctrl+f Down Down Down
shoot app-list
stop

# A search in the list layout: the matching part of each row in bold.
start
xdotool key ctrl+f
xdotool type --delay 40 'swift'
sleep 0.6
xdotool key Down
shoot app-search
stop

# Wayland: a headless sway whose one output is the window's size, the window tiled in it under sway's title bar, in
# the dark theme. sway refuses to run as root: as root it runs as the system user pbsway (created if missing, as
# the tests do); the daemon, the app, wtype and grim connect to its socket by path.
stop_daemon
sway_user=
if [ "$(id -u)" = 0 ]; then
    sway_user=pbsway
    id "$sway_user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$sway_user"
    chmod 711 "$work"
fi
sway_run=$work/sway
mkdir -m 700 "$sway_run"
[ -n "$sway_user" ] && chown "$sway_user" "$sway_run"
printf '%s\n' 'xwayland disable' 'output HEADLESS-1 resolution 1000x700 background #241f31 solid_color' \
    'default_border normal 2' 'focus_on_window_activation focus' > "$work/sway.config"
chmod 644 "$work/sway.config"
sway_env=(XDG_RUNTIME_DIR="$sway_run" WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1 PATH=/usr/bin:/bin)
if [ -n "$sway_user" ]; then
    setsid runuser -u "$sway_user" -- env -i "${sway_env[@]}" sway -c "$work/sway.config" >"$work/sway.log" 2>&1 &
else
    setsid env -i "${sway_env[@]}" sway -c "$work/sway.config" >"$work/sway.log" 2>&1 &
fi
sway=$!
for _ in $(seq 150); do [ -S "$sway_run/wayland-1" ] && break; sleep 0.1; done
[ -S "$sway_run/wayland-1" ] || { echo "app-screenshots: sway did not start: $(tail -3 "$work/sway.log")" >&2; exit 1; }
wayland=$sway_run/wayland-1
ipc() { swaymsg -s "$(ls "$sway_run"/sway-ipc.*.sock)" "$@"; }
start_daemon WAYLAND_DISPLAY="$wayland"

printf 'layout = strip\n' > "$work/state/pasteboard/app-state"
env -u DISPLAY WAYLAND_DISPLAY="$wayland" GDK_BACKEND=wayland GTK_THEME=Adwaita:dark "$bin/pasteboard-gtk" >/dev/null 2>&1 &
app=$!
shown() { ipc -t get_tree | grep -q '"name": "Pasteboard History"'; }
for _ in $(seq 100); do shown && break; sleep 0.1; done
shown || { echo "app-screenshots: the window did not open on sway" >&2; exit 1; }
sleep 1
# One wtype for all the keys: sway keeps a keyboard's Control down after that keyboard goes, so a second wtype's
# Right would be Ctrl+Right (which moves the focus without selecting).
WAYLAND_DISPLAY="$wayland" wtype -M ctrl -k f -m ctrl -s 150 -k Down -s 150 -k Right -k Right -k Right -k Right
sleep 1
WAYLAND_DISPLAY="$wayland" grim "$root/docs/app-wayland.png"
crush "$root/docs/app-wayland.png"
echo "docs/app-wayland.png"
stop
stop_daemon
kill -- -"$sway" 2>/dev/null || true; wait "$sway" 2>/dev/null || true; sway=
start_daemon DISPLAY="$display"

# Allow Paste: an item copied with --ask, and xclip asking to paste it.
printf 'layout = strip\n' > "$work/state/pasteboard/app-state"
start
printf 'correct horse battery staple' | "$bin/pb" copy --ask 2>/dev/null
xclip -selection clipboard -o >/dev/null 2>&1 &
reader=$!
# With no window manager the question opens in the corner: put it over the window, as a desktop would.
question=$(xdotool search --sync --onlyvisible --name '^Allow Paste$' | head -1)
xdotool windowmove --sync "$question" 270 220 >/dev/null 2>&1 || true
sleep 0.4
shoot app-allow-paste
kill "$reader" 2>/dev/null || true
stop

# The popup at the pointer, over the main window, filtering.
start
xdotool mousemove 520 180
env DISPLAY="$display" "$bin/pasteboard-gtk" --popup >/dev/null 2>&1 &
popup=$!
xdotool search --sync --onlyvisible --name '^Pasteboard Popup$' windowfocus --sync >/dev/null
sleep 0.6
xdotool type --delay 30 'http'
sleep 0.6
import -window root -crop 980x640+0+0 +repage "$root/docs/app-popup.png"
crush "$root/docs/app-popup.png"
echo "docs/app-popup.png"
kill "$popup" 2>/dev/null || true
stop
