"""Issue 6: the bundled scenario library. Every recording in fixtures/ (made on real pools by
fixtures/make_fixtures.py) diagnoses as exactly the incident it was recorded for, through the
real `zdash check --replay` entry point, and `zdash replay --list` / `replay NAME` find them."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from zdash import scenarios
from zdash.cli import main
from zdash.fold.recording import load_replay
from zdash.sources.recording import open_recording

# scenario -> (seconds into the recording or None for its end, the check that must report,
#              its subject or None, the severity it must have)
EXPECT = {
    "healthy": None,
    "deranged-mirror": (None, "deranged_disk", "/dev/mapper/sick", "warning+"),
    "deranged-raidz": (None, "deranged_disk", "/dev/mapper/sick", "warning+"),
    # a 2-way mirror on one side: CRITICAL, about the vdev, naming the offlined disk
    "degraded-resilver": (9, "health", "mirror-1", "critical"),
    # growing a pool with `zpool add` is the recommended way: a note, not a warning
    "imbalance-added-vdev": (None, "imbalance", "tank", "info"),
    # a vdev grown after the data was written (bigger disks, autoexpand): history, a note
    "imbalance-size": (None, "imbalance", "tank", "info"),
    "ashift-mismatch": (None, "ashift", "tank", "warning+"),
    "capacity-85": (None, "capacity", "tank", "warning"),
    "capacity-93": (None, "capacity", "tank", "critical"),
    "clones": (None, "clones", "tank/base@s1", "info"),
    "scrub-repair": (None, "health", "tank", "warning"),  # one finding: the scrub's story
    "raidz2-wide": (None, "topology", "raidz2-0", "info"),
    # backup's raidz1 lost a member (tank beside it is healthy): CRITICAL, nothing else above info
    "two-pools": (None, "health", "raidz1-0", "critical"),
    # a disk faulted by ZFS (zinject -A fault) at 6 s, replaced at 14 s: at 10 s its mirror is on one side
    "faulted-disk": (10, "health", "mirror-1", "critical"),
    # one side of the special mirror offline: the pool's metadata on one disk
    "log-special": (None, "health", "mirror-1", "critical"),
    # ashift=9 on a 512e disk: ZFS's own "configured 512B, native 4096B" note
    "ashift-512-on-4k": (None, "ashift", "/dev/sda1", "warning"),
    # the long ones, kept by the flight recorder (.zdash): a faulted raidz1 member, 100 s after
    # the onset (600 s in), before the resilver begins
    "raidz-full-resilver": (700, "health", "raidz1-0", "critical"),
    # the slow disk named 40 s after the onset, before the replace
    "slow-disk-backup-window": (640, "deranged_disk", "/dev/mapper/sick", "warning"),
    # the fill trend's warning 20 min into the filling, CAP still under 80 %
    "pool-filling": (1500, "capacity", "tank", "warning"),
    # the first scrub 100 s in: repairs on /dev/mapper/b so far, nothing unrepairable
    "mirror-scrub-repairs": (700, "health", "tank", "warning"),
}
# The long recordings (issue 27): at least 10 minutes, made by the flight recorder.
LONG = ("raidz-full-resilver", "slow-disk-backup-window", "pool-filling", "mirror-scrub-repairs")


def check_replay(name: str, at: float | None = None) -> dict:
    out = io.StringIO()
    argv = ["check", "--json", "--replay", name] + (["--at", str(at)] if at is not None else [])
    with contextlib.redirect_stdout(out):
        rc = main(argv)
    doc = json.loads(out.getvalue())
    assert doc["exit_code"] == rc
    return doc


def test_every_expected_scenario_is_bundled_and_nothing_unexpected():
    assert sorted(scenarios.names()) == sorted(EXPECT)


def _subject(name: str, subject: str, at: float | None) -> str:
    """Loop device numbers differ per recording: name the leaf by its state at that moment."""
    _, snaps = load_replay(scenarios.path_of(name))
    snap = [s for s in snaps if at is None or s.time <= snaps[0].time + at][-1]
    leaves = snap.pool("tank").leaves()
    if subject == "offline-leaf":
        return next(leaf.path for leaf in leaves if leaf.state == "OFFLINE")
    if subject == "repaired-leaf":
        return max(leaves, key=lambda leaf: leaf.checksum_errors).path
    return subject


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EXPECT))
def test_scenario_diagnoses_as_recorded(name):
    expect = EXPECT[name]
    doc = check_replay(name, expect[0] if expect else None)
    above_info = [f for f in doc["findings"] if f["severity"] != "info"]
    if expect is None:
        assert above_info == [] and doc["exit_code"] == 0, above_info
        return
    at, check_id, subject, severity = expect
    subject = _subject(name, subject, at)
    hits = [f for f in doc["findings"] if f["check"] == check_id and f["subject"] == subject]
    assert hits, [(f["check"], f["subject"], f["severity"]) for f in doc["findings"]]
    if severity == "warning+":
        assert hits[0]["severity"] in ("warning", "critical")
    else:
        assert hits[0]["severity"] == severity
    # exactly this fault, once: nothing else above info (one fault, one finding)
    assert len(above_info) <= 1 and {f["check"] for f in above_info} <= {check_id}, [
        (f["check"], f["title"]) for f in above_info
    ]
    if name == "degraded-resilver":
        assert _subject(name, "offline-leaf", at) in hits[0]["title"]
    if name == "scrub-repair":
        assert _subject(name, "repaired-leaf", at) in hits[0]["title"]
    if name == "log-special":
        assert hits[0]["title"].startswith("special mirror-1 has no redundancy left")
    if name == "two-pools":
        assert hits[0]["pool"] == "backup"


def test_scrub_repair_shows_the_scrub_running():
    """The scrub is seen in progress (issue 11: it used to finish between two samples)."""
    _, snaps = load_replay(scenarios.path_of("scrub-repair"))
    running = [s for s in snaps if (p := s.pool("tank")) and p.scan and p.scan.state == "scanning"]
    assert len(running) >= 10, len(running)


def test_healthy_says_at_most_one_note():
    doc = check_replay("healthy")
    assert doc["exit_code"] == 0 and len(doc["findings"]) <= 1, [f["title"] for f in doc["findings"]]


@pytest.mark.slow
def test_replay_list_names_each_scenario_with_what_to_look_for(capsys):
    assert main(["replay", "--list"]) == 0
    out = capsys.readouterr().out
    for name in EXPECT:
        line = next(row for row in out.splitlines() if row.startswith(name + " "))
        assert len(line.split(None, 1)[1]) > 20  # a real description, not a placeholder


@pytest.mark.parametrize("name", LONG)
def test_a_long_scenario_is_a_real_incident_kept_by_the_flight_recorder(name):
    """Issue 27: at least ten minutes, the flight recorder's own file (its incident header),
    the ten minutes before the onset in it, and the finding raised at the onset."""
    from zdash.sources.incidents import read_incident

    path = scenarios.path_of(name)
    assert path.endswith(f"{name}.zdash")
    inc = read_incident(path)
    assert inc is not None and inc.onset is not None and inc.start is not None and inc.end is not None
    assert inc.end - inc.start >= 600 and inc.onset - inc.start >= 590, (inc.start, inc.onset, inc.end)
    # it ran to the end: cleared (and a minute more), or the recorder's cap on its length
    assert inc.state == "cleared" or inc.state.startswith("still raised after"), inc.state
    doc = check_replay(name, inc.onset - inc.start + 1)  # the tick it was raised (titles carry figures)
    assert inc.title in [f["title"] for f in doc["findings"]]


def test_replay_by_name_resolves_to_the_bundled_file():
    assert scenarios.path_of("healthy").endswith("fixtures/healthy.yaml.gz")
    assert scenarios.path_of("no-such-scenario") == "no-such-scenario"  # the reader says why


def _findings_over_the_recording(name: str, check_id: str) -> list:
    """Every finding of `check_id` above or at its recorded severity, at every tick: a story
    told in phases (offline, then the resilver) is told by the finding as the phases come."""
    from zdash.fold.recording import replay_frames

    return [
        f for frame in replay_frames(scenarios.path_of(name)) for f in frame.findings if f.check == check_id
    ]


def _words(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EXPECT))
def test_the_finding_the_recording_and_the_docs_tell_one_story(name):
    """One home for each fault's story (zdash.checks.stories, composed in zdash.scenarios): the
    recording carries that description, docs/scenarios.md prints it, and every sentence of the
    story is in the scenario's finding (at some tick)."""
    from pathlib import Path

    scenario = scenarios.SCENARIOS[name]
    rec = open_recording(scenarios.path_of(name))
    header = rec.header
    rec.close()
    assert header.description == scenario.description
    docs = (Path(__file__).resolve().parents[1] / "docs" / "scenarios.md").read_text()
    assert f"### `{name}`\n\n" in docs
    section = docs.split(f"### `{name}`\n\n", 1)[1].split("\n### ", 1)[0]
    assert _words(section) == _words(scenario.description)
    if EXPECT[name] is None:
        assert scenario.story == ()
        return
    whys = " | ".join(_words(f.why) for f in _findings_over_the_recording(name, EXPECT[name][1]))
    missing = [sentence for sentence in scenario.story if _words(sentence) not in whys]
    assert missing == [], missing


@pytest.mark.parametrize("name", ["deranged-mirror", "deranged-raidz"])
def test_the_slow_disk_offers_both_ways_out_each_a_plan_with_its_pre_flight(name):
    """Relief now (offline: speed back, redundancy down by one, here a risk to accept) and safe
    (replace onto a new disk while it stays in: slow until the resilver ends), planned on the
    recording as the dashboard's replay plans them (read-only probe)."""
    from zdash.actions import ReplayProbe, build_plan, request_from_suggestion
    from zdash.fold.recording import replay_frames

    *_, last = replay_frames(scenarios.path_of(name))
    snap, findings = last.snapshot, last.findings
    (f,) = [f for f in findings if f.check == "deranged_disk"]
    relief = next(a for a in f.actions if a.action == "offline")
    safe = next(a for a in f.actions if a.action == "replace")
    assert "pool speed returns" in relief.label and "a risk to accept" in relief.label
    assert "no redundancy lost" in safe.label and "slow until the resilver ends" in safe.label
    assert safe.new_device == "required"
    off = build_plan(snap, request_from_suggestion(relief), ReplayProbe())
    assert [c.name for c in off.needs_acceptance] == [
        "redundancy kept"
    ] and off.failures == off.needs_acceptance
    rep = build_plan(snap, request_from_suggestion(safe, "/dev/disk/by-id/ata-NEW"), ReplayProbe())
    assert rep.argv[-2:] == ("/dev/mapper/sick", "/dev/disk/by-id/ata-NEW")
    assert {"target exists", "target not in a pool", "size", "stable path"} <= {c.name for c in rep.checks}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EXPECT))
async def test_every_scenario_opens_paused_just_before_its_onset_beside_its_description(name):
    """Issue 27: a replay opens paused a few seconds before the onset (the first marker), its
    description beside the data; a scenario whose fault is its premise opens at its start."""
    from zdash.cli import _parse
    from zdash.commands.dashboard import build_feed
    from zdash.config import Config
    from zdash.feed.replay import LEAD_S

    feed = build_feed(_parse(["replay", scenarios.path_of(name)]), Config())
    frames = feed.frames()
    frame = await anext(frames)
    await frames.aclose()
    onset, pos = feed.header.onset, frame.position
    assert not pos.playing and frame.description == scenarios.SCENARIOS[name].description
    if onset is None:
        assert pos.index == 0
        return
    step = max(b - a for a, b in zip(feed.times, feed.times[1:]))
    assert pos.time <= onset and (pos.index == 0 or pos.time >= onset - LEAD_S - step), pos.time - onset
    assert pos.time - pos.start <= max(onset - pos.start - LEAD_S, 0) + step  # never long before it
