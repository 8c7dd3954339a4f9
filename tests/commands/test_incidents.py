"""Issue 27: what the flight recorder kept, found again. `zdash incidents` lists the incident
recordings, `zdash replay --list` shows them beside the bundled scenarios, `zdash replay NAME`
and `check --replay NAME` open one by its name; the recorder is on for a live dashboard and wall
and off with --no-flight-recorder, the config, or --read-only (a browser's process)."""

from __future__ import annotations

import json
import os

import pytest

from tests.feed.test_flight import T0, Host
from zdash import scenarios
from zdash.cli import _parse, main
from zdash.commands.dashboard import build_feed
from zdash.config import CheckConfig, Config, FlightSettings, read_config
from zdash.feed.flight import FlightRecorder


@pytest.fixture
def kept(tmp_path, monkeypatch):
    """An incident recorded by the flight recorder into the directory the config names."""
    directory = tmp_path / "incidents"
    (tmp_path / "config" / "zdash").mkdir(parents=True)
    (tmp_path / "config" / "zdash" / "config.yaml").write_text(f"flight_recorder:\n  dir: {directory}\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    rec = FlightRecorder(
        FlightSettings(minutes=1.0, settle_s=5.0, min_free_mb=0.0, dir=str(directory)), CheckConfig()
    )
    host = Host()
    for i in range(260):
        tick, findings = host.tick(T0 + i, 100 <= i < 160)
        rec.observe(tick, findings, "nas1")
        if i % 50 == 0:
            assert rec.flush()
    rec.close()
    (path,) = rec.written
    return path


def test_zdash_incidents_lists_what_was_kept(kept, capsys):
    assert main(["incidents"]) == 0
    out = capsys.readouterr().out
    name = os.path.basename(kept)
    assert "nas1:degraded  CRITICAL  mirror-0 has no redundancy left" in out
    assert name in out and "cleared" in out and "3m00s recorded" in out
    assert main(["incidents", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (row,) = doc["incidents"]
    assert doc["schema"] == 1 and row["file"] == kept and row["severity"] == "CRITICAL"
    assert row["onset"] == T0 + 100 and row["state"] == "cleared" and row["bytes"] > 0


def test_no_incidents_is_said(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "none"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert main(["incidents"]) == 0
    assert "no incidents recorded in" in capsys.readouterr().out


@pytest.mark.slow
def test_replay_list_shows_the_incidents_beside_the_scenarios_and_replay_finds_one_by_name(kept, capsys):
    assert main(["replay", "--list"]) == 0
    out = capsys.readouterr().out
    name = os.path.basename(kept)[: -len(".zdash")]
    assert "deranged-mirror" in out  # the bundled ones first
    assert "incidents the flight recorder kept here" in out
    line = next(row for row in out.splitlines() if row.startswith(name))
    assert "CRITICAL mirror-0 has no redundancy left" in line and "(cleared)" in line
    assert scenarios.path_of(name) == kept and scenarios.path_of(name + ".zdash") == kept
    # the diagnosis as it stood at the onset: the finding the incident was recorded for
    assert main(["check", "--json", "--replay", name, "--at", "60"]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert doc["findings"][0]["title"].startswith("mirror-0 has no redundancy left")


def test_the_live_dashboard_and_wall_record_incidents_unless_told_not_to(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for argv, on in (
        ([], True),
        (["--wall"], True),
        (["--no-flight-recorder"], False),
        (["--wall", "--no-flight-recorder"], False),
        (["--read-only"], False),  # zdash serve's browsers: serve records in its own process
    ):
        args = _parse(argv)
        args.hosts = ()
        feed = build_feed(args, Config())
        assert (feed.flight is not None) == on, argv
    (tmp_path / "config" / "zdash").mkdir(parents=True)
    (tmp_path / "config" / "zdash" / "config.yaml").write_text("flight_recorder:\n  enabled: false\n")
    args = _parse(["--wall"])
    args.hosts = ()
    assert build_feed(args, read_config()).flight is None
