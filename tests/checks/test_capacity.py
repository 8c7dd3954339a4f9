"""capacity: thresholds at their edges, full vdevs in roomy pools, real headroom, time-to-full."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.checks.builders import T0, GiB, MiB, evidence, fs, history, leaf, mirror, one, pool, snap, space
from zdash.checks import capacity
from zdash.checks.finding import Severity
from zdash.config import CheckConfig
from zdash.model import UNSEEN, Pool, Vdev

CFG = CheckConfig()


def tank(pool_pct, *, vdev_pcts=None):
    vdev_pcts = vdev_pcts or (pool_pct, pool_pct)
    tops = [
        mirror(i, leaf(f"a{i}"), leaf(f"b{i}"), **space(100 * GiB, pct)) for i, pct in enumerate(vdev_pcts)
    ]
    size = 200 * GiB
    alloc = int(size * pool_pct / 100)
    return pool("tank", *tops, size=size, alloc=alloc, free=size - alloc)


def check_now(p, cfg=CFG, **snap_kw):
    return capacity.check([snap(T0, p, **snap_kw)], cfg)


@pytest.mark.parametrize(
    "pct, expected",
    [(79.9, None), (80.0, Severity.WARNING), (89.9, Severity.WARNING), (90.0, Severity.CRITICAL)],
)
def test_pool_thresholds_at_their_edges(pct, expected):
    findings = check_now(tank(pct))
    if expected is None:
        assert findings == []
    else:
        f = one(findings, subject="tank")
        assert f.severity == expected and f.subject_kind == "pool"
        assert f"{pct:.1f} %" in f.title and evidence(f)["Capacity"] == f"{pct:.1f} %"
        assert "best-fit" in f.why


def test_thresholds_come_from_config():
    cfg = CheckConfig(capacity_pool_warn_pct=70, capacity_pool_crit_pct=75)
    assert one(check_now(tank(76.0), cfg), subject="tank").severity == Severity.CRITICAL


def test_a_full_vdev_in_a_roomy_pool_is_named():
    findings = check_now(tank(55.0, vdev_pcts=(92.0, 18.0)))
    f = one(findings, subject="mirror-0")
    assert f.severity == Severity.CRITICAL and f.subject_kind == "vdev"
    assert f.title == "mirror-0 is 92.0 % full (pool 55.0 %)"
    assert [x.subject for x in findings] == ["mirror-0"]


def test_vdev_no_worse_than_the_pool_adds_no_second_finding():
    findings = check_now(tank(85.0, vdev_pcts=(86.0, 84.0)))
    assert [f.subject for f in findings] == ["tank"]


def test_single_vdev_pool_is_reported_once():
    p = pool(
        "cap93",
        leaf("/c93", kind="file", size=2684354560, alloc=2247626752, free=168292352),
        size=2415919104,
        alloc=2247626752,
        free=168292352,
    )
    findings = check_now(p)
    assert [(f.subject, f.severity) for f in findings] == [("cap93", Severity.CRITICAL)]
    assert "93.0 %" in findings[0].title


def test_out_of_space_below_the_thresholds_from_root_dataset_avail():
    """The capfull capture: ENOSPC at CAP 73 % because 128 MiB of 480 MiB is slop."""
    p = pool("capfull", leaf("/cfull", kind="file"), size=503316480, alloc=369100288, free=134216192)
    f = one(check_now(p, datasets=(fs("capfull", avail=0),)), subject="capfull")
    assert f.severity == Severity.CRITICAL
    assert f.title == "capfull is out of space: writes fail (CAP 73.3 %)"
    assert evidence(f)["Writable headroom"] == "0 B"
    assert "slop" in f.why


def test_out_of_space_without_datasets_uses_free_minus_slop():
    p = pool("capfull", leaf("/cfull", kind="file"), size=503316480, alloc=369100288, free=134216192)
    assert one(check_now(p), subject="capfull").severity == Severity.CRITICAL


def test_slop_space_formula():
    assert capacity.slop_space(480 * MiB) == 128 * MiB  # small pool: the 128 MiB floor
    assert capacity.slop_space(64 * GiB) == 2 * GiB  # 1/32
    assert capacity.slop_space(16384 * GiB) == 128 * GiB  # capped at 128 GiB
    assert capacity.slop_space(100 * MiB) == 50 * MiB  # never more than half


def filling(rate, n, interval=1.0, start_pct=50.0):
    size = 100 * GiB

    def make(i):
        alloc = int(size * start_pct / 100 + rate * i * interval)
        return pool("tank", mirror(0, leaf("a"), leaf("b")), size=size, alloc=alloc, free=size - alloc)

    return history(make, n, interval=interval)


def test_time_to_full_from_the_trend_warns_below_the_capacity_threshold():
    h = filling(rate=100 * MiB, n=301)  # 300 s of history (the trend's minimum span), 100 MiB/s
    f = one(capacity.check(h, CFG), subject="tank")
    assert f.severity == Severity.WARNING and "filling" in f.title
    ev = evidence(f)
    assert ev["Filling at"].startswith("100 MiB/s")
    # headroom = free - slop = (50 GiB - 30000 MiB) - 3.2 GiB ... at 100 MiB/s: about 3 min
    headroom = (100 * GiB - int(100 * GiB * 0.5 + 100 * MiB * 300)) - capacity.slop_space(100 * GiB)
    assert ev["Full in"] == capacity.fmt_duration(headroom / (100 * MiB))


def test_no_trend_from_a_short_history():
    h = filling(rate=100 * MiB, n=240)  # 239 s < the 300 s minimum span
    assert capacity.check(h, CFG) == []


def test_trend_ignored_when_shrinking():
    assert capacity.check(filling(rate=-100 * MiB, n=121), CFG) == []


@pytest.mark.parametrize("hours, alarm", [(25.0, False), (23.0, True)])
def test_time_to_full_horizon_boundary(hours, alarm):
    headroom_at_start = 50 * GiB - capacity.slop_space(100 * GiB)
    rate = headroom_at_start / (hours * 3600 + 300)  # reaches full `hours` after the last sample
    findings = capacity.check(filling(rate=rate, n=301), CFG)
    assert bool(findings) is alarm


def test_zfs_list_alone_fills_by_root_used_over_used_plus_avail():
    """A pasted `zfs list -o space` with no zpool output (corpus 206): the pool's size is not
    known, but its root dataset says 1.92T used and 3.62G available - 99.8 % of the writable
    space is taken, critical; with no dataset figures either there is nothing to say."""
    p = Pool(name="pf", state=UNSEEN, root=Vdev(name="pf", kind="root", state=UNSEEN), guid=None)
    root = fs("pf", used=round(1.92 * 2**40), avail=round(3.62 * GiB))
    f = one(check_now(p, datasets=(root,)), subject="pf")
    assert f.severity == Severity.CRITICAL and f.title == "pf is 99.8 % full"
    assert evidence(f)["Capacity"] == "99.8 % of the writable space (zfs list: used / (used + avail))"
    roomy = fs("pf", used=500 * GiB, avail=1500 * GiB)
    assert check_now(p, datasets=(roomy,)) == []
    assert check_now(p) == []


def _least_squares_slope(points):
    """The slope of the points' least-squares line, exactly (fractions of their float values)."""
    from fractions import Fraction

    ts, ys = [Fraction(t) for t, _ in points], [Fraction(y) for _, y in points]
    n = len(ts)
    mean_t, mean_y = sum(ts) / n, sum(ys) / n
    var = sum((t - mean_t) ** 2 for t in ts)
    return float(sum((t - mean_t) * (y - mean_y) for t, y in zip(ts, ys)) / var)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(min_value=0, max_value=1 << 44), min_size=3, max_size=400),
    st.integers(min_value=5, max_value=120),
    st.floats(min_value=-(1 << 30), max_value=1 << 30),
)
def test_the_trend_kept_as_running_sums_is_the_least_squares_line_of_its_window(rooms, window, rate):
    # a day's epoch times, headrooms of tens of TB moving by up to a GiB a second and jumping
    # anywhere: the sums, as points come and go, give the least-squares slope, rounded once
    from collections import deque

    fit, points = capacity.Fit(()), deque()
    for i, room in enumerate(rooms):
        # headroom is bytes (a float of an int), times anything time.time() gives
        t, y = 1.8e9 + 86400 + 1.5 * i + (i % 7) * 0.000123, float(room + int(rate * i))
        points.append((t, y))
        fit.add(t, y)
        while t - points[0][0] > window:
            fit.drop(*points.popleft())
        if len(points) >= 2:
            assert fit.slope() == _least_squares_slope(points)
            # exact: the sums of the points now, however they were reached (a keyframe's fold
            # makes them again from its points and must judge as this one)
            assert fit.slope() == capacity.Fit(points).slope()


def test_a_pool_filling_at_a_steady_rate_for_a_day_is_read_at_that_rate():
    # a day of 1 s ticks through a 10-minute window: what rounding took from the sums never builds up
    tracker = capacity.Tracker(CFG)
    p = tank(50)
    for i in range(0, 86400, 7):
        tracker.observe(
            snap(T0 + i, p, datasets=(fs("tank", used=GiB + 4096 * i, avail=900 * GiB - 4096 * i),))
        )
    (_, points), fit = tracker._points["tank"], tracker._fits["tank"]
    assert fit.slope() == pytest.approx(-4096, rel=1e-12)
    assert fit.n == len(points) < 100


def test_a_tracker_restored_from_a_keyframe_judges_the_trend_as_the_one_that_ran():
    from zdash.checks import state_codec

    def at(i):  # filling irregularly, 87 % full: the finding gives the rate and the time to full
        used = 870 * GiB + 3 * MiB * i + (i * 7919 % 13) * MiB
        return snap(T0 + 1.25 * i, tank(87), datasets=(fs("tank", used=used, avail=1000 * GiB - used),))

    straight = capacity.Tracker(CFG)
    judged = []
    for i in range(900):
        straight.observe(at(i))
        judged.append(straight.findings(at(i)))
    assert any(e == "Filling at" for f in judged[-1] for e, _ in f.evidence)
    for cut in (1, 250, 480, 701):
        t = capacity.Tracker(CFG)
        for i in range(cut):
            t.observe(at(i))
        restored = capacity.Tracker(CFG)
        restored.__dict__.update(state_codec.decode(json.loads(json.dumps(state_codec.encode(t.memory())))))
        for i in range(cut, 900):
            restored.observe(at(i))
            assert restored.findings(at(i)) == judged[i], (cut, i)
