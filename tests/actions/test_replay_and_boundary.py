"""Replay: plans and pre-flight work read-only on recorded state (for training); nothing runs.
And the actions package stays headless (no Textual)."""

import subprocess
import sys
from pathlib import Path

from zdash.actions import AuditLog, ReplayProbe, build_plan, confirmation_ok, execute, request_from_suggestion
from zdash.fold import look, run_checks
from zdash.raw import RawSample, Tick

CAP = "tests/captures/degraded/"


def recorded_snapshot(phase="offline"):
    """What a replay yields: the recorded raw text through the same builder."""
    status_argv = ("zpool", "status", "-p", "-P", "-s", "degraded")
    samples = (
        RawSample(
            "status", status_argv, 0, Path(f"{CAP}zpool-status-s-P-p.{phase}.txt").read_text(), time=1000.0
        ),
        RawSample(
            "list",
            ("zpool", "list", "-v", "-H", "-p", "-P"),
            0,
            Path(f"{CAP}zpool-list-v-H-p.{phase}.txt").read_text(),
            time=1000.0,
        ),
    )
    return look(Tick(1000.0, samples), "recorded-host")


async def test_replay_shows_plans_but_runs_nothing(tmp_path):
    snap = recorded_snapshot()
    guided = [a for f in run_checks([snap]) for a in f.actions if a.action]
    assert "online" in {a.action for a in guided}
    from zdash.checks._common import act  # and a replace, as the admin would pick it

    guided.append(act("Replace", "replace", "zpool", "replace", "degraded", "/tmp/zl/degraded/d2"))
    audit = AuditLog(str(tmp_path / "audit.jsonl"))
    for a in guided:
        new = "/dev/disk/by-id/wwn-new" if a.action == "replace" else None
        plan = build_plan(snap, request_from_suggestion(a, new), ReplayProbe())
        assert plan.argv and plan.title and plan.checks  # the screens have content
        host_checks = [c for c in plan.checks if c.name.startswith("target")]
        assert all(c.mark == "WARN" and "replay" in c.reason for c in host_checks)
        out = await execute(plan, "replay", audit=audit)
        assert out.status == "refused" and out.rc is None
    assert {r["outcome"] for r in audit.read()} == {"refused"}


def test_tree_rules_still_bite_in_replay():
    snap = recorded_snapshot()
    from zdash.actions import Request

    plan = build_plan(snap, Request("detach", "degraded", "/tmp/zl/degraded/d1"), ReplayProbe())
    assert not plan.ok and [c.name for c in plan.failures] == ["redundancy kept"]
    assert not confirmation_ok(plan, "d1", "enter")


def test_actions_do_not_import_textual():
    code = (
        "import sys, zdash.actions, zdash.commands.plan, zdash.actions.executor\n"
        "print(any(m == 'textual' or m.startswith('textual.') for m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
