"""Keyframes: the fold's state (snapshot builder and check engine) saved as plain JSON and
restored continues exactly as if it had never stopped, on every bundled recording."""

from __future__ import annotations

import json

import pytest

from zdash import scenarios
from zdash.checks import state_codec
from zdash.config import CheckConfig
from zdash.fold import Fold, fold_key
from zdash.fold.fold import FOLD_VERSION
from zdash.sources.session import read_session


def _ticks(name: str):
    header, ticks = read_session(scenarios.path_of(name))
    return header, list(ticks)


@pytest.mark.slow
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
        assert version == fold_key(None)
        restored = Fold.restore(builder, checks, None)
        for i in range(cut, len(ticks)):
            frame = restored.step(ticks[i])
            assert frame.snapshot == straight[i][0], (name, cut, i)
            assert frame.findings == straight[i][1], (name, cut, i)


def test_a_keyframe_is_of_one_fold_version_and_one_config():
    # The key a keyframe is stored under (and looked up by): another FOLD_VERSION, or any
    # threshold changed, is another key, so its keyframes are never restored.
    key = fold_key(None)
    assert key == fold_key(CheckConfig()) and key >> 48 == FOLD_VERSION
    assert fold_key(CheckConfig(deranged_util_ratio=3.5)) != key
    assert fold_key(CheckConfig(disabled=("dedup",))) != key
    assert 0 < key < 2**63  # an SQLite INTEGER


def test_the_codec_rebuilds_only_zdash_records():
    with pytest.raises(state_codec.StateError, match="unknown record"):
        state_codec.decode({"c": "os.system", "f": {"command": "true"}})
    with pytest.raises(state_codec.StateError):
        state_codec.loads("[" * 100000)
