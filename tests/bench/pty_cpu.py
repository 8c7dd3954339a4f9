"""CPU of a process run as a user runs it: in a pseudo-terminal of a given size (so a Textual
app draws to a real terminal, escape codes and all), its output read and dropped, measured from
/proc over a window after a warm-up. Children are counted (a dashboard's zpool commands are part
of its cost). Used by the benchmark (bench.py) and the lab measurement (lab_cpu.py).

The figure is the nanoseconds each thread ran (/proc/PID/task/TID/schedstat) when every thread of
the process and its descendants lived through the whole window: /proc's user and system times
are counted in clock ticks (10 ms), which over a 20 s window of a process using 1 % of a core is
a resolution of 0.5 ms a second, a twentieth of what is measured. When a thread or child came or
went in the window (its time would be missing), the clock-tick figure is kept instead."""

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


def _reaped(proc: psutil.Process) -> float:
    """CPU seconds of the process's children that have ended and been waited for."""
    try:
        t = proc.cpu_times()
    except psutil.Error:
        return 0.0
    return t.children_user + t.children_system


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


Tasks = dict[tuple[int, int], int]  # (pid, tid) -> nanoseconds run


def _tasks_ns(proc: psutil.Process) -> Tasks:
    """The nanoseconds each thread of the process and of its live descendants has run."""
    ran: Tasks = {}
    try:
        family = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return ran
    for member in family:
        try:
            tids = os.listdir(f"/proc/{member.pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{member.pid}/task/{tid}/schedstat") as f:
                    ran[member.pid, int(tid)] = int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                continue
    return ran


def _precise(before: Tasks, after: Tasks, reaped: float) -> float | None:
    """CPU seconds run between the two readings, from each thread's nanoseconds; None when a
    thread or child ended in between (its time is gone from /proc/PID/task) or a child was reaped."""
    if not before or reaped > 0 or any(task not in after for task in before):
        return None
    return sum(ns - before.get(task, 0) for task, ns in after.items()) / 1e9


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
    children ("children": zdash's zpool commands) and with "precise": 1.0 when the figure is
    the threads' nanoseconds, 0.0 when it is /proc's clock ticks (see the module). `keys` are
    typed into the terminal half-way through the warm-up (a user pressing space to play a
    recording that opened paused)."""
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
        reaped0 = _reaped(me)
        (own0, kids0), tasks0, start = _tree_cpu(me), _tasks_ns(me), time.monotonic()
        drain(start + seconds)
        tasks1, (own1, kids1), wall = _tasks_ns(me), _tree_cpu(me), time.monotonic() - start
        ticks = own1 + kids1 - own0 - kids0
        precise = _precise(tasks0, tasks1, _reaped(me) - reaped0)
        used = ticks if precise is None else precise
        if split is not None:
            split.update(own=own1 - own0, children=kids1 - kids0, precise=float(precise is not None))
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
