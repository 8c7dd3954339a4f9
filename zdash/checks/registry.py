"""The check engine: every check's tracker fed the same snapshots, findings worst first.

A check is a module with `ID` and `Tracker` (zdash.checks.tracker), or, for a check with no
memory, with `ID` and `check(history, cfg)` (called with the newest snapshot alone). A check
that raises (or returns something that is not a list of findings) must not take the dashboard
down: it becomes one WARNING finding saying which check failed and why, its memory is reset,
and the others still run.
"""

from __future__ import annotations

import copy
import traceback
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from zdash.checks import (
    ashift,
    capacity,
    clones,
    dedup,
    deranged_disk,
    health,
    imbalance,
    media_mix,
    scan,
    smart,
    topology,
    visibility,
)
from zdash.checks._evidence import with_evidence
from zdash.checks.finding import Finding, Severity
from zdash.checks.tracker import Tracker
from zdash.config import CheckConfig
from zdash.model import Snapshot

# Order only breaks ties between equally severe findings: the most urgent diagnoses first.
CHECKS: tuple[ModuleType, ...] = (
    visibility,
    health,
    deranged_disk,
    smart,
    media_mix,
    capacity,
    scan,
    imbalance,
    ashift,
    topology,
    clones,
    dedup,
)
_ORDER = {m.ID: i for i, m in enumerate(CHECKS)}


class _Stateless(Tracker):
    """A module that only has `check(history, cfg)`: asked about the newest snapshot alone."""

    def __init__(self, cfg: CheckConfig, fn: Any) -> None:
        super().__init__(cfg)
        self.fn = fn

    def findings(self, snap: Snapshot) -> list[Finding]:
        result: list[Finding] = self.fn([snap], self.cfg)
        return result


class CheckEngine:
    """Folds snapshots into findings, one tracker per enabled check."""

    def __init__(self, cfg: CheckConfig | None = None, checks: Sequence[ModuleType] = CHECKS) -> None:
        self.cfg = cfg or CheckConfig()
        self._modules = [m for m in checks if m.ID not in self.cfg.disabled]
        self._trackers: dict[str, Tracker] = {m.ID: self._new(m) for m in self._modules}
        self.last: tuple[Finding, ...] = ()

    def _new(self, module: ModuleType) -> Tracker:
        if hasattr(module, "Tracker"):
            tracker: Tracker = module.Tracker(self.cfg)
            return tracker
        return _Stateless(self.cfg, module.check)

    def observe(self, snap: Snapshot) -> None:
        """Take in a snapshot without asking for findings (replay catching up, a long history)."""
        for module in self._modules:
            try:
                self._trackers[module.ID].observe(snap)
            except Exception:  # noqa: BLE001 - isolation is the point; findings() reports it
                self._trackers[module.ID] = self._new(module)

    def update(self, snap: Snapshot) -> tuple[Finding, ...]:
        """Observe `snap` and return what every check finds in it, worst first."""
        self.observe(snap)
        return self.judge(snap)

    def judge(self, snap: Snapshot) -> tuple[Finding, ...]:
        """What every check finds in `snap`, the snapshot observed last, worst first."""
        out: list[Finding] = []
        for module in self._modules:
            try:
                result = self._trackers[module.ID].findings(snap)
                if not isinstance(result, list) or not all(isinstance(f, Finding) for f in result):
                    raise TypeError(f"returned {type(result).__name__}, not a list of Finding")
            except Exception as exc:  # noqa: BLE001 - isolation is the point
                self._trackers[module.ID] = self._new(module)
                out.append(_failure(module.ID, exc))
                continue
            out.extend(result)
        out = with_evidence(snap, out)  # SMART, histograms, the kernel log beside a verdict
        out.sort(
            key=lambda f: (-f.severity, _ORDER.get(f.check, len(_ORDER)), f.pool or "", f.subject, f.topic)
        )
        self.last = tuple(out)
        return self.last

    def scan_rates(self) -> dict[tuple[str, str, float | None], tuple[float | None, float]]:
        """Every running scan's rate as the scan check measures it (the pool header's ETA uses
        the same figure): (pool, function, start time) -> (bytes/s or None, seconds measured)."""
        t = self._trackers.get("scan")
        return t.rates() if isinstance(t, scan.Tracker) else {}

    def outliers(self) -> dict[str, frozenset[str]]:
        """By pool, the leaves the deranged_disk check names or judged slow in the last sample
        (the vdev table's marks): from its tracker, so the UI never re-judges a sample."""
        t = self._trackers.get(deranged_disk.ID)
        return t.outliers(self.last) if isinstance(t, deranged_disk.Tracker) else {}

    def checkpoint(self) -> dict[str, Any]:
        """The trackers' memory as JSON-able data (a recording keyframe; see state_codec)."""
        from zdash.checks import state_codec

        return {
            "last": state_codec.encode(self.last),
            "trackers": {
                key: state_codec.encode(t.memory())
                for key, t in self._trackers.items()
                if not isinstance(t, _Stateless)
            },
        }

    @classmethod
    def restore(
        cls, state: dict[str, Any], cfg: CheckConfig | None = None, checks: Sequence[ModuleType] = CHECKS
    ) -> CheckEngine:
        """An engine whose trackers continue from a checkpoint of this fold (zdash.fold.fold.fold_key
        says which keyframes those are). Raises state_codec.StateError for a damaged one."""
        from zdash.checks import state_codec

        engine = cls(cfg, checks)
        for key, saved in state.get("trackers", {}).items():
            if key in engine._trackers:
                engine._trackers[key].__dict__.update(state_codec.decode(saved))
        engine.last = tuple(state_codec.decode(state.get("last", {"t": []})))
        return engine

    def copy(self) -> CheckEngine:
        """An independent copy (a replay keyframe): trackers hold small, bounded state."""
        twin = object.__new__(CheckEngine)
        twin.cfg, twin._modules, twin.last = self.cfg, self._modules, self.last
        twin._trackers = {k: copy.deepcopy(t) for k, t in self._trackers.items()}
        return twin


def _failure(check_id: str, exc: Exception) -> Finding:
    frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    evidence = [("Error", f"{type(exc).__name__}: {exc}")]
    if frame is not None:
        evidence.append(("Where", f"{frame.filename.rsplit('/', 1)[-1]}:{frame.lineno} in {frame.name}"))
    return Finding(
        check=check_id,
        severity=Severity.WARNING,
        pool=None,
        subject=check_id,
        subject_kind="pool",
        title=f"check {check_id} failed: {type(exc).__name__}: {exc}",
        why=(
            f"The {check_id} diagnosis raised an error on the current data, so whatever it looks "
            "for is not being watched right now. The other checks still ran. This is a zdash bug "
            "or an input it does not understand; the evidence says where it failed."
        ),
        evidence=tuple(evidence),
    )
