"""Keyframes: the fold's state (snapshot builder and check engine) saved as plain JSON and
restored continues exactly as if it had never stopped, on every bundled recording."""

from __future__ import annotations

import json

import pytest

from zdash import scenarios
from zdash.checks import state_codec
from zdash.checks.registry import CheckEngine
from zdash.fold import FOLD_VERSION, Fold
from zdash.sources.session import read_session


def _ticks(name: str):
    header, ticks = read_session(scenarios.path_of(name))
    return header, list(ticks)


@pytest.mark.parametrize(
    "name", ["degraded-resilver", "deranged-mirror", "scrub-repair", "imbalance-added-vdev"]
)
def test_a_fold_restored_from_a_keyframe_continues_exactly(name):
    header, ticks = _ticks(name)
    straight = [(f.snapshot, f.findings) for f in Fold.from_header(header, None).frames(ticks)]
    for cut in range(1, len(ticks) - 1, max(1, len(ticks) // 7)):
        fold = Fold.from_header(header, None)
        for t in ticks[:cut]:
            fold.step(t)
        version, builder, checks = json.loads(json.dumps(fold.checkpoint()))
        assert version == FOLD_VERSION
        restored = Fold.restore(builder, checks, None)
        for i in range(cut, len(ticks)):
            frame = restored.step(ticks[i])
            assert frame.snapshot == straight[i][0], (name, cut, i)
            assert frame.findings == straight[i][1], (name, cut, i)


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


def test_a_keyframe_written_before_health_was_split_still_restores():
    # Recordings of this fold version hold health's memory under its record names of the time
    # (zdash.checks.health._Leaf, _Pool): the records moved to health.memory, the names stay.
    from zdash.checks.health.memory import Leaf, PoolMemory

    old = {
        "c": "zdash.checks.health._Pool",
        "f": {
            "leaves": {
                "d": [["/dev/sdb", {"c": "zdash.checks.health._Leaf", "f": {"last": {"t": [0, 0, 3]}}}]]
            },
            "seen_at": 10.0,
            "joined": {"d": []},
        },
    }
    memory = state_codec.decode(old)
    assert memory == PoolMemory(leaves={"/dev/sdb": Leaf(last=(0, 0, 3))}, seen_at=10.0)
    written = state_codec.encode(memory)  # and a new keyframe is readable by the zdash before
    assert written["c"] == "zdash.checks.health._Pool"
    assert written["f"]["leaves"]["d"][0][1]["c"] == "zdash.checks.health._Leaf"
