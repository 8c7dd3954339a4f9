"""A recording folded to any tick: restore the newest keyframe at or before it (format 2), or
start from the beginning (format 1, or keyframes of another fold version), and fold the ticks
in between. Exact either way: a keyframe holds the fold's whole state (see test_keyframes)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from zdash.builder import SnapshotBuilder
from zdash.checks.finding import Finding
from zdash.checks.registry import FOLD_VERSION, CheckEngine
from zdash.checks.state_codec import StateError
from zdash.config import CheckConfig
from zdash.model import Snapshot
from zdash.raw import Tick
from zdash.sources.recording import Recording
from zdash.sources.session import SessionWriter
from zdash.sources.store import StoreWriter


@dataclass
class Folded:
    """The fold standing at tick `index`: continue it with `step` (play), or ask for another."""

    index: int
    builder: SnapshotBuilder
    engine: CheckEngine
    snapshot: Snapshot
    findings: tuple[Finding, ...]


def fresh(rec: Recording, cfg: CheckConfig | None) -> tuple[SnapshotBuilder, CheckEngine]:
    return SnapshotBuilder(rec.header.interval or 1.0, rec.header.host), CheckEngine(cfg)


def fold_to(rec: Recording, index: int, cfg: CheckConfig | None = None) -> Folded:
    """The state after tick `index` (0-based; clamped to the recording)."""
    index = min(max(index, 0), rec.count() - 1)
    start, (builder, engine) = 0, fresh(rec, cfg)
    kf = rec.keyframe(index, FOLD_VERSION)
    if kf is not None and kf[2] is not None:
        try:
            builder, engine = SnapshotBuilder.restore(kf[1]), CheckEngine.restore(kf[2], cfg)
            start = kf[0]  # a keyframe at k holds the state before tick k
        except (StateError, KeyError, TypeError, ValueError):
            start, (builder, engine) = 0, fresh(rec, cfg)  # another zdash's keyframe: fold it all
    snap: Snapshot | None = None
    for i in range(start, index):
        engine.observe(builder.feed(rec.tick(i)))
    snap = builder.feed(rec.tick(index))
    return Folded(index, builder, engine, snap, engine.update(snap))


def step(folded: Folded, rec: Recording) -> Folded:
    """The next tick, folded on from where `folded` stands (cheap: one tick)."""
    i = folded.index + 1
    snap = folded.builder.feed(rec.tick(i))
    return Folded(i, folded.builder, folded.engine, snap, folded.engine.update(snap))


def keyframe_of(
    writer: StoreWriter, builder: SnapshotBuilder, engine: CheckEngine
) -> tuple[int, dict[str, Any], dict[str, Any]]:
    """The fold's state for a keyframe, its cost told to the writer's policy."""
    started = time.thread_time()  # CPU time, as the fold's (write_tick)
    state = (FOLD_VERSION, builder.checkpoint(), engine.checkpoint())
    writer.keyframes.observe_keyframe(time.thread_time() - started)
    return state


def write_tick(
    writer: SessionWriter | StoreWriter, tick: Tick, builder: SnapshotBuilder, engine: CheckEngine
) -> tuple[Snapshot, tuple[Finding, ...]]:
    """Write a tick (into a .zdash file with a keyframe of the fold's state before it when the
    writer's policy says one is due), then fold it, timing the fold for that policy."""
    if isinstance(writer, StoreWriter):
        writer.write(tick, keyframe_of(writer, builder, engine) if writer.keyframes.due() else None)
    else:
        writer.write(tick)
    return _fold_timed(writer, tick, builder, engine)


def fold_written(
    writer: StoreWriter, seq: int, tick: Tick, builder: SnapshotBuilder, engine: CheckEngine
) -> None:
    """A tick already in the file (StoreWriter.write_packed) folded, with the keyframe before it
    when one is due: the keyframes write_tick would have written, added afterwards."""
    writer.placed(seq, tick)
    if writer.keyframes.due():
        writer.write_keyframe(seq, tick.time, keyframe_of(writer, builder, engine))
    _fold_timed(writer, tick, builder, engine)


def _fold_timed(
    writer: SessionWriter | StoreWriter, tick: Tick, builder: SnapshotBuilder, engine: CheckEngine
) -> tuple[Snapshot, tuple[Finding, ...]]:
    # CPU time, not wall: the keyframe policy weighs fold against keyframe cost, and a busy
    # machine stretching one keyframe's wall time spaced keyframes 56 ticks apart (a 24 h file
    # written under load: seeks there took 190-220 ms against ~50 elsewhere).
    started = time.thread_time()
    snap = builder.feed(tick)
    findings = engine.update(snap)
    if isinstance(writer, StoreWriter):
        writer.keyframes.observe(time.thread_time() - started)
    return snap, findings
