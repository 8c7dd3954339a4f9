"""zpool_list.parse_list on the OpenZFS 2.3.2 captures and on older layouts from the reference."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from zdash.parse import ParseError
from zdash.parse.zpool_list import ListPool, parse_list

CAPTURES = Path(__file__).resolve().parents[1] / "captures"
SCRIPTED = sorted(CAPTURES.glob("*/zpool-list-v-H-p*.txt"))
HUMAN = sorted(CAPTURES.glob("*/zpool-list-v.txt")) + sorted(CAPTURES.glob("*/zpool-list-v.*.txt"))


def _id(p: Path) -> str:
    return f"{p.parent.name}/{p.name}"


def _pool(rel: str) -> ListPool:
    (pool,) = parse_list((CAPTURES / rel).read_text()).values()
    return pool


@pytest.mark.parametrize("path", SCRIPTED, ids=_id)
def test_scripted_top_level_rows_add_up_to_the_pool(path):
    """Only top-level rows carry alloc/free (leaves print '-'), and those of the allocating
    classes (normal, special, dedup) sum to the pool's: a log's and a cache's space is not the
    pool's (json-shapes: two mirrors and a special mirror; its log and cache rows are apart)."""
    pools = parse_list(path.read_text())
    assert pools
    for pool in pools.values():
        tops = [v for v in pool.vdevs if v.alloc is not None and v.vclass in ("normal", "special", "dedup")]
        assert tops
        if all(v.vclass == "normal" for v in tops):
            assert pool.alloc == sum(v.alloc for v in tops)
            assert pool.free == sum(v.free for v in tops)
        else:  # a special vdev's figure need not be in step with the pool's (108 KiB apart here)
            assert abs(pool.alloc - sum(v.alloc for v in tops)) <= 0.005 * pool.size
        assert all(v.cap_pct is not None and v.frag_pct is not None for v in tops)


@pytest.mark.parametrize("path", HUMAN, ids=_id)
def test_human_layout_matches_the_scripted_capture(path):
    """Same scenario, human layout: same pools and vdev rows; sizes within nicenum rounding."""
    scripted_path = path.with_name(path.name.replace("zpool-list-v", "zpool-list-v-H-p", 1))
    human, exact = parse_list(path.read_text()), parse_list(scripted_path.read_text())
    assert human.keys() == exact.keys()
    for name, pool in human.items():
        assert [v.name for v in pool.vdevs] == [v.name for v in exact[name].vdevs]
        assert pool.size == pytest.approx(exact[name].size, rel=0.006)
        for h, e in zip(pool.vdevs, exact[name].vdevs):
            assert (h.cap_pct is None) == (e.cap_pct is None)
            if h.cap_pct is not None:  # captured a moment apart: allow a point of drift
                assert abs(h.cap_pct - e.cap_pct) <= 1.0


def test_deranged_disk_by_hand():
    pool = _pool("deranged-disk/zpool-list-v-H-p.after-load.txt")
    assert (pool.name, pool.size, pool.alloc, pool.free) == ("deranged", 1006632960, 316392448, 690240512)
    assert (pool.frag_pct, pool.cap_pct, pool.dedup_ratio, pool.health) == (16, 31, 1.0, "ONLINE")
    assert pool.checkpoint is None and pool.expandsize is None  # '-' survives -p
    m0 = pool.vdevs[0]
    assert (m0.name, m0.alloc, m0.free, m0.frag_pct, m0.cap_pct) == (
        "mirror-0",
        233031168,
        270285312,
        25,
        46.0,
    )
    slow = pool.vdevs[-1]
    assert (slow.name, slow.size, slow.alloc, slow.cap_pct, slow.health) == (
        "slowdisk",
        536870912,
        None,
        None,
        "ONLINE",
    )


def test_human_vdev_cap_keeps_its_decimal():
    """Without -p the vdev CAP is permyriad-formatted (46.3%) while the pool's is an integer."""
    pool = _pool("deranged-disk/zpool-list-v.after-load.txt")
    assert pool.cap_pct == 31
    assert [v.cap_pct for v in pool.vdevs if v.cap_pct is not None] == [46.3, 16.6]
    assert pool.vdevs[0].alloc == 222 * 2**20  # "222M"


def test_imbalance_fills():
    sizes = _pool("imbalance-size/zpool-list-v-H-p.txt")
    big, small = sizes.vdevs
    assert (big.cap_pct, small.cap_pct) == (21, 38)
    # A single-disk top-level vdev prints its physical size; alloc+free is the usable space.
    assert big.size == 2147483648 and big.space == 2013265920
    assert 100 * small.alloc / small.space == pytest.approx(38.49, abs=0.01)
    added = _pool("imbalance-added-vdev/zpool-list-v-H-p.txt")
    assert [(v.name, v.cap_pct) for v in added.vdevs if v.cap_pct is not None] == [
        ("mirror-0", 64),
        ("mirror-1", 9),
    ]
    before = _pool("imbalance-added-vdev/zpool-list-v-H-p.before-add.txt")
    assert [v.cap_pct for v in before.vdevs if v.cap_pct is not None] == [60]


def test_resilvering_interior_vdev_has_no_space():
    pool = _pool("degraded/zpool-list-v-H-p.resilvering.txt")
    by_name = {v.name: v for v in pool.vdevs}
    assert pool.health == "DEGRADED"
    assert by_name["replacing-1"].size is None and by_name["replacing-1"].health == "DEGRADED"
    assert by_name["/tmp/zl/degraded/d2"].health == "OFFLINE"


def test_mixed_raidz_mirror_single_disk():
    pool = _pool("raidz-wide/zpool-list-v-H-p.mixed.txt")
    tops = [(v.name, v.alloc) for v in pool.vdevs if v.alloc is not None]
    assert tops == [("raidz1-0", 181085184), ("mirror-1", 43600384), ("/tmp/zl/raidz-wide/m7", 45689856)]


def test_altroot_column_on_vdev_rows_2_4_1():
    """2.4.1+ honours -o on vdev rows, adding altroot ('-'): reference §1.2, commit c4ad5e2938."""
    text = (CAPTURES / "deranged-disk/zpool-list-v-H-p.after-load.txt").read_text()
    with_altroot = re.sub(r"^(\t.*)$", r"\1\t-", text, flags=re.M)
    assert with_altroot != text
    assert parse_list(with_altroot) == parse_list(text)


# Reference §1.3, OpenZFS 2.1.2 without -p, https://github.com/openzfs/zfs/issues/13123
ISSUE_13123 = """\
NAME                                    SIZE  ALLOC   FREE  CKPOINT  EXPANDSZ   FRAG    CAP  DEDUP    HEALTH  ALTROOT
filling                                25.5T  6.52T  18.9T        -       64M     1%    25%  1.00x    ONLINE  -
  mirror-0                             3.64T   445G  3.20T        -       64M     9%  11.9%      -    ONLINE
    ata-HGST_HUS726T4TALE6L4_V6K2L4RR      -      -      -        -       64M      -      -      -    ONLINE
"""


def test_2_1_2_human_list():
    pool = parse_list(ISSUE_13123)["filling"]
    assert pool.size == round(25.5 * 2**40) and pool.expandsize == 64 * 2**20
    assert (pool.frag_pct, pool.cap_pct, pool.dedup_ratio) == (1, 25, 1.0)
    mirror, leaf = pool.vdevs
    assert (mirror.alloc, mirror.cap_pct) == (445 * 2**30, 11.9)
    assert leaf.size is None  # leaf SIZE is '-' before 2.1.6


# Reference §1.3, 2.2.x `zpool list -v -p -L`, https://github.com/netdata/netdata/issues/18359.
# The reference truncates the GUID row ("…"); its last columns here are filled in by hand.
NETDATA_18359 = """\
NAME                                     SIZE          ALLOC           FREE  CKPOINT  EXPANDSZ   FRAG    CAP  DEDUP    HEALTH  ALTROOT
store                           9981503995904  3046188658688  6935315337216        -         -      9     30   1.00  DEGRADED  -
  mirror-0                      9981503995904  3046188658688  6935315337216        -         -      9     30      -    ONLINE
    sdc2                        9998683602944      -      -        -         -      -      -      -    ONLINE
    sdd2                        9998683602944      -      -        -         -      -      -      -    ONLINE
logs                                -      -      -        -         -      -      -      -         -
  mirror-1                      17716740096  393216  17716346880        -         -      0      0      -  DEGRADED
    sdb1                        17951621120      -      -        -         -      -      -      -    ONLINE
    14807975228228307538            -      -      -        -         -      -      -      -   UNAVAIL
"""


def test_2_2_list_with_logs_header_and_guid_leaf():
    pool = parse_list(NETDATA_18359)["store"]
    assert (pool.alloc, pool.health, pool.dedup_ratio) == (3046188658688, "DEGRADED", 1.0)
    assert [(v.name, v.vclass) for v in pool.vdevs] == [
        ("mirror-0", "normal"),
        ("sdc2", "normal"),
        ("sdd2", "normal"),
        ("mirror-1", "log"),
        ("sdb1", "log"),
        ("14807975228228307538", "log"),
    ]
    assert pool.vdevs[1].size == 9998683602944 > pool.vdevs[0].size  # leaf physical > top-level
    assert pool.vdevs[3].alloc == 393216 and pool.vdevs[-1].health == "UNAVAIL"


# Real OpenZFS 2.3.2 (zfslab, file vdevs), `zpool list -v -H -p` of two pools, made with
# `zpool create ic mirror a b special sp log log cache cache spare spare` and `zpool create ic2 c`.
# Shown as `cat -A` prints it (^I = TAB): class headers are space-padded even under -H (§1.3).
CLASSES_H = """\
ic^I503316480^I4351488^I498964992^I-^I-^I1^I0^I1.00^IONLINE^I-
^Imirror-0^I251658240^I4194304^I247463936^I-^I-^I1^I1^I-^IONLINE
^I/tmp/ic/a^I268435456^I-^I-^I-^I-^I-^I-^I-^IONLINE
^I/tmp/ic/b^I268435456^I-^I-^I-^I-^I-^I-^I-^IONLINE
special              -      -      -        -         -      -      -      -         -
^I/tmp/ic/sp^I268435456^I157184^I251501056^I-^I-^I4^I0^I-^IONLINE
logs                 -      -      -        -         -      -      -      -         -
^I/tmp/ic/log^I268435456^I0^I251658240^I-^I-^I0^I0^I-^IONLINE
cache                -      -      -        -         -      -      -      -         -
^I/tmp/ic/cache^I268435456^I3422720^I260293632^I-^I-^I0^I1^I-^IONLINE
spare                -      -      -        -         -      -      -      -         -
^I/tmp/ic/spare^I268435456^I-^I-^I-^I-^I-^I-^I-^IAVAIL
ic2^I251658240^I110592^I251547648^I-^I-^I4^I0^I1.00^IONLINE^I-
^I/tmp/ic/c^I268435456^I110592^I251547648^I-^I-^I4^I0^I-^IONLINE
""".replace("^I", "\t")


def test_class_headers_and_several_pools():
    pools = parse_list(CLASSES_H)
    assert list(pools) == ["ic", "ic2"]
    ic = pools["ic"]
    assert [(v.name, v.vclass) for v in ic.vdevs] == [
        ("mirror-0", "normal"),
        ("/tmp/ic/a", "normal"),
        ("/tmp/ic/b", "normal"),
        ("/tmp/ic/sp", "special"),
        ("/tmp/ic/log", "log"),
        ("/tmp/ic/cache", "cache"),
        ("/tmp/ic/spare", "spare"),
    ]
    assert ic.vdevs[-1].health == "AVAIL"
    # The pool's space is its data classes (normal + special); log and cache rows have their
    # own alloc/free (the L2ARC fill) but are not part of it.
    data = [v for v in ic.vdevs if v.alloc is not None and v.vclass in ("normal", "special", "dedup")]
    assert sum(v.alloc for v in data) == ic.alloc and sum(v.free for v in data) == ic.free
    assert (ic.vdevs[5].alloc, ic.vdevs[5].cap_pct) == (3422720, 1.0)
    assert [v.vclass for v in pools["ic2"].vdevs] == ["normal"]  # reset at the next pool


def test_rows_that_read_as_before_are_the_same_vdevs_again():
    """A pool being written to moves its own and its top-level vdevs' space each answer, not its
    disks' rows: those are the ListVdevs built last time (the fold keeps its work on them). The
    same line under another class heading is another vdev."""
    from zdash.parse.reuse import Reuse

    reuse: Reuse = Reuse()
    first = reuse.run(lambda r: parse_list(CLASSES_H, r))
    moved = CLASSES_H.replace(
        "mirror-0\t251658240\t4194304\t247463936", "mirror-0\t251658240\t4198400\t247459840"
    )
    moved = moved.replace(
        "/tmp/ic/spare\t268435456\t-\t-\t-\t-\t-\t-\t-\tAVAIL",
        "/tmp/ic/spare\t268435456\t-\t-\t-\t-\t-\t-\t-\tINUSE",
    )
    second = reuse.run(lambda r: parse_list(moved, r))
    assert second == parse_list(moved) and second != first
    before, after = first["ic"].vdevs, second["ic"].vdevs
    assert [a is b for a, b in zip(before, after)] == [False, True, True, True, True, True, False]
    assert after[0].alloc == 4198400 and after[-1].health == "INUSE"
    # the log's line as a cache device: the same text, another class
    swapped = CLASSES_H.replace("logs     ", "cache    ", 1)
    third = reuse.run(lambda r: parse_list(swapped, r))
    assert third == parse_list(swapped) and third["ic"].vdevs[4].vclass == "cache"


def test_faulted_pool_row_from_the_man_page():
    """man/man8/zpool-list.8: a faulted pool shows '-' in every numeric column (§1.1)."""
    pool = parse_list(
        "NAME SIZE ALLOC FREE CKPOINT EXPANDSZ FRAG CAP DEDUP HEALTH ALTROOT\n"
        "zion       -      -      -         -      -      -      -      -  FAULTED -\n"
    )["zion"]
    assert (pool.size, pool.alloc, pool.cap_pct, pool.dedup_ratio, pool.health) == (
        None,
        None,
        None,
        None,
        "FAULTED",
    )


def test_no_pools_is_empty():
    assert parse_list("") == {}  # `zpool list -H` prints nothing (§0)


@pytest.mark.parametrize(
    "text",
    [
        "\tmirror-0\t1\t1\t1\t-\t-\t0\t0\t-\tONLINE\n",  # vdev before any pool
        "tank\t1\t1\t1\t-\t-\t0\t0\t1.00\tONLINE\t-\textra\tcolumns\n",  # unknown layout
        "tank\t1.5X\t1\t1\t-\t-\t0\t0\t1.00\tONLINE\t-\n",  # not a number
        "tank\t1\t1\t1\t-\t-\t0\t0\t1.00\tONLINE\t-\ncannot open 'x': no such pool\n",
    ],
)
def test_garbage_is_a_parse_error(text):
    with pytest.raises(ParseError):
        parse_list(text)
