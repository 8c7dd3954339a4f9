"""The events of a recording (zdash.feed.timeline): found over the whole recording by one fold,
as the replay folds it. On the bundled lab scenarios."""

from __future__ import annotations

import asyncio
import threading

import psutil
import pytest

from zdash.checks.finding import Severity
from zdash.config import CheckConfig
from zdash.feed.replay import ReplayFeed
from zdash.feed.scan_child import decode, encode
from zdash.feed.timeline import Timeline, scan
from zdash.scenarios import path_of
from zdash.sources.recording import open_recording


def _timeline(name: str):
    rec = open_recording(path_of(name))
    found = []
    scan(rec, CheckConfig(), rec.times(), found.append, threading.Event())
    return rec, found[-1]


def test_a_deranged_disk_onset_then_the_finding_raised():
    rec, timeline = _timeline("deranged-mirror")
    assert timeline.complete
    kinds = [(e.kind, e.severity) for e in timeline.events]
    assert kinds == [("onset", None), ("raised", Severity.WARNING)]
    onset, raised = timeline.events
    times = rec.times()
    assert times[onset.index - 1] < rec.header.onset <= times[onset.index]  # the first tick after it
    assert "sick is dragging mirror-1" in raised.text and raised.index > onset.index
    assert timeline.next_index(0) == onset.index and timeline.next_index(onset.index) == raised.index
    assert timeline.next_index(raised.index) is None and timeline.previous_index(onset.index) is None


def test_a_degraded_pool_state_changes_and_its_finding_cleared_after_the_resilver():
    _rec, timeline = _timeline("degraded-resilver")
    by_kind = {}
    for e in timeline.events:
        by_kind.setdefault(e.kind, []).append(e)
    assert "tank DEGRADED" in by_kind["state"][0].text and "OFFLINE" in by_kind["state"][0].text
    assert "tank ONLINE" in by_kind["state"][-1].text
    assert by_kind["raised"][0].severity == Severity.CRITICAL
    assert by_kind["cleared"][0].index > by_kind["raised"][0].index
    assert by_kind["onset"][0].index <= by_kind["state"][0].index


def test_a_recording_with_nothing_happening_has_no_event():
    _rec, timeline = _timeline("healthy")
    assert timeline.complete and timeline.events == ()


async def test_the_replay_feed_hands_out_the_timeline_without_playing():
    feed = ReplayFeed(path_of("deranged-mirror"), CheckConfig(), playing=False)
    frames = feed.frames()
    first = await anext(frames)
    timelines = [t async for t in feed.timelines()]
    assert timelines[-1].complete and [e.kind for e in timelines[-1].events] == ["onset", "raised"]
    assert feed.playing is False and first.position.index == 0
    await frames.aclose()


def test_a_timeline_crosses_the_pipe_from_the_scan_child_unchanged():
    _rec, timeline = _timeline("degraded-resilver")
    assert decode(encode(timeline)) == timeline
    stopped = Timeline(timeline.events[:1], 7, 26, "tick 8: ValueError: no pools")
    assert decode(encode(stopped)) == stopped and not stopped.complete


def test_the_replays_config_crosses_to_the_scan_child_as_data():
    """The markers come from the replay's own thresholds: every setting arrives equal (the same
    digest), a -w/-c range included, and the argument is JSON, not code."""
    from zdash.feed.scan_child import config_arg, config_of
    from zdash.ranges import Range

    cfg = CheckConfig(
        capacity_pool_warn_pct=70.0,
        capacity_pool_warn_range=Range.parse("@10:20"),
        disabled=("clones",),
        deranged_sustain_samples=3,
    )
    arg = config_arg(cfg)
    assert config_of(arg) == cfg and config_of(arg).digest() == cfg.digest()
    assert config_of(config_arg(None)) is None
    with pytest.raises(TypeError):
        config_of('{"no_such_setting": 1}')


def test_a_tick_that_cannot_be_folded_stops_the_scan_and_says_where(monkeypatch):
    rec = open_recording(path_of("degraded-resilver"))
    real = rec.tick

    def tick(i):
        if i == 5:
            raise ValueError("a torn tick")
        return real(i)

    monkeypatch.setattr(rec, "tick", tick)
    found = []
    scan(rec, CheckConfig(), rec.times(), found.append, threading.Event())
    last = found[-1]
    assert not last.complete and last.scanned == 5
    assert last.stopped == "tick 6: ValueError: a torn tick"


async def test_a_scan_child_that_dies_leaves_the_replay_a_stopped_timeline(tmp_path, monkeypatch):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'MemoryError: the recording is too big' >&2\nexit 3\n")
    fake.chmod(0o755)
    feed = ReplayFeed(path_of("deranged-mirror"), CheckConfig(), playing=False)
    frames = feed.frames()
    await anext(frames)
    monkeypatch.setattr("sys.executable", str(fake))
    timelines = [t async for t in feed.timelines()]
    assert len(timelines) == 1 and not timelines[0].complete
    assert timelines[0].stopped == "the search ended (exit 3): MemoryError: the recording is too big"
    await frames.aclose()


async def test_a_scan_child_that_warns_at_length_still_ends_with_its_last_word(tmp_path, monkeypatch):
    """4 MiB of warnings on stderr (past what a pipe and spawn's 1 MiB reader hold unread) do not block the child: the
    replay still learns how it ended, from its last line."""
    fake = tmp_path / "python"
    fake.write_text(
        "#!/bin/sh\nhead -c 4194304 /dev/zero | tr '\\0' w >&2\necho >&2\n"
        "echo 'MemoryError: the recording is too big' >&2\nexit 3\n"
    )
    fake.chmod(0o755)
    feed = ReplayFeed(path_of("deranged-mirror"), CheckConfig(), playing=False)
    frames = feed.frames()
    await anext(frames)
    monkeypatch.setattr("sys.executable", str(fake))
    timelines = await asyncio.wait_for(_all(feed.timelines()), 60)
    assert timelines[-1].stopped == "the search ended (exit 3): MemoryError: the recording is too big"
    await frames.aclose()


async def _all(gen):
    return [t async for t in gen]


async def test_the_scan_child_is_killed_when_the_replay_stops_wanting_markers(tmp_path, monkeypatch):
    # A child that has found part of the events and is still looking.
    part = encode(Timeline((), 3, 26)).decode().strip()
    fake = tmp_path / "python"
    fake.write_text(f"#!/bin/sh\necho '{part}'\nexec sleep 120\n")
    fake.chmod(0o755)
    feed = ReplayFeed(path_of("deranged-mirror"), CheckConfig(), playing=False)
    frames = feed.frames()
    await anext(frames)
    monkeypatch.setattr("sys.executable", str(fake))
    me = psutil.Process()
    # this worker's other children (another test's, still being reaped) are not the scan's
    others = {c.pid for c in me.children(recursive=True)}
    timelines = feed.timelines()
    first = await anext(timelines)
    assert first.scanned == 3 and not first.complete
    scan = [c for c in me.children(recursive=True) if c.pid not in others]
    assert [c for c in scan if c.status() != psutil.STATUS_ZOMBIE]
    await timelines.aclose()
    assert {c.pid for c in me.children(recursive=True)} & {c.pid for c in scan} == set()  # killed and reaped
    await frames.aclose()


async def test_no_python_to_run_the_scan_leaves_a_stopped_timeline(tmp_path, monkeypatch):
    feed = ReplayFeed(path_of("deranged-mirror"), CheckConfig(), playing=False)
    frames = feed.frames()
    await anext(frames)
    monkeypatch.setattr("sys.executable", str(tmp_path / "no-such-python"))
    (timeline,) = [t async for t in feed.timelines()]
    assert not timeline.complete and timeline.events == ()
    assert timeline.stopped is not None and timeline.stopped.startswith(
        "the search for events could not start"
    )
    await frames.aclose()
