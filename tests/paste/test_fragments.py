"""Rows a paste holds without their table (issue 26, corpus 211 and 214): device rows with no
header, pool or vdev row, and `zpool iostat -v` of named vdevs. A human reads them; zdash does,
under a placeholder pool said in a note, and never makes a pool of words that merely look like
zpool's."""

from __future__ import annotations

import random

from tests.paste.helpers import CAPTURES
from tests.paste.salad import ZPOOL_WORDS
from zdash.checks.finding import Severity
from zdash.config import CheckConfig
from zdash.fold import look, run_checks
from zdash.model import Snapshot
from zdash.paste.depth import UNNAMED_POOL
from zdash.paste.front import paste_tick
from zdash.paste.samples import Imported, import_paste


def _snap(text: str) -> tuple[Snapshot, Imported]:
    imported = import_paste(text)
    return look(paste_tick(imported, 1_700_000_000.0)), imported


def _findings(snap: Snapshot) -> list[tuple[Severity, str]]:
    return [(f.severity, f"{f.subject} {f.title}") for f in run_checks([snap], CheckConfig())]


TWO_BARE_ROWS = """\
I now see the vdev totally suspended. Was the wrong drive pulled or has sdj totally failed?

            sdj     UNAVAIL    253     3     0
            sdk     FAULTED    255     3     0  too many errors
"""


def test_two_bare_device_rows_are_read_as_devices_of_a_pool_not_pasted():
    """Corpus 211: two sibling rows, no NAME header, pool or vdev row. Before, the first row
    could have been a pool's, so nothing was read (UNKNOWN); a kernel disk name and zpool's
    'too many errors' (a device's annotation) say both are devices. Two members of one vdev
    out: critical, naming both."""
    snap, imported = _snap(TWO_BARE_ROWS)
    (pool,) = snap.pools
    assert pool.name == UNNAMED_POOL
    assert sorted(leaf.name for leaf in pool.leaves()) == ["sdj", "sdk"]
    assert any("not pasted" in n for n in imported.notes)
    worst = [text for sev, text in _findings(snap) if sev is Severity.CRITICAL]
    assert any("sdj" in t for t in worst) and any("sdk" in t for t in worst)


def test_a_bare_row_that_could_be_a_pool_row_is_still_not_read():
    """`tank ONLINE 0 0 0` over `sda ONLINE 0 0 0` at one width (indentation collapsed) may be
    a pool and its disk: nothing says which, so no pool is guessed; nor from rows of names that
    are pool-like, or a lone unindented row in prose."""
    for text in (
        "tank  ONLINE  0  0  0\nsda  ONLINE  0  0  0\n",
        "  backup  ONLINE  0  0  0\n  media  DEGRADED  0  0  0\n",
        "I saw this:\nsdj UNAVAIL 253 3 0\nand then nothing\n",
    ):
        snap, _ = _snap(text)
        assert snap.pools == (), text


def test_word_salad_makes_no_pool_of_bare_device_rows():
    rnd = random.Random(26)
    lines = [" ".join(rnd.choice(ZPOOL_WORDS) for _ in range(rnd.randrange(1, 12))) for _ in range(20000)]
    # the shapes a salad line can take that a device row has: with and without an indent
    lines += ["sda FAULTED 0 3 12", "sdb DEGRADED 12 0 3 0B in"]
    snap, _ = _snap("\n".join(lines) + "\n")
    assert UNNAMED_POOL not in [p.name for p in snap.pools]


NAMED_VDEVS = """\
  In the case below, I worked around by taking the cache device offline.

    …
                          capacity     operations     bandwidth
    vdev                 alloc   free   read  write   read  write
    -------------------  -----  -----  -----  -----  -----  -----

    gpt/cache1-august    27.6G  1.20G      0      0  4.40K  22.4K
    gpt/cache2-august    6.57G   722M      0      0  3.60K  12.0K
    -------------------  -----  -----  -----  -----  -----  -----
    ^C
    % zpool status -x ; date
    all pools are healthy
    % zpool iostat -v august gpt/cache1-august gpt/cache2-august 10
"""


def test_iostat_of_named_vdevs_is_read_under_the_pool_the_command_names():
    """Corpus 214: `zpool iostat -v POOL VDEV...` prints a 'vdev' header and the named vdevs
    only, no pool row (and here a blank line under the dash rule). Before, nothing was read
    (UNKNOWN). The vdevs are read for their I/O under the pool the command line names; their
    place in the tree is unknown, so their alloc/free (cache devices fill by design) judge no
    capacity; `zpool status -x`'s 'all pools are healthy' gives the pool its state."""
    snap, imported = _snap(NAMED_VDEVS)
    (pool,) = snap.pools
    assert pool.name == "august" and pool.state == "ONLINE"
    assert sorted(leaf.name for leaf in pool.leaves()) == ["gpt/cache1-august", "gpt/cache2-august"]
    assert _findings(snap) == []
    assert any("all pools are healthy" in n for n in imported.notes)
    assert not any("all pools are healthy" in u.text for u in imported.unread)
    anonymous, _ = _snap(NAMED_VDEVS.replace("august gpt/", "elsewhere gpt/").rsplit("%", 1)[0])
    (pool,) = anonymous.pools
    assert pool.name == UNNAMED_POOL and pool.state == "ONLINE"


def _prompted(argv: str, path: str) -> str:
    return f"root@lab:~# {argv}\n" + (CAPTURES / path).read_text()


def test_iostat_H_with_latency_queue_and_vdev_columns_is_read_by_the_prompts_flags():
    """`zpool iostat -H` rows carry one column group more than the plain -H layout for each of
    -l (10 or 11 latencies) and -q (12 or 14 queues), and -v adds vdev rows without indentation:
    they were refused whole ("no header to read it by"). The prompt's flags and the number of
    columns say which; -v's depth comes from the names. Real 2.3.2 output (tests/captures)."""
    snap, imported = _snap(
        _prompted("zpool iostat -v -l -H -p healthy 1 2", "healthy/zpool-iostat-v-l-H-p-1-2.txt")
    )
    (pool,) = snap.pools
    assert [v.name for v in pool.top_level] == ["mirror-0", "mirror-1"]
    assert [leaf.name for leaf in pool.top_level[0].children] == ["/tmp/zl/healthy/d1", "/tmp/zl/healthy/d2"]
    assert imported.unread == []
    assert pool.alloc == 314938368  # the pool row's alloc (+ free = size), from -p
    snap, imported = _snap(
        _prompted("zpool iostat -vqHp deranged 1 2", "deranged-disk/zpool-iostat-v-q-H-p-1-2.txt")
    )
    (pool,) = snap.pools
    assert pool.name == "deranged" and [v.name for v in pool.top_level] == ["mirror-0", "mirror-1"]
    assert imported.unread == []


def test_iostat_H_pool_rows_with_latency_and_a_column_count_no_layout_has():
    rows = "tank\t100\t900\t1\t2\t3\t4" + "\t5000" * 11 + "\n"
    snap, _ = _snap("$ zpool iostat -Hpl tank\n" + rows)
    assert [p.name for p in snap.pools] == ["tank"]
    snap, imported = _snap("$ zpool iostat -Hpl tank\n" + rows.replace("\t5000\n", "\t5000\t7\t7\n"))
    assert snap.pools == ()
    assert "columns" in imported.unread[0].why


REPORT_TABLE = """\
ZPool Status Report Summary
--

scaletest | ONLINEResilvered | 219T | 205T | 13.7T | 14% | 93% | 0 | 0 | 0 | 309M | 0 | 19395 | 00:00:10
boot-pool | ONLINE | 448G | 66.4G | 382G | 6% | 14% | 0 | 0 | 0 | 0 | 0 | 19395 | 00:04:50
ixapps | DEGRADED | 1.81T | 1.17T | 654G | 56% | 64% | 3 | 0 | 12 | 0 | 0 | 19395 | 02:15:31
"""


def test_a_report_scripts_pool_table_is_read_for_what_zpool_list_gave_it():
    """Corpus 201: the TrueNAS report script's summary (dak180/FreeNAS-Report report.sh, its
    columns fixed by the script) mailed as `|` cells without its header row: each row is a
    pool's health, size, alloc, free, frag and cap, as zpool list gave them to the script. It
    was not read (UNKNOWN) where a human reads 205T of 219T: 93 %, critical. The error sums are
    tied to no device: a note, not a finding; the scrub age is the script's clock, not read."""
    snap, imported = _snap(REPORT_TABLE)
    assert {p.name: (p.state, p.cap_pct) for p in snap.pools} == {
        "scaletest": ("ONLINE", 93),
        "boot-pool": ("ONLINE", 14),
        "ixapps": ("DEGRADED", 64),
    }
    found = run_checks([snap], CheckConfig())
    assert any(f.severity is Severity.CRITICAL and f.pool == "scaletest" and "93" in f.title for f in found)
    assert any("ixapps" in n and "3/0/12" in n for n in imported.notes)
    assert not any(f.pool == "scaletest" and f.check == "scan" for f in found)


def test_pipe_cells_that_are_not_the_reports_columns_are_not_read():
    for line in (
        "tank | ONLINE | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12",  # no sizes/percents
        "tank | fine | 219T | 205T | 13.7T | 14% | 93% | 0 | 0 | 0 | 0 | 0 | 1 | 00:00:10",  # no state
        "| NAME | SIZE | ALLOC |",
    ):
        snap, _ = _snap(line + "\n")
        assert snap.pools == (), line


FLAT_FRAGMENT = """\
                                    "read_errors": 56,
                                    "write_errors": 0,
                                    "checksum_errors": 0,
                                    "slow_ios": 44
                                },
                                "alder": {
                                    "name": "alder",
                                    "vdev_type": "disk",
                                    "state": "ONLINE",
                                    "parent": "raidz2-0",
                                    "read_errors": 0,
                                    "write_errors": 0,
                                    "checksum_errors": 0,
                                    "slow_ios": 0
                                },
"""


def test_vdev_members_of_a_json_document_cut_above_them_are_read():
    """Corpus 156: a chunk from the middle of `zpool status -j --json-flat-vdevs`: a disk whose
    name and state the cut took away, with 56 read errors and 44 slow I/Os, then alder, ONLINE
    in raidz2-0, at the same depth. A human reads a disk with read errors: a warning. It was
    not read at all (UNKNOWN); the pool is shown as (pool-not-pasted), the disk as
    (name-not-pasted) beside alder."""
    snap, imported = _snap(FLAT_FRAGMENT)
    (pool,) = snap.pools
    assert pool.name == UNNAMED_POOL
    (top,) = pool.top_level
    assert top.name == "raidz2-0" and [c.name for c in top.children] == ["(name-not-pasted)", "alder"]
    assert top.children[0].read_errors == 56 and top.children[0].slow_ios == 44
    assert [sev for sev, _ in _findings(snap)] == [Severity.WARNING]
    assert imported.unread == []
    # members of no vdev (a pool's properties, a dataset's) make no pool
    snap, _ = _snap('    "name": "tank",\n    "used": 12345,\n    },\n')
    assert snap.pools == ()
