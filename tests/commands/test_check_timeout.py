"""`zdash check --timeout S`: a `zpool status` slower than the default budget (a thousand-disk
pool took 32 s in the lab VM; a sick pool can stall it as long) is waited for when asked, and
still said plainly when it is not."""

import json

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
    code = main(["check", "--interval", "0.2", "--samples", "2", "--timeout", "8", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and [p["name"] for p in doc["pools"]] == ["healthy"], doc


def test_a_status_slower_than_the_timeout_is_unknown_with_the_reason(monkeypatch, tmp_path, capsys):
    _slow_status(monkeypatch, tmp_path, "30")
    code = main(["check", "--interval", "0.2", "--samples", "2", "--timeout", "1"])
    first = capsys.readouterr().out.splitlines()[0]
    assert code == 3 and "zpool status timed out after 1 s" in first, first


def test_the_timeout_is_bounded(capsys):
    with pytest.raises(SystemExit) as e:
        main(["check", "--timeout", "0"])
    assert e.value.code == 2
    assert "--timeout: 0: must be from 1 to 600 seconds" in capsys.readouterr().err
