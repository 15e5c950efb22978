# Pasteboard: build, run, test, install, benchmark.
#   make run      install missing Debian packages, build (release), run `pb daemon` in the foreground
#   make test     build and run every test
#   make install  install pb, the pbcopy/pbpaste links and shell completions under $(PREFIX)
#   make app      build the Pasteboard History window (pasteboard-gtk, release); install-app puts it on $(PREFIX)
#   make bench    run the benchmarks in bench/ (see bench/README.md)
#   make deb      build the Debian package dist/pasteboard_<version>_amd64.deb (test-deb: try it on a clean Debian 12)

PREFIX ?= /usr/local
SWIFT ?= swift
DEB_PACKAGES := libsqlite3-dev sqlite3 libx11-dev libxfixes-dev libxres-dev libxtst-dev zlib1g-dev libzstd-dev libgtk-4-dev \
	libwayland-dev libsodium-dev libxext-dev libstdc++-12-dev pkg-config binutils libtesseract-dev tesseract-ocr-eng
# The X11 tests' peers: real toolkits (through the system Python), CopyQ, Chromium, xdotool to drive them;
# tmux for the terminal picker, xterm (sixel) and chafa for its image previews, fzf, rofi and dmenu
# (suckless-tools), wofi and fuzzel for the launcher round trips; ImageMagick for screenshots; headless sway,
# wl-clipboard and wtype (a key press for GTK on Wayland) for the Wayland tests, foot for pb pick --paste there;
# Syncthing (driven with curl and jq) for sync; strace to see that pb import syncs its commit; XWayland and xhost
# for the XWayland tests, useradd (passwd) and runuser (util-linux) for the unprivileged user sway runs as; the
# fidelity suite's applications and desktops (Firefox ESR, LibreOffice, pcmanfm, openbox, KWin, Qt's Wayland
# plugin, xprop from x11-utils, a private session bus).
TEST_PACKAGES := xvfb xclip xsel python3-gi gir1.2-gtk-3.0 gir1.2-gtk-4.0 python3-pyqt5 copyq chromium xdotool \
	imagemagick tmux xterm chafa fzf rofi suckless-tools wofi fuzzel sway wl-clipboard wtype foot libwayland-bin \
	syncthing curl jq strace xwayland x11-xserver-utils passwd util-linux gcc \
	firefox-esr epiphany-browser libreoffice-writer libreoffice-calc pcmanfm openbox kwin-wayland qtwayland5 x11-utils \
	dbus dbus-x11 gnome-shell mutter gjs gsettings-desktop-schemas libglib2.0-bin \
	python3-pyatspi at-spi2-core
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run build app ocr test test-release test-deps deps install install-app uninstall bench clean deb test-deb packaging-deps

deps:
	@missing=""; for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "Installing Debian packages:$$missing"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $$missing; \
	fi

# pb with the Swift runtime and Foundation linked in: it needs no toolchain to run and starts faster with less memory
# (bench/startup_bench.py). bfd packs the relative relocations (gold cannot; binutils 2.38 and glibc 2.36, as in
# Debian 12); --wrap=mktemp: see Sources/CStaticFoundation/mktemp.c. --disable-local-rpath: no $$ORIGIN run path,
# since nothing is loaded from beside pb (without it the loader first looks there for each of the 15 system libraries).
# No -z relro: the static Swift libraries' objects have writable .rodata sections, so bfd puts .rodata in the
# writable segment and makes no RELRO segment whatever the flag (packaging/lintian-overrides); nor -z now, which binds
# every symbol at start and made `pb --version` take almost twice as long.
# XTest, XRes and libstdc++ are linked in from their static archives (scripts/static_libs.sh says why and how): each
# shared library costs every start its own load and relocations. SQLite, libsodium, zlib and Zstandard are Debian's shared
# libraries, so that their security updates reach pb (README, "Linking").
STATIC_RUNTIME := --static-swift-stdlib --disable-local-rpath -Xswiftc -use-ld=bfd -Xlinker -z -Xlinker pack-relative-relocs \
	-Xlinker --wrap=mktemp
STATIC_LIBS := $(CURDIR)/.build/static-libs
STATIC_LINK := -Xlinker -L$(STATIC_LIBS) -Xlinker -lXext

# scripts/check_essentials.py: pb links FoundationEssentials only (no CoreFoundation or ICU), and says what broke that.
build: deps
	bash scripts/static_libs.sh $(STATIC_LIBS)
	PKG_CONFIG_PATH=$(STATIC_LIBS) $(SWIFT) build -c release --product pb $(STATIC_RUNTIME) $(STATIC_LINK)
	python3 scripts/check_essentials.py .build/release/pb
	python3 scripts/check_linkage.py .build/release/pb

# With a display: the daemon and the Pasteboard History window (scripts/run.sh); headless: the daemon alone.
run: build ocr
	@echo "pb is at $$(pwd)/.build/release/pb (or 'make install' to put it on your PATH)."
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ]; then $(MAKE) --no-print-directory app; fi
	scripts/run.sh .build/release

test-deps:
	@missing=""; for p in $(DEB_PACKAGES) $(TEST_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "Installing Debian packages:$$missing"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $$missing; \
	fi

# In three runs: the suites that time how the daemon stops and serves under stress (Reliability, and the system
# pasteboard's 1 GiB transfer) first, then the ones that compute, then all the others. Swift Testing starts every
# suite of a run at once, and on a two-core machine a hundred suites' X servers, compositors and daemons starving each
# other turn a 1 s promise into a coin toss; each run still runs its own tests in parallel.
HEAVY_SUITES := ReliabilityTests|PasteboardSystemTests
# Then the suites that compute for seconds without awaiting anything (searches over ten thousand items, engines
# joining thousands of entries): a synchronous test holds one of the cooperative pool's two threads all the while,
# and two of them at once leave every other test of the run unable to look at its daemon for seconds.
COMPUTE_SUITES := \.(SearchBlocksTests|SearchBlocksBackfillTests|ParallelScanTests|HistoryStoreSearchTests|HistoryListModelTests|KeyFilterTests|SyncEngineTests|CompactionTests|SnapshotTests|ConvergenceTests|PlacementSliceTests|StraightJoinTests|SnapshotStreamingTests|LinearTimeTests)/

test: test-deps
	$(SWIFT) build --build-tests
	python3 scripts/check_essentials.py .build/debug/pb
	python3 scripts/check_layers.py
	python3 scripts/gnome_extension.py --check
	$(SWIFT) test --skip-build --filter '$(HEAVY_SUITES)'
	$(SWIFT) test --skip-build --filter '$(COMPUTE_SUITES)'
	$(SWIFT) test --skip-build --skip '$(HEAVY_SUITES)' --skip '$(COMPUTE_SUITES)'
	$(MAKE) --no-print-directory test-apps
	$(MAKE) --no-print-directory compat

# The pb that `make build` links (static runtime, libstdc++, XTest, XRes) through the suites that run pb as a
# program: the command line (SQLite, FTS5, zlib's PNG path, XTest paste) and sync (libsodium), so a static link that
# builds but misbehaves fails here. CI runs it after `make test`.
RELEASE_SUITES := PasteboardCLITests|PasteboardSyncTests
test-release: build ocr
	$(SWIFT) build --build-tests
	PB_BINARY=$(CURDIR)/.build/release/pb $(SWIFT) test --skip-build --filter '$(RELEASE_SUITES)'

# Code written for Apple's CoreTransferable, with only its imports changed, builds against PasteboardKit
# in Swift 5 and Swift 6 language modes (Tests/AppleCompat, a package of its own) and runs.
# The differential fidelity suite (Tests/Apps/, issue 23): real applications (a GTK 4 and a Qt 5 window, Firefox
# ESR, Chromium, LibreOffice Writer and Calc, pcmanfm) copy on X11, sway and KWin, once without a clipboard manager
# and once with pb daemon, and what a reader gets is compared type by type. The results then must match
# docs/fidelity.md; after a change, regenerate it with `python3 scripts/fidelity_table.py $(FIDELITY_RESULTS)`.
# The system Python runs it (python3-gi and PyQt5 live there).
FIDELITY_RESULTS := .build/fidelity-results.json

.PHONY: test-apps
test-apps:
	$(SWIFT) build --product pb
	$(SWIFT) build --product pasteboard-gtk
	@status=0; \
	PB_BINARY=$(CURDIR)/.build/debug/pb /usr/bin/python3 Tests/Apps/fidelity.py --desktop all \
		--results $(FIDELITY_RESULTS) || status=1; \
	python3 scripts/fidelity_table.py $(FIDELITY_RESULTS) --check || status=1; \
	PB_BINARY=$(CURDIR)/.build/debug/pb /usr/bin/python3 Tests/Apps/restore_paste.py --desktop all || status=1; \
	/usr/bin/python3 Tests/Apps/a11y.py --app $(CURDIR)/.build/debug/pasteboard-gtk --pb $(CURDIR)/.build/debug/pb || status=1; \
	/usr/bin/python3 Tests/Apps/gnome_extension.py || status=1; \
	/usr/bin/python3 Tests/Apps/gnome_pb.py --pb $(CURDIR)/.build/debug/pb || status=1; \
	exit $$status

.PHONY: compat
compat: deps
	$(SWIFT) build --package-path Tests/AppleCompat --scratch-path .build/apple-compat
	.build/apple-compat/debug/apple-compat-swift5
	.build/apple-compat/debug/apple-compat-swift6

install: build ocr
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 .build/release/pb $(DESTDIR)$(PREFIX)/bin/pb
	install -m 0755 .build/release/pasteboard-ocr $(DESTDIR)$(PREFIX)/bin/pasteboard-ocr
	ln -sf pb $(DESTDIR)$(PREFIX)/bin/pbcopy
	ln -sf pb $(DESTDIR)$(PREFIX)/bin/pbpaste
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	.build/release/pb completions bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/pb
	.build/release/pb completions zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_pb
	.build/release/pb completions fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/pb.fish
	install -d $(DESTDIR)$(PREFIX)/share/applications $(DESTDIR)$(PREFIX)/share/icons/hicolor/scalable/apps
	install -m 0644 contrib/pasteboard-history.desktop $(DESTDIR)$(PREFIX)/share/applications/pasteboard-history.desktop
	install -m 0644 contrib/pasteboard-history.svg $(DESTDIR)$(PREFIX)/share/icons/hicolor/scalable/apps/pasteboard-history.svg
	# KWin lets pb type the paste keystroke (org_kde_kwin_fake_input) only by a .desktop file whose Exec= is pb.
	sed 's|^Exec=.*|Exec=$(PREFIX)/bin/pb|' contrib/pb-paste.desktop > $(DESTDIR)$(PREFIX)/share/applications/pb-paste.desktop
	# The GNOME Shell extension, for every user (each still enables it: pb gnome-extension install). Without GNOME
	# Shell here to ask its version, the ES-module variant of GNOME 45 and later.
	.build/release/pb gnome-extension install --dir $(DESTDIR)$(PREFIX)/share/gnome-shell/extensions \
		$$(gnome-shell --version >/dev/null 2>&1 || echo --shell-version 45)

# The window, linked as pb is (the Swift runtime and Foundation in it, so it needs no toolchain to run); the same
# flags as `make build`, so the two share one release build.
app: deps
	bash scripts/static_libs.sh $(STATIC_LIBS)
	PKG_CONFIG_PATH=$(STATIC_LIBS) $(SWIFT) build -c release --product pasteboard-gtk $(STATIC_RUNTIME) $(STATIC_LINK)
	python3 scripts/check_linkage.py --app .build/release/pasteboard-gtk
	$(MAKE) --no-print-directory ocr

# The daemon's text recognizer (libtesseract-dev), beside pb: the daemon looks for it there ("Words in images").
ocr: deps
	$(SWIFT) build -c release --product pasteboard-ocr $(STATIC_RUNTIME)

install-app: app install
	install -m 0755 .build/release/pasteboard-gtk $(DESTDIR)$(PREFIX)/bin/pasteboard-gtk

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/pb $(DESTDIR)$(PREFIX)/bin/pbcopy $(DESTDIR)$(PREFIX)/bin/pbpaste
	rm -f $(DESTDIR)$(PREFIX)/bin/pasteboard-gtk $(DESTDIR)$(PREFIX)/bin/pasteboard-ocr $(DESTDIR)$(PREFIX)/share/applications/pasteboard-history.desktop
	rm -f $(DESTDIR)$(PREFIX)/share/applications/pb-paste.desktop
	rm -rf $(DESTDIR)$(PREFIX)/share/gnome-shell/extensions/pasteboard@pasteboard.org
	rm -f $(DESTDIR)$(PREFIX)/share/icons/hicolor/scalable/apps/pasteboard-history.svg
	rm -f $(DESTDIR)$(PREFIX)/share/bash-completion/completions/pb $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_pb $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/pb.fish

# The Debian package (packaging/build_deb.py says what it holds), from the release pb and pasteboard-gtk, checked by
# lintian (no errors; packaging/lintian-overrides holds the justified overrides). The version is the one the programs
# print: Sources/PasteboardModel/PasteboardVersion.swift.
VERSION := $(shell sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/PasteboardModel/PasteboardVersion.swift)
DEB := dist/pasteboard_$(VERSION)_amd64.deb
PACKAGING_TOOLS := dpkg-dev lintian appstream debootstrap

packaging-deps:
	@missing=""; for p in $(PACKAGING_TOOLS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "Installing Debian packages:$$missing"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $$missing; \
	fi

deb: build app packaging-deps
	python3 packaging/build_deb.py --pb .build/release/pb --app .build/release/pasteboard-gtk --ocr .build/release/pasteboard-ocr --out dist
	lintian --fail-on error $(DEB)

# The package on a clean, minimal Debian 12 (debootstrap, cached in /var/cache/pasteboard-ci): install, run, remove,
# and an upgrade from an older version (the same package, labelled lower) that keeps the store. CI runs it.
test-deb: deb
	$(SUDO) python3 packaging/test_deb.py --deb $(DEB) --old-version $(VERSION)~upgrade.test

bench: build
	python3 bench/history_bench.py
	python3 bench/startup_bench.py

clean:
	rm -rf .build dist
