"""What a fault probe runs on: a sandbox (its own HOME, XDG directories and fake `zpool`/`zfs` on
PATH) in which the installed `zdash` entry point runs as a real subprocess, bounded by a timeout,
headless or in a pseudo-terminal. A probe is a function of a Sandbox that raises `Failed` with
its kind; the sandbox itself turns a timeout into a hang and a Python traceback on the terminal
into a traceback, whatever the probe goes on to check.

Kinds (what run_probes counts): traceback, hang, data-loss, wrong-OK (an OK verdict, or exit 0,
on data zdash could not get), fail (any other behaviour that is not what the probe demands).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FAKES = ROOT / "tests" / "fakes" / "bin"
KINDS = ("traceback", "hang", "data-loss", "wrong-OK", "fail")
TRACEBACK = "Traceback (most recent call last)"
_ESC = re.compile(
    rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-B]|\x1b[=>78]"
)


def zdash_executable() -> str:
    """The installed entry point next to this interpreter (what a user runs), else PATH's."""
    here = Path(sys.executable).parent / "zdash"
    return str(here) if here.exists() else (shutil.which("zdash") or "zdash")


class Failed(Exception):
    def __init__(self, kind: str, detail: str) -> None:
        assert kind in KINDS, kind
        super().__init__(f"{kind}: {detail}")
        self.kind, self.detail = kind, detail


@dataclass
class Result:
    argv: list[str]
    rc: int | None
    out: str
    err: str
    seconds: float

    @property
    def text(self) -> str:
        return self.out + self.err

    def brief(self) -> str:
        tail = (self.err.strip() or self.out.strip()).splitlines()[-3:]
        return f"`zdash {' '.join(self.argv)}` exit {self.rc}: {' / '.join(t[:160] for t in tail)}"


@dataclass
class Probe:
    name: str
    bullet: str  # recordings, failures, hangs, tracebacks, hygiene, config
    fn: Callable[[Sandbox], None]
    timeout: float = 20.0  # the budget of each zdash run in the probe


@dataclass
class Outcome:
    probe: Probe
    kind: str | None  # None: passed
    detail: str = ""
    seconds: float = 0.0


@dataclass
class Sandbox:
    dir: Path
    timeout: float
    env_extra: dict[str, str] = field(default_factory=dict)

    @property
    def pids_dir(self) -> Path:
        return self.dir / "pids"

    def path(self, name: str) -> str:
        return str(self.dir / name)

    def write(self, name: str, data: str | bytes) -> str:
        p = self.dir / name
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            p.write_bytes(data)
        else:
            p.write_text(data, encoding="utf-8")
        return str(p)

    def env(self, **extra: str) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items() if k in ("PYTHONPATH", "TMPDIR", "SYSTEMROOT")}
        env = {
            **keep,
            "PATH": f"{FAKES}:/usr/bin:/bin",
            "HOME": str(self.dir / "home"),
            "XDG_CONFIG_HOME": str(self.dir / "config"),
            "XDG_STATE_HOME": str(self.dir / "state"),
            "LANG": "C.UTF-8",
            "FAKE_ZPOOL_SCENARIO": "healthy",
            "FAKE_ZPOOL_PIDS": str(self.pids_dir),
            "PYTHONUNBUFFERED": "1",
        }
        env.update(self.env_extra)
        env.update(extra)
        return env

    # -- headless runs ------------------------------------------------------------------------
    def run(
        self,
        *argv: str,
        stdin: bytes | str | None = b"",
        timeout: float | None = None,
        limit_memory: bool = False,
        limit_file: int = 0,
        **env: str,
    ) -> Result:
        """`zdash ARGV…` to completion within the timeout (a hang otherwise); a traceback in its
        output fails the probe at once."""
        res = self.start_and_wait(list(argv), stdin, timeout or self.timeout, limit_memory, env, limit_file)
        no_traceback(res)
        return res

    def start_and_wait(
        self,
        argv: list[str],
        stdin: bytes | str | None,
        timeout: float,
        limit_memory: bool,
        env: dict,
        limit_file: int = 0,
    ) -> Result:
        started = time.monotonic()
        proc = self.popen(argv, limit_memory=limit_memory, limit_file=limit_file, **env)
        data = stdin.encode() if isinstance(stdin, str) else stdin
        try:
            out, err = proc.communicate(data, timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_group(proc)
            out, err = proc.communicate()
            raise Failed(
                "hang", f"`zdash {' '.join(argv)}` still running after {timeout:g} s: {err.decode()[-200:]!r}"
            ) from None
        return Result(
            argv, proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
            time.monotonic() - started,
        )  # fmt: skip

    def popen(
        self, argv: list[str], limit_memory: bool = False, limit_file: int = 0, **env: str
    ) -> subprocess.Popen[bytes]:
        def limit() -> None:
            import resource

            if limit_memory:  # a probe that feeds endless input must not take the machine's memory
                resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
            if limit_file:  # a disk that fills: writes past the size fail (EFBIG), as on a full disk
                resource.setrlimit(resource.RLIMIT_FSIZE, (limit_file, limit_file))
                signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

        return subprocess.Popen(
            [zdash_executable(), *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=self.dir,
            # Under a file-size limit Python's own .pyc writes are cut short too, and a truncated
            # .pyc in the tree ends every later zdash with "EOFError: marshal data too short"
            # (after a source changed: 81 of 205 probes and the e2e dashboard failed that way).
            env=self.env(**env, **({"PYTHONDONTWRITEBYTECODE": "1"} if limit_file else {})),
            start_new_session=True,
            preexec_fn=limit if limit_memory or limit_file else None,
        )

    # -- the dashboard in a pseudo-terminal -------------------------------------------------------
    def terminal(
        self, *argv: str, cols: int = 110, rows: int = 32, cwd: str | Path | None = None, **env: str
    ) -> Terminal:
        return Terminal(self, list(argv), cols, rows, env, cwd)

    # -- children ----------------------------------------------------------------------------------
    def live_children(self) -> list[int]:
        """Fake zpool runs of this sandbox still alive (zombies count as gone)."""
        alive = []
        for f in self.pids_dir.iterdir() if self.pids_dir.exists() else ():
            pid = int(f.name)
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            environ = b""
            with contextlib.suppress(OSError):
                environ = Path(f"/proc/{pid}/environ").read_bytes()
            if state != "Z" and str(self.pids_dir).encode() in environ:
                alive.append(pid)
        return alive

    def kill_children(self) -> None:
        for pid in self.live_children():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


class Terminal:
    """zdash in a pseudo-terminal of a fixed size: what a user's terminal receives, byte by byte."""

    def __init__(
        self,
        sb: Sandbox,
        argv: list[str],
        cols: int,
        rows: int,
        env: dict[str, str],
        cwd: str | Path | None = None,
    ) -> None:
        self.sb, self.argv = sb, argv
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.master = master

        def controlling_terminal() -> None:  # as a login shell's child: closing it is a hangup
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.proc = subprocess.Popen(
            [zdash_executable(), *argv],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd or sb.dir,
            env=sb.env(TERM="xterm-256color", COLUMNS=str(cols), LINES=str(rows), **env),
            preexec_fn=controlling_terminal,
        )
        os.close(slave)
        self.raw = b""

    def _read(self, until: float) -> bool:
        """Read what is there (waiting until `until`); False at EOF."""
        r, _, _ = select.select([self.master], [], [], max(0.0, until - time.monotonic()))
        if not r:
            return True
        try:
            chunk = os.read(self.master, 65536)
        except OSError:
            return False
        self.raw += chunk
        return bool(chunk)

    @property
    def screen_text(self) -> str:
        """Everything written, escape sequences removed (lines run together; words stay whole)."""
        return _ESC.sub(b"", self.raw).decode("utf-8", "replace")

    def wait_for(self, *words: str, timeout: float | None = None) -> None:
        """Until every word has been drawn; a hang when it is not within the timeout."""
        limit = timeout or self.sb.timeout
        end = time.monotonic() + limit
        open_ = True
        while not all(w in self.screen_text for w in words):
            if time.monotonic() > end or not open_:
                no_traceback_text(self.screen_text, self.argv)
                missing = [w for w in words if w not in self.screen_text]
                if self.proc.poll() is not None:
                    raise Failed("fail", f"the dashboard exited ({self.proc.returncode}) before {missing}")
                raise Failed(
                    "hang", f"{missing} not drawn within {limit:g} s; last drawn: {self.last_drawn()!r}"
                )
            open_ = self._read(min(end, time.monotonic() + 0.2))

    def last_drawn(self, chars: int = 600) -> str:
        """The end of what was drawn, blanks run together: what the screen said when a wait
        failed (a CI log has nothing else to show)."""
        return " ".join(self.screen_text.split())[-chars:]

    def send(self, data: bytes) -> None:
        os.write(self.master, data)

    def resize(self, cols: int, rows: int) -> None:
        """The terminal window resized: the new size, then SIGWINCH, as a terminal emulator does."""
        fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGWINCH)

    def signal(self, sig: int) -> None:
        self.proc.send_signal(sig)

    def hang_up(self) -> None:
        """The terminal window closes: the kernel sends SIGHUP, and writes to it fail from now on."""
        os.close(self.master)
        self.master = -1

    def wait_gone(self, timeout: float = 10.0) -> int:
        """After a hang-up: the exit code (nothing more can be read). A hang when it stays."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.close()
            raise Failed("hang", f"zdash still running {timeout:g} s after its terminal closed") from None

    def wait_exit(self, timeout: float = 10.0) -> int:
        """The exit code; the rest of the output read. A hang when it does not exit in time."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if not self._read(min(end, time.monotonic() + 0.2)) and self.proc.poll() is not None:
                break
            if self.proc.poll() is not None:
                while self._read(time.monotonic() + 0.05) and len(self.raw) < 1 << 24:
                    pass
                break
        if self.proc.poll() is None:
            self.close()
            raise Failed("hang", f"the dashboard did not exit within {timeout:g} s")
        no_traceback_text(self.screen_text, self.argv)
        return self.proc.returncode

    def close(self) -> None:
        if self.proc.poll() is None:
            kill_group(self.proc)
        if self.master >= 0:
            with contextlib.suppress(OSError):
                os.close(self.master)
            self.master = -1


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        proc.kill()
    proc.wait()


def no_traceback(res: Result) -> None:
    no_traceback_text(res.text, res.argv)


def no_traceback_text(text: str, argv: list[str]) -> None:
    if TRACEBACK in text or re.search(r"^\w+(Error|Exception): ", text, re.M):
        where = text.find(TRACEBACK)
        last = text[where:].strip().splitlines()[-1] if where >= 0 else text.strip().splitlines()[-1]
        raise Failed("traceback", f"`zdash {' '.join(argv)}`: {last[:200]}")


def run_probe(probe: Probe, root: str | None = None) -> Outcome:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="zdash-probe-", dir=root) as d:
        sb = Sandbox(Path(d), probe.timeout)
        for sub in ("home", "config", "state", "pids"):
            (sb.dir / sub).mkdir()
        try:
            probe.fn(sb)
            kind, detail = None, ""
        except Failed as e:
            kind, detail = e.kind, e.detail
        except Exception as e:  # noqa: BLE001 - a broken probe is reported, never hides the rest
            kind, detail = "fail", f"the probe itself failed: {type(e).__name__}: {e}"
        finally:
            sb.kill_children()
    return Outcome(probe, kind, detail, time.monotonic() - started)
