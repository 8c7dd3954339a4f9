"""Rows a paste holds without their table (issue 26, corpus 211 and 214): device rows with no
header, pool or vdev row, and `zpool iostat -v` of named vdevs. A human reads them; zdash does,
under a placeholder pool said in a note, and never makes a pool of words that merely look like
zpool's."""

from __future__ import annotations

import random

from zdash.builder import SnapshotBuilder
from zdash.checks.finding import Severity
from zdash.checks.registry import run_checks
from zdash.config import CheckConfig
from zdash.model import Snapshot
from zdash.paste.depth import UNNAMED_POOL
from zdash.paste.front import paste_tick
from zdash.paste.samples import Imported, import_paste


def _snap(text: str) -> tuple[Snapshot, Imported]:
    imported = import_paste(text)
    return SnapshotBuilder(1.0, None).feed(paste_tick(imported, 1_700_000_000.0)), imported


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


# The words of issue 25's probe: 10 MB of them must not be judged (a pool invented from them).
_SALAD = [
    "pool",
    "state",
    "ONLINE",
    "DEGRADED",
    "FAULTED",
    "config",
    "NAME",
    "STATE",
    "READ",
    "WRITE",
    "CKSUM",
    "mirror-0",
    "raidz1-0",
    "sda",
    "sdb",
    "sdc",
    "errors:",
    "No",
    "known",
    "data",
    "scan:",
    "scrub",
    "repaired",
    "0B",
    "in",
    "00:01:02",
    "with",
    "0",
    "errors",
    "on",
    "tank",
    "alloc",
    "free",
    "capacity",
    "operations",
    "bandwidth",
    "1.2T",
    "45%",
    "3",
    "0",
    "12",
    "-",
]


def test_word_salad_makes_no_pool_of_bare_device_rows():
    rnd = random.Random(26)
    lines = [" ".join(rnd.choice(_SALAD) for _ in range(rnd.randrange(1, 12))) for _ in range(20000)]
    # the shapes a salad line can take that a device row has: with and without an indent
    lines += ["sda FAULTED 0 3 12", "sdb DEGRADED 12 0 3 0B in"]
    snap, _ = _snap("\n".join(lines) + "\n")
    assert UNNAMED_POOL not in [p.name for p in snap.pools]
