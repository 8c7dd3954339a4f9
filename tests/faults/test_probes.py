"""The fault-injection suite in CI: every probe of tests/faults/probes.py, run in parallel inside
one test (each probe is a subprocess that mostly waits; xdist's two workers would take longer),
must pass. The failures are listed by kind (traceback, hang, data-loss, wrong-OK, fail)."""

from __future__ import annotations

import pytest

from tests.faults.probes import PROBES
from tests.faults.run_probes import run_all, summary


def test_the_issue_asks_for_at_least_100_probes_over_every_bullet():
    assert len(PROBES) >= 100
    assert {p.bullet for p in PROBES} == {
        "recordings",
        "failures",
        "hangs",
        "tracebacks",
        "hygiene",
        "config",
    }
    assert len({p.name for p in PROBES}) == len(PROBES)  # one name, one probe


@pytest.mark.e2e
@pytest.mark.timeout(600)
def test_every_fault_probe_passes():
    outcomes = run_all(jobs=6)
    failed = [f"{o.kind}: {o.probe.name}: {o.detail}" for o in outcomes if o.kind]
    assert not failed, summary(outcomes) + "\n" + "\n".join(failed)
