#!/usr/bin/env bash
# Makes the README's screenshots of the Pasteboard History window (docs/app-main.png, docs/app-list.png,
# docs/app-allow-paste.png, docs/app-popup.png): a private
# Xvfb, a fresh store seeded with `pb copy`, the app driven with xdotool, `import -window root`, cropped to the window.
#
# Usage: scripts/app-screenshots.sh [BUILD_DIR]     (default .build/debug; needs Xvfb, xdotool, ImageMagick)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/.build/debug}
work=$(mktemp -d /tmp/pb-shots-XXXXXX)
display=:$((200 + RANDOM % 50))
Xvfb "$display" -screen 0 1024x768x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
app=
daemon=
cleanup() {
    [ -n "$app" ] && kill "$app" 2>/dev/null
    [ -n "$daemon" ] && kill "$daemon" 2>/dev/null
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
DISPLAY=$display "$bin/pb" daemon >/dev/null 2>&1 &
daemon=$!
for _ in $(seq 100); do [ -S "$work/run/control.sock" ] && break; sleep 0.05; done

shoot() { # NAME
    sleep 0.6
    xdotool mousemove 1020 764
    sleep 0.2
    import -window root -crop 980x640+0+0 +repage "$root/docs/$1.png"
    echo "docs/$1.png"
}

start() { # extra environment
    env DISPLAY="$display" "$@" "$bin/pasteboard-gtk" >/dev/null 2>&1 &
    app=$!
    export DISPLAY=$display
    xdotool search --sync --name '^Pasteboard History$' windowfocus --sync >/dev/null
    sleep 0.8
}

mkdir -p "$work/state/pasteboard" && printf 'layout = strip\n' > "$work/state/pasteboard/app-state"
start
xdotool key ctrl+f Down Right Right Right
shoot app-main
kill "$app"; wait "$app" 2>/dev/null || true; app=

printf 'layout = list\n' > "$work/state/pasteboard/app-state"
start GTK_THEME=Adwaita:dark
xdotool key ctrl+f Down Down Down
shoot app-list
kill "$app"; wait "$app" 2>/dev/null || true; app=

# Allow Paste: an item copied with --ask, and xclip asking to paste it.
printf 'layout = strip\n' > "$work/state/pasteboard/app-state"
start
printf 'correct horse battery staple' | "$bin/pb" copy --ask 2>/dev/null
xclip -selection clipboard -o >/dev/null 2>&1 &
reader=$!
xdotool search --sync --name '^Allow Paste$' >/dev/null
shoot app-allow-paste
kill "$reader" 2>/dev/null || true
kill "$app"; wait "$app" 2>/dev/null || true; app=

# The popup at the pointer, over the main window, filtering.
start
xdotool mousemove 520 180
env DISPLAY="$display" "$bin/pasteboard-gtk" --popup >/dev/null 2>&1 &
popup=$!
xdotool search --sync --name '^Pasteboard Popup$' windowfocus --sync >/dev/null
sleep 0.6
xdotool type --delay 30 'http'
sleep 0.6
import -window root -crop 980x640+0+0 +repage "$root/docs/app-popup.png"
echo "docs/app-popup.png"
kill "$popup" 2>/dev/null || true
