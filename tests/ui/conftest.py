"""UI test helpers: apps built on the shared session files (tests/conftest.py), waiting for a
frame, the first tick at which a check reports."""

from __future__ import annotations

import time

from zdash.checks.registry import run_checks
from zdash.feed.history import window
from zdash.feed.replay import ReplayFeed
from zdash.sources.replay import load_replay
from zdash.ui.app import ZdashApp


def replay_app(path: str, *, start: int = 10**6, playing: bool = False, **kwargs) -> ZdashApp:
    """An app on a paused replay at `start` (default: the last tick)."""
    feed = ReplayFeed(path, run_checks, playing=playing, start=start, loop=kwargs.pop("loop", False))
    return ZdashApp(feed, **kwargs)


def first_tick(path: str, check: str) -> int:
    """The first tick of a recording at which `check` reports something: the lab recordings
    change over time (a disk goes slow, a resilver ends), so tests open the app there."""
    snaps = load_replay(path)[1]
    for i in range(len(snaps)):
        if any(f.check == check and f.severity > 0 for f in run_checks(window(snaps, i))):
            return i
    raise AssertionError(f"{path}: no {check} finding at any tick")


async def wait_frame(pilot, predicate=lambda f: f is not None, timeout: float = 10.0):
    """Pause until the app has a frame satisfying `predicate` (loading runs in a thread)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        frame = pilot.app.frame
        if frame is not None and predicate(frame):
            await pilot.pause()
            return frame
        await pilot.pause(0.05)
    raise AssertionError("no matching frame within the timeout")
