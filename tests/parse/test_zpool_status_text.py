"""Text `zpool status`: every 2.3.2 capture, hand-checked numbers, and 0.6-2.4 era examples."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from zdash.model import Pool, Vdev
from zdash.parse import ParseError
from zdash.parse.units import parse_ctime
from zdash.parse.zpool_status import parse_status
from zdash.parse.zpool_status.text import parse_status_text
from zdash.parse.zpool_status.text_scan import parse_scan_block

CAPTURES = Path(__file__).resolve().parents[1] / "captures"
ALL_STATUS = sorted(CAPTURES.glob("*/zpool-status*.txt"))
MIB, GIB, TIB, PIB = 1024**2, 1024**3, 1024**4, 1024**5


def _id(p: Path) -> str:
    return f"{p.parent.name}/{p.name}"


def _command(path: Path) -> tuple[list[str], int]:
    """The argv and exit status meta.txt records for a capture file."""
    meta = (path.parent / "meta.txt").read_text()
    m = re.search(rf"^capture {re.escape(path.name)}\s+<- (.*?)\s+\(exit (\d+)\)$", meta, re.M)
    assert m, f"{path.name} not described in meta.txt"
    argv = [w for w in shlex.split(m.group(1)) if "=" not in w]  # drop VAR=value prefixes
    return argv, int(m.group(2))


def _one(rel: str) -> Pool:
    (pool,) = parse_status_text((CAPTURES / rel).read_text())
    return pool


def _tree(v: Vdev, depth: int = 0) -> list[tuple]:
    rows = [(depth, v.name, v.kind, v.state)]
    for c in v.children:
        rows.extend(_tree(c, depth + 1))
    return rows


@pytest.mark.parametrize("path", ALL_STATUS, ids=_id)
def test_every_capture_parses_through_the_dispatcher(path):
    """Each file goes through parse_status with the exact argv meta.txt recorded: JSON for
    -j (including scrubbing-2, whose name says -j but whose command had --json-int), text
    otherwise; a command that failed (exit 1: -c refused for root) is a ParseError."""
    argv, rc = _command(path)
    if rc != 0:
        with pytest.raises(ParseError, match="Can't run -c"):
            parse_status(argv, path.read_text())
        return
    pools = parse_status(argv, path.read_text())
    assert [p.name for p in pools] == [argv[-1]]  # the pool named on the command line
    assert pools[0].root.kind == "root" and pools[0].top_level
    assert all(v.state for v in pools[0].root.walk())


def test_healthy_two_mirrors_of_file_vdevs():
    pool = _one("healthy/zpool-status.txt")
    assert (pool.name, pool.state, pool.status, pool.msgid, pool.scans) == (
        "healthy",
        "ONLINE",
        None,
        None,
        (),
    )
    assert pool.error_count == 0 and pool.error_files == ()
    assert [(v.name, v.kind, len(v.children)) for v in pool.top_level] == [
        ("mirror-0", "mirror", 2),
        ("mirror-1", "mirror", 2),
    ]
    assert [(v.path, v.kind) for v in pool.leaves()] == [
        (f"/tmp/zl/healthy/d{i}", "file") for i in range(1, 5)
    ]


def test_slow_column_counts_the_deranged_disk():
    pool = _one("deranged-disk/zpool-status-s-P-p.txt")
    assert {v.path: v.slow_ios for v in pool.leaves()} == {
        "/dev/loop0": 0,
        "/dev/loop1": 0,
        "/dev/loop2": 2,
        "/dev/mapper/slowdisk": 333,
    }
    assert all(v.kind == "disk" for v in pool.leaves())
    # -p prints 0 on interior rows, -s without -p prints '-': SLOW is a leaf fact either way.
    assert [v.slow_ios for v in pool.root.walk() if v.children] == [None, None, None]
    human = _one("deranged-disk/zpool-status-s-P.txt")
    assert human.find("/dev/mapper/slowdisk").slow_ios == 333 and human.root.slow_ios is None
    # Without -s there is no SLOW column: unknown, not zero.
    assert all(v.slow_ios is None for v in _one("deranged-disk/zpool-status.after-load.txt").leaves())


def test_script_columns_do_not_leak_into_annotations():
    for rel in ("healthy/zpool-status-c-upath-size.txt", "deranged-disk/zpool-status-c-upath-size.txt"):
        pool = _one(rel)
        assert all(v.aux is None and v.read_errors == 0 for v in pool.root.walk()), rel
    assert [v.name for v in _one("deranged-disk/zpool-status-c-upath-size.txt").leaves()] == [
        "loop0",
        "loop1",
        "loop2",
        "slowdisk",
    ]


def test_offline_leaf_degrades_its_mirror():
    pool = _one("degraded/zpool-status.offline.txt")
    assert pool.state == "DEGRADED" and pool.msgid is None  # offline has no msgid (§3.1)
    assert pool.status.startswith("One or more devices has been taken offline by the administrator.")
    assert "continue functioning in a degraded state." in pool.status  # continuation joined
    assert pool.action == "Online the device using 'zpool online' or replace the device with 'zpool replace'."
    assert (pool.find("mirror-0").state, pool.find("/tmp/zl/degraded/d2").state) == ("DEGRADED", "OFFLINE")
    assert pool.find("mirror-1").state == "ONLINE"


def test_resilvering_replacing_vdev_and_scan_progress():
    pool = _one("degraded/zpool-status.resilvering.txt")
    replacing = pool.find("replacing-1")
    assert replacing.kind == "replacing" and replacing.state == "DEGRADED"
    assert [(c.name, c.state, c.aux) for c in replacing.children] == [
        ("/tmp/zl/degraded/d2", "OFFLINE", None),
        ("/tmp/zl/degraded/new2", "ONLINE", "(resilvering)"),
    ]
    (scan,) = pool.scans
    assert (scan.function, scan.state, scan.pct_done, scan.zpool_eta_s) == ("resilver", "scanning", 98.67, 0)
    # "300M / 300M scanned, 163M / 165M issued at 81.6M/s" / "151M resilvered"
    assert (scan.examined, scan.to_examine, scan.issued) == (300 * MIB, 300 * MIB, 163 * MIB)
    assert scan.skipped == 135 * MIB and scan.processed == 151 * MIB
    assert scan.start_time == 1795318805 and pool.scan is scan


def test_resilver_that_has_not_issued_yet_has_no_eta():
    (scan,) = _one("degraded/zpool-status.attached-resilvering.txt").scans
    assert (scan.state, scan.pct_done, scan.issued, scan.zpool_eta_s) == ("scanning", 0.0, 0, None)


def test_finished_resilver_start_is_end_minus_duration():
    (scan,) = _one("degraded/zpool-status.resilvered.txt").scans
    # "resilvered 165M in 00:00:07 with 0 errors on Sun Nov 22 03:40:12 2026"; JSON: 1795318805..812
    assert (scan.function, scan.state, scan.processed, scan.errors) == ("resilver", "finished", 165 * MIB, 0)
    assert (scan.start_time, scan.end_time, scan.pct_done) == (1795318805, 1795318812, None)


def test_paused_scrub():
    pool = _one("scrub/zpool-status.scrub-paused.txt")
    (scan,) = pool.scans
    assert (scan.function, scan.state, scan.pct_done, scan.zpool_eta_s) == ("scrub", "paused", 74.49, None)
    # paused since 03:41:06 (JSON scrub_pause 1795318866), started on 03:40:55 (1795318855)
    assert (scan.pause_time, scan.start_time) == (1795318866, 1795318855)
    assert (scan.issued, scan.to_examine) == (298 * MIB, 400 * MIB)


@pytest.mark.parametrize(
    ("rel", "pct", "eta", "issued"),
    [
        ("scrub/zpool-status.scrubbing.txt", 24.77, 9, round(99.2 * MIB)),
        ("scrub/zpool-status.scrubbing-2.txt", 71.12, 3, 285 * MIB),
        ("scrub/zpool-status-s-P-p.scrubbing.txt", 26.08, 8, 104 * MIB),  # -p leaves scan lines human
    ],
)
def test_running_scrub(rel, pct, eta, issued):
    (scan,) = _one(rel).scans
    assert (scan.state, scan.pct_done, scan.zpool_eta_s, scan.issued) == ("scanning", pct, eta, issued)


def test_errors_after_scrub_counts_per_leaf():
    pool = _one("errors/zpool-status.after-scrub.txt")
    assert pool.msgid == "ZFS-8000-9P" and pool.error_count == 0
    errs = {v.name: (v.read_errors, v.write_errors, v.checksum_errors) for v in pool.leaves()}
    assert errs == {
        "/tmp/zl/errors/d1": (70, 0, 0),
        "/tmp/zl/errors/d2": (0, 0, 3),
        "/tmp/zl/errors/d3": (0, 56, 0),
        "/tmp/zl/errors/d4": (0, 0, 0),
    }
    (scan,) = pool.scans
    assert (scan.function, scan.state, scan.processed, scan.errors) == ("scrub", "finished", 3 * 1024, 0)
    assert _one("errors/zpool-status.cleared.txt").status is None


def test_permanent_errors_list_the_file():
    human, exact = _one("errors/zpool-status.permanent.txt"), _one("errors/zpool-status-s-P-p.permanent.txt")
    for pool in (human, exact):
        assert pool.msgid == "ZFS-8000-8A" and pool.error_files == ("/perm/victim",)
        assert pool.error_count == 1  # text never prints the count here: files are a lower bound
        assert pool.scans[0].errors == 1280
    assert human.find("/tmp/zl/errors/p1").checksum_errors == 2560  # "2.50K"
    assert exact.find("/tmp/zl/errors/p1").checksum_errors == 2562  # -p


def test_data_error_count_without_v():
    # print_error_log() without -v: "errors: N data errors, use '-v' for a list" (§3.1)
    text = (
        (CAPTURES / "healthy/zpool-status.txt")
        .read_text()
        .replace("No known data errors", "3 data errors, use '-v' for a list")
    )
    (pool,) = parse_status_text(text)
    assert (pool.error_count, pool.error_files) == (3, ())


def test_raidz_kinds_and_a_single_disk_top_level():
    wide = _one("raidz-wide/zpool-status.wide.txt")
    assert [(v.name, v.kind, len(v.children)) for v in wide.top_level] == [("raidz2-0", "raidz2", 10)]
    mixed = _one("raidz-wide/zpool-status.mixed.txt")
    assert [(v.name, v.kind, v.is_leaf) for v in mixed.top_level] == [
        ("raidz1-0", "raidz1", False),
        ("mirror-1", "mirror", False),
        ("/tmp/zl/raidz-wide/m7", "file", True),
    ]


def test_several_pools_in_one_output():
    text = "\n".join(
        (CAPTURES / rel).read_text()
        for rel in (
            "degraded/zpool-status.single-disk.txt",
            "errors/zpool-status.permanent.txt",
            "scrub/zpool-status.scrub-paused.txt",
        )
    )
    pools = parse_status_text(text)
    assert [(p.name, p.error_files, len(p.scans)) for p in pools] == [
        ("single", (), 0),
        ("perm", ("/perm/victim",), 1),
        ("scrub", (), 1),
    ]


def test_pasted_text_with_spaces_gives_the_same_tree():
    text = (CAPTURES / "degraded/zpool-status.resilvering.txt").read_text()
    (tabbed,) = parse_status_text(text)
    (pasted,) = parse_status_text(text.replace("\t", "        ").replace("\n", "   \r\n"))
    assert _tree(pasted.root) == _tree(tabbed.root) and pasted.scans == tabbed.scans
    assert pasted.status == tabbed.status


def test_not_a_status_report():
    with pytest.raises(ParseError, match="no 'pool:' block"):
        parse_status_text("cannot open 'tank': no such pool\n")
    assert parse_status(["zpool", "status"], "no pools available\n") == ()


# --- Older formats, quoted from public reports (see each URL); tabs kept where GitHub kept them.

# 0.8, https://github.com/openzfs/zfs/issues/840 (2020-01-20, pasted: TABs became spaces).
# Quoted up to the last complete row of our copy; it has no errors: line.
ISSUE_840 = """\
  pool: tank
 state: DEGRADED
status: One or more devices is currently being resilvered.  The pool will
        continue to function, possibly in a degraded state.
action: Wait for the resilver to complete.
  scan: resilver in progress since Mon Jan 20 14:53:56 2020
        590G scanned at 497M/s, 229G issued at 193M/s, 14.4T total
        32.2G resilvered, 1.55% done, 0 days 21:27:01 to go
config:

        NAME                                            STATE     READ WRITE CKSUM
        tank                                            DEGRADED     0     0     0
          raidz2-0                                      DEGRADED     0     0     0
            ata-WDC_WD30EFRX-68AX9N0_WD-WCC1T1489518    ONLINE       0     0     0
            ata-WDC_WD30EFRX-68AX9N0_WD-WCC1T1489979    ONLINE       0     0     0
            ata-WDC_WD30EFRX-68EUZN0_WD-WCC4N7PV8232    ONLINE       0     0     0
            replacing-3                                 DEGRADED     0     0     0
              9593279170455378102                       UNAVAIL      0     0     0  was /dev/disk/by-id/ata-WDC_WD30EFRX-68AX9N0_WD-WCC1T1545830-part1
              ata-WDC_WD60EFAX-68SHWN0_WD-WX11D39929YU  ONLINE       0     0     0  (resilvering)
            ata-WDC_WD30EFRX-68AX9N0_WD-WCC1T1545960    ONLINE       0     0     0
"""


def test_08_missing_device_in_replacing_and_08_scan_line():
    (pool,) = parse_status_text(ISSUE_840)
    (raidz,) = pool.top_level
    assert (raidz.kind, len(raidz.children)) == ("raidz2", 5)
    replacing = raidz.children[3]
    gone, new = replacing.children
    assert (replacing.kind, gone.kind, gone.state, gone.guid) == (
        "replacing",
        "missing",
        "UNAVAIL",
        "9593279170455378102",
    )
    assert gone.was == "/dev/disk/by-id/ata-WDC_WD30EFRX-68AX9N0_WD-WCC1T1545830-part1" and gone.aux is None
    assert (new.kind, new.aux, new.path) == ("disk", "(resilvering)", None)
    (scan,) = pool.scans
    assert (scan.examined, scan.issued, scan.to_examine) == (590 * GIB, 229 * GIB, round(14.4 * TIB))
    assert scan.skipped is None  # 0.8 has no "issued / total" pair to derive it from
    assert (scan.processed, scan.pct_done) == (round(32.2 * GIB), 1.55)
    assert scan.zpool_eta_s == 21 * 3600 + 27 * 60 + 1
    assert scan.start_time == parse_ctime("Mon Jan 20 14:53:56 2020")
    assert pool.error_count is None  # no errors: line quoted: unknown, not "no errors"


# 0.8 (2018), https://github.com/openzfs/zfs/issues/7537: replacing-0 and an aux annotation.
ISSUE_7537 = """\
  pool: vz
 state: DEGRADED
status: One or more devices is currently being resilvered.  The pool will
\tcontinue to function, possibly in a degraded state.
action: Wait for the resilver to complete.
  scan: resilver in progress since Sat May 12 19:45:12 2018
\t6.18T scanned at 644M/s, 4.26T issued at 444M/s, 6.42T total
\t123G resilvered, 66.46% done, 0 days 01:24:38 to go
config:

\tNAME                                              STATE     READ WRITE CKSUM
\tvz                                                DEGRADED     0     0     0
\t  mirror-0                                        DEGRADED     0     0     0
\t    replacing-0                                   DEGRADED     0     0     0
\t      ata-WDC_WD3001FFSX-68JNUN0_WD-WCC13RYDLSH9  OFFLINE      0     0     0
\t      sdh                                         ONLINE       0     0     0  (resilvering)
\t    ata-WDC_WD3001FFSX-68JNUN0_WD-WCC13HETXXKA    DEGRADED     0     0     0  too many errors
\t  mirror-1                                        ONLINE       0     0     0
\t    ata-WDC_WD3001FFSX-68JNUN0_WD-WCC13L905UN2    ONLINE       0     0     0
\t    ata-WDC_WD3001FFSX-68JNUN0_WD-WCC13L905ZE6    ONLINE       0     0     0
"""


def test_08_aux_annotation_and_nested_replacing():
    (pool,) = parse_status_text(ISSUE_7537)
    assert [(d, n) for d, n, _, _ in _tree(pool.root)][:6] == [
        (0, "vz"),
        (1, "mirror-0"),
        (2, "replacing-0"),
        (3, "ata-WDC_WD3001FFSX-68JNUN0_WD-WCC13RYDLSH9"),
        (3, "sdh"),
        (2, "ata-WDC_WD3001FFSX-68JNUN0_WD-WCC13HETXXKA"),
    ]
    assert pool.find("ata-WDC_WD3001FFSX-68JNUN0_WD-WCC13HETXXKA").aux == "too many errors"
    (scan,) = pool.scans
    assert (scan.pct_done, scan.zpool_eta_s, scan.to_examine) == (
        66.46,
        3600 + 24 * 60 + 38,
        round(6.42 * TIB),
    )


# 2.2.4, https://github.com/openzfs/zfs/issues/16979: dRAID, spare-0 and a nicenum counter.
# Our copy is cut inside the spare-0 row after "0 1.68K"; its CKSUM "0" is ours.
ISSUE_16979 = """\
  pool: merced216
 state: DEGRADED
status: One or more devices is currently being resilvered.  The pool will
\tcontinue to function, possibly in a degraded state.
action: Wait for the resilver to complete.
  scan: resilver in progress since Tue Jan 21 06:44:45 2025
\t1.38P / 1.38P scanned, 144T / 177T issued at 1.29G/s
\t43.4T resilvered, 81.21% done, 07:21:15 to go
config:

\tNAME                   STATE     READ WRITE CKSUM
\tmerced216              DEGRADED     0     0     0
\t  draid2:11d:53c:1s-0  DEGRADED     0     0     0
\t    spare-0            DEGRADED     0 1.68K     0
"""


def test_22_scan_without_scan_rate_and_nicenum_counter():
    (pool,) = parse_status_text(ISSUE_16979)
    draid = pool.top_level[0]
    assert (draid.kind, draid.children[0].kind, draid.children[0].write_errors) == ("draid", "spare", 1720)
    (scan,) = pool.scans
    assert (scan.examined, scan.to_examine, scan.issued) == (round(1.38 * PIB), round(1.38 * PIB), 144 * TIB)
    assert scan.skipped == round(1.38 * PIB) - 177 * TIB  # to_examine - "177T" issue total
    assert (scan.pct_done, scan.zpool_eta_s) == (81.21, 7 * 3600 + 21 * 60 + 15)


# 2.4 development, https://github.com/openzfs/zfs/issues/18319 (ZTS log; its timestamp
# prefix removed): two scan: blocks (scrub, then a dRAID sequential rebuild), a dRAID
# distributed spare in spare-2 and an aux annotation on the faulted leaf.
ISSUE_18319 = """\
  pool: testpool
 state: DEGRADED
status: One or more devices are faulted in response to persistent errors.
\tSufficient replicas exist for the pool to continue functioning in a
\tdegraded state.
action: Replace the faulted device, or use 'zpool clear' to mark the device
\trepaired.
  scan: scrub repaired 2K in 00:00:01 with 0 errors on Fri Mar 13 07:18:28 2026
  scan: resilvered (draid1:2d:10c:5s-0) 53.6M in 00:00:00 with 0 errors on Fri Mar 13 07:18:27 2026
config:

\tNAME                                    STATE     READ WRITE CKSUM
\ttestpool                                DEGRADED     0     0     0
\t  draid1:2d:10c:5s-0                    DEGRADED     0     0     0
\t    /var/tmp/basedir.1718729/new_vdev0  ONLINE       0     0     0
\t    /var/tmp/basedir.1718729/vdev1      ONLINE       0     0     0
\t    spare-2                             DEGRADED     0     0     1
\t      /var/tmp/basedir.1718729/vdev2    FAULTED      0     0     0  external device fault
\t      draid1-0-3                        ONLINE       0     0     0
"""


def test_two_scan_blocks_rebuild_and_distributed_spare():
    (pool,) = parse_status_text(ISSUE_18319)
    scrub, rebuild = pool.scans
    assert (scrub.function, scrub.state, scrub.processed) == ("scrub", "finished", 2048)
    assert (rebuild.function, rebuild.vdev, rebuild.state) == ("rebuild", "draid1:2d:10c:5s-0", "finished")
    assert rebuild.processed == round(53.6 * MIB) and rebuild.start_time == rebuild.end_time
    spare = pool.find("spare-2")
    assert (spare.kind, spare.checksum_errors) == ("spare", 1)
    assert [(c.kind, c.state, c.aux) for c in spare.children] == [
        ("file", "FAULTED", "external device fault"),
        ("dspare", "ONLINE", None),
    ]
    assert pool.scan is scrub  # nothing running: the newest one


# 0.8 era (2019), https://github.com/Inner-Heaven/libzetta-rs/issues/64: "none requested" and
# a spares section whose rows have no counters.
LIBZETTA_64 = """\
  pool: test-123
 state: ONLINE
  scan: none requested
config:

        NAME            STATE     READ WRITE CKSUM
        test-123        ONLINE       0     0     0
          /vdevs/vdev0  ONLINE       0     0     0
        spares
          /vdevs/vdev1  AVAIL

errors: No known data errors
"""


def test_08_none_requested_and_spares():
    (pool,) = parse_status_text(LIBZETTA_64)
    assert pool.scans == () and pool.error_count == 0
    data, spare = pool.top_level
    assert (data.vclass, data.kind, spare.vclass, spare.state, spare.kind) == (
        "normal",
        "file",
        "spare",
        "AVAIL",
        "file",
    )
    assert pool.data_vdevs() == (data,)


# Layout unchanged since 0.6: https://github.com/openzfs/zfs/issues/3267 (2015), logs mirror
# and cache, with the pre-0.8 "scanned out of" progress line.
ISSUE_3267 = """\
  pool: tank
 state: ONLINE
status: One or more devices is currently being resilvered.  The pool will
\tcontinue to function, possibly in a degraded state.
action: Wait for the resilver to complete.
  scan: resilver in progress since Wed Apr  8 23:23:38 2015
    1.35G scanned out of 347G at 126M/s, 0h46m to go
    0 resilvered, 0.39% done
config:

\tNAME        STATE     READ WRITE CKSUM
\ttank        ONLINE       0     0     0
\t  mirror-0  ONLINE       0     0     0
\t    sdc     ONLINE       0     0     0
\t    sdd     ONLINE       0     0     0
\tlogs
\t  mirror-1  ONLINE       0     0     0
\t    sda3    ONLINE       0     0     0
\t    sdb3    ONLINE       0     0     0
\tcache
\t  sda4      ONLINE       0     0     0
\t  sdb4      ONLINE       0     0     0

errors: No known data errors
"""

# https://github.com/openzfs/zfs/issues/3877 (2015), logs + cache + spares; quoted up to the
# first spare (our copy cuts the second one's row).
ISSUE_3877 = """\
  pool: zones
 state: ONLINE
  scan: resilvered 187G in 0h35m with 0 errors on Sat Oct  3 14:54:25 2015
config:

\tNAME                                                  STATE     READ WRITE CKSUM
\tzones                                                 ONLINE       0     0     0
\t  mirror-0                                            ONLINE       0     0     0
\t    ata-SAMSUNG_HD103SJ_S246J9DZC01225                ONLINE       0     0     0
\t    ata-SAMSUNG_HD103SJ_S246J9DZC01216                ONLINE       0     0     0
\t  mirror-1                                            ONLINE       0     0     0
\t    ata-SAMSUNG_HD103SJ_S246J9DZC01218                ONLINE       0     0     0
\t    ata-SAMSUNG_HD103SJ_S246J9DZC01222                ONLINE       0     0     0
\tlogs
\t  ata-INTEL_SSDSA2M040G2GC_CVGB0375006V040NGN         ONLINE       0     0     0
\tcache
\t  ata-Corsair_Force_3_SSD_11476510000011541375-part1  ONLINE       0     0     0
\tspares
\t  ata-SAMSUNG_HD103SJ_S246J9DZC01214                  AVAIL
"""


def test_class_sections_logs_cache_spares():
    (pool,) = parse_status_text(ISSUE_3267)
    assert [(v.name, v.vclass) for v in pool.top_level] == [
        ("mirror-0", "normal"),
        ("mirror-1", "log"),
        ("sda4", "cache"),
        ("sdb4", "cache"),
    ]
    assert [v.vclass for v in pool.find("mirror-1").children] == ["log", "log"]
    assert [v.name for v in pool.data_vdevs()] == ["mirror-0"]
    (scan,) = pool.scans
    assert (scan.examined, scan.to_examine, scan.zpool_eta_s, scan.pct_done) == (
        round(1.35 * GIB),
        347 * GIB,
        46 * 60,
        0.39,
    )

    (zones,) = parse_status_text(ISSUE_3877)
    assert [v.vclass for v in zones.top_level] == ["normal", "normal", "log", "cache", "spare"]
    assert zones.top_level[-1].state == "AVAIL"
    (scan,) = zones.scans
    assert (scan.function, scan.state, scan.processed) == ("resilver", "finished", 187 * GIB)
    assert scan.end_time - scan.start_time == 35 * 60


# 0.6.2 (2014), https://github.com/openzfs/zfs/issues/2973: pasted with a 4-space base
# indentation, so depth has to be measured from the pool row. Quoted up to the errors: line.
ISSUE_2973 = """\
  pool: nexus
 state: ONLINE
  scan: scrub repaired 0 in 2h54m with 0 errors on Thu Dec 18 10:56:11 2014
config:

    NAME                                                 STATE     READ WRITE CKSUM
    nexus                                                ONLINE       0     0     0
      mirror-0                                           ONLINE       0     0     0
        scsi-SATA_WDC_WD20EZRX-00_WD-WCC4M1820067-part4  ONLINE       0     0     0
        scsi-SATA_TOSHIBA_DT01ACA_Y3JRP7AGS-part4        ONLINE       0     0     0
        scsi-SATA_WDC_WD20EFRX-68_WD-WMC4M2893309-part4  ONLINE       0     0     0
    logs
      scsi-SATA_KINGSTON_SV300S50026B7743042A5D-part1    ONLINE       0     0     0
    cache
      scsi-SATA_KINGSTON_SV300S50026B7743042A5D-part2    ONLINE       0     0     0
"""


def test_four_space_pasted_indentation():
    (pool,) = parse_status_text(ISSUE_2973)
    assert [(v.name, v.vclass, len(v.children)) for v in pool.top_level] == [
        ("mirror-0", "normal", 3),
        ("scsi-SATA_KINGSTON_SV300S50026B7743042A5D-part1", "log", 0),
        ("scsi-SATA_KINGSTON_SV300S50026B7743042A5D-part2", "cache", 0),
    ]
    assert pool.scans[0].end_time - pool.scans[0].start_time == 2 * 3600 + 54 * 60


def test_block_size_annotation_sets_the_leaf_physical_ashift():
    # The row is from commit 3928ec5339 (quoted in reference §5); the pool around it is ours.
    text = (
        "  pool: tank\n state: ONLINE\nconfig:\n\n"
        "\tNAME       STATE     READ WRITE CKSUM\n"
        "\ttank       ONLINE       0     0     0\n"
        "\t  ada2s4a  ONLINE       0     0     0  block size: 512B configured, 4096B native\n\n"
        "errors: No known data errors\n"
    )
    (pool,) = parse_status_text(text)
    leaf = pool.find("ada2s4a")
    assert (leaf.physical_ashift, leaf.aux) == (12, None)


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        # 2.2+, man/man8/zpool-scrub.8 (reference §3.3)
        (
            [
                "scrub in progress since Sun Jul 25 16:07:49 2021",
                "403M / 405M scanned at 100M/s, 68.4M / 405M issued at 10.0M/s",
                "0B repaired, 16.91% done, 00:00:04 to go",
            ],
            dict(
                function="scrub",
                state="scanning",
                examined=403 * MIB,
                to_examine=405 * MIB,
                issued=round(68.4 * MIB),
                skipped=0,
                pct_done=16.91,
                zpool_eta_s=4,
            ),
        ),
        # 2.3.1, https://github.com/openzfs/zfs/issues/17440: paused (no rates, no ETA)
        (
            [
                "scrub paused since Sun Jun  8 17:00:20 2025",
                "scrub started on Sun Jun  8 12:43:45 2025",
                "0B / 12.8T scanned, 0B / 12.8T issued",
                "0B repaired, 0.00% done",
            ],
            dict(
                function="scrub",
                state="paused",
                pause_time=parse_ctime("Sun Jun  8 17:00:20 2025"),
                start_time=parse_ctime("Sun Jun  8 12:43:45 2025"),
                issued=0,
                pct_done=0.0,
                zpool_eta_s=None,
            ),
        ),
        # same issue: ETA with days in 2.2+
        (
            [
                "scrub in progress since Sun Jun  8 12:43:45 2025",
                "3.97T / 12.8T scanned at 94.4G/s, 4.11G / 12.8T issued at 97.9M/s",
                "0B repaired, 0.03% done, 1 days 14:05:30 to go",
            ],
            dict(state="scanning", pct_done=0.03, zpool_eta_s=86400 + 14 * 3600 + 5 * 60 + 30),
        ),
        # 2.0.7, https://github.com/dak180/FreeNAS-Report/issues/16: finished with days
        (
            ["resilvered 2.31T in 1 days 02:55:32 with 0 errors on Sat Dec 24 02:33:08 2022"],
            dict(
                function="resilver",
                state="finished",
                processed=round(2.31 * TIB),
                errors=0,
                end_time=parse_ctime("Sat Dec 24 02:33:08 2022"),
                start_time=parse_ctime("Sat Dec 24 02:33:08 2022") - (86400 + 2 * 3600 + 55 * 60 + 32),
            ),
        ),
        # 2.0.2, https://github.com/openzfs/zfs/issues/11572: 2.0-2.1 progress, ETA in days
        (
            [
                "resilver in progress since Thu Feb  4 14:24:23 2021",
                "1.61T scanned at 315M/s, 81.5G issued at 15.6M/s, 5.32T total",
                "77.3G resilvered, 1.50% done, 4 days 02:06:31 to go",
            ],
            dict(
                function="resilver",
                examined=round(1.61 * TIB),
                issued=round(81.5 * GIB),
                to_examine=round(5.32 * TIB),
                skipped=None,
                pct_done=1.5,
                zpool_eta_s=4 * 86400 + 2 * 3600 + 6 * 60 + 31,
            ),
        ),
        # 2.0-2.1 sequential rebuild, "issued <R>/s" without "at" (reference §3.3, from code)
        (
            [
                "resilver (mirror-0) in progress since Sun Jul 25 16:07:49 2021",
                "1.20G scanned at 100M/s, 1.10G issued 90.0M/s, 4.00G total",
                "1.10G resilvered, 30.00% done, 00:00:28 to go",
            ],
            dict(
                function="rebuild",
                vdev="mirror-0",
                state="scanning",
                examined=round(1.2 * GIB),
                issued=round(1.1 * GIB),
                to_examine=4 * GIB,
                pct_done=30.0,
                zpool_eta_s=28,
            ),
        ),
        (
            ["resilver (mirror-1) canceled on Sun Jul 25 16:07:49 2021"],
            dict(
                function="rebuild",
                vdev="mirror-1",
                state="canceled",
                end_time=parse_ctime("Sun Jul 25 16:07:49 2021"),
            ),
        ),
        (["scrub canceled on Sun Jul 25 16:07:49 2021"], dict(function="scrub", state="canceled")),
        # 2.2+ error scrub (" scrub:" label), print_err_scrub_status()
        (
            [
                "error scrub in progress since Sun Jul 25 16:07:49 2021",
                "25.00% done, issued I/O for 3 error blocks",
            ],
            dict(function="errorscrub", state="scanning", pct_done=25.0),
        ),
        (
            ["scrubbed 3 error blocks in 0 days 00:00:02 on Sun Jul 25 16:07:49 2021"],
            dict(function="errorscrub", state="finished", end_time=parse_ctime("Sun Jul 25 16:07:49 2021")),
        ),
        # Before the scan: label (" scrub:" of Solaris 10, ZoL 0.6.0-0.6.2): corpus 119, 121, 129
        (
            ["resilver in progress for 0h0m, 22.60% done, 0h1m to go"],
            dict(function="resilver", state="scanning", pct_done=22.6, zpool_eta_s=60),
        ),
        (
            ["resilver in progress, 0.14% done, 0h51m to go"],
            dict(function="resilver", state="scanning", pct_done=0.14, zpool_eta_s=51 * 60),
        ),
        (
            ["scrub completed after 0h5m with 0 errors on Tue Oct 14 14:22:37 2008"],
            dict(
                function="scrub",
                state="finished",
                errors=0,
                end_time=parse_ctime("Tue Oct 14 14:22:37 2008"),
                start_time=parse_ctime("Tue Oct 14 14:22:37 2008") - 300,
            ),
        ),
        (
            ["scrub stopped after 0h0m with 0 errors on Tue Oct 14 14:22:37 2008"],
            dict(function="scrub", state="canceled", errors=0),
        ),
        # A ZED "finished a scrub" mail as pasted (corpus 174): the line without its date. The
        # scrub is on record, its time is not.
        (
            ["scrub repaired 0B in 00:00:12 with 0 errors"],
            dict(function="scrub", state="finished", errors=0, processed=0, end_time=None),
        ),
    ],
)
def test_scan_lines_of_every_era(lines, expected):
    scan = parse_scan_block(lines)
    assert {k: getattr(scan, k) for k in expected} == expected


def test_a_permanent_errors_heading_whose_list_was_cut_is_at_least_one_error():
    """zpool prints the heading only when the error log has entries (corpus 149: the paste
    ends right after it)."""
    from zdash.parse.zpool_status.text import _errors

    assert _errors("Permanent errors have been detected in the following files:", []) == (1, ())
    assert _errors("Permanent errors have been detected in the following files:", ["/a", "/b"]) == (
        2,
        ("/a", "/b"),
    )
    assert _errors("No known data errors", []) == (0, ())


def test_interior_vdevs_named_before_ids_existed():
    """Solaris 10, FreeBSD 8 and ZoL 0.6.0-0.6.2 print "raidz2", "replacing" without -N."""
    from zdash.parse.zpool_status.common import kind_from_name

    assert [kind_from_name(n) for n in ("raidz2", "raidz", "mirror", "replacing", "spare", "raidz2-0")] == [
        "raidz2",
        "raidz1",
        "mirror",
        "replacing",
        "spare",
        "raidz2",
    ]
    assert kind_from_name("mirrors") == "disk" and kind_from_name("sdb") == "disk"


def test_unknown_or_absent_scan_is_not_invented():
    assert parse_scan_block(["none requested"]) is None
    assert parse_scan_block(["something a future zpool prints"]) is None
    # a localized date costs the time, not the scan
    scan = parse_scan_block(["scrub in progress since dim. 25 juil. 2021 16:07:49"])
    assert (scan.state, scan.start_time) == ("scanning", None)
