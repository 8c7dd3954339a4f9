"""What a check is: a tracker that observes every snapshot in order and, when asked, says what
it finds in the newest one.

Checks are folds over time, not functions of a window: a tracker keeps only the per-pool and
per-leaf state its diagnosis needs (a run of slow samples, error-counter baselines, a scan's
rate), bounded in size, so a tick costs the same after a minute and after a month, and a
verdict like "growing" means "grew since zdash has been watching", whatever the window the
charts show. Live, replay and `zdash check` fold the same way (zdash.checks.registry).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, ClassVar

from zdash.checks.finding import Finding
from zdash.config import CheckConfig
from zdash.model import Snapshot


class Tracker:
    """Base class; also the whole of a check that needs no memory (override `findings`)."""

    # Attributes that only save work (findings kept for an input seen again, by its identity),
    # not memory a verdict depends on: keyframes leave them out, and a copy starts without them
    # (None), so neither carries the inputs they point at.
    TRANSIENT: ClassVar[tuple[str, ...]] = ()

    def __init__(self, cfg: CheckConfig) -> None:
        self.cfg = cfg

    def __deepcopy__(self, memo: dict[int, Any]) -> Tracker:
        twin = object.__new__(type(self))
        for key, value in self.__dict__.items():
            twin.__dict__[key] = None if key in self.TRANSIENT else copy.deepcopy(value, memo)
        return twin

    def memory(self) -> dict[str, Any]:
        """What a keyframe keeps of this tracker: its attributes but the config and TRANSIENT."""
        return {k: v for k, v in self.__dict__.items() if k != "cfg" and k not in self.TRANSIENT}

    def observe(self, snap: Snapshot) -> None:
        """Take in one snapshot (called for every snapshot, oldest first)."""

    def findings(self, snap: Snapshot) -> list[Finding]:
        """What the check says about `snap`, the snapshot observed last."""
        raise NotImplementedError


class StructuralTracker(Tracker):
    """A check whose findings depend only on the pool's structure (tree, states, counters,
    space, device facts, datasets) and on memory that changes only with it: its findings are
    reused until the snapshot's structure_id changes (status runs every few seconds; a 1,000-disk
    pool need not be re-judged in between). Subclasses implement `judge`."""

    def __init__(self, cfg: CheckConfig) -> None:
        super().__init__(cfg)
        self._memo: tuple[int, list[Finding]] | None = None

    def findings(self, snap: Snapshot) -> list[Finding]:
        if snap.structure_id and self._memo is not None and self._memo[0] == snap.structure_id:
            return list(self._memo[1])
        found = self.judge(snap)
        if self._memo is not None and found == self._memo[1]:
            # Judged again (a new status), found the same: the findings made last time are
            # kept, and what was made now is dropped at once, never walked by the collector.
            found = self._memo[1]
        self._memo = (snap.structure_id, found) if snap.structure_id else None
        return list(found)

    def judge(self, snap: Snapshot) -> list[Finding]:
        raise NotImplementedError


def fold(tracker: type[Tracker], history: Sequence[Snapshot], cfg: CheckConfig) -> list[Finding]:
    """One check over a history, as the engine runs it (for tests and single-check callers)."""
    if not history:
        return []
    t = tracker(cfg)
    for snap in history:
        t.observe(snap)
    return t.findings(history[-1])
