"""One long-lived `zpool events -v -f`: ZFS's event log, followed as it grows.

Why a stream: the log is a ring buffer of up to zfs_zevent_len_max events; dumping it every few
seconds would read (and record) the same hundreds of events again and again. Following it, zpool
prints what is in the buffer once, then each new event as it happens. An event is complete at
the blank line after its nvlist; `take()` hands over the complete ones since the last call, as
one raw sample for the tick (the builder keeps each event once, by time, id and class).

Bounded: at most MAX_PENDING characters wait between ticks (an event storm drops the oldest
text, said so in the sample's stderr); a stream that dies leaves `error` set for the caller.
"""

from __future__ import annotations

import time

from zdash.raw import RawSample
from zdash.sources.runner import Runner, command_env, kill
from zdash.sources.spawn import Child, spawn

ARGV = ("zpool", "events", "-v", "-f")
MAX_PENDING = 1 << 20


class EventsStream:
    def __init__(self, argv: tuple[str, ...] = ARGV, runner: Runner | None = None) -> None:
        self.argv = argv
        self.runner = runner or Runner()  # where it runs (over ssh: through the host's master)
        self.error: str | None = None
        # Whether it died because the host could not be reached (ssh's own failure): known from
        # how it ended, since another command may find the host back before a tick notices.
        self.unreachable = False
        self._buf = ""
        self._dropped = 0
        self._proc: Child | None = None

    async def run(self) -> None:
        started = time.time()
        try:
            self._proc = await spawn(self.runner.exec_argv(self.argv), command_env(), die_with_parent=True)
        except OSError as e:
            self.error = self.runner.cannot_start(self.argv, e)
            return
        except ValueError as e:  # a word RemoteRunner will not send
            self.error = str(e)
            return
        assert self._proc.stdout is not None and self._proc.stderr is not None
        try:
            while chunk := await self._proc.stdout.read(1 << 16):
                self._buf += chunk.decode("utf-8", "replace")
                if len(self._buf) > MAX_PENDING:
                    cut = self._buf.find("\n\n", len(self._buf) - MAX_PENDING)
                    cut = cut + 2 if cut >= 0 else len(self._buf) - MAX_PENDING
                    self._dropped += cut
                    self._buf = self._buf[cut:]
            err = (await self._proc.stderr.read()).decode("utf-8", "replace").strip()
            rc = await self._proc.wait()
            self.unreachable = self.runner.heard(rc, err, started)
            self.error = self.runner.failure(("zpool", "events"), rc, err, "stopped")
        finally:
            await self.stop()

    def take(self) -> RawSample | None:
        """The events completed since the last call (None when there are none)."""
        end = self._buf.rfind("\n\n")
        if end < 0:
            return None
        text, self._buf = self._buf[: end + 2], self._buf[end + 2 :]
        note = (
            f"zdash: {self._dropped} characters of events dropped (an event storm)\n" if self._dropped else ""
        )
        self._dropped = 0
        return RawSample("events", self.argv, None, text, note, time.time(), 0.0)

    async def stop(self) -> None:
        if self._proc is not None:
            await kill(self._proc)
