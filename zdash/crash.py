"""A bug's report: what zdash was asked to do, on which Python and zdash, and the traceback,
saved to a file so the terminal gets one line saying where it is, never the traceback itself.

Where: zdash's private state directory ($XDG_STATE_HOME/zdash, 0700, checked: see
zdash.safe_files.private_dir), else a new private directory of its own in the temporary
directory (mkdtemp: 0700, a random name). Never a shared fixed name such as /tmp/zdash, which
another user may have made first. The file is 0600, created new (never through a link), and
holds no secret: the serve token in argv or anywhere in the text is redacted."""

from __future__ import annotations

import os
import platform
import sys
import tempfile
import time
import traceback

from zdash.redact import redact_argv, redact_text
from zdash.resources import private_state_dir
from zdash.safe_files import create_new


def save_report(argv: list[str], error: BaseException | None = None) -> str | None:
    """Write `error` (default: the exception being handled); the file's path, or None when
    nothing is writable."""
    from zdash import __version__

    trace = "".join(traceback.format_exception(error)) if error is not None else traceback.format_exc()
    text = redact_text(
        f"zdash {__version__} crash report\n"
        f"time: {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}\n"
        f"argv: {redact_argv(argv)!r}\n"
        f"python: {sys.version.split()[0]} on {platform.platform()}\n\n" + trace
    )
    name = f"crash-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-{os.getpid()}.txt"
    for folder in (private_state_dir, lambda: tempfile.mkdtemp(prefix="zdash-crash-")):
        try:
            path = os.path.join(folder(), name)
            fd = create_new(path, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as f:
                f.write(text)
            return path
        except OSError:
            continue
    return None


def crash_line(error: BaseException, path: str | None) -> str:
    """The one line a user sees instead of a traceback."""
    what = " ".join(redact_text(str(error)).split())[:200]
    where = f"a report is in {path}, please attach it to a bug report" if path else "no report could be saved"
    return f"zdash: internal error ({type(error).__name__}: {what}); {where}"
