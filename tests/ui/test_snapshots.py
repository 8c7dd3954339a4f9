"""SVG snapshots of the key screens: fixed terminal size, theme and data (sessions written from
the real captures, paused at a fixed tick; times from the snapshot in UTC; no animation).
Update after an intended change with `pytest tests/ui --snapshot-update`, and look at them."""

from __future__ import annotations

from tests.ui.conftest import replay_app, wait_frame


def _ready(*keys: str, predicate=lambda f: True):
    async def run_before(pilot) -> None:
        await wait_frame(pilot, predicate)
        pilot.app.clear_notifications()  # the recording's intro toast is timed; these are the screens
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

    return WallApp(SnapFeed(TWO_POOLS))


def test_wall_two_pools_80x24(snap_compare):
    """The sick pool's tile first, leading with CRIT; its faulted row still in view."""
    assert snap_compare(_two_pool_wall(), terminal_size=(80, 24), run_before=_ready())


def test_wall_two_pools_200x60(snap_compare):
    assert snap_compare(_two_pool_wall(), terminal_size=(200, 60), run_before=_ready())
