"""One long-lived `zpool iostat -v -H -p -l -y -P -T u <interval>` read as a stream.

Why a stream: a fork of zpool per tick costs more than the sample on a wall display that runs
for weeks, and iostat's own interval deltas are exact. zpool fflush()es once per report, so a
report arrives as one burst followed by silence: a report is complete when the next `-T u`
epoch line arrives or the pipe goes quiet (parse.zpool_iostat.StreamSplitter does the split).
"""

from __future__ import annotations

import asyncio
import time

from zdash.aio import within
from zdash.parse import ParseError
from zdash.parse.zpool_iostat import StreamSplitter
from zdash.raw import RawSample
from zdash.sources.runner import Runner, command_env, kill
from zdash.sources.spawn import Child, spawn

QUIET = 0.15  # s of silence after a burst that marks the end of a report


def iostat_argv(interval: float, pools: tuple[str, ...] = (), latency: bool = True) -> tuple[str, ...]:
    flags = ["-v", "-H", "-p"] + (["-l"] if latency else []) + ["-y", "-P", "-T", "u"]
    return ("zpool", "iostat", *flags, *pools, f"{interval:g}")


class IostatStream:
    def __init__(self, argv: tuple[str, ...], runner: Runner | None = None) -> None:
        self.argv = argv
        self.runner = runner or Runner()  # where it runs (over ssh: through the host's master)
        self.reports: asyncio.Queue[RawSample] = asyncio.Queue(maxsize=4)
        self.error: str | None = None
        self._proc: Child | None = None

    async def run(self) -> None:
        """Read until the process ends; a dead stream leaves `error` set for the caller."""
        started = time.time()
        try:
            self._proc = proc = await spawn(
                self.runner.exec_argv(self.argv), command_env(), die_with_parent=True
            )
        except OSError as e:
            self.error = self.runner.cannot_start(self.argv, e)
            return
        except ValueError as e:  # a word RemoteRunner will not send
            self.error = str(e)
            return
        stdout, stderr = proc.stdout, proc.stderr
        assert stdout is not None and stderr is not None  # both are PIPEs, asked for above
        # One splitter for the live stream and the tests: it holds at most 1 MiB between epoch
        # lines, so a zpool that prints no `-T u` stamps cannot grow the buffer without end.
        splitter = StreamSplitter()
        try:
            while True:
                try:
                    chunk = await within(stdout.read(1 << 16), QUIET)
                except asyncio.TimeoutError:
                    self._push(splitter.flush(quiet=True))  # the pipe went quiet: whole, if long enough
                    continue
                if not chunk:
                    break
                for report in splitter.feed(chunk.decode("utf-8", "replace")):
                    self._push(report)
            self._push(splitter.flush())
            err = (await stderr.read()).decode("utf-8", "replace").strip()
            rc = await proc.wait()
            self.runner.heard(rc, err, started)
            self.error = self.runner.failure(("zpool", "iostat"), rc, err, "stopped")
        except ParseError as e:
            self.error = str(e)
        finally:
            await self.stop()

    def _push(self, report: tuple[int, str] | None) -> None:
        """One report, stored as zpool printed it: its epoch line, then its rows. None (and the
        epoch line of the report -y skips, which has no rows) is nothing to push."""
        if report is None:
            return
        epoch, rows = report
        now = time.time()
        sample = RawSample("iostat", self.argv, None, f"{epoch}\n{rows}", "", now, 0.0)
        if self.reports.full():  # a slow consumer sees the newest report, not a backlog
            self.reports.get_nowait()
        self.reports.put_nowait(sample)

    async def stop(self) -> None:
        if self._proc is not None:
            await kill(self._proc)
