"""SVG snapshots of the key screens: fixed terminal size, theme and data (sessions written from
the real captures, paused at a fixed tick; times from the snapshot in UTC; no animation).
Update after an intended change with `pytest tests/ui --snapshot-update`, and look at them."""

from __future__ import annotations

import pytest

from tests.feed.clock import ManualClock
from tests.sessions import fixture
from tests.ui.conftest import evidence_app, replay_app, until, wait_frame

pytestmark = pytest.mark.slow  # a whole screen drawn and compared per test: `pytest -m slow`


def _ready(*keys: str, predicate=lambda f: True, about: bool = False):
    """`about`: keep the recording's description panel (the other screens hide it with `i`)."""

    async def run_before(pilot) -> None:
        app = pilot.app
        await wait_frame(pilot, predicate)
        if app.feed.can_control and not app.wall:  # the markers drawn: all of them, every time
            await until(pilot, lambda: app.timeline is not None and app.timeline.complete)
        if not about and app.screen.query("#about") and app.screen.query_one("#about").display:
            await pilot.press("i")
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()

    return run_before


def test_healthy(snap_compare, sessions):
    assert snap_compare(replay_app(sessions["healthy"]), terminal_size=(120, 40), run_before=_ready())


def test_degraded_resilvering(snap_compare, sessions):
    app = replay_app(sessions["degraded"])
    assert snap_compare(app, terminal_size=(120, 40), run_before=_ready())


def test_deranged_disk(snap_compare, sessions):
    app = replay_app(sessions["deranged"])
    assert snap_compare(
        app,
        terminal_size=(120, 40),
        run_before=_ready(predicate=lambda f: any(x.check == "deranged_disk" for x in f.findings)),
    )


def test_deranged_disk_200x60(snap_compare, sessions):
    """Wide enough for every column of the vdev table: OPS/s, QUEUE and ASHIFT (per top-level
    vdev), which fold away at 120x40 and 80x24."""
    app = replay_app(sessions["deranged"])
    assert snap_compare(
        app,
        terminal_size=(200, 60),
        run_before=_ready(predicate=lambda f: any(x.check == "deranged_disk" for x in f.findings)),
    )


def test_deranged_disk_finding_open(snap_compare, sessions):
    app = replay_app(sessions["deranged"])
    assert snap_compare(app, terminal_size=(120, 40), run_before=_ready("f", "enter"))


def test_clones_view(snap_compare, sessions):
    app = replay_app(sessions["clones"])
    assert snap_compare(app, terminal_size=(120, 40), run_before=_ready("d"))


def test_wall_mode(snap_compare, sessions):
    app = replay_app(sessions["deranged"], wall=True)
    assert snap_compare(app, terminal_size=(120, 40), run_before=_ready())


def test_80x24(snap_compare, sessions):
    assert snap_compare(replay_app(sessions["deranged"]), terminal_size=(80, 24), run_before=_ready())


def test_light_theme(snap_compare, sessions):
    app = replay_app(sessions["degraded"], theme="zdash-light")
    assert snap_compare(app, terminal_size=(120, 40), run_before=_ready())


def test_help_80x24(snap_compare, sessions):
    app = replay_app(sessions["healthy"])
    assert snap_compare(app, terminal_size=(80, 24), run_before=_ready("question_mark"))


def _two_pool_wall():
    from tests.ui.conftest import SnapFeed
    from tests.ui.test_widgets import TWO_POOLS
    from zdash.ui.app import WallApp

    # A still clock: on a loaded machine more than 5 s can pass before the picture is taken,
    # and a real one would put "NO DATA for 6 s" in it (one frame, then silence).
    return WallApp(SnapFeed(TWO_POOLS), clock=ManualClock())


def test_wall_two_pools_80x24(snap_compare):
    """The sick pool's tile first, leading with CRIT; its faulted row still in view."""
    assert snap_compare(_two_pool_wall(), terminal_size=(80, 24), run_before=_ready())


def test_wall_two_pools_120x40(snap_compare):
    assert snap_compare(_two_pool_wall(), terminal_size=(120, 40), run_before=_ready())


def test_wall_two_pools_200x60(snap_compare):
    assert snap_compare(_two_pool_wall(), terminal_size=(200, 60), run_before=_ready())


def test_replay_start_description_and_markers(snap_compare):
    """Issue 11: a training scenario waits with its description in a panel beside the data; the
    bar marks the fault's onset (◆) and where the deranged-disk finding is raised (▲)."""
    app = replay_app(fixture("deranged-mirror"), start=12)
    assert snap_compare(app, terminal_size=(120, 40), run_before=_ready(about=True))


def test_peer_overlay_chart(snap_compare):
    """The sick disk against its mirror partner: the same MiB/s, far higher %UTIL and wait."""
    app = replay_app(fixture("deranged-mirror"))
    keys = (
        "v",
        "down",
        "down",
        "down",
        "down",
        "down",
        "down",
    )  # pool, mirror-0, 2 disks, mirror-1, loop2, sick
    assert snap_compare(app, terminal_size=(120, 40), run_before=_ready(*keys))


def test_a_disk_finding_with_its_smart_and_latency_picture_80x24(snap_compare):
    assert snap_compare(evidence_app(), terminal_size=(80, 24), run_before=_ready("f", "enter", "end"))


def test_a_disk_finding_with_its_smart_and_latency_picture_200x60(snap_compare):
    assert snap_compare(evidence_app(), terminal_size=(200, 60), run_before=_ready("f", "enter"))


def test_latency_strip_under_the_chart_200x60(snap_compare):
    """The sick disk selected (pool, mirror-0, sdb1): its heat strip under the history chart."""
    assert snap_compare(evidence_app(), terminal_size=(200, 60), run_before=_ready("v", "down", "down"))
