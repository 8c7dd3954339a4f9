"""Pastes as people paste them (issue 26): layouts that lie about depth, elided rows, Markdown
that split a header, two pools of one name, and the configured ashift from zdb / all-vdevs."""

from __future__ import annotations

from tests.paste.helpers import CAPTURES
from zdash.checks.finding import Severity
from zdash.config import CheckConfig
from zdash.fold import look, run_checks
from zdash.model import Snapshot
from zdash.paste.front import paste_tick
from zdash.paste.samples import import_paste

MISMATCH = CAPTURES / "ashift-mismatch"


def _snap(text: str) -> tuple[Snapshot, list[str]]:
    imported = import_paste(text)
    snap = look(paste_tick(imported, 1_700_000_000.0))
    return snap, [str(u) for u in imported.unread]


def _findings(snap: Snapshot) -> list[tuple[Severity, str, str]]:
    return [(f.severity, f.pool or "", f.title) for f in run_checks([snap], CheckConfig())]


POOL_ROW_DEEPER = """\
  pool: tank
 state: DEGRADED
config:

        NAME        STATE     READ WRITE CKSUM
              tank        DEGRADED     0     0     0
          mirror-0  DEGRADED     0     0     0
            sda     ONLINE       0     0     0
            sdb     FAULTED      0     0     0  too many errors

errors: No known data errors
"""


def test_a_pool_row_indented_deeper_than_its_vdev_is_read_by_the_names():
    """The pool row pasted deeper than mirror-0: before, 'config row at an impossible depth'
    refused the whole report; a vdev's name is never a pool's, so the names tell the depths."""
    snap, unread = _snap(POOL_ROW_DEEPER)
    (pool,) = snap.pools
    assert [v.name for v in pool.top_level] == ["mirror-0"]
    assert [leaf.name for leaf in pool.top_level[0].children] == ["sda", "sdb"]
    assert unread == []
    assert any(sev is Severity.CRITICAL and "mirror-0" in title for sev, _, title in _findings(snap))


IOSTAT_ELIDED = """\
                              capacity     operations     bandwidth
pool                       alloc   free   read  write   read  write
-------------------------  -----  -----  -----  -----  -----  -----
tank                       1.79T  2.74T     51    265  2.26M  8.94M
  raidz1-0                 1.79T  2.74T     51    265  2.26M  8.94M
    sda                        -      -     17     87   771K  2.98M
    (...)
    sdd                        -      -     17     88   770K  2.98M
-------------------------  -----  -----  -----  -----  -----  -----
"""


def test_an_elision_inside_an_iostat_table_is_skipped_not_its_end():
    snap, unread = _snap(IOSTAT_ELIDED)
    leaves = [leaf.name for leaf in snap.pools[0].leaves()]
    assert leaves == ["sda", "sdd"]
    assert [u for u in unread if "(...)" in u] == [
        "line 7: (...) (rows left out by the poster: the report is read around them)"
    ]


STATUS_ELIDED = """\
  pool: tank
 state: DEGRADED
config:

\tNAME        STATE     READ WRITE CKSUM
\ttank        DEGRADED     0     0     0
\t  raidz1-0  DEGRADED     0     0     0
\t    sda     ONLINE       0     0     0
...
\t    sdd     UNAVAIL      0     0     0  cannot open

errors: No known data errors
"""


def test_an_elision_inside_a_config_table_does_not_end_it():
    """sdd below the user's '...' is still a member of raidz1-0: the elision is reported, not an end."""
    snap, _ = _snap(STATUS_ELIDED)
    assert [leaf.name for leaf in snap.pools[0].leaves()] == ["sda", "sdd"]
    assert any(sev is Severity.CRITICAL for sev, _, _ in _findings(snap))


TWO_HOSTS = """\
root@alpha:~# zpool status tank
  pool: tank
 state: DEGRADED
config:

\tNAME        STATE     READ WRITE CKSUM
\ttank        DEGRADED     0     0     0
\t  mirror-0  DEGRADED     0     0     0
\t    sda     ONLINE       0     0     0
\t    sdb     FAULTED      0     0     0  too many errors

errors: No known data errors
root@beta:~# zpool status tank
  pool: tank
 state: ONLINE
config:

\tNAME        STATE     READ WRITE CKSUM
\ttank        ONLINE       0     0     0
\t  mirror-0  ONLINE       0     0     0
\t    sdc     ONLINE       0     0     0
\t    sdd     ONLINE       0     0     0

errors: No known data errors
"""


def test_two_pools_of_one_name_sharing_no_device_are_kept_apart():
    """Before, the later report replaced the earlier: beta's healthy tank hid alpha's failed
    mirror. The earlier one is kept as tank(line2) and judged."""
    snap, _ = _snap(TWO_HOSTS)
    assert sorted(p.name for p in snap.pools) == ["tank", "tank(line2)"]
    assert (Severity.CRITICAL, "tank(line2)") in {(sev, pool) for sev, pool, _ in _findings(snap)}


def test_the_same_pool_reported_twice_keeps_the_later_report():
    """A device in common: the same pool later (corpus 289's replace), not a second pool."""
    later = TWO_HOSTS.replace("sdc", "sda")
    snap, _ = _snap(later)
    assert [p.name for p in snap.pools] == ["tank"]
    assert snap.pools[0].state == "ONLINE"


def test_zdb_dump_pasted_alone_gives_each_top_level_vdev_its_ashift():
    """Real `zdb -C ashift` (2.3.2): mirror-0 at 9, mirror-1 at 12 -> mixed ashift, WARNING."""
    snap, _ = _snap("# zdb -C ashift\n" + (MISMATCH / "zdb-C.txt").read_text())
    (pool,) = snap.pools
    assert {v.name: v.ashift for v in pool.top_level} == {"mirror-0": 9, "mirror-1": 12}
    assert any(sev is Severity.WARNING and "mixes ashift" in t for sev, _, t in _findings(snap))


def test_zdb_labels_of_two_leaves_give_both_top_level_vdevs():
    text = (MISMATCH / "zdb-l-d1.txt").read_text() + (MISMATCH / "zdb-l-d3.txt").read_text()
    snap, _ = _snap(text)
    assert {v.name: v.ashift for v in snap.pools[0].top_level} == {"mirror-0": 9, "mirror-1": 12}


def test_zdb_grep_ashift_belongs_to_the_pool_the_transcript_named():
    """Real `zdb -C ashift | grep ashift:` lines, after a status of that pool: its vdevs in order."""
    status = (MISMATCH / "zpool-status.txt").read_text()
    grepped = "".join(
        line + "\n"
        for line in (MISMATCH / "zdb-C-grep-ashift.txt").read_text().splitlines()
        if "ashift:" in line
    )
    snap, _ = _snap(f"# zpool status ashift\n{status}# zdb -C ashift | grep ashift\n{grepped}")
    (pool,) = snap.pools
    assert {v.name: v.ashift for v in pool.top_level} == {"mirror-0": 9, "mirror-1": 12}


ALL_VDEVS = """\
# zpool get ashift,capacity,state tank all-vdevs
NAME      PROPERTY  VALUE   SOURCE
root-0    ashift    0       -
root-0    capacity  91%     -
root-0    state     ONLINE  -
mirror-0  ashift    12      -
sda       ashift    9       -
sdb       ashift    9       -
"""


def test_all_vdevs_table_reads_the_top_levels_ashift_and_root_0_as_the_pool():
    """A leaf's ashift is its logical sector, not configured: only mirror-0's is read. root-0's
    capacity and state are the pool's (before: a pool named root-0)."""
    snap, _ = _snap(ALL_VDEVS)
    (pool,) = snap.pools
    assert pool.name == "tank" and pool.state == "ONLINE"
    assert {v.name: v.ashift for v in pool.top_level} == {"mirror-0": 12}
    found = _findings(snap)
    assert any(sev is Severity.CRITICAL and "91" in t for sev, _, t in found)
    assert not any("ashift" in t for _, _, t in found)
