"""CPU of a process run as a user runs it: in a pseudo-terminal of a given size (so a Textual
app draws to a real terminal, escape codes and all), its output read and dropped, measured from
/proc over a window after a warm-up. Children are counted (a dashboard's zpool commands are part
of its cost). Used by the benchmark (bench.py) and the lab measurement (lab_cpu.py)."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import termios
import time

import psutil


def _tree_cpu(proc: psutil.Process) -> tuple[float, float]:
    """CPU seconds of (the process itself, its reaped children and live descendants)."""
    own = children = 0.0
    try:
        t = proc.cpu_times()
        own, children = t.user + t.system, t.children_user + t.children_system
        for child in proc.children(recursive=True):
            try:
                c = child.cpu_times()
                children += c.user + c.system
            except psutil.Error:
                pass
    except psutil.Error:
        pass
    return own, children


def cpu_in_pty(
    argv: list[str],
    seconds: float,
    warmup: float = 5.0,
    size: tuple[int, int] = (200, 60),
    env: dict[str, str] | None = None,
    pty_out: bool = True,
    split: dict[str, float] | None = None,
    keys: bytes = b"",
) -> tuple[float, float]:
    """(CPU seconds used over `seconds` after `warmup`, wall seconds measured) by argv and its
    descendants. With pty_out=False the command writes to a pipe (a non-interactive command).
    `split`, when given, is filled with the seconds of the process itself ("own") and of its
    children ("children": zdash's zpool commands). `keys` are typed into the terminal half-way
    through the warm-up (a user pressing space to play a recording that opened paused)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
    full_env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(size[0]), "LINES": str(size[1])}
    full_env.update(env or {})
    proc = subprocess.Popen(
        argv,
        stdin=slave,
        stdout=slave if pty_out else subprocess.DEVNULL,
        stderr=slave if pty_out else subprocess.DEVNULL,
        env=full_env,
        start_new_session=True,
        close_fds=True,
    )
    os.close(slave)
    me = psutil.Process(proc.pid)

    def drain(until: float) -> None:
        while time.monotonic() < until:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    os.read(master, 65536)
                except OSError:
                    return

    try:
        if keys:
            drain(time.monotonic() + warmup / 2)
            os.write(master, keys)
            drain(time.monotonic() + warmup / 2)
        else:
            drain(time.monotonic() + warmup)
        (own0, kids0), start = _tree_cpu(me), time.monotonic()
        drain(start + seconds)
        (own1, kids1), wall = _tree_cpu(me), time.monotonic() - start
        used = own1 + kids1 - own0 - kids0
        if split is not None:
            split.update(own=own1 - own0, children=kids1 - kids0)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        os.close(master)
    return used, wall
