"""The fleet wall and dashboard over several hosts (--host a --host b): each host's pools as
tiles named HOST:POOL, a host that stops answering shown unreachable (since when, and why)
while the other keeps updating, and no guided action run from here on another host's pool. The
hosts are stand-ins: tests/fakes/bin/ssh runs the remote words here, where the stand-in zpool
answers; a host listed in FAKE_SSH_DOWN refuses connections as a stopped sshd does."""

import os

import pytest

from tests.ui.conftest import until, wait_frame
from zdash.checks.finding import Severity
from zdash.checks.registry import CheckEngine
from zdash.feed.fleet import FleetFeed
from zdash.sources.remote import SshHost
from zdash.ui.app import WallApp, ZdashApp
from zdash.ui.screens.finding import FindingScreen

FAKES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "fakes", "bin"))


@pytest.fixture
def fleet(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", f"{FAKES}:/usr/bin:/bin")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.setenv("FAKE_SSH_DOWN", str(tmp_path / "down"))
    monkeypatch.setenv("FAKE_ZPOOL_SCENARIO", "deranged-disk")
    return tmp_path


def _feed(*hosts):
    return FleetFeed(CheckEngine, [SshHost.parse(h) for h in hosts], interval=0.2, timeout=5.0)


def _tiles(app):
    return sorted(t.border_title for t in app.screen.query("PoolTile"))


async def test_wall_shows_every_hosts_pools_and_which_host_is_unreachable(fleet):
    app = WallApp(_feed("nas1", "root@nas2:2222"))
    async with app.run_test(size=(160, 50)) as pilot:
        await until(pilot, lambda: _tiles(app) == ["nas1:deranged", "nas2:2222:deranged"], what="both tiles")
        (fleet / "down").write_text("nas2:2222\n")  # nas2's sshd stops
        frame = await wait_frame(
            pilot,
            lambda f: any("nas2:2222 unreachable since" in (s.message or "") for s in f.snapshot.problems),
        )
        # Its pool stays, with its last data, first on the wall (UNKNOWN), saying why.
        worst = next(f for f in frame.findings if "unreachable" in f.title)
        assert worst.severity == Severity.UNKNOWN and worst.pool == "nas2:2222:deranged"
        assert worst.title.endswith("ssh: connect to host nas2 port 2222: Connection refused")

        def nas2_tile_alarms():
            tile = next(t for t in app.screen.query("PoolTile") if t.border_title == "nas2:2222:deranged")
            return tile.view is not None and tile.view.level == "crit" and "unreachable" in tile.view.verdict

        await until(pilot, nas2_tile_alarms, what="nas2's tile red, saying unreachable")
        banner = str(app.screen.query_one("#wall-banner").render())
        assert "nas2:2222 unreachable since" in banner
        # nas1 keeps updating: its pool's iostat arrives in frames after nas2 went down.
        # (Waited for, not read off one frame: under load a single tick may carry no rate.)
        seen = frame.time

        def nas1_measured(f) -> bool:
            pool = f.snapshot.pool("nas1:deranged")
            return f.time > seen + 0.5 and pool is not None and any(v.io is not None for v in pool.leaves())

        later = await wait_frame(pilot, nas1_measured)
        assert not any("nas1 unreachable" in (s.message or "") for s in later.snapshot.problems)
        # And nas2 back: the unreachable line goes.
        (fleet / "down").write_text("")
        await wait_frame(
            pilot, lambda f: not any("unreachable" in (s.message or "") for s in f.snapshot.problems)
        )


async def test_no_guided_action_runs_on_another_hosts_pool(fleet):
    app = ZdashApp(_feed("nas1", "nas2"))
    async with app.run_test(size=(160, 50)) as pilot:
        frame = await wait_frame(pilot, lambda f: any(fi.actions for fi in f.findings), timeout=15)
        with_actions = next(fi for fi in frame.findings if fi.actions)
        assert app.action_mode == "wall"
        app.push_screen(FindingScreen(with_actions))
        await pilot.pause()
        body = str(app.screen.query_one("#finding-body").render())
        host = with_actions.pool.rsplit(":", 1)[0]
        assert f"run them yourself on {host}" in body
        await pilot.press("1")  # nothing numbered: no plan opens
        await pilot.pause()
        assert isinstance(app.screen, FindingScreen)
        with pytest.raises(RuntimeError, match="this host only"):
            await app.plan_action(None)
