"""A bug's report: what zdash was asked to do, on which Python and zdash, and the traceback,
saved to a file (under $XDG_STATE_HOME/zdash, else the temporary directory) so the terminal
gets one line saying where it is, never the traceback itself."""

from __future__ import annotations

import os
import platform
import sys
import tempfile
import time
import traceback

from zdash.resources import state_dir


def save_report(argv: list[str]) -> str | None:
    """Write the exception being handled; the file's path, or None when nothing is writable."""
    from zdash import __version__

    text = (
        f"zdash {__version__} crash report\n"
        f"time: {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}\n"
        f"argv: {argv!r}\n"
        f"python: {sys.version.split()[0]} on {platform.platform()}\n\n" + traceback.format_exc()
    )
    name = f"crash-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-{os.getpid()}.txt"
    for folder in (state_dir(), os.path.join(tempfile.gettempdir(), "zdash")):
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            path = os.path.join(folder, name)
            with open(path, "w", encoding="utf-8", errors="replace") as f:
                f.write(text)
            return path
        except OSError:
            continue
    return None
