"""Whether a pasted pool was ever scrubbed is known only when the paste holds the lines where
zpool would say so. OpenZFS 2.0+ prints no `scan:` line for a pool never scrubbed, so a whole
report without one does mean "never"; a config table pasted alone, a report cut before its
`scan:` line, or a `scan:` line in a wording zdash cannot read says nothing about scrubs, and
"has no scrub on record" would then be a claim the paste does not make."""

from __future__ import annotations

from tests.paste.helpers import snapshot
from zdash.config import CheckConfig
from zdash.fold import run_checks
from zdash.model import Pool
from zdash.ui.widgets.pool_header import scan_line

TABLE = """\
        NAME        STATE     READ WRITE CKSUM
        tank        ONLINE       0     0     0
          mirror-0  ONLINE       0     0     0
            sda     ONLINE       0     0     0
            sdb     ONLINE       0     0     0
"""

WHOLE_NEVER_SCRUBBED = f"""\
  pool: tank
 state: ONLINE
config:

{TABLE}
errors: No known data errors
"""

CUT_BEFORE_SCAN = """\
  pool: tank
 state: ONLINE
"""

# A scan line in a wording zdash does not know (a patched or localised zpool).
UNREADABLE_SCAN = f"""\
  pool: tank
 state: ONLINE
  scan: Bereinigung abgeschlossen am Sonntag, 8. März 2026
config:

{TABLE}
errors: No known data errors
"""

NONE_REQUESTED = f"""\
  pool: tank
 state: ONLINE
  scan: none requested
config:

{TABLE}
errors: No known data errors
"""


def _scrub_history(text: str) -> tuple[list[str], Pool]:
    snap, _ = snapshot(text)
    findings = run_checks([snap], CheckConfig())
    return [f.title for f in findings if f.topic == "scrub-history"], snap.pools[0]


def test_a_whole_report_without_a_scan_line_is_a_pool_never_scrubbed():
    titles, pool = _scrub_history(WHOLE_NEVER_SCRUBBED)
    assert titles == ["tank has no scrub on record"] and pool.scans_known
    titles, pool = _scrub_history(NONE_REQUESTED)  # 0.8's words for the same
    assert titles == ["tank has no scrub on record"] and pool.scans_known


def test_a_config_table_alone_says_nothing_about_scrubs():
    titles, pool = _scrub_history(TABLE)
    assert titles == [] and not pool.scans_known
    assert "not known" in scan_line(pool, {}, 60).plain


def test_a_report_cut_before_its_scan_line_says_nothing_about_scrubs():
    titles, pool = _scrub_history(CUT_BEFORE_SCAN)
    assert titles == [] and not pool.scans_known


def test_a_scan_line_zdash_cannot_read_is_not_read_as_no_scrub():
    titles, pool = _scrub_history(UNREADABLE_SCAN)
    assert titles == [] and not pool.scans_known
    assert "no scrub on record" not in scan_line(pool, {}, 60).plain


STATUS_X = """\
# zpool status -x
pool 'tank' is healthy
"""


def test_status_x_saying_a_pool_is_healthy_gives_that_pool_online_and_nothing_more():
    """`zpool status -x tank` prints one line for a pool needing no attention: the pool and its
    state are known (ONLINE, no fault ZFS would explain), its vdevs, counters and scrubs are not.
    Before, the line was left unread and the paste had no pool at all."""
    snap, imported = snapshot(STATUS_X)
    (pool,) = snap.pools
    assert (pool.name, pool.state, pool.root.children, pool.scans_known) == ("tank", "ONLINE", (), False)
    assert not imported.unread
    assert any("says only that it is healthy" in n for n in imported.notes)
    assert [f for f in run_checks([snap], CheckConfig()) if f.severity > 0] == []
    _, imported = snapshot("# zpool status -x\nall pools are healthy\n")  # names no pool
    assert [u.why for u in imported.unread] == ["`zpool status -x` summary: no details to import"]


LIST_ONLY = """\
NAME    SIZE  ALLOC   FREE  CKPOINT  EXPANDSZ   FRAG    CAP  DEDUP    HEALTH  ALTROOT
tank   7.25T  2.01T  5.24T        -         -     1%    27%  1.00x    ONLINE  -
"""

# The last scan a pool ran was a resilver (corpus 194's shape): zpool keeps one record for
# scrubs and resilvers, so whether it was ever scrubbed is not said.
RESILVERED = f"""\
  pool: tank
 state: ONLINE
  scan: resilvered 1.21T in 0 days 05:12:44 with 0 errors on Sun Mar  8 10:00:00 2026
config:

{TABLE}
errors: No known data errors
"""


def test_a_pool_seen_only_in_zpool_list_has_no_scrub_history_to_judge():
    titles, pool = _scrub_history(LIST_ONLY)
    assert titles == [] and not pool.scans_known and pool.state == "ONLINE"


def test_a_resilver_as_the_last_scan_hides_the_last_scrub():
    titles, pool = _scrub_history(RESILVERED)
    assert titles == [] and pool.scans_known and pool.scans[0].function == "resilver"


IMPORT_LISTING = """\
# zpool import -d /dev/sdb1
   pool: NAS
     id: 11106050819019747463
  state: DEGRADED
status: One or more devices contains corrupted data.
 action: The pool can be imported despite missing or damaged devices.  The
\tfault tolerance of the pool may be compromised if imported.
   see: https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-4J
 config:

\tNAS                       DEGRADED
\t  mirror-0                DEGRADED
\t    16604657609174159965  UNAVAIL
\t    sdb                   ONLINE
"""


def test_a_zpool_import_listing_says_nothing_about_scrubs():
    """`zpool import` prints no scan line whatever the pool's history (corpus 205): the pool is
    judged on its tree (a mirror down to one side), and no "no scrub on record" is claimed."""
    snap, _ = snapshot(IMPORT_LISTING)
    findings = run_checks([snap], CheckConfig())
    assert [f.title for f in findings if f.topic == "scrub-history"] == []
    assert not snap.pools[0].scans_known
    assert any(f.pool == "NAS" and f.severity.name == "CRITICAL" for f in findings)
