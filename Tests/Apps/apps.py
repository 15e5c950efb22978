"""The applications of the fidelity suite, each driven as a user would: keyboard shortcuts and context menus sent
through the Desktop (desktop.key, type_text, focus), so that every driver runs on every desktop.

An App has a name, start(desktop, workdir), copy(index) -> a short description of what was copied, quit() -> how
it exited ("keyboard" or "SIGTERM"), and kill(). Class attributes tell the runner what to expect:
- copies: how many copies a scenario makes;
- same_as: {index: earlier index} for copies of the same selection again (their content is the same, so the
  history must hold them once);
- secrets: {index: text} for copies a page marked secret: with pb nothing of them may reach the history or the disk;
- paste_back(text) -> bool | None: pastes into the application (started anew, after the scenario) and says whether
  it got the text of the restored copy paste_copy (None: not possible).
"""

from __future__ import annotations

import base64
import os
import shutil
import struct
import subprocess
import sys
import time
import urllib.parse
import zlib

import harness
from harness import Desktop, SetupError, kill_group, require_tool, wait_until

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
sys.path.insert(0, FIXTURES)
import copier_content  # noqa: E402

# How long a context menu takes to open before its item can be chosen by key. Menus are override-redirect popups
# with no title to wait for; the runner sees a copy that did not land and says so.
MENU_PAUSE = 1.0
MENU_COPY_TIMEOUT = 3.0
# How long a browser's location bar takes to take the keyboard after Ctrl+L.
LOCATION_BAR_PAUSE = 0.3


# MARK: - Shared


def png(width: int, height: int, rgb: bytes) -> bytes:
    """A PNG of the RGB pixels, written with zlib alone."""
    rows = b"".join(b"\x00" + rgb[y * width * 3:(y + 1) * width * 3] for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def picture_png() -> bytes:
    return png(*copier_content.picture(5))


class App:
    name = "app"
    title = ""
    copies = 1
    paste_copy = 1  # the copy whose restored item paste_back pastes
    same_as: dict[int, int] = {}
    secrets: dict[int, str] = {}
    # The desktops it runs on; None: every one.
    desktops: tuple[str, ...] | None = None
    quit_chord = "ctrl+q"
    quit_timeout = 15.0
    start_timeout = 30.0

    def __init__(self) -> None:
        self.desktop: Desktop | None = None
        self.process: subprocess.Popen | None = None
        self.workdir = ""
        self.paste_note = ""
        self.copy_attempts: dict[int, int] = {}  # copies that needed more than one try (context menus)
        self._log = None

    # MARK: Life cycle

    def start(self, desktop: Desktop, workdir: str) -> None:
        raise NotImplementedError

    def copy(self, index: int) -> str:
        raise NotImplementedError

    def paste_back(self, text: str) -> bool | None:
        return None

    def launch(self, argv: list[str], env_extra: dict[str, str] | None = None, x11: bool = False) -> None:
        """Starts the application in its own process group, its output in NAME.log in the work directory. x11: it
        has no Wayland backend, so on a Wayland desktop it runs on XWayland (SetupError without XWayland)."""
        env = dict(self.desktop.client_env())
        if x11 and self.desktop.is_wayland():
            xwayland = self.desktop.xwayland_env()
            if xwayland is None:
                raise SetupError(f"{self.name} runs on X11 only here, and the {self.desktop.name} desktop has no "
                                 "XWayland (Desktop.xwayland_env)")
            env.update(xwayland)
        env.update(env_extra or {})
        self._log = open(os.path.join(self.workdir, f"{self.name}.log"), "ab")
        self.process = subprocess.Popen(argv, env=env, cwd=self.workdir, stdin=subprocess.DEVNULL, stdout=self._log,
                                        stderr=self._log, start_new_session=True)

    def wait_ready(self, title: str) -> None:
        """Waits for the application's window (failing at once when the application exits), then focuses it."""
        deadline = time.monotonic() + self.start_timeout
        while True:
            if self.process is not None and self.process.poll() is not None:
                raise SetupError(f"{self.name} exited at start with status {self.process.returncode} "
                                 f"(see {self.name}.log in the work directory){self.log_tail()}")
            try:
                self.desktop.wait_window(title, timeout=min(2.0, max(0.1, deadline - time.monotonic())))
                break
            except SetupError:
                if time.monotonic() >= deadline:
                    raise SetupError(f"no window of {self.name} titled '*{title}*' appeared within "
                                     f"{self.start_timeout:.0f} s") from None
        self.desktop.focus(title)

    def log_tail(self, lines: int = 8) -> str:
        """The log's last lines, GTK's repeated clipboard assertions left out, indented under an error's message;
        "" when there is nothing to show."""
        try:
            with open(os.path.join(self.workdir, f"{self.name}.log"), "rb") as file:
                text = file.read().decode("utf-8", "replace")
        except OSError:
            return ""
        noise = ("gtk_widget_get_clipboard", "gtk_clipboard_request_contents")
        kept = [line for line in text.splitlines() if line.strip() and not any(n in line for n in noise)]
        return "".join("\n    " + line[:300] for line in kept[-lines:])

    def quit(self) -> str:
        """Quits as a user would; SIGTERM when the application is still running after quit_timeout."""
        if self.process is None:
            return "not running"
        if self.process.poll() is None:
            try:
                self.desktop.focus(self.title, timeout=5)
                self.desktop.key(self.quit_chord)
            except SetupError:
                pass
            if wait_until(lambda: self.process.poll() is not None, self.quit_timeout, interval=0.01):
                self._close_log()
                return "keyboard"
        self.kill()
        return "SIGTERM"

    def kill(self) -> None:
        if self.process is not None:
            kill_group(self.process)
        self._close_log()

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def fresh_dir(self, name: str) -> str:
        path = os.path.join(self.workdir, name)
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
        return path


# MARK: - Toolkit copier windows


class Copier(App):
    """copier-gtk4.py / copier-qt5.py: new content at every Ctrl+C (fixtures/copier_content.py)."""

    toolkit = ""
    probe = ""
    packages = ""
    copies = 4
    start_timeout = 20.0

    def start(self, desktop: Desktop, workdir: str) -> None:
        self.desktop, self.workdir = desktop, workdir
        probe = harness.run(["/usr/bin/python3", "-c", self.probe], timeout=20)
        if probe is None or probe.returncode != 0:
            raise SetupError(f"the system Python cannot load {self.toolkit}: install {self.packages}")
        self.launch(["/usr/bin/python3", os.path.join(FIXTURES, f"copier-{self.toolkit}.py"), "--title", self.title])
        self.wait_ready(self.title)

    def copy(self, index: int) -> str:
        self.desktop.focus(self.title)
        self.desktop.key("ctrl+c")
        if self.toolkit == "gtk4" and index == copier_content.IMAGE_COPY:
            return "a picture (Ctrl+C)"
        return "text and HTML (Ctrl+C)"

    def paste_back(self, text: str) -> bool | None:
        self.desktop.focus(self.title)
        self.desktop.key("ctrl+v")
        try:
            self.desktop.wait_window(copier_content.pasted_title(self.title, text), timeout=5)
        except SetupError:
            active = getattr(self.desktop, "active_title", None)
            self.paste_note = f"the window's title is {active()!r}" if active else ""
            return False
        return True


class Gtk4Copier(Copier):
    name = "gtk4"
    toolkit = "gtk4"
    title = "pb-fidelity-gtk4"
    probe = 'import gi; gi.require_version("Gtk", "4.0"); from gi.repository import Gtk'
    packages = "python3-gi gir1.2-gtk-4.0"


class Qt5Copier(Copier):
    name = "qt5"
    toolkit = "qt5"
    title = "pb-fidelity-qt5"
    probe = "import PyQt5.QtWidgets"
    packages = "python3-pyqt5 (and qtwayland5 for Wayland)"


# MARK: - Browsers


SECRET_TEXT = "pb-fidelity-secret-Zq7Vw4"  # what fixtures/pages/secret.html copies


class Browser(App):
    """A browser on the pages of fixtures/pages: rich text (Select All, Copy), Copy Image and Copy Link from the
    context menu, a copy a page marks secret, then an ordinary copy on the next page."""

    copies = 5
    secrets = {4: SECRET_TEXT}
    paste_copy = 5
    start_timeout = 45.0

    def prepare_pages(self) -> str:
        pages = os.path.join(self.workdir, "pages")
        os.makedirs(pages, exist_ok=True)
        source = os.path.join(FIXTURES, "pages")
        for name in os.listdir(source):
            shutil.copyfile(os.path.join(source, name), os.path.join(pages, name))
        with open(os.path.join(pages, "picture.png"), "wb") as file:
            file.write(picture_png())
        return pages

    def url(self, page: str) -> str:
        return "file://" + os.path.join(self.workdir, "pages", page + ".html")

    def open_page(self, page: str, attempts: int = 3) -> None:
        """Types the page's address into the location bar, as a user would. Keys typed while the bar opens can be
        lost: a page whose title does not come (pages/page.js sets it only for the exact address) is typed again."""
        for attempt in range(1, attempts + 1):
            self.desktop.focus(self.title)
            self.desktop.key("ctrl+l")
            time.sleep(LOCATION_BAR_PAUSE)
            self.desktop.type_text(self.url(page))
            self.desktop.key("Delete")  # whatever the location bar proposed after the typed address
            self.desktop.key("Return")
            try:
                self.desktop.wait_window(f"pb-fidelity {page}", timeout=8)
            except SetupError:
                if attempt == attempts:
                    raise SetupError(f"{self.name} did not open {page}.html after typing its address "
                                     f"{attempts} times") from None
                self.desktop.key("Escape")
                continue
            self.desktop.focus(f"pb-fidelity {page}")
            return

    def select_all_and_copy(self, page: str) -> None:
        self.desktop.focus(f"pb-fidelity {page}")
        self.desktop.key("ctrl+a")
        self.desktop.key("ctrl+c")

    def context_menu_copy(self, index: int, keys: list[str], attempts: int = 3) -> None:
        """Opens the focused element's context menu with the menu key (Shift+F10) and chooses an item by keys. A
        menu has no title to wait for, and under load it may open after the keys were sent: when the clipboard has
        not changed at all, close what may be open and try again (the attempts are recorded). A copy that changed
        the clipboard is never repeated, so a copy pb loses still shows as lost."""
        for attempt in range(1, attempts + 1):
            before = harness.fingerprint(self.desktop)
            self.desktop.key("shift+F10")
            time.sleep(MENU_PAUSE)
            for key in keys:
                self.desktop.key(key)
            self.copy_attempts[index] = attempt
            if harness.wait_for_copy(self.desktop, before, MENU_COPY_TIMEOUT) is not None:
                return
            self.desktop.key("Escape")

    def copy(self, index: int) -> str:
        if index == 1:
            self.select_all_and_copy("rich")
            return "rich text (Select All, Copy)"
        if index == 2:
            self.open_page("media")
            self.context_menu_copy(index, self.copy_image_keys)
            return "Copy Image (context menu)"
        if index == 3:
            self.desktop.key("Tab")
            self.context_menu_copy(index, self.copy_link_keys)
            return "Copy Link (context menu)"
        if index == 4:
            self.open_page("secret")
            self.select_all_and_copy("secret")
            return "a copy the page marks secret (x-kde-passwordManagerHint)"
        self.open_page("plain")
        self.select_all_and_copy("plain")
        return "plain text on the next page (Select All, Copy)"

    def paste_back(self, text: str) -> bool | None:
        """Pastes into the text box of pages/paste.html, whose paste handler puts the text in the title."""
        self.open_page("paste")
        self.desktop.key("ctrl+v")
        expected = "pb-fidelity pasted " + urllib.parse.quote(text.replace("\r\n", "\n"), safe="-_.!~*'()")
        try:
            self.desktop.wait_window(expected, timeout=5)
        except SetupError:
            active = getattr(self.desktop, "active_title", None)
            self.paste_note = f"the window's title is {active()!r}" if active else ""
            return False
        return True


class Firefox(Browser):
    name = "firefox"
    title = "Mozilla Firefox"
    # The menu items' access keys: Cop_y Image, Copy _Link.
    copy_image_keys = ["y"]
    copy_link_keys = ["l"]

    # No first-run pages, no default-browser question, no telemetry or updates, no quit confirmation.
    USER_JS = {
        "browser.shell.checkDefaultBrowser": False,
        "browser.startup.homepage_override.mstone": "ignore",
        "startup.homepage_welcome_url": "",
        "startup.homepage_welcome_url.additional": "",
        "browser.aboutwelcome.enabled": False,
        "trailhead.firstrun.didSeeAboutWelcome": True,
        "browser.startup.firstrunSkipsHomepage": True,
        "datareporting.policy.dataSubmissionEnabled": False,
        "datareporting.healthreport.uploadEnabled": False,
        "toolkit.telemetry.reportingpolicy.firstRun": False,
        "browser.tabs.warnOnClose": False,
        "browser.warnOnQuit": False,
        "browser.warnOnQuitShortcut": False,
        "browser.sessionstore.resume_from_crash": False,
        "app.update.enabled": False,
        "extensions.update.enabled": False,
        "browser.translations.automaticallyPopup": False,
        "signon.rememberSignons": False,
        "browser.urlbar.autoFill": False,
        "browser.urlbar.suggest.history": False,
        "browser.urlbar.suggest.bookmark": False,
        "browser.urlbar.suggest.openpage": False,
        "browser.urlbar.suggest.topsites": False,
    }

    def start(self, desktop: Desktop, workdir: str) -> None:
        self.desktop, self.workdir = desktop, workdir
        binary = require_tool("firefox-esr", "firefox-esr")
        self.prepare_pages()
        profile = self.fresh_dir("firefox-profile")
        with open(os.path.join(profile, "user.js"), "w") as file:
            for key, value in self.USER_JS.items():
                literal = ("true" if value else "false") if isinstance(value, bool) else f'"{value}"'
                file.write(f'user_pref("{key}", {literal});\n')
        # No crash reporter: a crash at start is then a plain exit by signal, which run_pass retries.
        self.launch([binary, "--no-remote", "--profile", profile, self.url("rich")],
                    env_extra={"MOZ_CRASHREPORTER_DISABLE": "1"})
        self.wait_ready("pb-fidelity rich")


class Chromium(Browser):
    name = "chromium"
    title = "Chromium"
    quit_chord = "ctrl+shift+w"  # closes the window, the only one: Chromium exits
    # Chromium's menus have no access keys: Down selects the first item. Image menu: Open image in new tab, Save
    # image as…, Copy image. Link menu, from the bottom: Inspect, Copy link address.
    copy_image_keys = ["Down", "Down", "Down", "Return"]
    copy_link_keys = ["Up", "Up", "Return"]

    def start(self, desktop: Desktop, workdir: str) -> None:
        self.desktop, self.workdir = desktop, workdir
        binary = require_tool("chromium", "chromium")
        self.prepare_pages()
        profile = self.fresh_dir("chromium-profile")
        env = desktop.client_env()
        platform = getattr(desktop, "ozone_platform", None) or (
            "wayland" if env.get("WAYLAND_DISPLAY") and not env.get("DISPLAY") else "x11")
        argv = [binary, f"--user-data-dir={profile}", f"--ozone-platform={platform}", "--no-first-run",
                "--no-default-browser-check", "--disable-gpu", "--password-store=basic",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-features=Translate,MediaRouter", "--new-window"]
        if os.geteuid() == 0:
            argv.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
        argv.append(self.url("rich"))
        self.launch(argv)
        self.wait_ready("pb-fidelity rich")


class Epiphany(Browser):
    """GNOME Web (Epiphany, WebKitGTK), where a page's own clipboard types go inside
    `org.webkitgtk.WebKit.custom-pasteboard-data`: rich text, a copy the page marks secret, then an ordinary copy on
    the next page (its context menus are not driven). On X11 only: its Wayland window gets no keys from a headless
    seat's virtual keyboard here."""

    name = "epiphany"
    title = "pb-fidelity"
    copies = 3
    secrets = {2: SECRET_TEXT}
    paste_copy = 3
    desktops = ("x11",)

    def start(self, desktop: Desktop, workdir: str) -> None:
        self.desktop, self.workdir = desktop, workdir
        binary = require_tool("epiphany", "epiphany-browser")
        self.prepare_pages()
        profile = self.fresh_dir("epiphany-profile")
        # WebKit's sandbox (bubblewrap) cannot run as root, and its web process then crashes.
        env = {"WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS": "1"} if os.geteuid() == 0 else {}
        env["WEBKIT_DISABLE_COMPOSITING_MODE"] = "1"
        self.launch([binary, f"--profile={profile}", self.url("rich")], env_extra=env)
        self.wait_ready("pb-fidelity rich")

    def copy(self, index: int) -> str:
        if index == 1:
            self.select_all_and_copy("rich")
            return "rich text (Select All, Copy)"
        if index == 2:
            self.open_page("secret")
            self.select_all_and_copy("secret")
            return "a copy the page marks secret (x-kde-passwordManagerHint)"
        self.open_page("plain")
        self.select_all_and_copy("plain")
        return "plain text on the next page (Select All, Copy)"


# MARK: - LibreOffice


# A profile that starts straight into the document: no first-start wizard, tip of the day, recovery or autosave.
LIBREOFFICE_SETTINGS = [
    ("/org.openoffice.Setup/Office", "ooSetupInstCompleted", "true"),
    ("/org.openoffice.Setup/Office", "FirstStartWizardCompleted", "true"),
    ("/org.openoffice.Office.Common/Misc", "ShowTipOfTheDay", "false"),
    ("/org.openoffice.Office.Common/Misc", "FirstRun", "false"),
    ("/org.openoffice.Office.Common/Misc", "CrashReport", "false"),
    ("/org.openoffice.Office.Recovery/AutoSave", "Enabled", "false"),
    ("/org.openoffice.Office.Common/Save/Document", "WarnAlienFormat", "false"),
]


def libreoffice_registry() -> str:
    """registrymodifications.xcu with LIBREOFFICE_SETTINGS."""
    items = "".join(f'<item oor:path="{path}"><prop oor:name="{name}" oor:op="fuse"><value>{value}</value></prop>'
                    "</item>\n" for path, name, value in LIBREOFFICE_SETTINGS)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<oor:items xmlns:oor="http://openoffice.org/2001/registry" '
            'xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n'
            + items + "</oor:items>\n")


ODF_NAMESPACES = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
                  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
                  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
                  'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
                  'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
                  'xmlns:xlink="http://www.w3.org/1999/xlink"')


def writer_document() -> str:
    """A flat ODF text: a heading and a paragraph with a picture in it."""
    picture = base64.b64encode(picture_png()).decode()
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document {ODF_NAMESPACES} office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
<office:body><office:text>
<text:h text:outline-level="1">pb fidelity</text:h>
<text:p>Writer text with a picture: café ✓ <draw:frame draw:name="picture" text:anchor-type="as-char"
 svg:width="1.7cm" svg:height="1.27cm"><draw:image><office:binary-data>{picture}</office:binary-data></draw:image>
</draw:frame> and more text.</text:p>
</office:text></office:body></office:document>
"""


def calc_document() -> str:
    """A flat ODF spreadsheet with a 3×3 range from A1."""
    rows = [("item", "count", "price"), ("café", "2", "3.5"), ("✓ tea", "1", "2.25")]
    cells = []
    for row in rows:
        parts = []
        for value in row:
            if value.replace(".", "", 1).isdigit():
                parts.append(f'<table:table-cell office:value-type="float" office:value="{value}">'
                             f"<text:p>{value}</text:p></table:table-cell>")
            else:
                parts.append(f'<table:table-cell office:value-type="string"><text:p>{value}</text:p>'
                             "</table:table-cell>")
        cells.append("<table:table-row>" + "".join(parts) + "</table:table-row>")
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document {ODF_NAMESPACES} office:version="1.3"
 office:mimetype="application/vnd.oasis.opendocument.spreadsheet">
<office:body><office:spreadsheet><table:table table:name="Sheet1">
<table:table-column table:number-columns-repeated="3"/>
{"".join(cells)}
</table:table></office:spreadsheet></office:body></office:document>
"""


# LibreOffice's GTK 3 plugin (Debian package libreoffice-gtk3): its only way to run on Wayland natively.
GTK3_PLUGIN = "/usr/lib/libreoffice/program/libvclplug_gtk3lo.so"


class LibreOffice(App):
    copies = 2
    same_as = {2: 1}
    quit_timeout = 10.0
    start_timeout = 45.0
    module = ""
    document_name = ""

    def document(self) -> str:
        raise NotImplementedError

    def start(self, desktop: Desktop, workdir: str) -> None:
        self.desktop, self.workdir = desktop, workdir
        binary = require_tool("soffice", f"libreoffice-{self.module}")
        profile = os.path.join(workdir, "libreoffice-profile")
        user = os.path.join(profile, "user")
        os.makedirs(user, exist_ok=True)
        with open(os.path.join(user, "registrymodifications.xcu"), "w") as file:
            file.write(libreoffice_registry())
        path = os.path.join(workdir, self.document_name)
        with open(path, "w", encoding="utf-8") as file:
            file.write(self.document())
        argv = [binary, "--norestore", "--nologo", "--nolockcheck", "--nodefault",
                f"-env:UserInstallation=file://{profile}", f"--{self.module}", path]
        if self.desktop.is_wayland() and not os.path.exists(GTK3_PLUGIN):
            # Without the GTK 3 plugin LibreOffice draws with X11 only.
            self.launch(argv, {"SAL_USE_VCLPLUGIN": "gen"}, x11=True)
        else:
            self.launch(argv)
        self.wait_ready(self.title)


class Writer(LibreOffice):
    name = "libreoffice-writer"
    module = "writer"
    document_name = "pb-fidelity.fodt"
    title = "pb-fidelity.fodt"

    def document(self) -> str:
        return writer_document()

    def copy(self, index: int) -> str:
        self.desktop.focus(self.title)
        self.desktop.key("ctrl+a")
        self.desktop.key("ctrl+c")
        return "text and a picture (Select All, Copy)" + (", again" if index > 1 else "")


class Calc(LibreOffice):
    name = "libreoffice-calc"
    module = "calc"
    document_name = "pb-fidelity.fods"
    title = "pb-fidelity.fods"

    def document(self) -> str:
        return calc_document()

    def copy(self, index: int) -> str:
        self.desktop.focus(self.title)
        self.desktop.key("ctrl+Home")
        self.desktop.key("ctrl+shift+End")
        self.desktop.key("ctrl+c")
        return "the range A1:C3" + (", again" if index > 1 else "")


# MARK: - File manager


class PCManFM(App):
    name = "pcmanfm"
    title = "pb-fidelity-files"
    start_timeout = 20.0
    copies = 2
    same_as = {2: 1}
    quit_chord = "ctrl+w"
    FILES = {"first file.txt": "the first file\n", "zweite-datei-é.txt": "the second file\n"}

    def start(self, desktop: Desktop, workdir: str) -> None:
        self.desktop, self.workdir = desktop, workdir
        binary = require_tool("pcmanfm", "pcmanfm")
        folder = os.path.join(workdir, self.title)
        os.makedirs(folder, exist_ok=True)
        for name, content in self.FILES.items():
            with open(os.path.join(folder, name), "w", encoding="utf-8") as file:
                file.write(content)
        self.launch([binary, folder], x11=True)  # PCManFM 1.3 is a GTK 2 application: X11 only
        self.wait_ready(self.title)

    def copy(self, index: int) -> str:
        self.desktop.focus(self.title)
        self.desktop.key("ctrl+a")
        self.desktop.key("ctrl+c")
        return "two files (Select All, Copy)" + (", again" if index > 1 else "")


APPS: dict[str, type[App]] = {cls.name: cls for cls in (Gtk4Copier, Qt5Copier, Firefox, Chromium, Epiphany, Writer,
                                                         Calc, PCManFM)}
