"""The feeds without an app: replay controls move the index as a player would, live frames
are folded off the UI thread and a recording started mid-run replays from its first tick."""

from __future__ import annotations

import asyncio
import itertools

from tests.capture_ticks import capture_tick
from tests.feed.clock import ManualClock
from zdash.config import CheckConfig
from zdash.feed.live import LiveFeed
from zdash.feed.replay import CATCH_UP_SLOTS, FRAME_S, SPEEDS, ReplayFeed
from zdash.fold import run_checks
from zdash.fold.recording import load_replay
from zdash.fold.series import Series


async def _next(gen, timeout=5.0):
    return await asyncio.wait_for(gen.__anext__(), timeout)


async def test_replay_pause_step_seek_speed(sessions):
    feed = ReplayFeed(sessions["degraded"], CheckConfig(), playing=False)
    gen = feed.frames()
    first = await _next(gen)
    assert first.position.index == 0 and not first.position.playing and first.mode == "replay"
    times = feed.times
    feed.step(1)
    f = await _next(gen)
    assert f.position.index == 1 and f.time == times[1]
    feed.step(-5)  # clamped at the start
    assert (await _next(gen)).position.index == 0
    feed.seek_time(times[6] + 0.5)  # the last tick at or before the time
    assert (await _next(gen)).time == times[6]
    feed.seek_index(10**6)
    f = await _next(gen)
    assert f.position.at_end and f.position.fraction == 1.0
    feed.change_speed(1)
    assert (await _next(gen)).position.speed == 2.0
    for _ in range(20):
        feed.change_speed(1)
    assert feed.speed == SPEEDS[-1]
    await gen.aclose()


async def _fast_replay(tmp_path, ticks: int):
    """A 4-leaf recording of `ticks` ticks replayed at 64x on a clock the test moves: (the
    clock, the feed's frames, the index of the first frame shown)."""
    from tests.bench.bench import write_recording

    path = str(tmp_path / "r.zdash")
    write_recording(path, 4, ticks, described=False)
    clock = ManualClock()
    gen = ReplayFeed(path, CheckConfig(), speed=64, clock=clock).frames()
    return clock, gen, [(await _next(gen)).position.index]


async def _played(gen, clock: ManualClock):
    """The next frame of a playing replay, moving the clock on until it comes."""
    nxt = asyncio.ensure_future(_next(gen))
    while not nxt.done():
        waiting = asyncio.ensure_future(clock.step())
        await asyncio.wait((nxt, waiting), return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()
    return nxt.result()


async def test_replay_plays_on_the_clock_and_stops_at_the_end(sessions):
    clock = ManualClock()
    feed = ReplayFeed(sessions["scrub"], CheckConfig(), speed=2, clock=clock)
    gen = feed.frames()
    first = await _next(gen)
    assert first.position.index == 0 and first.position.playing
    times = feed.times
    seen = [await _played(gen, clock) for _ in range(5)]
    assert [f.position.index for f in seen] == [1, 2, 3, 4, 5]
    # at 2x a tick takes half its recorded interval on the clock
    assert clock.now() == (times[5] - times[0]) / 2
    last = await _next(gen)  # the end: same tick, now paused
    assert last.position.index == 5 and not last.position.playing
    feed.toggle_pause()  # play at the end starts over
    assert (await _next(gen)).position.index == 0
    await gen.aclose()


async def test_a_looping_replay_starts_its_charts_over_with_the_data(sessions):
    """Issue 27: when the demo loops, the chart's history starts again with the first tick;
    it kept the previous loop (the frame cache served tick 0 beside the old fold's history)."""
    clock = ManualClock()
    feed = ReplayFeed(sessions["scrub"], CheckConfig(), loop=True, clock=clock)
    gen = feed.frames()
    first = await _next(gen)
    assert len(first.series) == 1
    count = len(feed.times)
    for _ in range(count - 1):
        played = await _played(gen, clock)
    assert played.position.index == count - 1 and len(played.series) == count
    again = await _played(gen, clock)
    assert again.position.index == 0
    assert len(again.series) == 1 and again.series.end == feed.times[0]
    assert again.findings == first.findings  # the data starts over as well
    await gen.aclose()


async def test_replay_does_not_move_until_the_clock_does(sessions):
    clock = ManualClock()
    feed = ReplayFeed(sessions["scrub"], CheckConfig(), clock=clock)
    gen = feed.frames()
    assert (await _next(gen)).position.index == 0
    nxt = asyncio.ensure_future(_next(gen))
    await clock.sleeping()
    dt = feed.times[1] - feed.times[0]
    clock.advance(dt * 0.9)
    for _ in range(5):
        await asyncio.sleep(0)  # let the feed run, were it woken
    assert not nxt.done()
    clock.advance(dt * 0.1)
    assert (await nxt).position.index == 1
    await gen.aclose()


def _gaps(times: list[float], speed: float) -> list[float]:
    """Seconds on the clock between ticks as a replay plays them (ReplayFeed._gap)."""
    return [min(max(b - a, 0.05), 10.0) / speed for a, b in itertools.pairwise(times)]


async def test_a_replay_that_fell_behind_shows_the_newest_due_tick_folded_from_every_one(recordings):
    """Issue 28: at 64x a busy dashboard drew every tick and fell behind (10-25 of 64 ticks a
    second). Behind its schedule, the replay now moves to the last tick already due; the ticks
    between are folded (the charts and findings hold them), not drawn."""
    clock = ManualClock()
    feed = ReplayFeed(recordings["deranged"], CheckConfig(), speed=64, clock=clock)
    gen = feed.frames()
    assert (await _next(gen)).position.index == 0
    gaps = _gaps(feed.times, 64)
    nxt = asyncio.ensure_future(_next(gen))
    await clock.sleeping()
    clock.advance(sum(gaps[:5]))  # five ticks came due while the screen was busy
    late = await nxt
    assert late.position.index == 5
    assert len(late.series) == 6  # every tick folded, none skipped
    paused = ReplayFeed(recordings["deranged"], CheckConfig(), playing=False)
    still = paused.frames()
    await _next(still)
    paused.seek_index(5)
    assert late.findings == (await _next(still)).findings
    await still.aclose()
    # back on schedule: tick 6 is due one interval after tick 5 was, and shown with the next
    # frame, FRAME_S after the last one (not sooner: 64 frames a second would be drawn)
    assert gaps[5] < FRAME_S < gaps[5] + gaps[6]
    nxt = asyncio.ensure_future(_next(gen))
    await clock.sleeping()
    clock.advance(gaps[5])
    for _ in range(5):
        await asyncio.sleep(0)  # let the feed run, were it woken
    assert not nxt.done()
    clock.advance(FRAME_S - gaps[5])
    assert (await nxt).position.index == 6
    await gen.aclose()


async def test_a_fast_replay_draws_at_most_a_frame_per_frame_s_and_folds_every_tick(tmp_path):
    """Issue 28: at 64x a 1 s recording has a tick due every 16 ms; a frame comes every
    FRAME_S with the ticks due by then, each folded, the newest shown: a second of clock shows
    64 ticks in at most 1 / FRAME_S frames."""
    clock, gen, shown = await _fast_replay(tmp_path, 90)
    while clock.now() < 1.0:
        frame = await _played(gen, clock)
        shown.append(frame.position.index)
        assert len(frame.series) == frame.position.index + 1  # every tick folded
    assert 62 <= shown[-1] <= 66 and len(shown) <= 1.0 / FRAME_S + 2, shown
    assert all(b - a in (1, 2) for a, b in itertools.pairwise(shown)), shown
    await gen.aclose()


async def _played(gen, clock: ManualClock):
    """The feed's next frame, the clock moved to each wake-up the feed sleeps for."""
    nxt = asyncio.ensure_future(_next(gen))
    while not nxt.done():
        if clock.waiting:
            await clock.step()
        else:  # folding (in a thread)
            await asyncio.wait([nxt], timeout=0.01)
    return await nxt


async def test_a_replay_behind_catches_up_a_few_ticks_a_frame_not_all_in_one(tmp_path):
    """Issue 28: a busy machine drew 2-7 frames a second of a 64x replay, each after the fold
    of up to 60 ticks due. Half a second behind (32 ticks due), each frame now takes the ticks
    due within CATCH_UP_SLOTS frame slots (6 at 64x), every one folded, until it is back on
    its schedule."""
    clock, gen, shown = await _fast_replay(tmp_path, 120)
    nxt = asyncio.ensure_future(_next(gen))
    await clock.sleeping()
    clock.advance(0.5)  # the screen was busy: 32 ticks came due
    shown.append((await nxt).position.index)
    while shown[-1] < 64 * clock.now() - 2:
        frame = await _played(gen, clock)
        shown.append(frame.position.index)
        assert len(frame.series) == frame.position.index + 1  # every tick folded
    steps = [b - a for a, b in itertools.pairwise(shown)]
    assert max(steps) <= 1 + round(64 * CATCH_UP_SLOTS * FRAME_S) and len(steps) >= 4, shown
    assert clock.now() < 1.0, shown  # back on schedule within half a second
    await gen.aclose()


async def test_a_replay_far_behind_plays_on_slower_rather_than_leaping(recordings):
    """A machine that was suspended (or cannot fold at the speed asked) does not make the
    replay leap: past a second of debt the schedule starts again from now."""
    clock = ManualClock()
    feed = ReplayFeed(recordings["deranged"], CheckConfig(), speed=64, clock=clock)
    gen = feed.frames()
    await _next(gen)
    nxt = asyncio.ensure_future(_next(gen))
    await clock.sleeping()
    clock.advance(100.0)
    assert (await nxt).position.index == 1
    nxt = asyncio.ensure_future(_next(gen))
    await clock.sleeping()
    clock.advance(FRAME_S)  # tick 2 came due since (a 0.1 s gap): not 100 s of ticks
    assert _gaps(feed.times, 64)[1] <= FRAME_S < sum(_gaps(feed.times, 64)[1:3])
    assert (await nxt).position.index == 2
    await gen.aclose()


async def test_replay_findings_are_the_fold_from_the_start_wherever_the_viewer_jumps(sessions):
    """Live folds every tick since it started; a replay gives the same findings at any index,
    reached by playing, jumping forward or jumping back."""
    _header, snaps = load_replay(sessions["deranged"])
    feed = ReplayFeed(sessions["deranged"], CheckConfig(), playing=False, start=5)
    gen = feed.frames()
    f = await _next(gen)
    assert f.snapshot == snaps[5]
    assert [x.key for x in f.findings] == [x.key for x in run_checks(snaps[:6])]
    assert any(x.check == "deranged_disk" for x in f.findings)
    for target in (2, len(snaps) - 1, 0, 3):
        feed.seek_index(target)
        f = await _next(gen)
        assert f.snapshot == snaps[target]
        assert [x.key for x in f.findings] == [x.key for x in run_checks(snaps[: target + 1])]
    await gen.aclose()


def test_the_chart_window_is_bounded_by_age_and_count_and_says_what_was_not_there():
    from tests.checks.builders import T0, healthy_two_mirrors, snap

    s = Series(seconds=10, limit=5)
    for t in range(20):
        s.add(snap(T0 + t, healthy_two_mirrors(t)))
    leaf = s.points("tank", "guid-sda")
    assert len(s) == 5 and leaf["x"] == [-4.0, -3.0, -2.0, -1.0, 0.0]
    assert leaf["wmb"] == [10.0] * 5 and leaf["util"] == [40.0] * 5
    assert s.points("tank", "pool:tank")["x"] == []  # the hand-made root has no io: nothing to draw
    s = Series(seconds=3, limit=100)
    for t in range(20):
        s.add(snap(T0 + t, healthy_two_mirrors(t)))
    assert s.points("tank", "guid-sdb")["x"] == [-3.0, -2.0, -1.0, 0.0]
    assert s.points("tank", "guid-nothing") == {k: [] for k in ("x", "rmb", "wmb", "rms", "wms", "util")}


class FakeSource:
    """LiveSource's interface, fed from real captures."""

    host = "lab"

    def __init__(self, ticks):
        self._ticks = ticks

    async def ticks(self):
        for tick in self._ticks:
            yield tick
            await asyncio.sleep(0)


async def test_live_feed_frames_and_recording_keyframe(tmp_path):
    ticks = [capture_tick("degraded", "offline", 1_700_000_000.0 + k) for k in range(3)]
    # later ticks carry only iostat, as live does between slow commands
    ticks += [
        type(t)(t.time, tuple(s for s in t.samples if s.key == "iostat"))
        for t in (capture_tick("degraded", "offline", 1_700_000_003.0 + k) for k in range(3))
    ]
    feed = LiveFeed(CheckConfig(), 1.0, (), source_factory=lambda: FakeSource(ticks))
    path = str(tmp_path / "rec.yaml.gz")
    frames = []
    async for frame in feed.frames():
        frames.append(frame)
        if len(frames) == 3:
            feed.toggle_recording(path)
    assert [f.mode for f in frames] == ["live"] * 6 and frames[0].source == "lab"
    assert frames[-1].recording == path and frames[2].recording is None
    assert any(f.check == "health" for f in frames[-1].findings)
    assert len(frames[-1].series) == 6
    # The recording began with iostat-only ticks, yet its first snapshot has the pool.
    header, snaps = load_replay(path)
    assert header.host == "lab" and len(snaps) == 3
    assert snaps[0].pool("degraded") is not None
    assert snaps[0].pool("degraded").state == "DEGRADED"


async def test_live_feed_bad_record_path_is_a_notice_not_a_crash(tmp_path):
    ticks = [capture_tick("healthy", None, 1_700_000_000.0 + k) for k in range(3)]
    feed = LiveFeed(CheckConfig(), 1.0, (), source_factory=lambda: FakeSource(ticks))
    feed.toggle_recording(str(tmp_path / "no" / "such" / "dir" / "x.yaml"))
    frames = [f async for f in feed.frames()]
    assert len(frames) == 3 and frames[-1].recording is None
    notice = feed.take_notice()
    assert notice and "cannot record" in notice
    assert feed.take_notice() is None  # said once


async def test_a_long_zdash_replay_holds_no_copies_of_the_fold_in_memory(tmp_path):
    """Memory stays flat however long a replay plays: a .zdash file's own keyframes serve every
    jump, so playing on keeps no copies of the check engine (~0.8 MB each at 100 leaves; kept
    anyway, a 64x replay of a 1 h file grew by 15 MB over 1,100 ticks). A jump back still gives
    the fold from the start."""
    from zdash.fold import Fold
    from zdash.sources.store import StoreWriter

    path = str(tmp_path / "long.zdash")
    fold = Fold(CheckConfig(), 1.0, "nas1")
    with StoreWriter(path, "nas1", 1.0) as w:
        for i in range(150):
            fold.write(w, capture_tick("healthy", t=1_700_000_000.0 + i))
    feed = ReplayFeed(path, CheckConfig(), playing=False)
    gen = feed.frames()
    await _next(gen)
    for target in (50, 100, 149, 70):
        feed.seek_index(target)
        f = await _next(gen)
        assert f.position.index == target
    assert not feed._kept  # the engine copies a format 1 replay keeps
    _header, snaps = load_replay(path)
    assert [x.key for x in f.findings] == [x.key for x in run_checks(snaps[:71])]
    await gen.aclose()
