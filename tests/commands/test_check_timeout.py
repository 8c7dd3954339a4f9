"""`zdash check -t/--timeout S`, the plugin's time limit: a `zpool status` slower than the
default (a thousand-disk pool took 32 s in the lab VM; a sick pool can stall it as long) is
waited for when asked, and a check that cannot read the pools in time ends UNKNOWN within the
limit, saying so."""

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fakes import FAKES
from zdash.cli import main


def _slow_status(monkeypatch, tmp_path, seconds: str) -> None:
    monkeypatch.setenv("PATH", f"{FAKES}:/usr/bin:/bin")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("FAKE_ZPOOL_SCENARIO", "healthy")
    monkeypatch.setenv("FAKE_ZPOOL_MODE", "slow")
    monkeypatch.setenv("FAKE_ZPOOL_SUBCMDS", "status")
    monkeypatch.setenv("FAKE_ZPOOL_DELAY", seconds)


def test_a_slow_status_within_the_timeout_is_read(monkeypatch, tmp_path, capsys):
    _slow_status(monkeypatch, tmp_path, "2")
    # -t 15: room for a second slow run the check may start and then wait for, on a loaded machine
    code = main(["check", "--interval", "0.2", "--samples", "2", "--timeout", "15", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and [p["name"] for p in doc["pools"]] == ["healthy"], doc


def test_a_status_slower_than_the_timeout_is_unknown_with_the_reason(monkeypatch, tmp_path, capsys):
    _slow_status(monkeypatch, tmp_path, "30")
    code = main(["check", "--interval", "0.2", "--samples", "2", "--timeout", "2"])
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert code == 3 and first.startswith("ZDASH UNKNOWN - "), first
    assert "zpool status timed out" in first or "timed out at the 2 s time limit (-t 2)" in first, first


def test_a_hanging_zpool_ends_unknown_within_the_time_limit(monkeypatch, tmp_path):
    """The whole command, as Nagios runs it: every zpool subcommand hangs (an hour), -t 1."""
    _slow_status(monkeypatch, tmp_path, "0")
    monkeypatch.setenv("FAKE_ZPOOL_MODE", "hang")
    monkeypatch.setenv("FAKE_ZPOOL_SUBCMDS", "status,list,iostat,version,get,events")
    began = time.monotonic()
    run = subprocess.run(
        [sys.executable, "-m", "zdash", "check", "-t", "1"], capture_output=True, text=True, timeout=60
    )
    took = time.monotonic() - began
    assert run.returncode == 3, run.stdout + run.stderr
    assert run.stdout.startswith("ZDASH UNKNOWN - "), run.stdout
    assert "timed out" in run.stdout.splitlines()[0], run.stdout
    # It ended on its own time limit, not on the hour-long hang (a generous bound: a loaded
    # machine's Python start-up is outside zdash's clock).
    assert took < 10, took


def test_the_timeout_is_bounded(capsys):
    with pytest.raises(SystemExit) as e:
        main(["check", "--timeout", "0"])
    assert e.value.code == 3  # a plugin's bad option: UNKNOWN
    assert "--timeout: 0: must be from 1 to 600 seconds" in capsys.readouterr().err


def test_a_status_still_out_when_the_samples_are_done_is_waited_for(monkeypatch, tmp_path, capsys):
    """zpool status answers once, then hangs: the check's last samples come while its second
    run is out. The verdict was OK on the first answer; now the run is waited for (within the
    timeout) and its timeout makes the verdict UNKNOWN."""
    control = tmp_path / "control"
    monkeypatch.setenv("PATH", f"{FAKES}:/usr/bin:/bin")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("FAKE_ZPOOL_SCENARIO", "healthy")
    monkeypatch.setenv("FAKE_ZPOOL_CONTROL", str(control))
    monkeypatch.setenv("FAKE_ZPOOL_PIDS", str(tmp_path))
    import threading
    import time

    def hang_after_first_status() -> None:
        # Wait for the first zpool status to have answered (its process gone), then hang the next.
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            runs = [p for p in tmp_path.iterdir() if p.name.isdigit() and "status" in p.read_text()]
            if runs and not any(Path("/proc", p.name).exists() for p in runs):
                break
            time.sleep(0.02)
        control.write_text("events fail\nstatus hang\n")

    # Without zpool events to follow, status is asked every 2 s (not the quiet pool's rarer pace).
    control.write_text("events fail\n")
    threading.Thread(target=hang_after_first_status, daemon=True).start()
    # status runs every 2 s: the second starts inside the 12 samples (2.4 s), well within -t 6.
    code = main(["check", "--interval", "0.2", "--samples", "12", "--timeout", "6", "-vv"])
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    runs = sum("status" in p.read_text() for p in tmp_path.iterdir() if p.name.isdigit())
    assert runs >= 2, "the second zpool status never started: the test proves nothing"
    assert code == 3 and "zpool status: still running" in first, out


def test_a_check_run_outside_the_main_thread_reads_the_pools(monkeypatch, tmp_path, capsys):
    """A live check started from another thread (a watcher in a test, a program embedding zdash):
    it ended in 'internal error (set_wakeup_fd only works in main thread)' before reading."""
    import threading

    monkeypatch.setenv("PATH", f"{FAKES}:/usr/bin:/bin")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("FAKE_ZPOOL_SCENARIO", "healthy")
    got: dict[str, int] = {}
    worker = threading.Thread(
        target=lambda: got.update(code=main(["check", "--samples", "2", "--interval", "0.2"]))
    )
    worker.start()
    worker.join(60)
    first = capsys.readouterr().out.splitlines()[0]
    assert got.get("code") == 0 and first.startswith("ZDASH OK - healthy"), first
