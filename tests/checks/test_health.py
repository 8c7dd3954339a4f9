"""health: redundancy left per vdev (severity follows it), one finding per fault, spares, error
counters judged over time, and the scrub story."""

from __future__ import annotations

import pytest

from tests.checks.builders import (
    DAY,
    T0,
    evidence,
    healthy_two_mirrors,
    history,
    leaf,
    mirror,
    one,
    pool,
    raidz,
    scan,
    snap,
)
from zdash.checks import health, stories
from zdash.checks.finding import Severity
from zdash.config import CheckConfig
from zdash.model import UNSEEN, Vdev

CFG = CheckConfig()


def check_now(*pools):
    return health.check([snap(T0, *pools)], CFG)


# --- redundancy: severity follows what the vdev can still survive ---------------------------


def test_two_way_mirror_with_one_side_offline_is_critical_and_names_the_disk_it_runs_on():
    """degraded capture, after `zpool offline degraded d2`."""
    p = pool(
        "degraded",
        mirror(0, leaf("/t/d1", kind="file"), leaf("/t/d2", kind="file", state="OFFLINE"), state="DEGRADED"),
        mirror(1, leaf("/t/d3", kind="file"), leaf("/t/d4", kind="file")),
        state="DEGRADED",
        status="One or more devices has been taken offline by the administrator.",
    )
    findings = check_now(p)
    (f,) = findings  # one fault, one finding: no second "pool DEGRADED" saying the same
    assert f.severity == Severity.CRITICAL and f.subject == "mirror-0" and f.subject_kind == "vdev"
    assert f.title == "mirror-0 has no redundancy left: runs on /t/d1 alone (/t/d2 OFFLINE)"
    assert "one more failure" in f.why and "remaining redundancy" not in f.why
    assert evidence(f)["Runs on"] == "/t/d1"
    assert evidence(f)["Status"].startswith("One or more devices has been taken offline")
    assert f.actions[0].argv == ("zpool", "online", "degraded", "/t/d2") and f.actions[0].action == "online"


def test_three_way_mirror_with_one_side_offline_is_a_warning_that_says_how_many_more():
    p = pool("tank", mirror(0, leaf("sda"), leaf("sdb"), leaf("sdc", state="OFFLINE")), state="DEGRADED")
    f = one(check_now(p), subject="mirror-0")
    assert f.severity == Severity.WARNING
    assert f.title == "mirror-0 can lose 1 more disk (/dev/sdc OFFLINE)"
    assert evidence(f)["Redundancy"] == "can lose 1 more of 2 (built for)"


@pytest.mark.parametrize(
    "parity, missing, severity, says",
    [
        (1, 1, Severity.CRITICAL, "raidz1-0 has no redundancy left"),
        (2, 1, Severity.WARNING, "raidz2-0 can lose 1 more disk"),
        (2, 2, Severity.CRITICAL, "raidz2-0 has no redundancy left"),
        (3, 1, Severity.WARNING, "raidz3-0 can lose 2 more disks"),
    ],
)
def test_raidz_severity_follows_parity_minus_missing(parity, missing, severity, says):
    disks = [leaf(f"sd{c}", state="FAULTED" if i < missing else "ONLINE") for i, c in enumerate("abcdef")]
    p = pool("tank", raidz(0, *disks, parity=parity, state="DEGRADED"), state="DEGRADED")
    f = one(check_now(p), subject=f"raidz{parity}-0")
    assert f.severity == severity and f.title.startswith(says)
    assert "/dev/sda FAULTED" in f.title


def test_lost_top_level_vdev_and_pool_are_critical():
    p = pool(
        "tank",
        mirror(0, leaf("sda"), leaf("sdb")),
        mirror(1, leaf("sdc", state="UNAVAIL"), leaf("sdd", state="UNAVAIL"), state="UNAVAIL"),
        state="UNAVAIL",
    )
    findings = check_now(p)
    assert one(findings, subject="mirror-1").severity == Severity.CRITICAL
    assert "is lost" in one(findings, subject="mirror-1").title
    assert one(findings, subject="tank").severity == Severity.CRITICAL


def test_faulted_or_suspended_pool_is_critical():
    for state in ("FAULTED", "SUSPENDED", "UNAVAIL"):
        f = one(check_now(pool("tank", leaf("sda"), state=state)), subject="tank")
        assert f.severity == Severity.CRITICAL, state
    suspended = one(check_now(pool("tank", leaf("sda"), state="SUSPENDED")), subject="tank")
    assert suspended.actions[0].argv == ("zpool", "clear", "tank")


def test_a_resilver_onto_the_new_disk_is_not_yet_a_copy():
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
        scans=(scan("resilver", "scanning"),),
    )
    (f,) = check_now(p)
    assert f.severity == Severity.CRITICAL
    assert (
        f.title
        == "mirror-0 has no redundancy left: runs on /t/d1 alone (/t/d2 OFFLINE; resilvering onto /t/new2)"
    )
    assert f.actions == () and "resilver restores redundancy when it completes" in f.why


def test_disks_attached_to_a_survivor_with_read_errors_are_a_critical_not_a_note():
    """Corpus 197: a mirror's dead side gone, two new disks attached; ZFS says ONLINE while both
    resilver from z2, the only whole copy, which has 701 read errors: blocks z2 cannot read have
    no other copy. Without the errors the redundancy model still rules (no redundancy until the
    resilver ends: CRITICAL, said so), unless the attach is known (a transcript's `zpool attach`
    line, or zdash saw the disks arrive): then it is redundancy being added, not a loss."""

    def attached(errors, known=()):
        return pool(
            "STORE",
            mirror(
                0,
                leaf("z2", errors=errors),
                leaf("z3", aux="(resilvering)"),
                leaf("z1_1", aux="(resilvering)"),
            ),
            scans=(scan("resilver", "scanning"),),
            attached_devices=known,
        )

    worst = max(check_now(attached((701, 0, 0))), key=lambda f: f.severity)
    assert worst.severity == Severity.CRITICAL and worst.subject == "mirror-0"
    assert worst.title == (
        "mirror-0: its only whole copy reports errors (/dev/z2: 701 read errors) while /dev/z3, /dev/z1_1 "
        "are resilvered from it"
    )
    (unknown,) = check_now(attached((0, 0, 0)))
    assert unknown.severity == Severity.CRITICAL and unknown.title == (
        "mirror-0: resilvering /dev/z3, /dev/z1_1 (mirror-0 has no redundancy left until it completes)"
    )
    assert "or was attached (no attach is in what zdash read)" in unknown.why
    assert check_now(attached((0, 0, 0), known=("z3", "/dev/z1_1"))) == []  # a single disk grown


def test_a_side_seen_arriving_is_an_attach_one_seen_before_is_catching_up():
    """Live: a leaf that appears while zdash watches and resilvers is an attach (nothing lost);
    one that was there before (OFFLINE, then online) is catching up: no redundancy until done."""
    single = pool("tank", leaf("sda"))
    growing = pool(
        "tank",
        mirror(0, leaf("sda"), leaf("sdb", aux="(resilvering)")),
        scans=(scan("resilver", "scanning"),),
    )
    seen = [snap(1.0, single), snap(2.0, growing)]
    assert [f for f in health.check(seen, CFG) if f.severity > Severity.INFO] == []
    offline = pool("tank", mirror(0, leaf("sda"), leaf("sdb", state="OFFLINE")), state="DEGRADED")
    (back,) = health.check([snap(1.0, offline), snap(2.0, growing)], CFG)
    assert back.severity == Severity.CRITICAL and "has no redundancy left until it completes" in back.title


def test_a_disk_awaiting_resilver_is_said_to_wait_not_to_be_resilvered():
    """Corpus 188: zpool marks a disk "(awaiting resilver)" while it is queued behind the running
    resilver; nothing is written to it yet."""
    p = pool(
        "TEMP",
        mirror(0, leaf("sda"), leaf("sdb", aux="(awaiting resilver)")),
        scans=(scan("resilver", "scanning"),),
    )
    (f,) = check_now(p)
    assert f.title.startswith("mirror-0: waiting to resilver /dev/sdb (")
    assert ("Waiting to resilver", "/dev/sdb") in f.evidence


def test_degraded_disk_still_serves_but_is_no_reliable_copy():
    p = pool(
        "tank",
        mirror(0, leaf("sda"), leaf("sdb", state="DEGRADED", aux="too many errors", errors=(0, 0, 40))),
        state="DEGRADED",
    )
    (f,) = check_now(p)
    assert f.severity == Severity.CRITICAL and "runs on /dev/sda alone" in f.title
    assert "cannot be counted on" in f.why
    assert evidence(f)["/dev/sdb"].endswith("40 checksum errors")
    assert [a.action for a in f.actions] == ["replace", "clear"]


def test_a_lost_log_device_is_a_warning_and_so_is_a_failed_cache_device_an_offline_one_a_note():
    """A failed L2ARC loses nothing but cache hits, yet a device reading FAULTED is never OK
    beside the verdict; one the admin took offline is their choice."""

    def tank(cache_state):
        return pool(
            "tank",
            mirror(0, leaf("sda"), leaf("sdb")),
            mirror(
                1, leaf("nvme0", vclass="log"), leaf("nvme1", vclass="log", state="FAULTED"), vclass="log"
            ),
            leaf("nvme2", vclass="cache", state=cache_state),
        )

    findings = check_now(tank("FAULTED"))
    assert one(findings, subject="mirror-1").severity == Severity.WARNING
    assert one(findings, subject="/dev/nvme2").severity == Severity.WARNING
    assert one(check_now(tank("OFFLINE")), subject="/dev/nvme2").severity == Severity.INFO


# --- spares ----------------------------------------------------------------------------------


def _spared(spare_aux=None):
    spare = Vdev(
        name="spare-1",
        kind="spare",
        state="DEGRADED",
        children=(leaf("sdb", state="FAULTED", aux="too many errors"), leaf("sdz", aux=spare_aux)),
    )
    return pool(
        "tank",
        Vdev(name="mirror-0", kind="mirror", state="DEGRADED", children=(leaf("sda"), spare)),
        leaf("sdz", vclass="spare", state="INUSE"),
        state="DEGRADED",
    )


def test_a_hot_spare_in_use_is_reported_with_the_disk_to_replace():
    (f,) = check_now(_spared())
    assert f.severity == Severity.WARNING and f.topic == "spare"
    assert f.title == "hot spare /dev/sdz stands in for /dev/sdb in mirror-0 (spare-1)"
    assert [a.argv for a in f.actions] == [("zpool", "replace", "tank", "/dev/sdb")]


def test_a_spare_put_in_by_hand_for_a_working_disk_names_it_and_offers_to_return_the_spare():
    spare = Vdev(name="spare-1", kind="spare", state="ONLINE", children=(leaf("sdb"), leaf("sdz")))
    p = pool(
        "tank",
        Vdev(name="mirror-0", kind="mirror", state="ONLINE", children=(leaf("sda"), spare)),
        leaf("sdz", vclass="spare", state="INUSE"),
    )
    (f,) = check_now(p)
    assert f.title == "hot spare /dev/sdz stands in for /dev/sdb in mirror-0 (spare-1)"
    assert "still works" in f.why and "failed disk" not in f.why
    # Nothing to replace: the way back is detaching the spare.
    assert [a.argv for a in f.actions] == [("zpool", "detach", "tank", "/dev/sdz")]


def _draid_with_two_spares_for_one_slot(spare6_cksum: int = 0) -> Vdev:
    """openzfs/zfs#16547 (corpus 098): spare-6 > replacing-0 > spare-0, both distributed
    spares of a draid2 taken for the one failed disk L6/old, L6 replacing it."""
    inner = Vdev(
        name="spare-0",
        kind="spare",
        state="DEGRADED",
        children=(leaf("L6/old", state="FAULTED", aux="external device fault"), leaf("draid2-0-1")),
    )
    replacing = Vdev(name="replacing-0", kind="replacing", state="DEGRADED", children=(inner, leaf("L6")))
    outer = Vdev(
        name="spare-6",
        kind="spare",
        state="DEGRADED",
        children=(replacing, leaf("draid2-0-0")),
        checksum_errors=spare6_cksum,
    )
    members = (*(leaf(f"L{i}") for i in range(6)), outer, leaf("L7"))
    return Vdev(name="draid2:8d:90c:2s-0", kind="draid", state="DEGRADED", children=members)


def test_nested_spares_name_the_one_failed_disk_and_both_spares():
    (f,) = check_now(pool("tank20", _draid_with_two_spares_for_one_slot(), state="DEGRADED"))
    assert f.topic == "spare", f.title
    assert f.title == (
        "hot spares /dev/draid2-0-0, /dev/draid2-0-1 stand in for /dev/L6/old in draid2:8d:90c:2s-0 "
        "(spare-6, spare-0)"
    )


def test_a_draid_rebuild_names_the_distributed_spare_not_every_member():
    """As zpool 2.3.2 printed it in the lab: every member "(resilvering)" while the distributed
    spare draid2-0-0 is rebuilt in place of the faulted m3."""
    busy = "(resilvering)"
    sp = Vdev(
        name="spare-3",
        kind="spare",
        state="DEGRADED",
        children=(
            leaf("m3", state="FAULTED", aux="external device fault"),
            leaf("draid2-0-0", kind="dspare", aux=busy),
        ),
    )
    members = (leaf("m0", aux=busy), leaf("m1", aux=busy), leaf("m2", aux=busy), sp, leaf("m4", aux=busy))
    top = Vdev(name="draid2:4d:7c:1s-0", kind="draid", state="DEGRADED", children=members)
    p = pool("dr", top, state="DEGRADED", scans=(scan("resilver", "scanning", pct_done=78.4),))
    f = one([x for x in check_now(p) if x.severity >= Severity.WARNING])
    assert f.severity == Severity.WARNING and f.title.startswith("draid2:4d:7c:1s-0 can lose 1 more disk (")
    assert "rebuilding onto distributed spare /dev/draid2-0-0 (its space is on every member)" in f.title, (
        f.title
    )


def test_errors_counted_on_a_vdev_itself_are_reported_with_where_it_sits():
    """A vdev's own counters (spare-6's 13.2K checksum errors) were read but never shown."""
    p = pool("tank20", _draid_with_two_spares_for_one_slot(spare6_cksum=13517), state="DEGRADED")
    f = one(check_now(p), topic="vdev-errors")
    assert f.severity == Severity.WARNING and f.subject == "spare-6"
    assert f.title == "spare-6 in draid2:8d:90c:2s-0: 13517 checksum errors on the vdev itself"
    assert [a.argv for a in f.actions] == [("zpool", "clear", "tank20"), ("zpool", "scrub", "tank20")]
    assert not [x for x in check_now(_spared()) if x.topic == "vdev-errors"]  # none counted: none said


def test_a_device_missing_since_import_is_named_by_its_guid_and_the_path_it_was():
    gone = Vdev(name="2354665233274818743", kind="disk", state="UNAVAIL", aux="cannot open", was="/dev/loop1")
    p = pool("tank", raidz(0, leaf("loop0"), gone, leaf("loop2"), state="DEGRADED"), state="DEGRADED")
    (f,) = [x for x in check_now(p) if x.severity >= Severity.WARNING]
    assert f.severity == Severity.CRITICAL
    assert "2354665233274818743 (was /dev/loop1) UNAVAIL" in f.title, f.title


def test_a_spare_still_resilvering_leaves_the_vdev_without_redundancy():
    (f,) = check_now(_spared("(resilvering)"))
    assert (
        f.severity == Severity.CRITICAL and f.subject == "mirror-0" and "resilvering onto /dev/sdz" in f.title
    )


def test_an_unusable_hot_spare_is_a_warning():
    p = pool("tank", mirror(0, leaf("sda"), leaf("sdb")), leaf("sdz", vclass="spare", state="UNAVAIL"))
    f = one(check_now(p), subject="/dev/sdz")
    assert f.severity == Severity.WARNING and "cannot stand in" in f.title


# --- error counters and the scrub story -------------------------------------------------------


def errors_pool(d1=(70, 0, 0), d2=(0, 0, 3), scans=()):
    return pool(
        "errors",
        mirror(0, leaf("/e/d1", kind="file", errors=d1), leaf("/e/d2", kind="file", errors=d2)),
        mirror(1, leaf("/e/d3", kind="file", errors=(0, 56, 0)), leaf("/e/d4", kind="file")),
        scans=scans,
    )


def test_static_error_counts_warn_and_advise_in_zpools_order():
    """errors capture, no scrub involved: READ 70 on d1, CKSUM 3 on d2, WRITE 56 on d3."""
    findings = check_now(errors_pool())
    d1 = one(findings, subject="/e/d1")
    assert d1.severity == Severity.WARNING and d1.title == "/e/d1 in mirror-0: 70 read errors"
    assert [a.action for a in d1.actions] == ["clear", "scrub", "replace"]  # look, clear, scrub, replace
    assert d1.actions[0].argv == ("zpool", "clear", "errors", "/e/d1")
    assert not any(f.subject == "/e/d4" for f in findings)


def test_errors_growing_outside_a_scrub_are_critical_until_cleared_whatever_the_window():
    grow = lambda i: errors_pool(d2=(0, 0, 3 + (10 * i if i < 10 else 90)))  # noqa: E731
    h = history(grow, 2000)  # grew in the first ten samples, then stayed put for half an hour
    f = one(health.check(h, CFG), subject="/e/d2")
    assert f.severity == Severity.CRITICAL and f.title == "/e/d2 in mirror-0: 93 checksum errors and growing"
    assert evidence(f)["Grown (outside scrubs)"] == "90"
    assert [a.action for a in f.actions][-1] == "replace"
    assert one(health.check(h, CFG), subject="/e/d1").severity == Severity.WARNING  # never grew
    cleared = h + [snap(h[-1].time + 1, errors_pool(d1=(0, 0, 0), d2=(0, 0, 0)))]
    assert not any(f.subject == "/e/d2" for f in health.check(cleared, CFG))


def test_errors_found_by_a_scrub_are_one_warning_about_the_scrub():
    """scrub-repair: a mirror side overwritten with garbage; the scrub repairs it (CKSUM)."""
    running = scan("scrub", "scanning", start_time=T0, processed=0)
    done = scan("scrub", "finished", start_time=T0, end_time=T0 + 20, processed=85 << 20, errors=0)

    def make(i):
        counts = (0, 0, min(i, 10) * 70)
        return pool(
            "tank",
            mirror(0, leaf("/s/a", kind="file"), leaf("/s/b", kind="file", errors=counts)),
            scans=(running if i <= 10 else done,),
        )

    findings = health.check(history(make, 30), CFG)
    (f,) = findings
    assert f.severity == Severity.WARNING and f.topic == "scrub-repair"
    assert f.title == (
        "tank: the scrub finished on 2023-11-14 at 22:13 UTC and repaired 85.0 MiB "
        "on /s/b (700 checksum errors), nothing unrepairable"
    )
    assert stories.SCRUB_RULE in f.why and stories.SCRUB_ADVICE in f.why and "smartctl" in f.why
    assert [a.action for a in f.actions] == ["clear", "scrub", "replace"]


def test_a_scrub_between_two_status_readings_still_owns_its_errors():
    """A small pool's scrub starts and ends between two `zpool status` runs."""
    done = scan("scrub", "finished", start_time=T0 + 5.2, end_time=T0 + 5.8, processed=3072, errors=0)

    def make(i):
        return pool(
            "tank",
            mirror(0, leaf("sda"), leaf("sdb", errors=(0, 0, 12 if i >= 6 else 0))),
            scans=(done,) if i >= 6 else (),
        )

    (f,) = health.check(history(make, 8), CFG)
    assert f.topic == "scrub-repair" and f.severity == Severity.WARNING


def test_a_pasted_status_after_a_repairing_scrub_is_the_scrub_story():
    """One sample (a paste): no growth is known; the scrub line says it repaired data."""
    done = scan("scrub", "finished", start_time=T0 - DAY, end_time=T0 - DAY + 60, processed=3072, errors=0)
    pasted = pool(
        "errors",
        mirror(0, leaf("/e/d1", kind="file"), leaf("/e/d2", kind="file", errors=(0, 0, 3))),
        scans=(done,),
    )
    (f,) = check_now(pasted)
    assert f.topic == "scrub-repair" and "repaired 3.0 KiB on /e/d2 (3 checksum errors)" in f.title


def test_a_running_scrub_that_has_repaired_already_is_the_same_evidence_so_far():
    """Corpus 199 (ZFS-8000-9P, 0.6.5): "488K repaired, 99.01% done" while the scrub runs, no
    device counter to see. It was OK (only "scrub 99 % done"): the repair is evidence now."""
    running = scan("scrub", "scanning", start_time=T0 - DAY, processed=499712, errors=0)
    (f,) = check_now(pool("tank", mirror(0, leaf("sda"), leaf("sdb")), scans=(running,)))
    assert f.topic == "scrub-repair" and f.severity == Severity.WARNING
    assert "running scrub" in f.title and "repaired 488 KiB so far" in f.title
    idle = scan("scrub", "scanning", start_time=T0 - DAY, processed=0, errors=0)
    assert check_now(pool("tank", mirror(0, leaf("sda"), leaf("sdb")), scans=(idle,))) == []


def test_unrepairable_scrub_errors_are_critical():
    done = scan("scrub", "finished", start_time=T0 - 100, end_time=T0 - 10, processed=1 << 20, errors=2)
    p = pool("tank", mirror(0, leaf("sda"), leaf("sdb", errors=(0, 0, 9))), scans=(done,))
    f = one(check_now(p), topic="scrub-repair")
    assert f.severity == Severity.CRITICAL and "2 blocks unrepairable" in f.title


def test_unrepairable_scrub_errors_no_longer_in_an_empty_error_log_are_a_warning():
    """Corpus 234 (2.4, an expanded raidz1): the scrub finished "with 1 errors", ZFS-8000-9P,
    "errors: No known data errors". The log is empty now, so the damaged block was freed since:
    checksum errors on the disks to look at (warning), no known lost data (it was CRITICAL). The
    same scrub with the log unknown (a paste cut before `errors:`) or listing files stays
    critical."""
    done = scan("scrub", "finished", start_time=T0 - 100, end_time=T0 - 10, processed=0, errors=1)
    disks = raidz(0, *(leaf(f"sd{c}", errors=(0, 0, 4)) for c in "abcd"))
    clean = pool("storage", disks, scans=(done,), error_count=0, msgid="ZFS-8000-9P")
    found = check_now(clean)
    assert max(f.severity for f in found) == Severity.WARNING, [f.title for f in found]
    f = one(found, topic="scrub-repair")
    assert "1 block unrepairable; none in the error log now" in f.title
    assert "Nothing is known lost now" in f.why
    for unknown in (
        pool("storage", disks, scans=(done,)),
        pool("storage", disks, scans=(done,), error_count=1),
    ):
        assert one(check_now(unknown), topic="scrub-repair").severity == Severity.CRITICAL


def test_permanent_data_errors_are_critical_and_list_the_files():
    p = pool(
        "perm",
        leaf("/e/p1", kind="file", errors=(0, 0, 2560)),
        error_count=1,
        error_files=("/perm/victim",),
        msgid="ZFS-8000-8A",
    )
    f = one(check_now(p), topic="data-errors")
    assert f.severity == Severity.CRITICAL and "1 permanent data error" in f.title
    assert evidence(f)["Affected"] == "/perm/victim"
    assert f.actions[0].action == "scrub"


def test_8A_without_the_error_list_is_still_permanent_data_errors():
    """zpool prints ZFS-8000-8A only when the error log holds entries: a paste cut before the
    `errors:` line (corpus 230: a read-only import, both mirror sides clean) still has them."""
    p = pool(
        "storage",
        mirror(0, leaf("a_crypt"), leaf("b_crypt")),
        status="One or more devices has experienced an error resulting in data corruption.",
        msgid="ZFS-8000-8A",
    )
    f = one(check_now(p), topic="data-errors")
    assert f.severity == Severity.CRITICAL and f.title == "storage: permanent data errors"
    assert evidence(f)["Data errors"] == "not listed (ZFS-8000-8A)"


@pytest.mark.parametrize("msgid", ["ZFS-8000-HC", "ZFS-8000-JQ"])
def test_io_failure_status_on_an_online_pool_is_a_suspended_pool(msgid):
    """corpus 219: a stripe of FUSE devices with one killed reads ONLINE, but zpool's HC/JQ status
    is printed only for a pool whose I/O is suspended (failmode wait/continue)."""
    p = pool(
        "t1",
        leaf("3"),
        leaf("4"),
        status="One or more devices are faulted in response to IO failures.",
        msgid=msgid,
    )
    f = one(check_now(p), subject="t1", subject_kind="pool", topic="")
    assert f.severity == Severity.CRITICAL
    assert f.title == "t1: ONLINE, I/O suspended" and "suspended" in f.why
    assert f.actions[0].argv == ("zpool", "clear", "t1")


def test_a_pool_reading_suspended_keeps_its_title():
    p = pool("tank", leaf("sda"), state="SUSPENDED", msgid="ZFS-8000-HC")
    f = one(check_now(p), subject="tank", subject_kind="pool", topic="")
    assert f.severity == Severity.CRITICAL and f.title == "tank: SUSPENDED"


def test_healthy_pool_has_no_health_findings():
    assert health.check(history(healthy_two_mirrors, 5), CFG) == []


def test_a_special_vdev_down_to_one_side_names_its_class_and_is_critical():
    from dataclasses import replace as _replace

    special = _replace(
        mirror(1, leaf("nvme0"), leaf("nvme1", state="OFFLINE"), state="DEGRADED"), vclass="special"
    )
    p = pool("tank", mirror(0, leaf("sda"), leaf("sdb")), special, state="DEGRADED")
    f = one(check_now(p), subject="mirror-1")
    assert f.severity == Severity.CRITICAL
    assert f.title.startswith("special mirror-1 has no redundancy left: runs on /dev/nvme0 alone"), f.title
    assert "metadata" in f.why


def _unshown(*leaves: Vdev) -> Vdev:
    """The vdev a paste of bare device rows does not show (zdash.paste: '(vdev-not-pasted)')."""
    return Vdev(name="(vdev-not-pasted)", kind="disk", state=UNSEEN, children=leaves, guid="g-unshown")


def test_devices_out_of_service_in_a_vdev_not_shown_are_judged_without_its_layout():
    """Corpus 211: two sibling rows, `sdj UNAVAIL 253 3 0` and `sdk FAULTED ... too many
    errors`, with no vdev row. The layout is unknown, but two members of one vdev out leaves no
    redundancy in any vdev short of triple parity or a 4-way mirror: critical, both named. It
    was two warnings about their error counts."""
    sdj = leaf("sdj", state="UNAVAIL", errors=(253, 3, 0))
    sdk = leaf("sdk", state="FAULTED", errors=(255, 3, 0), aux="too many errors")
    (f,) = check_now(pool("(pool-not-pasted)", _unshown(sdj, sdk), state=UNSEEN))
    assert f.severity == Severity.CRITICAL and "sdj" in f.title and "sdk" in f.title
    assert "not shown" in f.title or "not pasted" in f.title
    one = check_now(pool("(pool-not-pasted)", _unshown(leaf("sda"), sdk), state=UNSEEN))
    (g,) = one
    assert g.severity == Severity.WARNING and "sdk" in g.title and "2-way mirror" in g.why
    assert check_now(pool("(pool-not-pasted)", _unshown(leaf("sda"), leaf("sdb")), state=UNSEEN)) == []


# --- advice that respects what is going on (issue 26) ---------------------------------------------


def test_a_spare_being_resilvered_in_is_left_alone_until_the_resilver_ends():
    """`zpool replace tank sdb sdz` onto a hot spare, by hand, for a disk that still works: the
    running resilver is the admin's; detaching the spare now would undo it."""
    spare = Vdev(
        name="spare-1", kind="spare", state="ONLINE", children=(leaf("sdb"), leaf("sdz", aux="(resilvering)"))
    )
    p = pool(
        "tank",
        Vdev(name="mirror-0", kind="mirror", state="ONLINE", children=(leaf("sda"), spare)),
        leaf("sdz", vclass="spare", state="INUSE"),
        scans=(scan("resilver", "scanning"),),
    )
    (f,) = check_now(p)
    assert f.topic == "spare" and f.actions == ()
    assert "Leave it until the resilver ends" in f.why and "zpool detach" not in f.why


def test_an_offline_disk_can_be_brought_back_or_replaced():
    p = pool("tank", mirror(0, leaf("sda"), leaf("sdb", state="OFFLINE")), state="DEGRADED")
    (f,) = check_now(p)
    assert f.severity == Severity.CRITICAL
    assert [a.argv[:2] for a in f.actions] == [("zpool", "online"), ("zpool", "replace")]
    assert stories.NO_REDUNDANCY_RULE in f.why and stories.OFFLINE_ADVICE in f.why


@pytest.mark.parametrize(
    "state, aux, msgid",
    [
        ("UNAVAIL", None, "ZFS-8000-4J"),
        ("UNAVAIL", "corrupted data", None),
        ("FAULTED", "corrupted data", None),
    ],
)
def test_a_disk_whose_label_is_lost_is_replaced_first_not_onlined_or_cleared(state, aux, msgid):
    """ZFS-8000-4J: the label is missing or invalid; `zpool online` cannot read it back and a
    clear and a re-scrub fix nothing: replace."""
    p = pool(
        "rpool",
        Vdev(
            name="raidz1-0",
            kind="raidz1",
            state="DEGRADED",
            children=(
                leaf("sda"),
                leaf("17682433485448789979", path="17682433485448789979", state=state, aux=aux),
                leaf("sdc"),
            ),
        ),
        state="DEGRADED",
        msgid=msgid,
    )
    (f,) = [f for f in check_now(p) if f.subject == "raidz1-0"]
    assert [a.argv[:2] for a in f.actions] == [("zpool", "replace")]
    assert stories.LABEL_ADVICE in f.why


def test_a_faulted_disk_is_replaced_and_cleared_only_once_the_cause_is_known():
    p = pool(
        "tank", mirror(0, leaf("sda"), leaf("sdb", state="FAULTED", aux="too many errors")), state="DEGRADED"
    )
    (f,) = check_now(p)
    replace, clear = f.actions
    assert replace.argv[:2] == ("zpool", "replace") and clear.argv[:2] == ("zpool", "clear")
    assert "once SMART and the kernel log show the cause was transient" in clear.label
    assert stories.FAULTED_ADVICE in f.why


def test_a_replace_that_resilvered_but_kept_its_old_disk_is_not_ok_beside_degraded():
    """degraded-resilver's end: the resilver done, the OFFLINE old disk still in replacing-1 for a
    moment, zpool says DEGRADED: a warning saying why (ZFS detaches it by itself), never OK."""
    replacing = Vdev(
        name="replacing-1",
        kind="replacing",
        state="DEGRADED",
        children=(leaf("loop3", state="OFFLINE"), leaf("newdisk")),
    )
    p = pool(
        "tank",
        mirror(0, leaf("loop0"), leaf("loop1")),
        Vdev(name="mirror-1", kind="mirror", state="DEGRADED", children=(leaf("loop2"), replacing)),
        state="DEGRADED",
        scans=(scan("resilver", "finished"),),
    )
    (f,) = [f for f in check_now(p) if f.severity > Severity.INFO]
    assert f.severity == Severity.WARNING and f.topic == "replace"
    assert (
        f.title
        == "replacing-1 in mirror-1: /dev/newdisk is resilvered, the old /dev/loop3 (OFFLINE) not yet detached"
    )
    assert [a.argv for a in f.actions] == [("zpool", "detach", "tank", "/dev/loop3")]


def test_a_pool_zpool_calls_degraded_is_never_ok_even_when_every_vdev_shown_is_whole():
    (f,) = check_now(
        pool(
            "tank",
            mirror(0, leaf("sda"), leaf("sdb")),
            state="DEGRADED",
            status="One or more devices has been removed",
        )
    )
    assert f.severity == Severity.WARNING and f.title == "tank: DEGRADED"


def test_smartctl_only_for_a_device_path_and_a_paste_speaks_of_this_output():
    """Short names (as a paste prints them) go to zpool, which resolves them; smartctl needs the
    device node. A paste is one moment: it cannot say the counts have not grown."""
    p = pool("tank", mirror(0, leaf("sda"), leaf("B0", path="B0", errors=(0, 0, 3))))
    one_look = CheckConfig(one_look=True)
    (f,) = health.check([snap(T0, p)], one_look)
    assert [a.argv[0] for a in f.actions] == ["zpool", "zpool", "zpool"]
    assert "as of this output" in f.why and "while zdash watched" not in f.why
    (live,) = check_now(pool("tank", mirror(0, leaf("sda"), leaf("sdb", errors=(0, 0, 3)))))
    assert live.actions[0].argv == ("smartctl", "-a", "/dev/sdb")
