"""The fleet wall and dashboard over several hosts (--host a --host b): each host's pools as
tiles named HOST:POOL, a host that stops answering shown unreachable (since when, and why)
while the other keeps updating, and a guided action planned, checked and run on its pool's host. The
hosts are stand-ins: tests/fakes/bin/ssh runs the remote words here, where the stand-in zpool
answers; a host listed in FAKE_SSH_DOWN refuses connections as a stopped sshd does."""

import asyncio
import json
import os
from pathlib import Path

import pytest

from tests.fakes import use_fake_ssh
from tests.ui.conftest import until, wait_frame
from zdash import fmt
from zdash.actions import AuditLog, Request, needs_new_device, prompt
from zdash.checks.finding import Severity
from zdash.config import CheckConfig
from zdash.feed.fleet import FleetFeed
from zdash.sources.remote import SshHost
from zdash.ui.app import WallApp, ZdashApp
from zdash.ui.screens.finding import FindingScreen, guided
from zdash.ui.screens.plan import PlanScreen

pytestmark = pytest.mark.slow  # a stand-in ssh per host per tick: `pytest -m slow`

# Bounds on waits, not timings: each stand-in ssh command is two Python start-ups (ssh, then
# zpool), seconds apiece on a loaded host (the UI suite runs beside lab VMs).
BOUND = 30.0


@pytest.fixture
def fleet(monkeypatch, tmp_path):
    use_fake_ssh(monkeypatch, tmp_path)
    monkeypatch.setenv("FAKE_ZPOOL_SCENARIO", "deranged-disk")
    return tmp_path


def _feed(*hosts):
    return FleetFeed(CheckConfig(), [SshHost.parse(h) for h in hosts], interval=0.2, timeout=5.0)


def _tiles(app):
    return sorted(t.border_title for t in app.screen.query("PoolTile"))


async def test_wall_shows_every_hosts_pools_and_which_host_is_unreachable(fleet):
    app = WallApp(_feed("nas1", "root@nas2:2222"))
    async with app.run_test(size=(160, 50)) as pilot:
        await until(
            pilot,
            lambda: _tiles(app) == ["nas1:deranged", "nas2:2222:deranged"],
            timeout=BOUND,
            what="both tiles",
        )
        (fleet / "down").write_text("nas2:2222\n")  # nas2's sshd stops
        frame = await wait_frame(
            pilot,
            lambda f: any("nas2:2222 unreachable since" in (s.message or "") for s in f.snapshot.problems),
            timeout=BOUND,
        )
        # Its pool stays, with its last data, first on the wall (UNKNOWN), saying why.
        worst = next(f for f in frame.findings if "unreachable" in f.title)
        assert worst.severity == Severity.UNKNOWN and worst.pool == "nas2:2222:deranged"
        assert worst.title.endswith("ssh: connect to host nas2 port 2222: Connection refused")
        # Said once (not again by nas2's own "cannot see" line), with when its data was last new.
        assert [f for f in frame.findings if f.pool == worst.pool and f.severity == Severity.UNKNOWN] == [
            worst
        ]
        since = app.feed.members[1].runner.unreachable_since
        assert dict(worst.evidence)["last data"] <= fmt.clock(since)

        def nas2_tile_alarms():
            tile = next(t for t in app.screen.query("PoolTile") if t.border_title == "nas2:2222:deranged")
            return (
                tile.view is not None
                and tile.view.level == "crit"
                and tile.view.word == "? STALE"
                and "unreachable" in tile.view.subject
            )

        await until(pilot, nas2_tile_alarms, timeout=BOUND, what="nas2's tile red, saying unreachable")
        banner = str(app.screen.query_one("#wall-banner").render())
        assert "nas2:2222 unreachable since" in banner
        # nas1 keeps updating: its pool's iostat arrives in frames after nas2 went down.
        # (Waited for, not read off one frame: under load a single tick may carry no rate.)
        seen = frame.time

        def nas1_measured(f) -> bool:
            pool = f.snapshot.pool("nas1:deranged")
            return (
                f.time > seen + 0.5
                and pool is not None
                and any(pool.io_of(v) is not None for v in pool.leaves())
            )

        later = await wait_frame(pilot, nas1_measured, timeout=BOUND)
        assert not any("nas1 unreachable" in (s.message or "") for s in later.snapshot.problems)
        # And nas2 back: the unreachable line goes.
        (fleet / "down").write_text("")
        await wait_frame(
            pilot,
            lambda f: not any("unreachable" in (s.message or "") for s in f.snapshot.problems),
            timeout=BOUND,
        )


async def test_a_guided_action_runs_on_its_pools_host_over_ssh(fleet, monkeypatch):
    """The plan names the host, is checked against that host's fresh state (its zpool status,
    read over its ssh connection), and what runs is the pool's own command on that host: the
    stand-in sshd of nas2 receives exactly the plan's words; nas1 receives none of them."""
    log, ran = fleet / "ssh.log", fleet / "actions.log"
    monkeypatch.setenv("FAKE_SSH_LOG", str(log))
    monkeypatch.setenv("FAKE_ZPOOL_ACTIONS", str(ran))
    audit = AuditLog(str(fleet / "audit.jsonl"))
    app = ZdashApp(_feed("nas1", "nas2"), record_dir=str(fleet), audit=audit)
    async with app.run_test(size=(160, 50)) as pilot:

        def nas2_action(f):
            return next(
                (
                    fi
                    for fi in f.findings
                    if fi.pool == "nas2:deranged" and any(needs_new_device(a) is None for a in guided(fi))
                ),
                None,
            )

        frame = await wait_frame(pilot, nas2_action, timeout=BOUND)
        finding = nas2_action(frame)
        assert app.action_mode == "live"
        app.push_screen(FindingScreen(finding))
        await pilot.pause()
        body = str(app.screen.query_one("#finding-body").render())
        assert "These commands are for nas2: its pool is nas2:deranged." in body
        assert "Plans are checked and run on nas2, over ssh." in body
        index = next(i for i, a in enumerate(guided(finding)) if needs_new_device(a) is None)
        suggestion = guided(finding)[index]
        await pilot.press(str(index + 1))
        screen = await until(pilot, lambda: isinstance(app.screen, PlanScreen) and app.screen, what="plan")
        plan = await until(pilot, lambda: screen.plan, timeout=90, what="the plan built")
        assert plan.host == "nas2" and plan.pool == "deranged"
        assert plan.argv == tuple(suggestion.argv)  # the words as nas2 knows its pool
        command = str(screen.query_one("#plan-command").render())
        assert f"nas2$ {plan.shell_text}" in command and "runs on nas2, over ssh" in command
        assert "on nas2" in str(screen.query_one("#plan-title").render())
        assert "Exactly what starts here" in str(screen.query_one("#plan-body").render())
        assert plan.ok, [c.reason for c in plan.failures]
        log.write_text("")
        if plan.confirm_token:
            assert prompt(plan).endswith("run it on nas2.")
            await pilot.click("#plan-token")
            await pilot.press(*os.path.basename(plan.confirm_token), "enter")
        else:
            await pilot.press("y")
        out = await until(pilot, lambda: screen.outcome, timeout=90, what="the outcome")
        assert out.ok, out.refused_reason or out.stderr
        assert ran.read_text().split() == list(plan.argv[1:])  # zpool's own words, once
        calls = [json.loads(line) for line in log.read_text().splitlines()]
        action_calls = [c for c in calls if c[-len(plan.argv) :] == list(plan.argv)]
        assert len(action_calls) == 1 and action_calls[0][action_calls[0].index("--") + 1] == "nas2"
        # and it was checked against nas2's fresh state first (zpool status over nas2's ssh)
        assert any(c[c.index("--") + 1] == "nas2" and "status" in c for c in calls)
        record = json.loads(Path(audit.path).read_text().splitlines()[-1])
        assert record["target_host"] == "nas2" and record["outcome"] == "ok"


async def test_a_fleet_plan_is_built_while_the_dashboards_own_status_is_running(fleet):
    """The plan's fresh `zpool status` goes over the host's connection beside the dashboard's
    own: a status the feed has in flight at that moment (a sick pool's can take seconds) must
    not refuse the plan as busy (it did, in the fleet action lab test)."""
    app = ZdashApp(_feed("nas1", "nas2"), record_dir=str(fleet))
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_frame(pilot, lambda f: f.snapshot.pool("nas2:deranged") is not None, timeout=BOUND)
        feed_runner = app.feed.runner_for("nas2")
        slow = asyncio.ensure_future(feed_runner.run("status", ("sleep", "20"), timeout=30))
        await until(
            pilot, lambda: feed_runner.busy("status"), timeout=BOUND, what="the feed's status running"
        )
        try:
            plan = await app.plan_action(Request("scrub", "deranged", host="nas2"))
            assert plan.host == "nas2" and plan.ok, [c.reason for c in plan.failures]
        finally:
            slow.cancel()


async def test_a_host_down_at_the_start_is_seen_in_full_once_it_answers(fleet):
    """nas2's sshd is down when zdash starts: its `zpool version`, datasets and event log all
    fail. Once it answers, every one of them is asked again within seconds (no "version:
    connection refused" left for the session, no ashift asked of `zdb` because the version
    was unknown): the frame is clean, nas2's version and ashift read."""
    (fleet / "down").write_text("nas2\n")
    app = WallApp(_feed("nas1", "nas2"))
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_frame(
            pilot,
            lambda f: any("nas2 unreachable" in (s.message or "") for s in f.snapshot.problems),
            timeout=BOUND,
        )
        (fleet / "down").write_text("")

        def clean(f) -> bool:
            pool = f.snapshot.pool("nas2:deranged")
            sources = {s.key: s.ok for s in f.snapshot.sources}
            return (
                pool is not None
                and not f.snapshot.problems
                and sources.get("nas2 version") is True
                and sources.get("nas2 ashift:deranged") is True
            )

        try:
            frame = await wait_frame(pilot, clean, timeout=BOUND)
        except AssertionError:
            last = app.frame.snapshot
            raise AssertionError(
                f"not clean: problems {[s.message for s in last.problems]}, "
                f"sources {[(s.key, s.ok) for s in last.sources]}"
            ) from None
        assert not [fi for fi in frame.findings if fi.severity == Severity.UNKNOWN]


async def test_a_fleet_plan_for_an_unreachable_host_is_not_built(fleet):
    """nas2 down: the plan says why it cannot be checked, and nothing runs."""
    app = ZdashApp(_feed("nas1", "nas2"), record_dir=str(fleet))
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_frame(pilot, lambda f: f.snapshot.pool("nas2:deranged") is not None, timeout=BOUND)
        (fleet / "down").write_text("nas2\n")
        with pytest.raises(RuntimeError, match="nas2: ssh: connect to host nas2 port 22: Connection refused"):
            await app.plan_action(Request("scrub", "deranged", host="nas2"))
        with pytest.raises(RuntimeError, match="nas3 is not one of this dashboard's hosts"):
            await app.plan_action(Request("scrub", "deranged", host="nas3"))
        with pytest.raises(RuntimeError, match="must name its host"):
            await app.plan_action(Request("scrub", "deranged"))


async def test_each_host_is_a_tab_of_its_own_pools_and_says_when_it_is_unreachable(fleet):
    app = ZdashApp(_feed("nas1", "nas2"), record_dir=str(fleet))
    async with app.run_test(size=(160, 50)) as pilot:

        def tabs() -> str:
            return str(app.screen.query_one("#pool-tabs").render())

        await until(
            pilot,
            lambda: "nas1 ▸  deranged" in tabs() and "nas2 ▸  deranged" in tabs(),
            timeout=BOUND,
            what="tabs",
        )
        assert "unreachable" not in tabs()
        (fleet / "down").write_text("nas2\n")
        await until(
            pilot, lambda: "nas2 ✕ unreachable ▸  deranged" in tabs(), timeout=BOUND, what="nas2 down"
        )
        assert "nas1 ▸  deranged" in tabs() and "nas1 ✕" not in tabs()
        # `]` moves to the next pool: nas2's, whose tab is then the highlighted one.
        shown = app.screen.pool_name
        await pilot.press("right_square_bracket")
        await until(pilot, lambda: app.screen.pool_name not in (None, shown), what="the other host's pool")
        assert {shown, app.screen.pool_name} == {"nas1:deranged", "nas2:deranged"}
