"""A key that does nothing in this mode says why when pressed, and the command palette offers
zdash's own commands: only those that work now."""

from __future__ import annotations

from tests.actions.helpers import snap, two_way
from tests.ui.conftest import SnapFeed, replay_app, toasts, until, wait_frame
from zdash.ui.app import ZdashApp
from zdash.ui.screens.dashboard import DashboardScreen
from zdash.ui.screens.finding import FindingScreen
from zdash.ui.screens.wall import WallView


def _titles(app) -> list[str]:
    return [c.title for c in app.get_system_commands(app.screen)]


async def test_recording_a_replay_says_why_it_cannot(sessions):
    app = replay_app(sessions["deranged"])
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await wait_frame(pilot)
        app.clear_notifications()
        await pilot.press("r")
        said = await until(pilot, lambda: toasts(app), what="a notice")
        assert any("this is a recording already" in t for t in said), said
        assert not app.feed.can_record and app.frame.recording is None


async def test_replay_keys_on_the_live_host_say_why_they_do_nothing():
    app = ZdashApp(SnapFeed(snap(two_way("tank"))))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await wait_frame(pilot)
        await pilot.press("space")
        said = await until(pilot, lambda: toasts(app), what="a notice")
        assert any("Play/Pause: replay controls work on a recording" in t for t in said), said
        await pilot.press("right_square_bracket")  # one pool: nothing to switch to
        said = await until(pilot, lambda: len(toasts(app)) >= 2, what="a second notice") and toasts(app)
        assert any("one pool only" in t for t in said), said


async def test_the_palette_offers_what_works_in_each_mode(sessions):
    live = ZdashApp(SnapFeed(snap(two_way("tank"), two_way("backup"))))
    async with live.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot)
        await until(pilot, lambda: live.screen.multi_pool, what="two pools seen")
        titles = _titles(live)
        assert {"Open the worst finding", "Next pool", "Wall view", "Datasets and clones"} <= set(titles)
        assert "Seek…" not in titles
    replay = replay_app(sessions["deranged"])
    async with replay.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot)
        titles = _titles(replay)
        assert "Seek…" in titles and "Record" not in titles and "Next pool" not in titles
        assert "Next event" in titles
        assert any("theme" in t.lower() for t in titles)  # Textual's own stay


async def test_the_palette_opens_the_worst_finding_and_the_wall_view(sessions):
    app = replay_app(sessions["deranged"])
    async with app.run_test(size=(120, 40)) as pilot:
        frame = await wait_frame(pilot, lambda f: bool(f.findings))
        command = {c.title: c for c in app.get_system_commands(app.screen)}
        command["Open the worst finding"].callback()
        await until(pilot, lambda: isinstance(app.screen, FindingScreen), what="the finding")
        assert app.screen.finding == frame.findings[0]
        assert max(f.severity for f in frame.findings) == frame.findings[0].severity
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), what="back")
        command = {c.title: c for c in app.get_system_commands(app.screen)}
        command["Wall view"].callback()
        await until(pilot, lambda: isinstance(app.screen, WallView), what="the wall view")
        await until(pilot, lambda: app.screen.query("PoolTile"), what="a tile")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), what="back from the wall")
