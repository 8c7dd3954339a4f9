"""Reading an exposition back the way a scraper does: prometheus_client's own text parser."""

from __future__ import annotations

import functools
import shutil
import subprocess

from prometheus_client.parser import text_string_to_metric_families

from zdash.fold.recording import load_replay, replay_frames
from zdash.prometheus.exporter import exposition
from zdash.scenarios import path_of


def parse(text: str) -> dict[str, list]:
    """Sample name -> samples (a counter's samples carry `_total`)."""
    out: dict[str, list] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out.setdefault(s.name, []).append(s)
    return out


def value(samples: dict[str, list], name: str, **labels: str) -> float:
    """The one sample of `name` whose labels include `labels`."""
    found = [s for s in samples.get(name, ()) if all(s.labels.get(k) == v for k, v in labels.items())]
    assert len(found) == 1, f"{name}{labels}: {len(found)} samples: {found}"
    return found[0].value


@functools.cache
def snapshots(scenario: str):
    return load_replay(path_of(scenario))[1]


def at(scenario: str, pick=None):
    """(snapshot, findings) of a bundled recording at its last snapshot, or at the first one for
    which `pick(snapshot)` holds, with every earlier snapshot folded as live would have."""
    for frame in replay_frames(path_of(scenario)):
        if pick is not None and pick(frame.snapshot):
            return frame.snapshot, frame.findings
    assert pick is None, f"{scenario}: no snapshot matches"
    return frame.snapshot, frame.findings


def text_of(scenario: str, pick=None) -> str:
    return exposition(*at(scenario, pick)).decode()


def promtool_problems(text: str) -> str | None:
    """`promtool check metrics` on the text: None when it accepts it, else what it says."""
    promtool = shutil.which("promtool")
    assert promtool is not None
    p = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True, timeout=60)
    return None if p.returncode == 0 else (p.stdout + p.stderr).strip()
