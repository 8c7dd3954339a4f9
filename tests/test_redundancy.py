"""The redundancy model: what each top-level vdev can still survive, one place for checks,
texts and plans."""

from __future__ import annotations

import pytest

from tests.checks.builders import leaf, mirror, pool, raidz
from zdash.model import Vdev
from zdash.redundancy import MarginMemo, margin, margins, parity


@pytest.mark.parametrize(
    "top, design",
    [
        (mirror(0, leaf("a"), leaf("b")), 1),
        (mirror(0, leaf("a"), leaf("b"), leaf("c")), 2),
        (raidz(0, leaf("a"), leaf("b"), leaf("c"), parity=1), 1),
        (raidz(0, *(leaf(x) for x in "abcdef"), parity=3), 3),
        (leaf("a"), 0),
        (Vdev("draid2:4d:12c:1s-0", "draid", "ONLINE", children=tuple(leaf(x) for x in "abcdef")), 2),
    ],
)
def test_design_parity(top, design):
    m = margin(top)
    assert parity(top) == design and (m.design, m.left, m.reduced) == (design, design, False)


def test_offline_faulted_degraded_and_rebuilding_members_are_not_copies():
    m = margin(mirror(0, leaf("a"), leaf("b", state="OFFLINE"), leaf("c", aux="(resilvering)")))
    assert m.left == 0 and m.exhausted and [v.name for v in m.whole] == ["a"]
    assert [v.name for v in m.lost] == ["b"] and [v.name for v in m.rebuilding] == ["c"]
    degraded = margin(mirror(0, leaf("a"), leaf("b", state="DEGRADED")))
    assert degraded.exhausted and [v.name for v in degraded.degraded] == ["b"]


def test_a_replacing_or_spare_pair_is_one_column_whole_when_either_side_is():
    rep = Vdev("replacing-1", "replacing", "DEGRADED", children=(leaf("old", state="UNAVAIL"), leaf("new")))
    assert margin(raidz(0, leaf("a"), leaf("b"), rep, parity=1)).left == 1
    rebuilding = Vdev(
        "replacing-1",
        "replacing",
        "DEGRADED",
        children=(leaf("old", state="UNAVAIL"), leaf("new", aux="(resilvering)")),
    )
    assert margin(raidz(0, leaf("a"), leaf("b"), rebuilding, parity=1)).left == 0


def test_what_offlining_a_leaf_would_leave():
    two, three = mirror(0, leaf("a"), leaf("b")), mirror(0, leaf("a"), leaf("b"), leaf("c"))
    assert margin(two, without=two.children[0]).left == 0
    assert margin(three, without=three.children[0]).left == 1
    z1 = raidz(0, leaf("a"), leaf("b"), leaf("c"), parity=1)
    assert margin(z1, without=z1.children[0]).left == 0
    lost = margin(mirror(0, leaf("a"), leaf("b", state="FAULTED")), without=None)
    assert lost.left == 0 and margin(lost.top, without=lost.top.children[0]).left == -1


def test_margins_skip_cache_and_spares():
    p = pool("t", mirror(0, leaf("a"), leaf("b")), leaf("c", vclass="cache"), leaf("d", vclass="spare"))
    assert [m.top.name for m in margins(p)] == ["mirror-0"]


def test_the_new_side_of_a_replace_is_no_copy_while_the_resilver_runs():
    """zpool marks it "(resilvering)" only once the resilver has written to it: at the very start
    of a resilver the new disk looks like any ONLINE disk."""
    rep = Vdev("replacing-1", "replacing", "DEGRADED", children=(leaf("old", state="OFFLINE"), leaf("new")))
    top = mirror(1, leaf("a"), rep)
    running = margin(top, resilvering=True)
    assert running.exhausted and [v.name for v in running.rebuilding] == ["new"] and not running.lost[1:]
    assert margin(top, resilvering=False).left == 1  # finished: the new disk is a copy


def test_a_margin_is_kept_only_for_the_same_vdev_with_the_same_resilver_state():
    """The health check keeps each vdev's margin while the fold hands it the same object (a
    status that moved only its scan): what working it out again would say, and nothing older."""
    rep = Vdev("replacing-1", "replacing", "DEGRADED", children=(leaf("old", state="OFFLINE"), leaf("new")))
    top = mirror(1, leaf("a"), rep)
    known = MarginMemo()
    running = known.margin(top, True)
    assert running.exhausted
    known.next_pass()
    assert known.margin(top, True) is running  # the same vdev, the resilver still running
    assert known.margin(top, False).left == 1  # it ended: the new disk is a copy now
    done = mirror(1, leaf("a"), leaf("new"))  # the replace finished: another tree
    assert (
        known.margin(done, False) == margin(done, resilvering=False) and known.margin(done, False).top is done
    )
    p = pool("t", top, mirror(2, leaf("c"), leaf("d", state="FAULTED")))
    assert margins(p, known=known) == margins(p)
    known.next_pass()
    known.next_pass()  # a pass that did not ask for it: forgotten
    assert known.margin(top, True) is not running and known.margin(top, True) == running


def _draid(state: str, *members: Vdev) -> Vdev:
    return Vdev("draid3:8d:24c:2s-0", "draid", state, children=members)


def test_a_draid_rebuilding_its_distributed_spare_keeps_its_members():
    """zpool marks every dRAID member "(resilvering)" while the distributed spare is rebuilt
    (openzfs/zfs#12877, corpus 115/116): each still holds its own columns, so a serving draid3
    is not "lost"; a member missing behind ZFS's DEGRADED still counts."""
    busy = [leaf(x, aux="(resilvering)") for x in "abcdefgh"]
    assert margin(_draid("ONLINE", *busy)).left == 3
    m = margin(_draid("DEGRADED", *busy))
    assert (m.design, m.left) == (3, 2) and len(m.rebuilding) == 8
    # Outside a dRAID the mark keeps its meaning: a raidz member being resilvered is no copy.
    assert margin(raidz(0, leaf("a"), leaf("b", aux="(resilvering)"), leaf("c"), parity=1)).left == 0


def test_a_degraded_mirror_with_its_missing_side_unlisted_has_no_redundancy_left_not_lost():
    """`zpool list -v` of a DEGRADED log mirror showing one ONLINE side (corpus 104): the other
    side is missing, the mirror still serves: no redundancy left, never "lost"."""
    m = margin(Vdev("mirror-1", "mirror", "DEGRADED", children=(leaf("sdb1"),), vclass="log"))
    assert (m.design, m.left, m.exhausted, m.lost_vdev) == (1, 0, True, False)
    both = margin(Vdev("mirror-0", "mirror", "DEGRADED", children=(leaf("a"), leaf("b"))))
    assert (both.design, both.left) == (2, 1)  # a third side, not shown, is missing


def test_without_a_scan_line_a_replace_whose_old_side_is_gone_is_still_being_rebuilt():
    """A paste with no scan line (FreeNAS 8, corpus 120): a replacing vdev lasts only until its
    resilver ends, so with the old side UNAVAIL the new one is not yet a copy. A spare-N stays
    after its resilver: its spare counts."""
    rep = Vdev(
        "replacing",
        "replacing",
        "DEGRADED",
        children=(leaf("old", state="UNAVAIL"), leaf("ada3", aux="72.0G resilvered")),
    )
    z2 = raidz(0, leaf("a"), leaf("b"), leaf("c"), rep, parity=2)
    assert margin(z2, resilvering=None).left == 1  # unknown: read as still running
    assert margin(z2, resilvering=False).left == 2  # a scan line says it is done
    sp = Vdev("spare-1", "spare", "DEGRADED", children=(leaf("sdb", state="FAULTED"), leaf("sdz")))
    assert margin(mirror(0, leaf("sda"), sp), resilvering=None).left == 1
    p = pool("tobu", z2)
    assert [m.left for m in margins(p)] == [1]  # no scans in the pool: unknown


def test_the_lab_s_draid_mid_rebuild_keeps_one_more_failure():
    """tests/captures/draid-rebuild: zpool 2.3.2's own status of a draid2 rebuilding onto its
    distributed spare, every member marked "(resilvering)"."""
    from pathlib import Path

    from zdash.parse.zpool_status.text import parse_status_text

    text = (Path(__file__).parent / "captures" / "draid-rebuild" / "zpool-status.rebuilding.txt").read_text()
    (p,) = parse_status_text(text)
    (m,) = margins(p)
    assert text.count("(resilvering)") == 7
    assert (m.top.name, m.design, m.left) == ("draid2:4d:7c:1s-0", 2, 1)
