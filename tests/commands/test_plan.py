"""`zdash plan`: prints, never runs; exit 0 all pass, 1 a check fails, 3 cannot read the pool."""

import json
import os
import subprocess
import sys

import pytest

from tests.actions.helpers import FakeProbe, GiB, disk, single_disk_pool, snap, two_way
from zdash.cli import main
from zdash.commands import plan as cli_plan

FAKES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "fakes", "bin"))


@pytest.fixture
def host(monkeypatch):
    state = {"snap": snap(single_disk_pool()), "probe": FakeProbe({"/dev/sdz": disk("/dev/sdz", GiB)})}

    async def fresh(pool, datasets=False, timeout=15.0, runner=None):
        return state["snap"]

    monkeypatch.setattr(cli_plan, "fresh_snapshot", fresh)
    monkeypatch.setattr("zdash.actions.catalog.HostProbe", lambda: state["probe"])
    return state


def test_exit_codes_and_text(host, capsys):
    assert main(["plan", "attach", "tank", "/dev/sdb", "/dev/sdz"]) == 0
    out = capsys.readouterr().out
    assert "$ zpool attach tank /dev/sdb /dev/sdz" in out and "WARN  stable path" in out
    assert main(["plan", "detach", "tank", "/dev/sdb"]) == 1
    assert "FAIL  detachable" in capsys.readouterr().out
    assert main(["plan", "scrub", "nope"]) == 3
    assert "cannot read pool nope" in capsys.readouterr().err
    host["snap"] = snap(two_way(), status_ok=False)
    assert main(["plan", "scrub", "tank"]) == 3


def test_json(host, capsys):
    host["snap"] = snap(two_way())
    assert main(["plan", "offline", "tank", "sdb", "--json"]) == 1  # the last redundancy: not without
    refused = json.loads(capsys.readouterr().out)
    assert {"name": "redundancy kept", "ok": False, "severity": "accept", "result": "fail"}.items() <= next(
        c for c in refused["checks"] if c["name"] == "redundancy kept"
    ).items()
    assert main(["plan", "offline", "tank", "sdb", "--json", "--accept-risk"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (
        doc["schema"] == 1
        and doc["exit_code"] == 0
        and doc["argv"] == ["zpool", "offline", "tank", "/dev/sdb"]
    )
    assert doc["confirm_token"] == "/dev/sdb" and doc["zdash_version"]
    assert all(set(c) == {"name", "ok", "severity", "result", "reason"} for c in doc["checks"])


def test_unknown_action_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as e:
        main(["plan", "add", "tank", "/dev/sdz"])
    assert e.value.code == 2


def test_end_to_end_on_a_fake_zpool_and_nothing_runs(tmp_path):
    """A real subprocess, real Runner and builder, the fake zpool replaying captured output."""
    env = {
        **os.environ,
        "PATH": f"{FAKES}:/usr/bin:/bin",
        "FAKE_ZPOOL_SCENARIO": "healthy",
        "XDG_STATE_HOME": str(tmp_path),
    }
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "zdash",
            "plan",
            "offline",
            "healthy",
            "/tmp/zl/healthy/d1",
            "--json",
            "--accept-risk",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["argv"] == ["zpool", "offline", "healthy", "/tmp/zl/healthy/d1"] and doc["ok"]
    assert not (tmp_path / "zdash").exists()  # no audit: nothing was run
    r = subprocess.run(
        [sys.executable, "-m", "zdash", "plan", "detach", "healthy", "d9"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert r.returncode == 1 and "FAIL  device in pool" in r.stdout
