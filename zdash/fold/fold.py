"""The fold: the one way ticks become frames. A `Fold` owns the user's config, the snapshot
builder (the last good parse of each command, this tick's rates), the check engine (every
check's memory), the history series the charts draw and the outliers the vdev table marks;
`step(tick)` gives the tick's `Frame`. Live, replay, the fleet, the exporter, `zdash check`,
`record`, `convert`, `summary` and the bench all fold through it, so none can drift from the
others (a fold wired by hand in `record` and `convert` once judged with default thresholds while
every other command used the user's config).

Nothing else constructs a SnapshotBuilder or a CheckEngine (an import-linter contract in
pyproject.toml holds it: only zdash.fold imports zdash.builder and zdash.checks.registry), so a
new stage of the fold is added here, once.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Protocol

from zdash.builder import SnapshotBuilder
from zdash.checks.finding import Finding
from zdash.checks.registry import CHECKS, CheckEngine
from zdash.checks.state_codec import StateError
from zdash.config import CheckConfig
from zdash.fold.frame import Frame
from zdash.fold.series import Series
from zdash.model import Snapshot
from zdash.raw import Tick
from zdash.sources.session import SessionHeader, SessionWriter
from zdash.sources.store import StoreWriter

# Bumped whenever the builder's or a tracker's state changes shape or meaning: keyframes of
# another fold version are not trusted (a replay then folds from the start, which is always exact).
FOLD_VERSION = 4  # 2: health remembers attached leaves; 3: deranged_disk's peers are the own vdev;
# 4: deranged_disk's pool baseline is the plain mean of its first busy samples (_PoolIo.base_n)


def fold_key(cfg: CheckConfig | None) -> int:
    """Which fold a keyframe is of: this FOLD_VERSION and the config it judged with (its digest),
    one number a recording's `keyframes.fold` column holds. The checks' memory in a keyframe was
    built with the writer's thresholds: a reader with other ones finds no keyframe of its key and
    folds from the start, exact whatever config wrote the file."""
    return FOLD_VERSION << 48 | (cfg or CheckConfig()).digest()


# A keyframe's content: (fold key, the builder's state, the engine's state).
KeyframeState = tuple[int, dict[str, Any], dict[str, Any]]
# What restoring a keyframe of another zdash may raise: the caller folds from the start instead.
RESTORE_ERRORS = (StateError, KeyError, TypeError, ValueError)


class HasHost(Protocol):
    """A tick source, as the fold needs to know it (zdash.sources.live.LiveSource, a fake)."""

    @property
    def host(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class Mark:
    """The fold's state kept in memory (a replay's jump back lands near one): the builder's
    checkpoint and an independent copy of the engine."""

    builder: dict[str, Any]
    engine: CheckEngine


class Fold:
    """Ticks in, frames out, in order. `history`: keep the series the charts draw (the
    dashboard's feeds); the commands that print or export do not pay for it."""

    def __init__(
        self,
        cfg: CheckConfig | None = None,
        interval: float = 1.0,
        host: str | None = None,
        *,
        history: bool = False,
    ) -> None:
        self.cfg = cfg or CheckConfig()
        self.interval, self.host = interval, host
        self._builder = SnapshotBuilder(interval, host)
        self._engine = CheckEngine(self.cfg)
        self._history = history
        self.series = Series()
        self._last: Snapshot | None = None

    @classmethod
    def from_header(cls, header: SessionHeader, cfg: CheckConfig | None, *, history: bool = False) -> Fold:
        """The fold of a recording, as the host that recorded it folded it live."""
        return cls(cfg, header.interval or 1.0, header.host, history=history)

    @classmethod
    def from_source(
        cls, source: HasHost, cfg: CheckConfig | None, interval: float = 1.0, *, history: bool = False
    ) -> Fold:
        """The fold of a live source's ticks."""
        return cls(cfg, interval, source.host, history=history)

    # -- folding -------------------------------------------------------------------------------
    def step(self, tick: Tick) -> Frame:
        """Fold one tick and say what the checks find in it."""
        self.observe(tick)
        return self.judge()

    def observe(self, tick: Tick) -> Snapshot:
        """Fold one tick without asking the checks for findings (a replay catching up to the
        tick it shows, a check's samples before its last: the checks' memory takes it in)."""
        snap = self._last = self._builder.feed(tick)
        self._engine.observe(snap)
        if self._history:
            self.series.add(snap)
        return snap

    def judge(self) -> Frame:
        """The frame of the tick observed last: what the checks find in it."""
        snap = self._last
        if snap is None:
            raise ValueError("judge() before any tick was observed")
        findings = self._engine.judge(snap)
        return Frame(snap, findings, self.series, self._engine.scan_rates(), self._engine.outliers())

    def last(self, ticks: Iterable[Tick]) -> Frame | None:
        """Fold every tick, asking for findings only at the last (None: no tick)."""
        seen = False
        for tick in ticks:
            self.observe(tick)
            seen = True
        return self.judge() if seen else None

    def frames(self, ticks: Iterable[Tick]) -> Iterator[Frame]:
        """A frame for each tick, folded as it is asked for."""
        return (self.step(t) for t in ticks)

    # -- keyframes -----------------------------------------------------------------------------
    def checkpoint(self) -> KeyframeState:
        """The fold's whole state, for a recording's keyframe (JSON-able)."""
        return (fold_key(self.cfg), self._builder.checkpoint(), self._engine.checkpoint())

    @classmethod
    def restore(
        cls,
        builder: dict[str, Any],
        engine: dict[str, Any],
        cfg: CheckConfig | None,
        *,
        history: bool = False,
    ) -> Fold:
        """A fold continuing from a keyframe's state, one of fold_key(cfg). Raises one of
        RESTORE_ERRORS for a damaged keyframe."""
        fold = cls.__new__(cls)
        fold.cfg = cfg or CheckConfig()
        fold._builder = SnapshotBuilder.restore(builder)
        fold._engine = CheckEngine.restore(engine, fold.cfg)
        fold.interval, fold.host = fold._builder.interval, fold._builder.host
        fold._history, fold.series, fold._last = history, Series(), None
        return fold

    def mark(self) -> Mark:
        """The state to come back to later, kept in memory (no JSON round trip for the engine)."""
        return Mark(self._builder.checkpoint(), self._engine.copy())

    @classmethod
    def resume(cls, mark: Mark, *, history: bool = False) -> Fold:
        """A fold continuing from `mark` (which stays usable for another resume)."""
        fold = cls.__new__(cls)
        fold._builder, fold._engine = SnapshotBuilder.restore(mark.builder), mark.engine.copy()
        fold.cfg, fold.interval, fold.host = fold._engine.cfg, fold._builder.interval, fold._builder.host
        fold._history, fold.series, fold._last = history, Series(), None
        return fold

    # -- recording -----------------------------------------------------------------------------
    def keyframe(self, writer: StoreWriter) -> KeyframeState:
        """The state for a keyframe, its cost told to the writer's policy."""
        started = time.thread_time()  # CPU time, as the fold's (write)
        state = self.checkpoint()
        writer.keyframes.observe_keyframe(time.thread_time() - started)
        return state

    def write(self, writer: SessionWriter | StoreWriter, tick: Tick) -> Frame:
        """Write a tick (into a .zdash file with a keyframe of the fold's state before it when the
        writer's policy says one is due), then fold it, timing the fold for that policy."""
        if isinstance(writer, StoreWriter):
            writer.write(tick, self.keyframe(writer) if writer.keyframes.due() else None)
        else:
            writer.write(tick)
        return self.timed(writer, tick)

    def write_placed(self, writer: StoreWriter, seq: int, tick: Tick) -> Frame:
        """Fold a tick already in the file (StoreWriter.write_packed), with the keyframe before
        it when one is due: the keyframes `write` would have written, added afterwards."""
        writer.placed(seq, tick)
        if writer.keyframes.due():
            writer.write_keyframe(seq, tick.time, self.keyframe(writer))
        return self.timed(writer, tick)

    def timed(self, writer: SessionWriter | StoreWriter | None, tick: Tick) -> Frame:
        """Fold a tick, telling a .zdash writer's keyframe policy what it cost. CPU time, not
        wall: the policy weighs fold against keyframe cost, and a busy machine stretching one
        keyframe's wall time spaced keyframes 56 ticks apart (a 24 h file written under load:
        seeks there took 190-220 ms against ~50 elsewhere)."""
        started = time.thread_time()
        frame = self.step(tick)
        if isinstance(writer, StoreWriter):
            writer.keyframes.observe(time.thread_time() - started)
        return frame


def look(tick: Tick, host: str | None = None) -> Snapshot:
    """One tick as a snapshot, with no memory before it and no checks (a guided action's fresh
    look at the host, a paste's one moment)."""
    return SnapshotBuilder(1.0, host).feed(tick)


def snapshots(ticks: Iterable[Tick], interval: float = 1.0, host: str | None = None) -> Iterator[Snapshot]:
    """The snapshots of a run of ticks, unjudged (tests and tools that only read the model)."""
    builder = SnapshotBuilder(interval, host)
    return (builder.feed(t) for t in ticks)


def run_checks(
    history: Sequence[Snapshot], cfg: CheckConfig | None = None, checks: Sequence[ModuleType] = CHECKS
) -> list[Finding]:
    """Fold a fresh engine over already built snapshots and return the findings of the last
    (tests of the checks, which build their snapshots by hand)."""
    if not history:
        return []
    engine = CheckEngine(cfg, checks)
    for snap in history[:-1]:
        engine.observe(snap)
    return list(engine.update(history[-1]))
