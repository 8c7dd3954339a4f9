"""health: states, error counters and their growth, permanent data errors."""

from __future__ import annotations

from tests.checks.builders import T0, evidence, healthy_two_mirrors, history, leaf, mirror, one, pool, snap
from zdash.checks import health
from zdash.checks.finding import Severity
from zdash.config import CheckConfig
from zdash.model import Vdev

CFG = CheckConfig()


def check_now(*pools):
    return health.check([snap(T0, *pools)], CFG)


def test_offline_disk_degrades_the_pool_and_suggests_online():
    """degraded capture, after `zpool offline degraded d2`."""
    p = pool(
        "degraded",
        mirror(0, leaf("/t/d1", kind="file"), leaf("/t/d2", kind="file", state="OFFLINE"), state="DEGRADED"),
        mirror(1, leaf("/t/d3", kind="file"), leaf("/t/d4", kind="file")),
        state="DEGRADED",
        status="One or more devices has been taken offline by the administrator.",
    )
    findings = check_now(p)
    pool_f = one(findings, subject="degraded")
    assert pool_f.severity == Severity.WARNING and pool_f.title == "degraded: DEGRADED"
    assert evidence(pool_f)["Status"].startswith("One or more devices has been taken offline")
    leaf_f = one(findings, subject="/t/d2")
    assert leaf_f.severity == Severity.WARNING and leaf_f.subject_kind == "leaf"
    assert leaf_f.title == "/t/d2 in mirror-0: OFFLINE"
    assert leaf_f.actions[0].argv == ("zpool", "online", "degraded", "/t/d2")
    assert leaf_f.actions[0].action == "online"
    assert not any(f.subject == "mirror-0" for f in findings)  # explained by its leaf


def test_faulted_or_suspended_pool_is_critical():
    for state in ("FAULTED", "SUSPENDED", "UNAVAIL"):
        f = one(check_now(pool("tank", leaf("sda"), state=state)), subject="tank")
        assert f.severity == Severity.CRITICAL, state
    suspended = one(check_now(pool("tank", leaf("sda"), state="SUSPENDED")), subject="tank")
    assert suspended.actions[0].argv == ("zpool", "clear", "tank")


def test_lost_top_level_vdev_is_critical():
    p = pool(
        "tank",
        mirror(0, leaf("sda"), leaf("sdb")),
        mirror(1, leaf("sdc", state="UNAVAIL"), leaf("sdd", state="UNAVAIL"), state="UNAVAIL"),
        state="UNAVAIL",
    )
    f = one(check_now(p), subject="mirror-1")
    assert f.severity == Severity.CRITICAL and f.subject_kind == "vdev"
    assert one(check_now(p), subject="/dev/sdc").severity == Severity.CRITICAL


def errors_pool(d1=(70, 0, 0), d2=(0, 0, 3)):
    return pool(
        "errors",
        mirror(0, leaf("/e/d1", kind="file", errors=d1), leaf("/e/d2", kind="file", errors=d2)),
        mirror(1, leaf("/e/d3", kind="file", errors=(0, 56, 0)), leaf("/e/d4", kind="file")),
    )


def test_static_error_counts_warn_and_suggest_clear_and_scrub():
    """errors capture after the scrub: READ 70 on d1, CKSUM 3 on d2, WRITE 56 on d3."""
    findings = check_now(errors_pool())
    d1 = one(findings, subject="/e/d1")
    assert d1.severity == Severity.WARNING and d1.title == "/e/d1 in mirror-0: 70 read errors"
    assert evidence(d1)["Read errors"] == "70"
    assert [a.action for a in d1.actions] == ["clear", "scrub"]
    assert d1.actions[0].argv == ("zpool", "clear", "errors", "/e/d1")
    assert evidence(one(findings, subject="/e/d3"))["Write errors"] == "56"
    assert not any(f.subject == "/e/d4" for f in findings)


def test_growing_errors_are_critical_and_suggest_replace():
    h = history(lambda i: errors_pool(d2=(0, 0, 3 + 10 * i)), 31)
    f = one(health.check(h, CFG), subject="/e/d2")
    assert f.severity == Severity.CRITICAL and f.title == "/e/d2 in mirror-0: 303 checksum errors and growing"
    assert evidence(f)["Checksum errors"] == "303 (+300 in 30 s)"
    assert "replace" in [a.action for a in f.actions]
    assert one(health.check(h, CFG), subject="/e/d1").severity == Severity.WARNING  # not growing


def test_permanent_data_errors_are_critical_and_list_the_files():
    p = pool(
        "perm",
        leaf("/e/p1", kind="file", errors=(0, 0, 2560)),
        error_count=1,
        error_files=("/perm/victim",),
        msgid="ZFS-8000-8A",
    )
    f = one(check_now(p), subject="perm")
    assert f.severity == Severity.CRITICAL and "1 permanent data error" in f.title
    assert evidence(f)["Affected"] == "/perm/victim" and evidence(f)["See"] == "ZFS-8000-8A"
    assert f.actions[0].action == "scrub"


def test_device_being_replaced_gets_no_actions():
    """degraded capture mid-resilver: replacing-1 holds the OFFLINE old d2 and the new2 target."""
    replacing = Vdev(
        name="replacing-1",
        kind="replacing",
        state="DEGRADED",
        children=(
            leaf("/t/d2", kind="file", state="OFFLINE"),
            leaf("/t/new2", kind="file", aux="(resilvering)"),
        ),
    )
    p = pool(
        "degraded",
        Vdev(
            name="mirror-0", kind="mirror", state="DEGRADED", children=(leaf("/t/d1", kind="file"), replacing)
        ),
        state="DEGRADED",
    )
    f = one(check_now(p), subject="/t/d2")
    assert f.title == "/t/d2 in replacing-1: OFFLINE" and f.actions == ()
    assert "being replaced" in f.why


def test_faulted_cache_device_is_only_info():
    p = pool("tank", mirror(0, leaf("sda"), leaf("sdb")), leaf("nvme0", vclass="cache", state="FAULTED"))
    assert one(check_now(p), subject="/dev/nvme0").severity == Severity.INFO


def test_faulted_leaf_suggests_replace_then_clear():
    p = pool(
        "tank",
        mirror(0, leaf("sda"), leaf("sdb", state="FAULTED", aux="too many errors", errors=(0, 0, 40))),
        state="DEGRADED",
    )
    f = one(check_now(p), subject="/dev/sdb")
    assert "FAULTED (too many errors)" in f.title
    assert [a.action for a in f.actions] == ["replace", "clear", "scrub"]


def test_healthy_pool_has_no_health_findings():
    assert health.check(history(healthy_two_mirrors, 5), CFG) == []


def test_disk_covered_by_a_hot_spare_still_needs_replacing():
    spare = Vdev(
        name="spare-1",
        kind="spare",
        state="DEGRADED",
        children=(leaf("sdb", state="FAULTED", aux="too many errors"), leaf("sdz", aux="INUSE")),
    )
    p = pool(
        "tank",
        Vdev(name="mirror-0", kind="mirror", state="DEGRADED", children=(leaf("sda"), spare)),
        leaf("sdz", vclass="spare", state="INUSE"),
        state="DEGRADED",
    )
    findings = check_now(p)
    f = one(findings, subject="/dev/sdb")
    assert "hot spare has taken its place" in f.why and f.actions[0].action == "replace"
    assert [x.subject for x in findings if x.subject_kind == "leaf"] == ["/dev/sdb"]  # INUSE is fine
