"""Severity follows the redundancy model everywhere, pastes included (issue 26): over every tick
of every bundled scenario and every corpus case, no finding that says "no redundancy left" is
below CRITICAL (WARNING for a log vdev), and while a pool or one of its vdevs reads DEGRADED,
FAULTED or UNAVAIL its verdict is never OK (some finding of it is above INFO: what the header
and `zdash check` lead with)."""

from __future__ import annotations

import contextlib
import dataclasses
import io
from pathlib import Path

import pytest

from zdash import scenarios
from zdash.checks.finding import Severity
from zdash.config import CheckConfig
from zdash.fold import look, run_checks
from zdash.fold.recording import replay_frames
from zdash.model import Snapshot
from zdash.paste.front import import_file, paste_tick

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
NOT_OK = ("DEGRADED", "FAULTED", "UNAVAIL")


def assert_severity_follows_the_words(snap: Snapshot, findings) -> None:
    for f in findings:
        if "no redundancy left" in f.title or "no redundancy left" in f.why.split(". ")[0]:
            floor = Severity.WARNING if f.title.startswith("log ") else Severity.CRITICAL
            assert f.severity >= floor, (f.severity, f.title)
    for pool in snap.pools:
        states = {pool.state} | {v.state for v in pool.root.walk() if v.vclass != "spare"}
        if states & set(NOT_OK):
            worst = max((f.severity for f in findings if f.pool in (pool.name, None)), default=Severity.INFO)
            assert worst > Severity.INFO, (
                pool.name,
                sorted(states),
                [(f.severity, f.title) for f in findings],
            )


@pytest.mark.slow
@pytest.mark.parametrize("name", scenarios.names())
def test_every_tick_of_every_scenario(name):
    for frame in replay_frames(scenarios.path_of(name)):
        assert_severity_follows_the_words(frame.snapshot, frame.findings)


def test_every_corpus_case():
    """As `zdash check --text` judges a paste: one look."""
    cfg = dataclasses.replace(CheckConfig(), deranged_sustain_samples=1, one_look=True)
    cases = sorted(CORPUS.glob("[0-9][0-9][0-9]-*.txt"))
    assert len(cases) > 250
    for case in cases:
        with contextlib.redirect_stderr(io.StringIO()):
            loaded = import_file(str(case))
        if loaded is None:
            continue
        imported, mtime = loaded
        snap = look(paste_tick(imported, mtime))
        findings = run_checks([snap], cfg)
        try:
            assert_severity_follows_the_words(snap, findings)
        except AssertionError as e:
            raise AssertionError(f"{case.name}: {e}") from None
