"""`zdash check --host` and `zdash record --host`: another host's pools over ssh, as a central
Nagios and an admin recording a remote box see them. A stand-in ssh (tests/fakes/bin/ssh) runs
the remote words here, where the stand-in zpool answers; a host listed in FAKE_SSH_DOWN refuses
the connection as a real one would."""

import json

import pytest

from tests.fakes import use_fake_ssh
from zdash.cli import main


@pytest.fixture
def fake_ssh(monkeypatch, tmp_path):
    use_fake_ssh(monkeypatch, tmp_path, log=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("FAKE_ZPOOL_SCENARIO", "healthy")
    return tmp_path


def test_check_of_an_unreachable_host_is_unknown_with_the_reason_first(fake_ssh, capsys):
    (fake_ssh / "down").write_text("nas1\n")
    code = main(["check", "--host", "admin@nas1", "--interval", "0.2"])
    first = capsys.readouterr().out.splitlines()[0]
    assert code == 3
    assert (
        first
        == "ZDASH UNKNOWN - cannot see the pools: nas1: ssh: connect to host nas1 port 22: Connection refused"
    )


def test_check_of_a_remote_host_reads_its_pools_over_ssh(fake_ssh, capsys):
    code = main(["check", "--host", "nas1:2222", "--interval", "0.2", "--samples", "2", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["status"] == "OK"
    assert doc["source"] == "ssh:nas1:2222"
    assert [p["name"] for p in doc["pools"]] == ["healthy"]
    calls = [json.loads(line) for line in (fake_ssh / "ssh.log").read_text().splitlines()]
    assert calls and all(c[c.index("-p") + 1] == "2222" and c[c.index("--") + 1] == "nas1" for c in calls)


def test_check_waits_for_a_late_iostat_stream_instead_of_calling_a_healthy_pool_unseen(
    fake_ssh, monkeypatch, capsys
):
    """The host's iostat stream answers 3 s late (ssh connecting, a busy host: 10+ s in the lab):
    the check counts ticks that carry a report, so a healthy pool is OK (exit 0), not UNKNOWN
    for "iostat: no data in 5 ticks"."""
    monkeypatch.setenv("FAKE_ZPOOL_MODE", "slow")
    monkeypatch.setenv("FAKE_ZPOOL_SUBCMDS", "iostat")
    monkeypatch.setenv("FAKE_ZPOOL_DELAY", "3")
    code = main(["check", "--host", "nas1", "--interval", "0.2", "--samples", "6", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["status"] == "OK", doc
    assert not [f for f in doc["findings"] if f["severity"] == "unknown"]


@pytest.mark.parametrize("spec", ["-oProxyCommand=sh", "nas1:99999", "a b"])
def test_a_bad_host_is_one_line_and_a_documented_code(fake_ssh, capsys, spec):
    assert main(["check", f"--host={spec}"]) == 3
    assert main(["record", "-o", str(fake_ssh / "x.zdash"), f"--host={spec}"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(
        w in e for e in err for w in ("host", spec) if w
    )  # one line each, naming the host
    assert all(
        "expected [user@]host[:port]" in e or "port must be" in e or "starts with '-'" in e for e in err
    )
    assert not (fake_ssh / "ssh.log").exists()  # nothing was run


def test_check_host_with_replay_is_refused(fake_ssh, capsys):
    assert main(["check", "--host", "nas1", "--replay", "healthy"]) == 3
    assert "--host reads a live host" in capsys.readouterr().err


def test_a_remote_host_recorded_replays_with_its_name_and_pools(fake_ssh, capsys, monkeypatch):
    out = fake_ssh / "nas1.zdash"
    monkeypatch.setenv("FAKE_ZPOOL_SCENARIO", "deranged-disk")
    code = main(["record", "-o", str(out), "--host", "root@nas1", "--interval", "0.2", "--duration", "1.5"])
    assert code == 0 and out.exists()
    capsys.readouterr()
    assert main(["summary", str(out)]) == 0
    summary = capsys.readouterr().out
    assert "on nas1," in summary.splitlines()[0]
    assert main(["check", "--replay", str(out), "--json"]) in (0, 1, 2)
    doc = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in doc["pools"]] == ["deranged"] and doc["pools"][0]["state"] == "ONLINE"


def test_plan_for_another_host_is_checked_there_and_names_it(fake_ssh, capsys):
    """`zdash plan --host`: the plan a change ticket quotes, for the pool on that host: its words
    are the pool's own, the host is on the command line and in the JSON, and the fresh state it
    was checked against was read over ssh from that host."""
    code = main(["plan", "scrub", "healthy", "--host", "admin@nas1:2222"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "Scrub healthy on nas1:2222" in out and "nas1:2222$ zpool scrub healthy" in out
    calls = [json.loads(line) for line in (fake_ssh / "ssh.log").read_text().splitlines()]
    assert any(
        "status" in c and c[c.index("--") + 1] == "nas1" and c[c.index("-l") + 1] == "admin" for c in calls
    )
    assert main(["plan", "scrub", "healthy", "--host", "nas1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["host"] == "nas1" and doc["pool"] == "healthy" and doc["argv"] == ["zpool", "scrub", "healthy"]


def test_plan_for_an_unreachable_host_says_why_and_exits_3(fake_ssh, capsys):
    (fake_ssh / "down").write_text("nas1\n")
    assert main(["plan", "scrub", "tank", "--host", "nas1"]) == 3
    err = capsys.readouterr().err
    assert "cannot plan on nas1: nas1: ssh: connect to host nas1 port 22: Connection refused" in err
