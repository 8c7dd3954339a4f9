"""Run one command without ever blocking the caller or the UI.

Why each rule: argv only (a pool or device name must never be parsed by a shell); a timeout
with the child killed (a hung `zpool` on a sick pool is normal, a pile of them is not); one
run per key in flight (a slow `zpool status` must not be started again on the next tick);
LC_ALL=C TZ=UTC (zpool's text and ctime() dates depend on both); ZPOOL_VDEV_NAME_* cleared
(they silently change every vdev name zpool prints).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time

from zdash.aio import within
from zdash.raw import AshiftKey, EvidenceKey, RawSample, SampleKey
from zdash.sources.spawn import Child, spawn

NAME_VARS = ("ZPOOL_VDEV_NAME_PATH", "ZPOOL_VDEV_NAME_GUID", "ZPOOL_VDEV_NAME_FOLLOW_LINKS")
# What to install for a command other than zpool/zfs/zdb (the evidence beside a verdict).
INSTALL_HINT = {
    "smartctl": "install smartmontools 7 or later to read SMART",
    "journalctl": "no systemd journal: zdash reads dmesg instead",
    "lsblk": "install util-linux",
}
# The longest a command's learnt budget grows to (see Runner.timeout_for).
MAX_TIMEOUT_S = 120.0


def command_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in NAME_VARS}
    env.update(LC_ALL="C", LANG="C", TZ="UTC")
    return env


class Busy(Exception):
    """The same key is still running: the caller keeps its last good data."""


class Runner:
    """Runs argv on this host. RemoteRunner (zdash.sources.remote) runs the same argv on another
    one over ssh: the sample keeps the argv as given (a recording replays the same either way),
    only what is executed and how a failure reads differ."""

    host: str | None = None  # where the commands run: None is this host

    def __init__(self, timeout: float = 10.0) -> None:
        self.timeout = timeout
        self._in_flight: set[str] = set()
        self._budgets: dict[str, float] = {}  # learnt per key: see timeout_for

    def timeout_for(self, key: str) -> float:
        """How long `key`'s next run may take before it is killed. Learnt from its last run:
        one that timed out gets twice as long next time, one that answered three times what it
        took, never less than `timeout` nor more than MAX_TIMEOUT_S. On a 1,000-disk pool in the
        lab VM `zpool status` needs 32 s: a fixed 10 s killed every run, and the dashboard never
        saw the pool; a sick pool can slow it as much. One run at a time still (Busy)."""
        return self._budgets.get(key, self.timeout)

    def _learn(self, key: str, took: float, timed_out: bool) -> None:
        cap = max(MAX_TIMEOUT_S, self.timeout)
        budget = 2 * self.timeout_for(key) if timed_out else 3 * took
        self._budgets[key] = min(max(budget, self.timeout), cap)

    def with_overhead(self, budget: float) -> float:
        """The budget for the whole run, transport included (RemoteRunner adds ssh's connect)."""
        return budget

    def busy(self, key: str) -> bool:
        return key in self._in_flight

    def exec_argv(self, argv: tuple[str, ...]) -> tuple[str, ...]:
        """What is executed for `argv`: argv itself here."""
        return argv

    def cannot_start(self, argv: tuple[str, ...], e: OSError) -> str:
        if isinstance(e, FileNotFoundError):
            return f"{argv[0]} not found on PATH ({INSTALL_HINT.get(argv[0], 'is ZFS installed?')})"
        if isinstance(e, PermissionError):
            return f"permission denied running {argv[0]}"
        return f"cannot run {argv[0]}: {e.strerror or e}"

    def failure(self, argv: tuple[str, ...], rc: int | None, stderr: str, verb: str = "") -> str:
        """One line for a command that ended badly; `verb` "stopped" for a stream that ended."""
        first = first_line(stderr) or f"exit code {rc}"
        return f"{' '.join(argv[:2])}{' ' + verb if verb else ''}: {first}"

    def timed_out(self, argv: tuple[str, ...], timeout: float) -> str:
        return f"{' '.join(argv[:2])} timed out after {timeout:g} s"

    def _timed_out_note(self, key: str, argv: tuple[str, ...], timeout: float) -> str:
        nxt = self.timeout_for(key)
        more = f"; next time it gets {nxt:g} s" if nxt > timeout else ""
        return self.timed_out(argv, timeout) + more

    def heard(self, rc: int | None, stderr: str = "", started: float | None = None) -> bool:
        """A command started at `started` (epoch) ended with `rc` (RemoteRunner learns from it
        whether the host answers). True when it failed because the host could not be reached:
        never, here."""
        return False

    async def run(
        self,
        key: SampleKey | AshiftKey | EvidenceKey,
        argv: list[str] | tuple[str, ...],
        timeout: float | None = None,
    ) -> RawSample:
        """`timeout`: this run's own budget; without one, the budget learnt for `key`."""
        if key in self._in_flight:
            raise Busy(key)
        self._in_flight.add(key)
        learn = timeout is None
        budget = self.timeout_for(key) if timeout is None else timeout
        try:
            return await self._run(key, tuple(argv), budget, learn)
        finally:
            self._in_flight.discard(key)

    async def _run(self, key: str, argv: tuple[str, ...], budget: float, learn: bool) -> RawSample:
        start = time.time()
        try:
            proc = await spawn(self.exec_argv(argv), command_env())
        except (OSError, ValueError) as e:  # ValueError: a word RemoteRunner will not send
            msg = self.cannot_start(argv, e) if isinstance(e, OSError) else str(e)
            return _failed(key, argv, start, msg)
        timeout = self.with_overhead(budget)
        try:
            out, err = await within(proc.communicate(), timeout)
        except asyncio.TimeoutError:
            await kill(proc)
            if learn:
                self._learn(key, time.time() - start, timed_out=True)
            return _failed(key, argv, start, self._timed_out_note(key, argv, timeout))
        except asyncio.CancelledError:
            await kill(proc)  # never leave an orphan zpool behind a cancelled tick
            raise
        end = time.time()
        if learn:
            self._learn(key, end - start, timed_out=False)
        stderr = err.decode("utf-8", "replace")
        self.heard(proc.returncode, stderr, start)
        error = None
        if proc.returncode != 0:
            error = self.failure(argv, proc.returncode, stderr)
        return RawSample(
            key, argv, proc.returncode, out.decode("utf-8", "replace"), stderr, end, end - start, error
        )


async def kill(proc: Child) -> None:
    """SIGKILL, then its end awaited (bounded)."""
    if proc.returncode is not None:
        return
    proc.kill()
    # Stuck in D state in the kernel: after 5 s there is nothing more we can do.
    with contextlib.suppress(asyncio.TimeoutError):
        await within(proc.wait(), 5)


MAX_ERROR_CHARS = 300  # of a command's error line: zpool's are short, a runaway one is not


def first_line(text: str) -> str:
    """The first line of a command's error output, capped: what becomes a one-line message."""
    line = text.strip().split("\n", 1)[0].strip() if text.strip() else ""
    return line if len(line) <= MAX_ERROR_CHARS else line[: MAX_ERROR_CHARS - 1] + "…"


def _failed(key: str, argv: tuple[str, ...], start: float, msg: str) -> RawSample:
    now = time.time()
    return RawSample(key, argv, None, "", "", now, now - start, msg)
