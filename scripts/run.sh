#!/usr/bin/env bash
# `make run`: with a display, the daemon in the background and the Pasteboard History window in front (closing the
# window stops the daemon this started; one already running is left alone); headless, the daemon alone.
#
# Usage: scripts/run.sh [BUILD_DIR]     (default .build/release)
set -uo pipefail
bin=${1:-$(cd "$(dirname "$0")/.." && pwd)/.build/release}
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
    exec "$bin/pb" daemon
fi
daemon=
if "$bin/pb" doctor 2>/dev/null | grep -q '^daemon:   running'; then
    echo "A daemon is already running; opening the window."
else
    "$bin/pb" daemon &
    daemon=$!
fi
"$bin/pasteboard-gtk"
status=$?
if [ -n "$daemon" ]; then
    kill "$daemon" 2>/dev/null
    wait "$daemon" 2>/dev/null
fi
exit $status
