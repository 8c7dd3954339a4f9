"""fresh_snapshot and execute through the real Runner and the fold (zdash.fold.look), against the stand-in
zpool that replays captured output (tests/fakes/bin)."""

import os

from zdash.actions import AuditLog, Request, execute, fresh_snapshot, plan_now

FAKES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "fakes", "bin"))


def _fake_host(monkeypatch, scenario="healthy"):
    monkeypatch.setenv("PATH", f"{FAKES}:/usr/bin:/bin")
    monkeypatch.setenv("FAKE_ZPOOL_SCENARIO", scenario)


async def test_one_round_gives_the_pool_with_space_and_sources(monkeypatch):
    _fake_host(monkeypatch)
    snap = await fresh_snapshot("healthy")
    pool = snap.pool("healthy")
    assert pool is not None and [v.name for v in pool.top_level] == ["mirror-0", "mirror-1"]
    assert pool.top_level[0].alloc is not None  # zpool list joined
    assert {s.key for s in snap.sources} >= {"version", "status", "list", "devices"}
    assert all(s.ok for s in snap.sources if s.key in ("status", "list"))


async def test_no_zpool_means_no_pool(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    snap = await fresh_snapshot("tank")
    assert snap.pools == () and any(not s.ok for s in snap.sources if s.key == "status")


async def test_a_failing_command_reports_its_stderr(monkeypatch, tmp_path):
    """The fake zpool has no `offline`: it exits 2 with a message, as a real refusal would."""
    _fake_host(monkeypatch)
    plan = await plan_now(Request("offline", "healthy", "/tmp/zl/healthy/d1", accept_risk=True))
    assert plan.ok
    audit = AuditLog(str(tmp_path / "audit.jsonl"))
    out = await execute(plan, "live", audit=audit)
    assert out.status == "failed" and out.rc == 2 and "unsupported" in out.stderr
    (line,) = audit.read()
    assert line["exit_code"] == 2 and "unsupported" in line["stderr"] and line["outcome"] == "failed"
