"""Keyframes: the fold's state (snapshot builder and check engine) saved as plain JSON and
restored continues exactly as if it had never stopped, on every bundled recording."""

from __future__ import annotations

import json

import pytest

from zdash import scenarios
from zdash.builder import SnapshotBuilder
from zdash.checks import state_codec
from zdash.checks.registry import CheckEngine
from zdash.sources.session import read_session


def _ticks(name: str):
    header, ticks = read_session(scenarios.path_of(name))
    return header, list(ticks)


@pytest.mark.parametrize(
    "name", ["degraded-resilver", "deranged-mirror", "scrub-repair", "imbalance-added-vdev"]
)
def test_a_fold_restored_from_a_keyframe_continues_exactly(name):
    header, ticks = _ticks(name)
    builder, engine = SnapshotBuilder(header.interval or 1.0, header.host), CheckEngine()
    straight = []
    for t in ticks:
        snap = builder.feed(t)
        straight.append((snap, engine.update(snap)))
    for cut in range(1, len(ticks) - 1, max(1, len(ticks) // 7)):
        b, e = SnapshotBuilder(header.interval or 1.0, header.host), CheckEngine()
        for t in ticks[:cut]:
            e.update(b.feed(t))
        saved = json.loads(json.dumps({"builder": b.checkpoint(), "checks": e.checkpoint()}))
        b2, e2 = SnapshotBuilder.restore(saved["builder"]), CheckEngine.restore(saved["checks"])
        for i in range(cut, len(ticks)):
            snap = b2.feed(ticks[i])
            assert snap == straight[i][0], (name, cut, i)
            assert e2.update(snap) == straight[i][1], (name, cut, i)


def test_a_keyframe_from_another_fold_version_is_refused():
    state = CheckEngine().checkpoint()
    state["fold"] = -1
    with pytest.raises(state_codec.StateError):
        CheckEngine.restore(state)


def test_the_codec_rebuilds_only_zdash_records():
    with pytest.raises(state_codec.StateError, match="unknown record"):
        state_codec.decode({"c": "os.system", "f": {"command": "true"}})
    with pytest.raises(state_codec.StateError):
        state_codec.loads("[" * 100000)
