"""UI test fixtures: session files (lab recordings when present, else written from the real
captures), apps built on them, a fixed time zone, no animations, no wall clock on screen."""
from __future__ import annotations

import os
import time

import pytest

os.environ["TZ"] = "UTC"            # times are rendered in the viewer's zone: pin it
time.tzset()
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

from zdash.checks.registry import run_checks  # noqa: E402
from zdash.sources.replay import load_replay  # noqa: E402
from zdash.ui.app import ZdashApp  # noqa: E402
from zdash.ui.feed import window  # noqa: E402
from zdash.ui.replay_feed import ReplayFeed  # noqa: E402

from .sessions import fixture, write_session  # noqa: E402


@pytest.fixture(scope="session")
def sessions(tmp_path_factory) -> dict[str, str]:
    """Capture-based sessions: deterministic, for snapshot tests and as a fallback."""
    d = tmp_path_factory.mktemp("sessions")
    return {name: write_session(str(d / f"{name}.yaml.gz"), name)
            for name in ("healthy", "deranged", "degraded", "clones", "scrub")}


@pytest.fixture(scope="session")
def recordings(sessions) -> dict[str, str]:
    """The lab recordings of each incident when they are committed, else the capture sessions."""
    pick = {"healthy": ("healthy",), "deranged": ("deranged-mirror", "deranged-raidz"),
            "degraded": ("degraded-resilver",), "clones": ("clones",)}
    out = dict(sessions)
    for key, names in pick.items():
        found = next((fixture(n) for n in names if fixture(n)), None)
        if found:
            out[key] = found
    return out


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
