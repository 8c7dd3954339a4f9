"""Verdicts that hold, on real pools: the severity of a missing disk follows the redundancy its
top-level vdev has left, and one fault is one finding.

- nothing left to lose (a 2-way mirror on one side, a raidz1 missing a member): CRITICAL about
  the vdev, its title naming the disks it now runs on and the one that is out;
- reduced but not gone (a 3-way mirror minus one, a raidz2 minus one): WARNING "can lose 1 more";
- a hot spare standing in: WARNING naming the spare, the disk it replaces and the vdev.

Each pool is built in the lab, the fault made the way it happens (offline, ZFS faulting a disk
after errors, a disk missing at import), and `zdash check --json` asked, as a monitoring system
would.
"""

import json
import time

import pytest

from tests.zfs.lab import set_delay, sh
from tests.zfs.verdicts import above_info, check, titles

SUSPEND = "/sys/module/zfs/parameters/zfs_scan_suspend_progress"


def one_problem(doc):
    """The single finding above INFO: one fault, one finding (no extra one for the pool's
    DEGRADED state, nor one for the leaf beside the one for its vdev)."""
    problems = above_info(doc)
    assert len(problems) == 1, titles(problems)
    return problems[0]


def fault(pool, dev):
    """ZFS faults a disk after persistent errors: the state ZED would set, set by zinject."""
    sh("zinject", "-d", dev, "-A", "fault", pool)
    assert "FAULTED" in sh("zpool", "status", pool)


def pull_at_import(lab, pool, dev):
    """The disk is missing when the pool is imported (a dead disk at boot, a cable left out):
    zpool shows its GUID, UNAVAIL, "was <path>"."""
    sh("zpool", "export", pool)
    sh("losetup", "-d", dev)
    lab.loops.remove(dev)
    sh("zpool", "import", "-d", "/dev", pool)


def test_two_way_mirror_with_one_side_offline_is_critical_naming_the_other(lab):
    a, b, c, d = (lab.loop(x) for x in "abcd")
    lab.pool("rm2", "mirror", a, b, "mirror", c, d)
    sh("zpool", "offline", "rm2", d)
    doc = check("rm2")
    f = one_problem(doc)
    assert (f["check"], f["subject"], f["severity"]) == ("health", "mirror-1", "critical"), titles([f])
    assert f["title"] == f"mirror-1 has no redundancy left: runs on {c} alone ({d} OFFLINE)"
    assert ["zpool", "online", "rm2", d] in [x["argv"] for x in f["actions"]]
    assert a not in f["title"] and b not in f["title"]  # mirror-0 is whole: not part of it
    assert doc["exit_code"] == 2


def test_three_way_mirror_with_one_side_offline_can_lose_one_more(lab):
    a, b, c = lab.loop("a"), lab.loop("b"), lab.loop("c")
    lab.pool("rm3", "mirror", a, b, c)
    sh("zpool", "offline", "rm3", c)
    doc = check("rm3")
    f = one_problem(doc)
    assert (f["check"], f["subject"], f["severity"]) == ("health", "mirror-0", "warning"), titles([f])
    assert f["title"] == f"mirror-0 can lose 1 more disk ({c} OFFLINE)"
    assert doc["exit_code"] == 1


@pytest.mark.parametrize("how", ["offline", "faulted", "missing at import"])
def test_raidz1_missing_a_member_is_critical(lab, how):
    a, b, c = lab.loop("a"), lab.loop("b"), lab.loop("c")
    lab.pool("rz1", "raidz1", a, b, c)
    lab.fill("/rz1/data", 8)
    if how == "offline":
        sh("zpool", "offline", "rz1", b)
    elif how == "faulted":
        fault("rz1", b)
    else:
        pull_at_import(lab, "rz1", b)
    try:
        doc = check("rz1")
    finally:
        sh("zinject", "-c", "all", check=False)
    f = one_problem(doc)
    assert (f["check"], f["subject"], f["severity"]) == ("health", "raidz1-0", "critical"), titles([f])
    assert f["title"].startswith(f"raidz1-0 has no redundancy left: runs on {a}, {c} ("), f["title"]
    state = {"offline": "OFFLINE", "faulted": "FAULTED", "missing at import": "UNAVAIL"}[how]
    assert state in f["title"], f["title"]
    # the missing disk is named: by its path, or (missing at import) its GUID and last path
    assert b in json.dumps(f["title"] if how != "missing at import" else f), f
    assert doc["exit_code"] == 2


def test_a_member_missing_at_import_is_named_by_its_last_path_in_the_title(lab):
    a, b, c = lab.loop("a"), lab.loop("b"), lab.loop("c")
    lab.pool("rzgone", "raidz1", a, b, c)
    pull_at_import(lab, "rzgone", b)
    f = one_problem(check("rzgone"))
    assert b in f["title"], f["title"]


def test_raidz2_missing_one_can_lose_one_more(lab):
    d = [lab.loop(f"d{i}") for i in range(4)]
    lab.pool("rz2", "raidz2", *d)
    sh("zpool", "offline", "rz2", d[2])
    doc = check("rz2")
    f = one_problem(doc)
    assert (f["check"], f["subject"], f["severity"]) == ("health", "raidz2-0", "warning"), titles([f])
    assert f["title"] == f"raidz2-0 can lose 1 more disk ({d[2]} OFFLINE)"
    assert doc["exit_code"] == 1


def suspend_scans(on: bool) -> None:
    with open(SUSPEND, "w") as f:
        f.write("1" if on else "0")


def replace_and_hold_mid_resilver(pool, old, new):
    """`zpool replace`, let the resilver write onto the new disk until zpool marks it
    "(resilvering)", then hold the scan there (zfs_scan_suspend_progress)."""
    sh("zpool", "replace", pool, old, new)
    end = time.monotonic() + 60
    while "(resilvering)" not in sh("zpool", "status", pool):
        assert time.monotonic() < end, sh("zpool", "status", pool)
        time.sleep(0.1)
    suspend_scans(True)
    assert "resilver in progress" in sh("zpool", "status", pool)


def test_hot_spare_standing_in_for_a_faulted_disk(lab):
    a, b = lab.loop("a"), lab.loop("b")
    s = lab.slow("hotspare", 20)  # slow: a resilver long enough to catch in the middle
    lab.pool("rsp", "mirror", a, b, "spare", s)
    lab.fill("/rsp/data", 48)
    fault("rsp", b)
    try:
        # Faulted, no spare attached yet (ZED is not running here): one side left.
        f = one_problem(check("rsp"))
        assert (f["subject"], f["severity"]) == ("mirror-0", "critical"), titles([f])
        assert f"runs on {a} alone" in f["title"] and f"{b} FAULTED" in f["title"], f["title"]

        # The spare attached but still being resilvered is not a copy yet: still CRITICAL,
        # and it says the repair is under way.
        try:
            replace_and_hold_mid_resilver("rsp", b, s)
            f = one_problem(check("rsp"))
        finally:
            suspend_scans(False)
        assert (f["subject"], f["severity"]) == ("mirror-0", "critical"), titles([f])
        assert f"runs on {a} alone" in f["title"] and f"resilvering onto {s}" in f["title"], f["title"]
        assert f["actions"] == []  # the repair is running: nothing to do but wait

        # Resilvered: the vdev is whole again on the spare. A WARNING that the spare stands in.
        set_delay("hotspare", 0)
        sh("zpool", "wait", "-t", "resilver", "rsp")
        doc = check("rsp")
    finally:
        sh("zinject", "-c", "all", check=False)
    f = one_problem(doc)
    assert (f["check"], f["subject"], f["severity"], f["topic"]) == ("health", "mirror-0", "warning", "spare")
    # the spare-N group zpool shows it in is named too (main, d8fd0d0)
    assert f["title"] == f"hot spare {s} stands in for {b} in mirror-0 (spare-1)"
    assert ["zpool", "replace", "rsp", b] in [x["argv"] for x in f["actions"]]
    assert doc["exit_code"] == 1


def test_a_draid_rebuilding_onto_its_distributed_spare_keeps_the_parity_it_has(lab):
    """`zpool replace` of a faulted dRAID member by the distributed spare: zpool marks every
    member "(resilvering)" while it runs (the spare's space is on all of them). Read as missing
    members, a draid2 with one disk out was "lost"; it can lose 1 more."""
    d = [lab.slow(f"m{i}", 10) for i in range(7)]  # slow: a rebuild long enough to catch
    lab.pool("rdr", "draid2:4d:1s:7c", *d)
    lab.fill("/rdr/data", 48)
    fault("rdr", d[3])
    try:
        replace_and_hold_mid_resilver("rdr", d[3], "draid2-0-0")
        status = sh("zpool", "status", "rdr")
        assert all(f"{m}" in status for m in ("m0", "m6")) and status.count("(resilvering)") >= 6, status
        f = one_problem(check("rdr"))
    finally:
        suspend_scans(False)
        sh("zinject", "-c", "all", check=False)
    assert (f["subject"], f["severity"]) == ("draid2:4d:7c:1s-0", "warning"), titles([f])
    assert f["title"].startswith("draid2:4d:7c:1s-0 can lose 1 more disk ("), f["title"]
    assert "rebuilding onto distributed spare draid2-0-0" in f["title"], f["title"]


@pytest.mark.parametrize("onto", ["new disk", "hot spare"])
def test_a_disk_not_yet_written_by_the_resilver_is_not_a_copy(lab, onto):
    """Until a resilver has written to the new disk (its scanning phase, minutes on a big pool;
    a deferred or suspended resilver) zpool does not tag it "(resilvering)", yet it holds no
    copy: the mirror still runs on one disk."""
    a, b, n = lab.loop("a"), lab.loop("b"), lab.loop("n")
    spare = ("spare", n) if onto == "hot spare" else ()
    lab.pool("rsq", "mirror", a, b, *spare)
    lab.fill("/rsq/data", 16)
    if onto == "hot spare":
        fault("rsq", b)
    else:
        sh("zpool", "offline", "rsq", b)
    suspend_scans(True)  # the resilver starts and stays at 0 B issued
    try:
        sh("zpool", "replace", "rsq", b, n)
        assert "resilver in progress" in sh("zpool", "status", "rsq")
        f = one_problem(check("rsq"))
    finally:
        suspend_scans(False)
        sh("zinject", "-c", "all", check=False)
    assert (f["subject"], f["severity"]) == ("mirror-0", "critical"), titles([f])
    assert f"runs on {a} alone" in f["title"], f["title"]


def test_hot_spare_put_in_by_hand_is_reported(lab):
    """`zpool replace POOL DISK SPARE` on a disk that still works (the admin swapping a suspect
    disk out): the spare is in use and the pool has one spare fewer."""
    a, b, s = lab.loop("a"), lab.loop("b"), lab.loop("s")
    lab.pool("rsh", "mirror", a, b, "spare", s)
    lab.fill("/rsh/data", 8)
    sh("zpool", "replace", "rsh", b, s)
    sh("zpool", "wait", "-t", "resilver", "rsh")
    doc = check("rsh")
    f = one_problem(doc)
    assert (f["check"], f["subject"], f["severity"], f["topic"]) == ("health", "mirror-0", "warning", "spare")
    assert f["title"].startswith(f"hot spare {s} stands in for "), f["title"]
    assert doc["exit_code"] == 1


def test_hot_spare_put_in_by_hand_names_the_disk_it_replaces(lab):
    a, b, s = lab.loop("a"), lab.loop("b"), lab.loop("s")
    lab.pool("rsn", "mirror", a, b, "spare", s)
    sh("zpool", "replace", "rsn", b, s)
    sh("zpool", "wait", "-t", "resilver", "rsn")
    f = one_problem(check("rsn"))
    assert f["title"] == f"hot spare {s} stands in for {b} in mirror-0 (spare-1)", f["title"]


def test_a_spare_that_cannot_be_opened_is_reported(lab):
    a, b, s = lab.loop("a"), lab.loop("b"), lab.loop("s")
    lab.pool("rsu", "mirror", a, b, "spare", s)
    pull_at_import(lab, "rsu", s)
    doc = check("rsu")
    f = one_problem(doc)
    assert (f["check"], f["subject"], f["severity"], f["topic"]) == ("health", s, "warning", "spare")
    assert "cannot stand in" in f["title"], f["title"]
    assert doc["exit_code"] == 1


def test_a_spare_being_resilvered_in_by_hand_is_left_alone_until_it_ends(lab):
    """`zpool replace POOL DISK SPARE` while it runs: the admin's choice, no detach offered (it
    would undo the replace); the advice says to wait for the resilver."""
    a, b = lab.loop("a"), lab.loop("b")
    s = lab.slow("hotspare", 20)  # slow: a resilver long enough to catch in the middle
    lab.pool("rsr", "mirror", a, b, "spare", s)
    lab.fill("/rsr/data", 16)
    try:
        replace_and_hold_mid_resilver("rsr", b, s)
        doc = check("rsr")
    finally:
        suspend_scans(False)
        set_delay("hotspare", 0)
    (f,) = [f for f in doc["findings"] if f["topic"] == "spare"]
    assert f["actions"] == [] and "Leave it until the resilver ends" in f["why"], titles([f])


def test_an_attach_zdash_watches_is_redundancy_added_not_a_mirror_that_lost_a_side(lab):
    """A single disk made a mirror while zdash watches: its new side resilvering is redundancy
    being added (the vdev was a single disk a moment ago), not a 2-way mirror on one side: no
    CRITICAL. The same picture without having seen the attach is CRITICAL (a side that is not
    a copy yet), as the redundancy model says."""
    import threading

    a, n = lab.loop("a"), lab.slow("attached", 20)  # slow: a resilver to catch in the middle
    lab.pool("rat", a)
    lab.fill("/rat/data", 16)
    result = {}
    watcher = threading.Thread(target=lambda: result.update(doc=check("rat", samples=12, interval=1.0)))
    watcher.start()
    try:
        time.sleep(4)  # zdash has read the single-disk pool
        sh("zpool", "attach", "rat", a, n)
        end = time.monotonic() + 60
        while "(resilvering)" not in sh("zpool", "status", "rat"):
            assert time.monotonic() < end, sh("zpool", "status", "rat")
            time.sleep(0.1)
        suspend_scans(True)
        watcher.join(120)
        unseen = check("rat")  # a fresh look: the attach was not seen
    finally:
        suspend_scans(False)
        set_delay("attached", 0)
    assert above_info(result["doc"]) == [], titles(above_info(result["doc"]))
    f = one_problem(unseen)
    assert (f["subject"], f["severity"]) == ("mirror-0", "critical"), titles([f])
    assert "has no redundancy left until it completes" in f["title"], f["title"]
