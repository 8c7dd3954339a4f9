"""imbalance: spread thresholds, and the cause named from what the snapshot shows."""

from __future__ import annotations

import pytest

from tests.checks.builders import T0, GiB, MiB, evidence, leaf, mirror, one, pool, snap, space
from zdash.checks import imbalance
from zdash.checks.finding import Severity
from zdash.config import CheckConfig

CFG = CheckConfig()


def two(pct0, pct1, size0=GiB, size1=GiB):
    return pool(
        "tank",
        mirror(0, leaf("a"), leaf("b"), **space(size0, pct0)),
        mirror(1, leaf("c"), leaf("d"), **space(size1, pct1)),
    )


def check_now(p):
    return imbalance.check([snap(T0, p)], CFG)


@pytest.mark.parametrize(
    "spread, expected", [(9.9, None), (10.0, Severity.INFO), (24.9, Severity.INFO), (25.0, Severity.WARNING)]
)
def test_spread_thresholds(spread, expected):
    """Equal vdevs from the start (the fuller one is the *later* one): uneven frees."""
    findings = check_now(two(30.0, 30.0 + spread))
    if expected is None:
        assert findings == []
    else:
        f = one(findings, subject="tank")
        assert f.severity == expected and f"{spread:.1f} points" in f.title


def test_vdev_added_after_data_was_written():
    """imbalance-added-vdev capture: mirror-0 64.0 %, mirror-1 (added later) 9.38 %."""
    p = pool(
        "imbal",
        mirror(
            0,
            leaf("/i/d1", kind="file"),
            leaf("/i/d2", kind="file"),
            size=503316480,
            alloc=321912832,
            free=181403648,
        ),
        mirror(
            1,
            leaf("/i/d3", kind="file"),
            leaf("/i/d4", kind="file"),
            size=503316480,
            alloc=47290368,
            free=456026112,
        ),
    )
    f = one(check_now(p), subject="imbal")
    # Growing a pool by adding a vdev is how the seeds' expert does it: a note, not a warning.
    assert f.severity == Severity.INFO
    assert "mirror-1 probably added after data was written" in f.title
    assert "zpool history imbal" in f.why and "no in-place rebalance" in f.why
    assert "not yet seen enough writes" in f.why  # no measurement: no claim about the writes
    assert evidence(f)["mirror-0 fill"].startswith("64.0 %")
    assert f.actions[0].argv == ("zpool", "history", "imbal")


def _added_later(i, new_share):
    """mirror-1 added to a 70 %-full mirror-0; writes split `new_share` to mirror-1."""
    import dataclasses

    from zdash.model import IoStats

    p = two(70.0, 10.0)
    m0, m1 = p.top_level
    total = 100 * MiB
    m0 = dataclasses.replace(m0, io=IoStats(write_ops=100, write_bytes=total * (1 - new_share)))
    m1 = dataclasses.replace(m1, io=IoStats(write_ops=100, write_bytes=total * new_share))
    return dataclasses.replace(p, root=dataclasses.replace(p.root, children=(m0, m1)))


def test_added_vdev_text_agrees_with_the_measured_write_share():
    from tests.checks.builders import history

    even = one(imbalance.check(history(lambda i: _added_later(i, 0.52), 12), CFG), subject="tank")
    assert even.severity == Severity.INFO
    assert "New writes are spread about evenly: mirror-1 took 52 %" in even.why
    assert evidence(even)["Write share (measured)"] == "mirror-0 48 %, mirror-1 52 %"
    # The new vdev measurably takes most of the writes (3/4 or more of them with two vdevs).
    skewed = one(imbalance.check(history(lambda i: _added_later(i, 0.80), 12), CFG), subject="tank")
    assert skewed.severity == Severity.WARNING
    assert "mirror-1 took 80 % of the writes while zdash watched" in skewed.why


def test_added_vdev_warns_when_the_old_one_nears_the_capacity_warning():
    near = two(76.0, 20.0)
    assert one(check_now(near), subject="tank").severity == Severity.WARNING
    assert one(check_now(two(74.0, 20.0)), subject="tank").severity == Severity.INFO


def test_different_sizes_use_allocatable_space_not_raw_leaf_size():
    """imbalance-size capture: single-file vdevs whose SIZE is the raw file, not ALLOC+FREE."""
    p = pool(
        "sizes",
        leaf("/s/big", kind="file", size=2147483648, alloc=435959296, free=1577306624),
        leaf("/s/small", kind="file", size=536870912, alloc=193741824, free=309574656),
    )
    f = one(check_now(p), subject="sizes")
    assert "different sizes" in f.title
    assert evidence(f)["/s/small fill"].startswith("38.5 %")  # zpool list shows 38.5 %
    assert evidence(f)["/s/big fill"].startswith("21.7 %")  # and 21.6 % (it truncates)
    assert f.severity == Severity.INFO


def test_equal_vdevs_from_the_start_point_to_uneven_frees():
    f = one(check_now(two(20.0, 50.0)), subject="tank")  # the *first* vdev is the emptier
    assert "uneven frees" in f.title and f.actions == ()


def test_size_tolerance_boundary():
    within = one(check_now(two(60.0, 30.0, size0=GiB, size1=int(GiB * 1.09))), subject="tank")
    beyond = one(check_now(two(60.0, 30.0, size0=GiB, size1=int(GiB * 1.11))), subject="tank")
    assert "added" in within.title and "different sizes" in beyond.title


def test_only_normal_class_vdevs_are_compared():
    p = pool(
        "tank",
        mirror(0, leaf("a"), leaf("b"), **space(GiB, 30.0)),
        mirror(1, leaf("c"), leaf("d"), vclass="special", **space(64 * MiB, 90.0)),
    )
    assert check_now(p) == []


def test_single_vdev_pool_cannot_be_imbalanced():
    assert check_now(pool("tank", mirror(0, leaf("a"), leaf("b"), **space(GiB, 70.0)))) == []


def test_slow_vdev_gets_fewer_writes_from_slow_io_counts():
    """deranged-disk capture: equal mirrors from the start, 46.3 % vs 16.6 %, slowdisk SLOW 1271."""
    p = pool(
        "deranged",
        mirror(
            0,
            leaf("loop0", slow_ios=0),
            leaf("loop1", slow_ios=0),
            size=503316480,
            alloc=232783872,
            free=270532608,
        ),
        mirror(
            1,
            leaf("loop2", slow_ios=2),
            leaf("slowdisk", slow_ios=1271),
            size=503316480,
            alloc=83361792,
            free=419954688,
        ),
    )
    f = one(check_now(p), subject="deranged")
    assert "mirror-1 is slow and gets fewer writes" in f.title
    assert evidence(f)["mirror-1 slow I/Os"] == "1273"
    assert "allocation throttle" in f.why and "new writes lean on" not in f.why


def test_slow_vdev_from_latency_over_the_history():
    from tests.checks.builders import history

    def make(i):
        return pool(
            "tank",
            mirror(0, leaf("a", write_ms=2.0), leaf("b", write_ms=2.5), **space(GiB, 50.0)),
            mirror(1, leaf("c", write_ms=3.0), leaf("d", write_ms=90.0), **space(GiB, 20.0)),
        )

    f = one(imbalance.check(history(make, 10), CFG), subject="tank")
    assert "mirror-1 is slow" in f.title
    assert evidence(f)["mirror-1 disk wait"] == "46.5 ms"
