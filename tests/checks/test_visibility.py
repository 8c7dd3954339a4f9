"""visibility: a failed, timed-out or stalled source is a verdict: UNKNOWN when zdash cannot
see, CRITICAL when zpool reports the pool's own failure; never silence, never OK."""

from __future__ import annotations

import dataclasses

from tests.checks.builders import T0, healthy_two_mirrors, snap
from zdash.checks import visibility
from zdash.checks.finding import Severity
from zdash.config import CheckConfig
from zdash.fold import run_checks
from zdash.model import SourceState

CFG = CheckConfig()


def seen(*sources: SourceState):
    return dataclasses.replace(snap(T0, healthy_two_mirrors(load=False)), sources=sources)


def test_fresh_sources_say_nothing():
    ok = seen(SourceState("status", True, 1.0), SourceState("iostat", True, 0.0))
    assert visibility.check([ok], CFG) == []


def test_a_hung_status_is_unknown_and_says_what_is_shown_is_old():
    s = seen(SourceState("status", False, 45.0, "zpool status timed out after 10 s"))
    (f,) = visibility.check([s], CFG)
    assert f.severity == Severity.UNKNOWN and f.pool == "tank"
    assert f.title == "cannot see tank: zpool status timed out after 10 s"
    assert "last good data 45 s old" in f.why and "will not call the pool OK" in f.why


def test_an_io_error_from_zpool_is_the_pools_own_failure():
    s = seen(SourceState("status", False, 12.0, "zpool status: cannot open 'tank': I/O error"))
    (f,) = visibility.check([s], CFG)
    assert f.severity == Severity.CRITICAL and "zpool cannot read the pool" in f.title


def test_denied_says_how_to_get_access():
    s = seen(SourceState("status", False, None, "zpool status: permission denied"))
    (f,) = visibility.check([s], CFG)
    assert f.severity == Severity.UNKNOWN and "run zdash as root" in f.why and "no data yet" in f.why


def test_a_stalled_iostat_stream_is_unknown_even_with_a_healthy_tree():
    s = seen(
        SourceState("status", True, 1.0), SourceState("iostat", False, 30.0, "iostat: no fresh data for 30 s")
    )
    findings = run_checks([s])
    assert max(f.severity for f in findings) == Severity.UNKNOWN
    assert Severity.UNKNOWN.exit_code == 3 and Severity.CRITICAL.exit_code == 2


def test_a_stream_lagging_a_few_seconds_is_stale_not_yet_a_verdict():
    """A busy host's `zpool iostat` can lag a few seconds and recover: STALE on screen at once
    (the snapshot's own state), UNKNOWN only once the lag passes the grace. A failed command is
    a verdict at once, whatever its age."""
    lag = seen(SourceState("iostat", False, 4.0, "iostat: no fresh data for 4 s", stalled=True))
    assert visibility.check([lag], CFG) == []
    assert lag.problems  # the screen's STALE
    long = seen(SourceState("iostat", False, 12.0, "iostat: no fresh data for 12 s", stalled=True))
    assert [f.severity for f in visibility.check([long], CFG)] == [Severity.UNKNOWN]
    failed = seen(SourceState("iostat", False, 1.0, "zpool iostat stopped: exit code 1"))
    assert [f.severity for f in visibility.check([failed], CFG)] == [Severity.UNKNOWN]


def test_a_datasets_failure_is_not_blindness():
    s = seen(SourceState("datasets", False, 300.0, "zfs list timed out after 10 s"))
    assert visibility.check([s], CFG) == []
