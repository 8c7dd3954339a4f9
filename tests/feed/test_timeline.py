"""The events of a recording (zdash.feed.timeline): found over the whole recording by one fold,
as the replay folds it. On the bundled lab scenarios."""

from __future__ import annotations

import threading

from zdash.checks.finding import Severity
from zdash.config import CheckConfig
from zdash.feed.replay import ReplayFeed
from zdash.feed.timeline import scan
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
