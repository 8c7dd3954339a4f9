"""`zdash check`'s lines say one figure for one fact and only public words: over every bundled
scenario (each tick a second apart, as `--at` reads it) and every corpus case, the pager line's
"N% full" and a capacity finding's "N % full" equal perfdata's `POOL_cap`, and no line carries an
internal word (UNSEEN: zdash's name for a state its input did not show)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from zdash import scenarios
from zdash.cli import main
from zdash.commands.check import exit_code, perf_of, report, run_check_text, text_report
from zdash.config import CheckConfig
from zdash.fold.recording import replay_frames

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
INTERNAL = ("UNSEEN",)


def _check(argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(["check", *argv])
    return out.getvalue()


def _paste(case: Path) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        run_check_text(str(case), False, (), CheckConfig())
    return out.getvalue()


def assert_one_figure_public_words(text: str) -> None:
    first, *rest = text.splitlines()
    summary, _, perf = first.partition(" | ")
    labels = re.finditer(r"(?:^|\s)('(?:[^']|'')*'|[^\s=']+)=([\d.]+)%", perf)
    values = {m[1].strip("'").replace("''", "'"): float(m[2]) for m in labels}
    said = [
        (f"{m[1]}_cap", float(m[2])) for m in re.finditer(r"(?:- |, )(\S+) [^,|]*?, ([\d.]+)% full", summary)
    ]
    # a capacity finding: "tank is 85.0 % full", "mirror-1 is 80.8 % full (pool 76.2 %)"
    for m in re.finditer(r"(?:: |\] )(\S+) is ([\d.]+) % full", "\n".join([summary, *rest])):
        label = next((k for k in values if k in (f"{m[1]}_cap",) or k.endswith(f"_{m[1]}_fill")), None)
        if label is not None:  # a fill from `zfs list` alone (no zpool figure) has no perfdata
            said.append((label, float(m[2])))
    for label, figure in said:
        assert values.get(label) == figure, (label, figure, first)
    for word in INTERNAL:
        assert word not in text, text


def test_raidz2_wide_at_12_s_says_the_figure_its_perfdata_says():
    text = _check(["--replay", "raidz2-wide", "--at", "12"])
    first = text.splitlines()[0]
    said, perf = re.search(r"tank ONLINE, ([\d.]+)% full", first), re.search(r"tank_cap=([\d.]+)%", first)
    assert said and perf and float(said[1]) == float(perf[1]), first
    assert_one_figure_public_words(text)


@pytest.mark.slow
@pytest.mark.parametrize("name", scenarios.names())
def test_every_tick_of_every_scenario(name):
    """What `zdash check --replay NAME --at S` prints at each tick, folded once."""
    cfg = CheckConfig()
    for frame in replay_frames(scenarios.path_of(name), cfg):
        snap, findings = frame.snapshot, frame.findings
        perf = perf_of([snap], cfg)
        doc = report([snap], findings, exit_code([snap], findings, ()), "replay", perf)
        assert_one_figure_public_words(text_report(doc, perf))


def test_every_corpus_case():
    cases = sorted(CORPUS.glob("[0-9][0-9][0-9]-*.txt"))
    assert len(cases) > 250
    for case in cases:
        text = _paste(case)
        try:
            assert_one_figure_public_words(text)
        except AssertionError as e:
            raise AssertionError(f"{case.name}: {e}") from None
