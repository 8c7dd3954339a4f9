"""Issue 28: `zdash record` and `zdash convert` fold with the user's config, as every other
command does. A `.zdash` file's keyframes hold the checks' memory; written with default
thresholds (as both commands once did), a seek into the file restored what the defaults had
counted, and `check --replay FILE --at S` raised findings the user's thresholds never would.
Keyframes are now tagged with the config that wrote them (zdash.fold.fold_key): a reader whose
config differs folds from the start instead, with its own thresholds."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from zdash import scenarios
from zdash.cli import main
from zdash.config import CheckConfig
from zdash.fold import Fold, fold_key
from zdash.fold.recording import fold_to
from zdash.sources.recording import open_recording
from zdash.sources.session import read_session

SCENARIO = "deranged-mirror"  # sdb slow beside its mirror peer: deranged_disk WARNING by default
# The user's thresholds: a leaf is slow only at 100x its peers' %util or latency (never here).
TOLERANT = CheckConfig(deranged_util_ratio=100.0, deranged_latency_ratio=100.0)
CONFIG = "checks:\n  deranged_util_ratio: 100\n  deranged_latency_ratio: 100\n"


@pytest.fixture(autouse=True)
def _keyframes_every_7(monkeypatch, tmp_path):
    monkeypatch.setattr("zdash.sources.store.KEYFRAME_EVERY", 7)
    monkeypatch.setattr("zdash.sources.store.SEEK_BUDGET_S", 10.0)  # the cap decides, not the clock
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))  # defaults unless --config


def _seeks(path: str, cfg: CheckConfig) -> bool:
    """Whether a fold with `cfg` seeks into the file from a keyframe (not from its beginning)."""
    rec = open_recording(path)
    try:
        kf = rec.keyframe(rec.count() - 1, fold_key(cfg))
        return kf is not None and kf[0] > 0
    finally:
        rec.close()


def _deranged(path: str, cfg: CheckConfig) -> list[str]:
    """The deranged_disk findings at the file's last tick, as a seek with `cfg` folds them."""
    rec = open_recording(path)
    try:
        return [f.subject for f in fold_to(rec, rec.count() - 1, cfg).findings if f.check == "deranged_disk"]
    finally:
        rec.close()


def _from_the_start(cfg: CheckConfig) -> list[str]:
    header, ticks = read_session(scenarios.path_of(SCENARIO))
    frame = Fold.from_header(header, cfg).last(ticks)
    assert frame is not None
    return [f.subject for f in frame.findings if f.check == "deranged_disk"]


def test_convert_writes_keyframes_with_the_thresholds_of_the_config(tmp_path):
    cfg_file = tmp_path / "zdash.yaml"
    cfg_file.write_text(CONFIG)
    mine, default = str(tmp_path / "mine.zdash"), str(tmp_path / "default.zdash")
    assert main(["convert", SCENARIO, "-o", mine, "--config", str(cfg_file)]) == 0
    assert main(["convert", SCENARIO, "-o", default]) == 0
    assert _from_the_start(CheckConfig()) and not _from_the_start(TOLERANT)  # the threshold matters
    # Seeked with the user's thresholds, the file converted with them says what a fold from the
    # start says, from its keyframes.
    assert _seeks(mine, TOLERANT) and _deranged(mine, TOLERANT) == _from_the_start(TOLERANT) == []
    # The one converted with the defaults holds the defaults' memory: a reader with the user's
    # thresholds does not restore it (before the tag it did, and said sdb was slow) but folds
    # from the start; a reader with the defaults seeks from it.
    assert not _seeks(default, TOLERANT) and _deranged(default, TOLERANT) == []
    assert _seeks(default, CheckConfig()) and _deranged(default, CheckConfig()) == _from_the_start(
        CheckConfig()
    )


def test_check_replay_of_a_file_written_with_other_thresholds_judges_with_the_readers(tmp_path, capsys):
    cfg_file = tmp_path / "zdash.yaml"
    cfg_file.write_text(CONFIG)
    default = str(tmp_path / "default.zdash")
    assert main(["convert", SCENARIO, "-o", default]) == 0
    capsys.readouterr()
    assert main(["check", "--replay", default]) == 1  # the defaults: a slow disk, WARNING
    assert "is dragging" in capsys.readouterr().out
    assert main(["check", "--replay", default, "--config", str(cfg_file)]) == 0


class _Recorded:
    """A live source that replays the scenario's ticks (zdash record reads no zpool here)."""

    def __init__(self, *_args, **_kw) -> None:
        self.header, self._ticks = read_session(scenarios.path_of(SCENARIO))
        self.host = self.header.host

    async def ticks(self) -> AsyncIterator:
        for tick in self._ticks:
            yield tick


def test_record_writes_keyframes_with_the_thresholds_of_the_config(tmp_path, monkeypatch):
    monkeypatch.setattr("zdash.commands.record.LiveSource", _Recorded)
    cfg_file = tmp_path / "zdash.yaml"
    cfg_file.write_text(CONFIG)
    mine, default = str(tmp_path / "mine.zdash"), str(tmp_path / "default.zdash")
    assert main(["record", "-o", mine, "--config", str(cfg_file)]) == 0
    assert main(["record", "-o", default]) == 0
    assert _seeks(mine, TOLERANT) and _deranged(mine, TOLERANT) == []
    assert not _seeks(default, TOLERANT) and _deranged(default, TOLERANT) == []
