"""The executor: refuses outside live mode, re-validates against fresh state right before
running, runs argv without a shell, and writes exactly one audit line per call."""

import asyncio
import json
import os
import stat
from pathlib import Path

import pytest

from tests.actions.helpers import FakeProbe, GiB, disk, single_disk_pool, snap, two_way
from zdash.actions import AuditLog, Request, build_plan, execute
from zdash.actions import executor as ex
from zdash.raw import RawSample

NEW = "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4"


class FakeRunner:
    def __init__(self, rc=0, stdout="", stderr="", delay=0.0):
        self.rc, self.stdout, self.stderr, self.delay = rc, stdout, stderr, delay
        self.ran: list[tuple[str, ...]] = []

    async def run(self, key, argv, timeout=None):
        self.ran.append(tuple(argv))
        await asyncio.sleep(self.delay)
        err = None if self.rc == 0 else f"{argv[0]} {argv[1]}: {self.stderr.strip()}"
        return RawSample(key, tuple(argv), self.rc, self.stdout, self.stderr, 0.0, 0.0, err)


@pytest.fixture
def audit(tmp_path):
    return AuditLog(str(tmp_path / "state" / "zdash" / "audit.jsonl"))


def probe():
    return FakeProbe({NEW: disk(NEW, GiB, kernel="sdz")})


def attach_plan(p=None):
    p = p or single_disk_pool()
    return build_plan(snap(p), Request("attach", p.name, "/dev/sdb", NEW), probe())


def fresh(*pools, **kw):
    async def get(plan):
        return snap(*pools, **kw)

    return get


@pytest.mark.parametrize("mode", ["replay", "wall", "read-only"])
async def test_replay_and_wall_never_run(mode, audit):
    runner = FakeRunner()
    out = await execute(
        attach_plan(), mode, fresh_state=fresh(single_disk_pool()), probe=probe(), audit=audit, runner=runner
    )
    assert out.status == "refused" and mode in out.refused_reason and runner.ran == []
    (line,) = audit.read()
    assert line["outcome"] == "refused" and line["mode"] == mode and line["exit_code"] is None


async def test_live_run_and_its_audit_line(audit):
    runner = FakeRunner()
    out = await execute(
        attach_plan(),
        "live",
        fresh_state=fresh(single_disk_pool()),
        probe=probe(),
        audit=audit,
        runner=runner,
    )
    assert out.ok and out.rc == 0 and runner.ran == [("zpool", "attach", "tank", "/dev/sdb", NEW)]
    (line,) = audit.read()
    assert line["argv"] == ["zpool", "attach", "tank", "/dev/sdb", NEW] and line["exit_code"] == 0
    assert line["outcome"] == "ok" and line["user"] and line["host"] and line["time"].endswith("+00:00")
    assert all(c["ok"] for c in line["preflight"]) and line["preflight_fresh"]
    assert line["stderr"] == "" and line["schema"] == 1


async def test_failed_command_keeps_stderr(audit):
    runner = FakeRunner(1, stderr="cannot attach /dev/sdz to /dev/sdb: device is too small\n")
    out = await execute(
        attach_plan(),
        "live",
        fresh_state=fresh(single_disk_pool()),
        probe=probe(),
        audit=audit,
        runner=runner,
    )
    assert out.status == "failed" and out.rc == 1 and "too small" in out.stderr
    assert audit.read()[0]["stderr"].startswith("cannot attach")


async def test_a_changed_pool_is_refused_with_the_difference(audit):
    runner = FakeRunner()
    plan = build_plan(snap(two_way()), Request("detach", "tank", "/dev/sdb", accept_risk=True), probe())
    assert plan.ok
    changed = two_way(states=("OFFLINE", "ONLINE"))
    out = await execute(plan, "live", fresh_state=fresh(changed), probe=probe(), audit=audit, runner=runner)
    assert out.status == "refused" and runner.ran == [] and "changed" in out.refused_reason
    assert "- sda disk ONLINE guid=guid-sda path=/dev/sda" in out.difference
    assert "+ sda disk OFFLINE guid=guid-sda path=/dev/sda" in out.difference
    line = audit.read()[0]
    assert line["difference"] == list(out.difference) and line["outcome"] == "refused"
    assert any(not c["ok"] for c in line["preflight_fresh"])  # the fresh plan fails too


async def test_a_device_that_vanished_before_confirmation(audit):
    runner = FakeRunner()
    plan = attach_plan()
    out = await execute(
        plan, "live", fresh_state=fresh(single_disk_pool()), probe=FakeProbe(), audit=audit, runner=runner
    )
    assert out.status == "refused" and runner.ran == [] and "target exists" in out.refused_reason
    assert out.difference == ()


async def test_a_failing_plan_is_refused_without_looking_further(audit):
    runner = FakeRunner()
    plan = build_plan(snap(single_disk_pool()), Request("detach", "tank", "/dev/sdb"), probe())
    out = await execute(
        plan, "live", fresh_state=fresh(single_disk_pool()), probe=probe(), audit=audit, runner=runner
    )
    assert out.status == "refused" and "pre-flight failed" in out.refused_reason and runner.ran == []


async def test_unreadable_fresh_state_is_a_refusal(audit):
    async def broken(plan):
        raise OSError("zpool hung")

    out = await execute(
        attach_plan(), "live", fresh_state=broken, probe=probe(), audit=audit, runner=FakeRunner()
    )
    assert out.status == "refused" and "zpool hung" in out.refused_reason
    assert audit.read()[0]["outcome"] == "refused"


async def test_no_audit_no_action(tmp_path):
    blocked = tmp_path / "a-file"  # its "subdirectory" cannot exist, even for root
    blocked.write_text("")
    runner = FakeRunner()
    out = await execute(
        attach_plan(),
        "live",
        fresh_state=fresh(single_disk_pool()),
        probe=probe(),
        audit=AuditLog(str(blocked / "sub" / "audit.jsonl")),
        runner=runner,
    )
    assert out.status == "refused" and "audit log" in out.refused_reason and runner.ran == []


async def test_one_action_at_a_time(audit):
    runner = FakeRunner(delay=0.2)
    kw = dict(fresh_state=fresh(single_disk_pool()), probe=probe(), audit=audit, runner=runner)
    first, second = await asyncio.gather(
        execute(attach_plan(), "live", **kw), execute(attach_plan(), "live", **kw)
    )
    assert first.ok and second.status == "refused" and "still running" in second.refused_reason
    assert len(runner.ran) == 1 and len(audit.read()) == 2


async def test_promote_through_libzfs_core(audit, monkeypatch):
    from tests.actions.helpers import Dataset

    datasets = (
        Dataset("tank", "filesystem"),
        Dataset("tank/fs", "filesystem"),
        Dataset("tank/fs@s", "snapshot"),
        Dataset("tank/c", "filesystem", origin="tank/fs@s"),
    )
    called = []
    monkeypatch.setattr("zdash.actions.catalog.promote_via", lambda: "libzfs_core", raising=False)
    monkeypatch.setattr("zdash.actions.promote.promote_via", lambda: "libzfs_core")
    monkeypatch.setattr(ex, "lzc_promote", called.append)
    plan = build_plan(snap(two_way(), datasets=datasets), Request("promote", "tank", "tank/c"), probe())
    assert plan.via == "libzfs_core"
    runner = FakeRunner()
    out = await execute(
        plan,
        "live",
        fresh_state=fresh(two_way(), datasets=datasets),
        probe=probe(),
        audit=audit,
        runner=runner,
    )
    assert out.ok and called == ["tank/c"] and runner.ran == []
    assert audit.read()[0]["via"] == "libzfs_core"


async def test_audit_is_append_only_and_one_line_per_run(audit):
    os.makedirs(os.path.dirname(audit.path))
    with open(audit.path, "w") as f:
        f.write('{"earlier": true}\n')
    kw = dict(fresh_state=fresh(single_disk_pool()), probe=probe(), audit=audit, runner=FakeRunner())
    await execute(attach_plan(), "live", **kw)
    await execute(attach_plan(), "replay", **kw)
    await execute(
        build_plan(snap(single_disk_pool()), Request("detach", "tank", "/dev/sdb"), probe()), "live", **kw
    )
    lines = Path(audit.path).read_text().splitlines()
    assert lines[0] == '{"earlier": true}' and len(lines) == 4
    records = [json.loads(line) for line in lines[1:]]
    assert [r["outcome"] for r in records] == ["ok", "refused", "refused"]


async def test_audit_file_is_private(audit):
    await execute(attach_plan(), "replay", fresh_state=fresh(), probe=probe(), audit=audit)
    assert stat.S_IMODE(os.stat(audit.path).st_mode) == 0o600
