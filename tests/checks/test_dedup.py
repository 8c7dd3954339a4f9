"""dedup: a DEDUP ratio above 1.00x is a note on what the dedup table costs, and says when the
ratio buys little; datasets with dedup on are named in that one finding."""

from __future__ import annotations

import dataclasses

import pytest

from tests.checks.builders import T0, evidence, fs, leaf, one, pool, snap, space
from zdash.checks import dedup
from zdash.checks.finding import Severity
from zdash.config import CheckConfig
from zdash.fold import run_checks

TiB = 1 << 40


def tank(ratio, alloc=2 * TiB):
    p = pool("tank", leaf("sda", **space(8 * TiB, 25.0)))
    return dataclasses.replace(p, dedup_ratio=ratio, alloc=alloc)


def check_now(p, cfg=None, **kw):
    return dedup.check([snap(T0, p, **kw)], cfg or CheckConfig())


@pytest.mark.parametrize("ratio", [None, 1.0])
def test_no_dedup_no_note(ratio):
    assert check_now(tank(ratio)) == []


def test_a_ratio_above_one_is_a_note_on_the_table_and_its_ram():
    f = one(check_now(tank(1.86)), subject="tank")
    assert f.severity == Severity.INFO
    assert f.title == "tank: dedup in use (1.86x): its table must stay in RAM"
    assert "320 bytes per unique block" in f.why and "OpenZFS 2.3 fast dedup" in f.why
    assert "zpool status -D tank" in f.why
    # 2 TiB at 128 KiB per block is 16 Mi blocks, x 320 B = 5 GiB
    assert evidence(f)["Legacy DDT in RAM, at most (128 KiB blocks)"] == "5.0 GiB"
    assert f.actions[0].argv == ("zpool", "status", "-D", "tank")
    assert f.actions[1].argv == ("zfs", "get", "-r", "-t", "filesystem,volume", "dedup", "tank")


@pytest.mark.parametrize("ratio, low", [(1.01, True), (1.19, True), (1.2, False), (3.0, False)])
def test_below_1_2x_the_note_says_the_cost_buys_little(ratio, low):
    f = one(check_now(tank(ratio)), subject="tank")
    assert f.severity == Severity.INFO  # the paste cannot show whether the table fits in RAM
    assert ("saves little" in f.title) is low
    assert ("the cost buys little" in f.why) is low


def test_the_low_ratio_is_configurable():
    f = one(check_now(tank(1.5), CheckConfig(dedup_low_ratio=2.0)), subject="tank")
    assert "saves little (1.50x)" in f.title


def test_datasets_with_dedup_on_are_named_in_the_one_finding():
    ds = (fs("tank"), fs("tank/vm", kind="volume", dedup="on"), fs("tank/vm/a", dedup="on"))
    findings = run_checks([snap(T0, tank(2.5), datasets=ds)])
    about_dedup = [f for f in findings if f.check == "dedup" or f.topic == "dedup"]
    assert len(about_dedup) == 1
    f = about_dedup[0]
    assert evidence(f)["Datasets with dedup on"] == "tank/vm, tank/vm/a"
    assert f.actions[1].argv == ("zfs", "set", "dedup=off", "tank/vm")


def test_topology_keeps_the_dataset_note_while_nothing_is_deduplicated_yet():
    ds = (fs("tank"), fs("tank/vm", kind="volume", dedup="on"))
    findings = run_checks([snap(T0, tank(1.0), datasets=ds)])
    assert [f.check for f in findings if f.topic == "dedup" or f.check == "dedup"] == ["topology"]


def test_topology_keeps_it_when_the_dedup_check_is_disabled():
    ds = (fs("tank"), fs("tank/vm", kind="volume", dedup="on"))
    cfg = CheckConfig(disabled=("dedup",))
    findings = run_checks([snap(T0, tank(2.5), datasets=ds)], cfg)
    assert [f.check for f in findings if f.topic == "dedup" or f.check == "dedup"] == ["topology"]


def test_unknown_allocation_gives_no_estimate():
    f = one(check_now(tank(2.0, alloc=None)), subject="tank")
    assert "Legacy DDT in RAM, at most (128 KiB blocks)" not in evidence(f)


def test_live_zpool_list_carries_the_ratio_to_the_note():
    """The live collector runs `zpool list -v -H -p`, whose DEDUP prints `1.86` (no x)."""
    from tests.capture_ticks import capture_tick
    from zdash.fold import look
    from zdash.raw import RawSample, Tick

    tick = capture_tick("healthy")
    samples = tuple(
        dataclasses.replace(s, stdout=s.stdout.replace("\t1.00\tONLINE", "\t1.86\tONLINE", 1))
        if s.key == "list"
        else s
        for s in tick.samples
    )
    assert any("\t1.86\t" in s.stdout for s in samples if isinstance(s, RawSample))
    snapshot = look(Tick(tick.time, samples))
    f = one(run_checks([snapshot]), check="dedup")
    assert f.title == "healthy: dedup in use (1.86x): its table must stay in RAM"
