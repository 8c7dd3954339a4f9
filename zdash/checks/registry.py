"""Run every check over the history and return the findings worst first.

A check is a module with `ID` and `check(history, cfg) -> list[Finding]`. A check that raises
(or returns something that is not a list of findings) must not take the dashboard down: it
becomes one WARNING finding saying which check failed and why, and the others still run.
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from types import ModuleType

from zdash.checks import ashift, capacity, clones, deranged_disk, health, imbalance, scan, topology
from zdash.checks.finding import Finding, Severity
from zdash.config import CheckConfig
from zdash.model import Snapshot

# Order only breaks ties between equally severe findings: the most urgent diagnoses first.
CHECKS: tuple[ModuleType, ...] = (health, deranged_disk, capacity, scan, imbalance, ashift, topology, clones)
_ORDER = {m.ID: i for i, m in enumerate(CHECKS)}


def run_checks(
    history: Sequence[Snapshot], cfg: CheckConfig | None = None, checks: Sequence[ModuleType] = CHECKS
) -> list[Finding]:
    if not history:
        return []
    cfg = cfg or CheckConfig()
    findings: list[Finding] = []
    for module in checks:
        if module.ID in cfg.disabled:
            continue
        try:
            result = module.check(history, cfg)
            if not isinstance(result, list) or not all(isinstance(f, Finding) for f in result):
                raise TypeError(f"returned {type(result).__name__}, not a list of Finding")
        except Exception as exc:  # noqa: BLE001 - isolation is the point
            findings.append(_failure(module.ID, exc))
            continue
        findings.extend(result)
    findings.sort(
        key=lambda f: (-f.severity, _ORDER.get(f.check, len(_ORDER)), f.pool or "", f.subject, f.topic)
    )
    return findings


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
