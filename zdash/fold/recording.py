"""A recording folded: to any tick, restoring the newest keyframe at or before it (format 2) or
from the beginning (format 1, or keyframes of another fold version or another config), then the
ticks in between. Exact either way: a keyframe holds the fold's whole state (see test_keyframes)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from zdash.config import CheckConfig
from zdash.fold.fold import RESTORE_ERRORS, Fold, fold_key
from zdash.fold.frame import Frame
from zdash.model import Snapshot
from zdash.raw import Tick
from zdash.sources.recording import Recording, open_recording
from zdash.sources.session import SessionHeader, SessionReport, read_session
from zdash.sources.store import is_store


def restore_at(
    rec: Recording, index: int, cfg: CheckConfig | None, *, history: bool = False
) -> tuple[int, Fold]:
    """A fold standing just before tick `index` (clamped to the recording): (the first tick it
    has yet to fold, the fold), from the newest keyframe of this fold (its version, `cfg`'s
    thresholds) at or before it, else fresh from the start."""
    kf = rec.keyframe(index, fold_key(cfg))
    if kf is not None and kf[2] is not None:
        try:
            return kf[0], Fold.restore(kf[1], kf[2], cfg, history=history)  # kf at k: the state before k
        except RESTORE_ERRORS:
            pass  # another zdash's keyframe: fold it all
    return 0, Fold.from_header(rec.header, cfg, history=history)


def has_keyframes(rec: Recording, cfg: CheckConfig | None) -> bool:
    """Whether the recording holds keyframes a fold with `cfg` can restore (with the checks'
    memory): then it seeks from them, and copies kept in memory are redundant."""
    kf = rec.keyframe(rec.count() - 1, fold_key(cfg))
    return kf is not None and kf[2] is not None


def fold_to(rec: Recording, index: int, cfg: CheckConfig | None = None) -> Frame:
    """The frame of tick `index` (0-based; clamped to the recording)."""
    index = min(max(index, 0), rec.count() - 1)
    start, fold = restore_at(rec, index, cfg)
    for i in range(start, index):
        fold.observe(rec.tick(i))
    return fold.step(rec.tick(index))


def fold_path(
    path: str, cfg: CheckConfig | None, at: float | None = None
) -> tuple[SessionHeader, Frame | None, SessionReport]:
    """`zdash check --replay FILE [--at S]`: the frame of the last tick, or of the last tick at
    or before `at` seconds after the first (None: no complete tick), with what could not be
    read. A `.zdash` file seeks from its nearest keyframe; a YAML file is folded as it is read,
    tick by tick, never held whole (a day at 1 s is tens of thousands of ticks). Raises
    SessionError when the file is no recording."""
    if is_store(path):
        rec = open_recording(path)
        try:
            if rec.count() == 0:
                return rec.header, None, rec.report
            index = rec.count() - 1 if at is None else rec.index_at(rec.times()[0] + at)
            return rec.header, fold_to(rec, index, cfg), rec.report
        finally:
            rec.close()
    report = SessionReport()
    header, ticks = read_session(path, report)
    try:
        frame = Fold.from_header(header, cfg).last(_until(ticks, at))
    finally:
        ticks.close()
    return header, frame, report


def _until(ticks: Iterable[Tick], at: float | None) -> Iterator[Tick]:
    """The ticks up to the last at or before `at` seconds after the first (all of them: None)."""
    first: float | None = None
    for tick in ticks:
        if first is None:
            first = tick.time
        elif at is not None and tick.time > first + at:
            return
        yield tick


def replay_frames(path: str, cfg: CheckConfig | None = None) -> Iterator[Frame]:
    """Every tick's frame of a recording (either format), folded as it is read."""
    from zdash.sources.replay import replay_ticks

    header, ticks = replay_ticks(path)
    try:
        yield from Fold.from_header(header, cfg).frames(ticks)
    finally:
        ticks.close()


def replay_snapshots(path: str) -> tuple[SessionHeader, Iterator[Snapshot]]:
    """A recording's snapshots, unjudged and folded as they are read (either format)."""
    from zdash.fold.fold import snapshots
    from zdash.sources.replay import replay_ticks

    header, ticks = replay_ticks(path)
    return header, snapshots(ticks, header.interval or 1.0, header.host)


def load_replay(path: str) -> tuple[SessionHeader, list[Snapshot]]:
    """All snapshots at once (tests and short recordings; the replay feed folds on demand)."""
    header, snaps = replay_snapshots(path)
    return header, list(snaps)
