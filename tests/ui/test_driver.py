"""zdash.ui.driver.QuietDriver in a real pseudo-terminal: keys arrive (a lone Escape too, though
the thread now waits long between inputs), and an app that quits with no key pressed does not
wait for the input thread's long wait."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ui.conftest import WAIT_S

# A Textual app on QuietDriver that writes each key it gets to a file; `quit_after` > 0: it
# quits by itself that many seconds after it started, with no key pressed. The input thread's
# long wait is made 300 s: a key or a quit that waited for it would miss every bound below.
CHILD = """
import sys
from textual.app import App
import zdash.ui.driver as driver
driver.IDLE_WAIT_S = 300.0
out, quit_after = sys.argv[1], float(sys.argv[2])

class Keys(App):
    def get_driver_class(self):
        return driver.QuietDriver

    def on_mount(self):
        self.log_key("ready")
        if quit_after:
            self.set_timer(quit_after, self.exit)

    def log_key(self, text):
        with open(out, "a") as f:
            f.write(text + "\\n")

    def on_key(self, event):
        self.log_key(event.key)

Keys().run()
"""


@contextlib.contextmanager
def _running(out: str, quit_after: float) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """The child app in a terminal of its own: (its process, the terminal's master side);
    killed and the terminal closed after the test, however it ended."""
    master, slave = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color"}
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, out, str(quit_after)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
    )
    os.close(slave)
    try:
        yield proc, master
    finally:
        proc.kill()
        proc.wait()
        os.close(master)


def _drain(master: int) -> None:
    """The terminal's output so far, read and dropped (waiting 0.05 s at most for some)."""
    if select.select([master], [], [], 0.05)[0]:
        try:
            os.read(master, 65536)
        except OSError:
            pass


def _wait_for(out: str, master: int, line: str) -> None:
    """Until the app has logged `line`."""
    end = time.monotonic() + WAIT_S
    while time.monotonic() < end:
        _drain(master)
        if os.path.exists(out) and line in Path(out).read_text().split():
            return
    raise AssertionError(f"the app never logged {line!r}")


@pytest.mark.skipif(sys.platform != "linux", reason="a Linux terminal's driver")
def test_keys_arrive_and_a_lone_escape_is_taken(tmp_path):
    out = str(tmp_path / "keys")
    with _running(out, 0.0) as (proc, master):
        _wait_for(out, master, "ready")
        os.write(master, b"\x1b")  # a lone Escape: a key only once ESCDELAY has passed with no more
        _wait_for(out, master, "escape")
        os.write(master, b"x")
        _wait_for(out, master, "x")
        os.write(master, b"\x11")  # ctrl+q: Textual's quit
        assert proc.wait(timeout=WAIT_S) == 0


@pytest.mark.skipif(sys.platform != "linux", reason="a Linux terminal's driver")
def test_quitting_with_no_key_pressed_does_not_wait_for_the_input_thread(tmp_path):
    out = str(tmp_path / "keys")
    with _running(out, 1.0) as (proc, master):
        _wait_for(out, master, "ready")
        started = time.monotonic()
        while proc.poll() is None and time.monotonic() - started < 30:
            _drain(master)
        # the thread's wait is 300 s: only its wake-up pipe ends it within 30
        assert proc.poll() == 0
