#!/usr/bin/python3
"""qt5-owner: copies with Qt 5's QClipboard, then keeps serving until killed (SIGTERM: exit 0).

A peer for Pasteboard's X11 tests: Qt's xcb platform plugin offers and converts what a Qt 5 application (Kate,
Dolphin, KeePassXC) offers. Qt encodes an image on request. Prints "ready" on stdout once the copy is made.

Run with the system Python (Debian's python3-pyqt5), with QT_QPA_PLATFORM=xcb:

    DISPLAY=:99 /usr/bin/python3 qt5-owner.py --text 'hello'
    DISPLAY=:99 /usr/bin/python3 qt5-owner.py --noise 4000x3000          # QMimeData.setImageData
    DISPLAY=:99 /usr/bin/python3 qt5-owner.py --html '<b>hi</b>' --text hi
    DISPLAY=:99 /usr/bin/python3 qt5-owner.py --uris file:///etc/hosts    # as Dolphin copies files
    DISPLAY=:99 /usr/bin/python3 qt5-owner.py --text hunter2 --secret     # as KeePassXC marks a password

Options: --selection clipboard|primary; --text, --html, --image, --noise, --uris (repeatable), --secret.
"""
import argparse
import signal
import sys

from PyQt5.QtCore import QMimeData, QTimer, QUrl
from PyQt5.QtGui import QClipboard, QGuiApplication, QImage

import owner_common


def main():
    parser = argparse.ArgumentParser(description="Copy with Qt 5 and keep serving.")
    owner_common.add_arguments(parser)
    args = parser.parse_args()
    app = QGuiApplication(sys.argv[:1])
    signal.signal(signal.SIGTERM, lambda *_: app.quit())
    # Python handles signals only between bytecodes: a timer gives the interpreter a turn now and then.
    ticker = QTimer()
    ticker.timeout.connect(lambda: None)
    ticker.start(200)

    mime = QMimeData()
    if args.image or args.noise:
        mime.setImageData(image(args))
    if args.html is not None:
        mime.setHtml(args.html)
    if args.uris:
        mime.setUrls([QUrl(uri) for uri in args.uris])
        mime.setData("x-special/gnome-copied-files", ("copy\n" + "\n".join(args.uris)).encode("utf-8"))
    if args.secret:
        mime.setData("x-kde-passwordManagerHint", b"secret")
    if args.text is not None:
        mime.setText(args.text)
    mode = QClipboard.Selection if args.selection == "primary" else QClipboard.Clipboard
    QGuiApplication.clipboard().setMimeData(mime, mode)
    QTimer.singleShot(0, owner_common.say_ready)
    sys.exit(app.exec_())


def image(args):
    if args.image:
        return QImage(args.image)
    width, height, pixels = owner_common.noise(args.noise)
    picture = QImage(pixels, width, height, width * 3, QImage.Format_RGB888)
    return picture.copy()  # owns its pixels: the Python bytes may go


if __name__ == "__main__":
    main()
