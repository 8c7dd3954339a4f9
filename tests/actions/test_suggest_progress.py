"""From the checks' suggestions to plans, and live progress read from snapshots."""

import dataclasses

import pytest

from tests.actions.helpers import (
    Dataset,
    FakeProbe,
    mirror,
    pool,
    scan,
    sdisk,
    single_disk_pool,
    snap,
    two_way,
)
from zdash.actions import NotGuided, Request, build_plan, needs_new_device, progress, request_from_suggestion
from zdash.actions.plan import difference, fingerprint
from zdash.checks._common import act


@pytest.mark.parametrize(
    "suggestion,expected",
    [
        (
            act("Offline", "offline", "zpool", "offline", "tank", "/dev/sdb"),
            Request("offline", "tank", "/dev/sdb"),
        ),
        (
            act("Online", "online", "zpool", "online", "tank", "/dev/sdb"),
            Request("online", "tank", "/dev/sdb"),
        ),
        (
            act("Replace", "replace", "zpool", "replace", "tank", "/dev/sdb"),
            Request("replace", "tank", "/dev/sdb"),
        ),
        (
            act("Attach", "attach", "zpool", "attach", "tank", "/dev/sdb"),
            Request("attach", "tank", "/dev/sdb"),
        ),
        (act("Clear", "clear", "zpool", "clear", "tank"), Request("clear", "tank")),
        (act("Clear", "clear", "zpool", "clear", "tank", "sda"), Request("clear", "tank", "sda")),
        (act("Scrub", "scrub", "zpool", "scrub", "tank"), Request("scrub", "tank")),
        (act("Pause", "scrub", "zpool", "scrub", "-p", "tank"), Request("scrub-pause", "tank")),
        (act("Stop", "scrub", "zpool", "scrub", "-s", "tank"), Request("scrub-stop", "tank")),
        (act("Resume error scrub", "scrub", "zpool", "scrub", "-e", "tank"), Request("scrub", "tank")),
        (act("Promote", "promote", "zfs", "promote", "tank/c"), Request("promote", "tank", "tank/c")),
    ],
)
def test_request_from_the_checks_suggestions(suggestion, expected):
    assert request_from_suggestion(suggestion) == expected


def test_the_new_device_is_asked_for():
    s = act("Attach", "attach", "zpool", "attach", "tank", "/dev/sdb")
    replace = act("Replace", "replace", "zpool", "replace", "tank", "/dev/sdb")
    assert needs_new_device(s) == "required" and needs_new_device(replace) == "optional"
    assert needs_new_device(act("Detach", "detach", "zpool", "detach", "tank", "/dev/sdb")) is None
    # A slow disk is replaced while it stays in: its suggestion asks for the new disk.
    assert needs_new_device(dataclasses.replace(replace, new_device="required")) == "required"
    assert request_from_suggestion(s, "/dev/sdz").new_device == "/dev/sdz"


def test_read_only_suggestions_are_not_guided():
    with pytest.raises(NotGuided):
        request_from_suggestion(act("Show history", None, "zpool", "history", "tank"))


def test_suggestions_of_the_real_checks_build_plans():
    """Every guided action the checks emit for a degraded pool turns into a plan."""
    from zdash.fold import run_checks

    p = pool(
        "tank", mirror(0, sdisk("sda"), sdisk("sdb", state="FAULTED", errors=(3, 0, 9))), state="DEGRADED"
    )
    s = snap(p)
    findings = run_checks([s])
    guided = [a for f in findings for a in f.actions if a.action]
    assert guided
    for a in guided:
        plan = build_plan(s, request_from_suggestion(a), FakeProbe())
        assert plan.argv[:2] == a.argv[:2] or a.action == "scrub"


def test_fingerprint_and_difference():
    a, b = two_way(), two_way(states=("ONLINE", "OFFLINE"))
    fa, fb = fingerprint(a), fingerprint(b)
    assert fa[0] == "pool tank ONLINE guid=guid-tank"
    assert difference(fa, fa) == ()
    assert difference(fa, fb) == (
        "- sdb disk ONLINE guid=guid-sdb path=/dev/sdb",
        "+ sdb disk OFFLINE guid=guid-sdb path=/dev/sdb",
    )
    # Counters and scan progress do not count as change; a scan starting does.
    noisy = pool("tank", mirror(0, sdisk("sda", errors=(5, 0, 0)), sdisk("sdb"), size=1, alloc=2, free=3))
    assert difference(fingerprint(two_way()), fingerprint(noisy)) == ()
    s1 = two_way(scans=(scan("scrub", "scanning", pct_done=1.0),))
    s2 = two_way(scans=(scan("scrub", "scanning", pct_done=80.0),))
    assert difference(fingerprint(s1), fingerprint(s2)) == ()
    assert difference(fa, fingerprint(s1)) == ("+ scan scrub scanning",)


def _plan(action, p, device=None, new=None):
    return build_plan(snap(p), Request(action, p.name, device, new), FakeProbe())


def test_progress_of_a_resilver():
    plan = _plan("attach", single_disk_pool(), "/dev/sdb", "/dev/sdz")
    resilvering = pool(
        "tank", mirror(0, sdisk("sdb"), sdisk("sdz")), scans=(scan("resilver", "scanning", pct_done=42.5),)
    )
    pr = progress(plan, snap(resilvering))
    assert not pr.done and pr.pct == 42.5 and "42.5%" in pr.text
    done = pool("tank", mirror(0, sdisk("sdb"), sdisk("sdz")), scans=(scan("resilver", "finished"),))
    assert progress(plan, snap(done)).done
    assert not progress(plan, snap(single_disk_pool())).done  # not attached yet


def test_progress_of_scrub_and_others():
    start = _plan("scrub", two_way())
    running = two_way(scans=(scan("scrub", "scanning", pct_done=10.0),))
    assert progress(start, snap(running)).pct == 10.0
    finished = two_way(scans=(scan("scrub", "finished", end_time=2000.0),))
    assert progress(start, snap(finished), since=1000.0).done
    assert not progress(start, snap(finished), since=5000.0).done  # an older scrub
    det = _plan("detach", two_way(), "/dev/sdb")
    assert not progress(det, snap(two_way())).done
    assert progress(det, snap(pool("tank", mirror(0, sdisk("sda"))))).done
    off = _plan("offline", two_way(), "/dev/sdb")
    assert progress(off, snap(two_way(states=("ONLINE", "OFFLINE")))).done
    prom = build_plan(
        snap(two_way(), datasets=(Dataset("tank/c", "filesystem", origin="tank/fs@s"),)),
        Request("promote", "tank", "tank/c"),
        FakeProbe(),
    )
    after = snap(two_way(), datasets=(Dataset("tank/c", "filesystem"),))
    assert progress(prom, after).done
