"""Guided actions in the UI (issue 5), driven by keys: a finding's numbered suggestion opens its
plan; on the live host a disruptive plan runs only after its device name is typed, a plain one
after `y`, never on Enter alone; a replay and a wall never run anything; every run is audited.

The live app here is a fake feed on a model snapshot (a 2-way mirror with a FAULTED side), and
the executor gets a fake fresh state (the same snapshot), a FakeProbe and a fake runner."""

from __future__ import annotations

import json

from textual.widgets import Input, Static

from tests.actions.helpers import FakeProbe, GiB, disk, scan, snap, two_way
from tests.ui.conftest import SnapFeed, replay_app, until, wait_frame
from zdash.actions import AuditLog, Request
from zdash.raw import RawSample
from zdash.ui.app import ActionDeps, ZdashApp
from zdash.ui.screens.finding import FindingScreen
from zdash.ui.screens.guided import NewDeviceScreen
from zdash.ui.screens.plan import PlanScreen
from zdash.ui.screens.wall import WallScreen
from zdash.ui.widgets.findings import FindingsTable

NEW = "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4"
FAULTED = snap(two_way(states=("ONLINE", "FAULTED")))


class FakeRunner:
    """Returns (rc, stderr) pairs in order; records every argv it was asked to run."""

    def __init__(self, *results: tuple[int, str]) -> None:
        self.results = list(results) or [(0, "")]
        self.ran: list[tuple[str, ...]] = []

    async def run(self, key, argv, timeout=None):
        self.ran.append(tuple(argv))
        rc, err = self.results.pop(0) if len(self.results) > 1 else self.results[0]
        return RawSample(key, tuple(argv), rc, "", err, 0.0, 0.0, None if rc == 0 else err.strip())


def live_app(tmp_path, runner: FakeRunner) -> tuple[ZdashApp, AuditLog]:
    async def fresh_state(_request):
        return FAULTED

    audit = AuditLog(str(tmp_path / "state" / "audit.jsonl"))
    deps = ActionDeps(fresh_state, FakeProbe({NEW: disk(NEW, GiB, kernel="sdz")}), runner)
    return ZdashApp(SnapFeed(FAULTED), record_dir=str(tmp_path), audit=audit, actions=deps), audit


def text(screen) -> str:
    return "\n".join(str(w.render()) for w in screen.query(Static) if w.display)


async def open_finding(pilot, check: str) -> FindingScreen:
    app = pilot.app
    await pilot.press("f")
    app.screen.query_one(FindingsTable).move_cursor(
        row=next(i for i, f in enumerate(app.frame.findings) if f.check == check)
    )
    await pilot.press("enter")
    await pilot.pause()
    assert isinstance(app.screen, FindingScreen)
    return app.screen


async def press_action(pilot, action: str) -> None:
    """Press the number the finding screen shows next to the guided `action`."""
    guided = [a for a in pilot.app.screen.finding.actions if a.action]
    await pilot.press(str(next(i for i, a in enumerate(guided) if a.action == action) + 1))
    await pilot.pause()


async def on_screen(pilot, predicate, timeout: float = 10.0):
    """The screen once `predicate(screen)` holds (bounded)."""
    return await until(pilot, lambda: predicate(pilot.app.screen) and pilot.app.screen, timeout)


def plan_ready(s) -> bool:
    return isinstance(s, PlanScreen) and s.plan is not None


def ran(s) -> bool:
    return isinstance(s, PlanScreen) and s.outcome is not None


async def test_disruptive_plan_is_not_confirmed_by_enter_alone(tmp_path):
    runner = FakeRunner()
    app, audit = live_app(tmp_path, runner)
    async with app.run_test(size=(80, 24)) as pilot:  # the smallest supported terminal
        await wait_frame(pilot)
        finding = await open_finding(pilot, "health")
        assert "Press its number to open a plan" in text(finding)
        await press_action(pilot, "replace")
        assert isinstance(app.screen, NewDeviceScreen)  # replace asks for the new disk first
        await pilot.press(*NEW, "enter")
        screen = await on_screen(pilot, plan_ready)
        shown = text(screen)
        assert f"$ zpool replace tank /dev/sdb {NEW}" in shown and "PASS  target exists" in shown
        assert "Type sdb (or /dev/sdb) and press Enter" in shown
        token = screen.query_one(Input)
        assert token.display and token.has_focus
        assert "Pre-flight: 11 PASS" in text(screen)  # in view, whatever is scrolled
        checks = screen.query_one("#plan-scroll")
        await pilot.press("pagedown")  # the checks scroll; the input keeps focus
        assert checks.scroll_y > 0 and token.has_focus
        await pilot.press("enter")  # Enter alone
        await until(pilot, lambda: "Nothing ran: type the device name" in text(screen))
        await pilot.press(*"sda", "enter")  # the wrong disk
        await pilot.press("backspace", "backspace", "backspace", *"sdb1", "enter")  # not exactly it
        await pilot.pause()
        assert not screen.running and screen.outcome is None and runner.ran == [] and audit.read() == []
        await pilot.press("backspace", "enter")  # "sdb": the device that goes
        await on_screen(pilot, ran)
        assert runner.ran == [("zpool", "replace", "tank", "/dev/sdb", NEW)]
        (line,) = audit.read()
        assert line["argv"] == ["zpool", "replace", "tank", "/dev/sdb", NEW] and line["outcome"] == "ok"
        shown = text(screen)
        assert "✓ Done" in shown and "exited 0" in shown and f"{NEW} not in tank yet" in shown
        assert not token.display  # one confirmation, one run
        await pilot.press("escape")
        assert isinstance(app.screen, FindingScreen)


async def test_plan_failing_preflight_cannot_be_confirmed(tmp_path):
    runner = FakeRunner()
    app, audit = live_app(tmp_path, runner)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot)
        await open_finding(pilot, "health")
        await press_action(pilot, "replace")
        await pilot.press(*"/dev/disk/by-id/nothing-here", "enter")  # the probe knows no such disk
        screen = await on_screen(pilot, plan_ready)
        assert not screen.plan.ok and "FAIL  target exists" in text(screen)
        assert "Pre-flight failed: this plan cannot run." in text(screen)
        assert not screen.query_one(Input).display
        await pilot.press("y", "enter", *"sdb", "enter")
        await pilot.pause()
        assert not screen.running and screen.outcome is None and runner.ran == [] and audit.read() == []


async def test_a_replay_practises_a_plan_to_its_confirmation_and_runs_nothing(sessions, tmp_path):
    """Issue 27: the typed confirmation, the one thing a trainee must practise, in a replay:
    the plan, its pre-flight against the recorded pool, the risk accepted, the device name
    typed, then "practice: nothing was run" with the exact argv. Nothing reaches the app's
    door to the executor, nothing is audited."""
    audit = AuditLog(str(tmp_path / "audit.jsonl"))
    app = replay_app(sessions["deranged"], audit=audit)
    ran_plans = []

    async def never(plan):  # the one door to the executor: must not be knocked on
        ran_plans.append(plan)
        raise AssertionError("a replay ran a plan")

    app.run_plan = never
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot, lambda f: any(x.check == "deranged_disk" for x in f.findings))
        finding = await open_finding(pilot, "deranged_disk")
        assert "practise it" in text(finding) and "nothing runs" in text(finding)
        # Relief now, on a 2-way mirror: offline is a plan whose pre-flight names the risk.
        await press_action(pilot, "offline")
        screen = await on_screen(pilot, plan_ready)
        shown = text(screen)
        assert "$ zpool offline deranged /dev/mapper/slowdisk" in shown
        assert "FAIL  redundancy kept" in shown and "Practice on a recording" in shown
        await pilot.press("y", "enter")  # not before the risk is accepted
        assert not screen.practised
        await pilot.press("A")  # accepted, planned again against the recorded pool
        screen = await on_screen(pilot, lambda s: plan_ready(s) and s.request.accept_risk)
        assert "ACCEPTED  redundancy kept" in text(screen)
        await until(pilot, lambda: screen.query_one(Input).display, what="the device name asked")
        await pilot.press(*"loop0", "enter")  # the wrong disk: said, nothing practised
        await until(pilot, lambda: "type the device name exactly" in text(screen), what="refused")
        assert not screen.practised
        screen.query_one(Input).value = ""
        await pilot.press(*"slowdisk", "enter")
        await until(pilot, lambda: screen.practised, what="the practice confirmed")
        shown = text(screen)
        assert "practice: nothing was run." in shown
        assert "$ zpool offline deranged /dev/mapper/slowdisk" in shown.split("practice:")[1]
        assert "argv: ['zpool', 'offline', 'deranged', '/dev/mapper/slowdisk']" in shown
        assert not screen.query_one(Input).display and screen.outcome is None
        await pilot.press("y", "enter")  # once is all
        await pilot.press("escape")
        # Safe: replace onto a new disk while the slow one stays in; the new disk is required
        # (in place would mean pulling the sick disk first); the host checks only warn in replay.
        await press_action(pilot, "replace")
        assert isinstance(app.screen, NewDeviceScreen)
        await pilot.press("enter")
        assert isinstance(app.screen, NewDeviceScreen)  # refused: empty
        assert "replace needs the new disk's path" in str(app.screen.query_one("#device-error").render())
        await pilot.press(*"/dev/disk/by-id/ata-NEW", "enter")
        screen = await on_screen(pilot, plan_ready)
        shown = text(screen)
        assert "$ zpool replace deranged /dev/mapper/slowdisk /dev/disk/by-id/ata-NEW" in shown
        assert "Pre-flight checks" in shown and "WARN  target exists" in shown
        await until(pilot, lambda: screen.query_one(Input).display, what="the device name asked")
        await pilot.press(*"slowdisk", "enter")
        await until(pilot, lambda: screen.practised, what="the practice confirmed")
        assert (
            "argv: ['zpool', 'replace', 'deranged', '/dev/mapper/slowdisk', '/dev/disk/by-id/ata-NEW']"
            in text(screen)
        )
    assert ran_plans == [] and audit.read() == []


async def test_audit_log_records_every_run(tmp_path):
    runner = FakeRunner((0, ""), (1, "cannot clear errors for /dev/sdb: permission denied\n"))
    app, audit = live_app(tmp_path, runner)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot)
        await open_finding(pilot, "scan")  # "no scrub on record": start one
        await press_action(pilot, "scrub")
        screen = await on_screen(pilot, plan_ready)
        assert "Press y to run it" in text(screen) and not screen.query_one(Input).display
        await pilot.press("enter")  # not a confirmation either
        await pilot.pause()
        assert not screen.running and runner.ran == [] and audit.read() == []
        await pilot.press("y")
        await on_screen(pilot, ran)
        assert "✓ Done" in text(screen) and "no scrub running" in text(screen)
        # progress follows the dashboard's frames while the outcome is ok
        app.feed.send(
            snap(two_way(states=("ONLINE", "FAULTED"), scans=(scan("scrub", "scanning", pct_done=42.0),)))
        )
        await on_screen(pilot, lambda s: "scrub scanning, 42.0% done" in text(s))
        await pilot.press("escape", "escape", "escape")
        await pilot.pause()
        await open_finding(pilot, "health")  # sdb FAULTED: clear it
        await press_action(pilot, "clear")
        screen = await on_screen(pilot, plan_ready)
        await pilot.press("y")
        await on_screen(pilot, ran)
        shown = text(screen)
        assert "✖ Failed: exit code 1" in shown and "permission denied" in shown
    assert runner.ran == [("zpool", "scrub", "tank"), ("zpool", "clear", "tank", "/dev/sdb")]
    with open(audit.path) as f:
        lines = [json.loads(line) for line in f]
    assert [(r["argv"], r["exit_code"], r["outcome"]) for r in lines] == [
        (["zpool", "scrub", "tank"], 0, "ok"),
        (["zpool", "clear", "tank", "/dev/sdb"], 1, "failed"),
    ]
    assert lines[0]["stderr"] == "" and "permission denied" in lines[1]["stderr"]
    assert all(r["mode"] == "live" for r in lines)


async def test_wall_mode_opens_no_plan(sessions, tmp_path):
    audit = AuditLog(str(tmp_path / "audit.jsonl"))
    app = replay_app(sessions["deranged"], wall=True, audit=audit)
    async with app.run_test(size=(120, 40)) as pilot:
        frame = await wait_frame(pilot, lambda f: any(x.check == "deranged_disk" for x in f.findings))
        await pilot.press("f", "enter", "1", "2", "y", "enter")
        await pilot.pause()
        assert isinstance(app.screen, WallScreen) and len(app.screen_stack) == 1
        # Not reachable from the wall; and even opened by code, a finding offers no plan.
        finding = next(f for f in frame.findings if f.check == "deranged_disk")
        app.push_screen(FindingScreen(finding))
        await pilot.pause()
        shown = text(app.screen)
        assert "$ zpool replace deranged /dev/mapper/slowdisk" in shown
        assert "Press its number" not in shown and "1 plan" not in shown
        assert not any(
            b.enabled and b.binding.action.startswith("plan") for b in app.screen.active_bindings.values()
        )
        await pilot.press("1", "2", "enter")
        await pilot.pause()
        assert not any(isinstance(s, (PlanScreen, NewDeviceScreen)) for s in app.screen_stack)
    assert audit.read() == []


async def test_taking_away_the_last_copy_runs_only_after_the_risk_is_accepted(tmp_path):
    """Offline one side of a healthy 2-way mirror: the pre-flight fails until `a` accepts the
    risk; then the checks read ACCEPTED and the device name must still be typed."""
    runner = FakeRunner()
    healthy = snap(two_way())

    async def fresh_state(_request):
        return healthy

    audit = AuditLog(str(tmp_path / "audit.jsonl"))
    deps = ActionDeps(fresh_state, FakeProbe({}), runner)
    app = ZdashApp(SnapFeed(healthy), record_dir=str(tmp_path), audit=audit, actions=deps)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_frame(pilot)
        app.push_screen(PlanScreen(Request("offline", "tank", "/dev/sda")))
        screen = await on_screen(pilot, plan_ready)
        assert not screen.plan.ok and "Press A (shift+a) to accept that risk" in text(screen)
        await pilot.press("question_mark")  # the plan's own keys
        helped = "\n".join(str(w.render()) for w in app.screen.query(Static))
        assert "accept it with A" in helped and "Vdev table" not in helped
        await pilot.press("escape")
        assert app.screen is screen
        assert not screen.query_one(Input).display
        await pilot.press("y", *"sda", "enter")  # neither runs nor accepts it (a is not A)
        await pilot.pause()
        assert runner.ran == [] and not screen.request.accept_risk
        await pilot.press("A")
        screen = await on_screen(pilot, lambda s: plan_ready(s) and s.plan.ok)
        assert screen.request.accept_risk and "ACCEPTED" in text(screen)
        assert "Type sda (or /dev/sda) and press Enter" in text(screen)
        await pilot.press("enter")  # Enter alone still confirms nothing
        await pilot.pause()
        assert runner.ran == []
        await pilot.press(*"sda", "enter")
        await on_screen(pilot, ran)
    assert runner.ran == [("zpool", "offline", "tank", "/dev/sda")]
    (line,) = audit.read()
    assert line["outcome"] == "ok"


class RecordableFeed(SnapFeed):
    """A live feed that could tee into a file: what `r` would start."""

    can_record = True

    def __init__(self, *snaps) -> None:
        super().__init__(*snaps)
        self.asked: list[str] = []

    def toggle_recording(self, path: str) -> None:
        self.asked.append(path)


async def test_a_read_only_live_dashboard_opens_no_plan_and_records_nothing(tmp_path):
    """`zdash --read-only` (what zdash serve gives a browser): the live host, but the numbers
    open nothing, `r` writes nothing, and the executor refuses even when called by code."""
    runner = FakeRunner()
    feed = RecordableFeed(FAULTED)
    audit = AuditLog(str(tmp_path / "audit.jsonl"))
    deps = ActionDeps(lambda _r: FAULTED, FakeProbe({NEW: disk(NEW, GiB, kernel="sdz")}), runner)
    app = ZdashApp(feed, record_dir=str(tmp_path), audit=audit, actions=deps, read_only=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot)
        await pilot.press("r")
        await pilot.pause()
        assert feed.asked == [] and "Rec" not in {b.binding.description for b in app.active_bindings.values()}
        finding = await open_finding(pilot, "health")
        shown = text(finding)
        assert "$ zpool replace tank /dev/sdb" in shown and "Read-only here" in shown
        assert "Press its number" not in shown
        await pilot.press("1", "2", "y", "enter")
        await pilot.pause()
        assert not any(isinstance(s, (PlanScreen, NewDeviceScreen)) for s in app.screen_stack)
        plan = await app.plan_action(Request("clear", "tank", "/dev/sdb"))
        outcome = await app.run_plan(plan)
    assert outcome.status == "refused" and "read-only" in (outcome.refused_reason or "")
    assert runner.ran == [] and [line["mode"] for line in audit.read()] == ["read-only"]
