"""UI test helpers: apps built on the shared session files (tests/conftest.py) with a clock that
moves only when the test says so, waiting for a frame, the first tick at which a check reports."""

from __future__ import annotations

import asyncio
import time

from tests.checks.builders import T0
from tests.checks.evidence_builders import lab_histograms, report, tank_with
from tests.feed.clock import ManualClock
from zdash.checks.registry import CheckEngine
from zdash.config import CheckConfig
from zdash.feed.frame import Feed, Frame
from zdash.feed.replay import ReplayFeed
from zdash.fold.recording import replay_frames
from zdash.fold.series import Series
from zdash.model import KernelLine
from zdash.ui.app import WallApp, ZdashApp

# The bound on every wait for the app (a frame, a condition): a bound, not a timing, so it costs
# nothing when the condition comes. 10 s failed UI tests at load 25-30 (a fold or a first frame
# took longer there; each passed alone).
WAIT_S = 60.0


class SnapFeed(Feed):
    """A live feed of model snapshots; the test pushes more with `send`."""

    def __init__(self, *snaps) -> None:
        self.queue: asyncio.Queue = asyncio.Queue()
        for s in snaps:
            self.send(s)

    def send(self, s) -> None:
        self.queue.put_nowait(s)

    async def frames(self):
        engine, series = CheckEngine(), Series()
        while True:
            s = await self.queue.get()
            series.add(s)
            findings = engine.update(s)
            yield Frame(
                s, findings, series, engine.scan_rates(), engine.outliers(), mode="live", source="testhost"
            )


def replay_app(
    path: str, *, start: int = 10**6, playing: bool = False, loop: bool = False, wall: bool = False, **kwargs
) -> ZdashApp:
    """An app on a replay at `start` (default: the last tick), paused unless `playing`. The feed
    and the app share a ManualClock (`app.clock`): a playing replay moves on, and the wall to
    its next pool, only when the test advances it."""
    clock = ManualClock()
    feed = ReplayFeed(path, CheckConfig(), playing=playing, start=start, loop=loop, clock=clock)
    return (WallApp if wall else ZdashApp)(feed, clock=clock, **kwargs)


async def play_until(pilot, predicate, timeout: float = WAIT_S):
    """Advance the app's ManualClock tick by tick until the frame satisfies `predicate`."""
    clock = pilot.app.clock
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        frame = pilot.app.frame
        if frame is not None and predicate(frame):
            await pilot.pause()
            return frame
        last = frame
        await clock.step(timeout)
        await wait_frame(pilot, lambda f, last=last: f is not last, timeout)
    raise AssertionError("no matching frame within the timeout")


def first_tick(path: str, check: str) -> int:
    """The first tick of a recording at which `check` reports something: the lab recordings
    change over time (a disk goes slow, a resilver ends), so tests open the app there."""
    for i, frame in enumerate(replay_frames(path)):
        if any(f.check == check and f.severity > 0 for f in frame.findings):
            return i
    raise AssertionError(f"{path}: no {check} finding at any tick")


async def until(pilot, condition, timeout: float = WAIT_S, what: str = "the condition"):
    """Let the app run until `condition()` holds (bounded: loading and checks run in threads);
    returns its value."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = condition()
        if value:
            await pilot.pause()
            return value
        await pilot.pause(0.02)
    raise AssertionError(f"{what} did not happen within {timeout} s")


async def wait_frame(pilot, predicate=lambda f: f is not None, timeout: float = WAIT_S):
    """Pause until the app has a frame satisfying `predicate`."""

    def matching():
        frame = pilot.app.frame
        return frame if frame is not None and predicate(frame) else None

    return await until(pilot, matching, timeout, "a matching frame")


def plain(cell) -> str:
    return cell.plain if hasattr(cell, "plain") else str(cell)


def table_text(table) -> dict[str, list[str]]:
    """What a table shows (a DataTable, or the vdev table): each row's cells as plain text, by
    row key, top to bottom."""
    if hasattr(table, "row_keys"):  # VdevTable: keys are strings
        return {key: [plain(c) for c in table.get_row(key)] for key in table.row_keys}
    return {str(key.value): [plain(c) for c in table.get_row(key)] for key in table.rows}


def toasts(app) -> list[str]:
    """The notifications on screen, as text."""
    return [str(t.render()) for t in app.screen.query("Toast")]


def evidence_app() -> ZdashApp:
    """tank's mirror-0 with sdb failing by its SMART (a published ATA report: 1,975 reallocated,
    8 pending, health FAILED), the lab's disk-wait histograms of a dm-delay mirror side against
    its peer, and a kernel log line naming sdb: the SMART finding with its evidence and picture."""
    slow, peer = lab_histograms()
    snap = tank_with(
        [report("ata-pending-reallocated-failed.json", "/dev/sdb")],
        histograms=(slow, peer),
        kernel_log=(KernelLine(T0 - 30, "ata3.00: failed command: READ FPDMA QUEUED (sdb)"),),
    )
    return ZdashApp(SnapFeed(snap), clock=ManualClock())  # no silence timer: the frame stays
