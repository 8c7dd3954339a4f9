"""scan: zdash's own ETA for running scans, paused scans, and scrub hygiene."""

from __future__ import annotations

import pytest

from tests.checks.builders import DAY, T0, GiB, MiB, evidence, history, leaf, mirror, one, pool, scan, snap
from zdash.checks import scan as scan_check
from zdash.checks.finding import Severity
from zdash.config import CheckConfig

CFG = CheckConfig()
START = T0 - 600


def tank(*scans, state="ONLINE"):
    return pool("tank", mirror(0, leaf("sda"), leaf("sdb")), state=state, scans=scans)


def scrubbing(issued, *, state="scanning", function="scrub", **kw):
    kw.setdefault("to_examine", 10 * GiB)
    kw.setdefault("skipped", 0)
    kw.setdefault("zpool_eta_s", 5.0)
    return scan(function, state, start_time=START, issued=issued, **kw)


def test_running_scrub_gets_zdash_eta_from_the_rolling_rate():
    # 10 MiB/s for 60 s; 2 GiB of 10 GiB issued now -> 8 GiB left -> 819.2 s
    h = history(lambda i: tank(scrubbing(2 * GiB - (60 - i) * 10 * MiB)), 61)
    f = one(scan_check.check(h, CFG), topic="scrub")
    assert f.severity == Severity.INFO and f.subject == "tank"
    ev = evidence(f)
    assert ev["Rate (zdash)"] == "10.0 MiB/s over 1 min 0 s"
    assert ev["ETA (zdash)"] == "13 min 39 s"
    assert ev["ETA (zpool)"] == "5 s"  # zpool's figure is kept as evidence
    assert ev["Progress"] == "20.0 %"
    assert "about 13 min 39 s left" in f.title


def test_skipped_bytes_are_not_left_to_issue():
    h = history(lambda i: tank(scrubbing(2 * GiB - (20 - i) * 10 * MiB, skipped=2 * GiB)), 21)
    ev = evidence(one(scan_check.check(h, CFG), topic="scrub"))
    assert ev["Issued"] == "2.0 GiB of 8.0 GiB"
    assert ev["ETA (zdash)"] == "10 min 14 s"


def test_too_little_history_is_still_measuring():
    h = history(lambda i: tank(scrubbing(GiB + i * MiB)), 5)  # 4 s < 10 s
    f = one(scan_check.check(h, CFG), topic="scrub")
    assert evidence(f)["Rate (zdash)"].startswith("measuring")
    assert evidence(f)["ETA (zdash)"] == "unknown"


def test_rate_only_counts_the_stretch_since_the_scan_resumed():
    def make(i):
        if i < 20:
            return tank(scrubbing(GiB + i * 100 * MiB))  # fast before the pause
        if i < 30:
            return tank(scrubbing(3 * GiB, state="paused", pause_time=T0 + 20))
        return tank(scrubbing(3 * GiB + (i - 30) * MiB))  # slow after resuming

    ev = evidence(one(scan_check.check(history(make, 61), CFG), topic="scrub"))
    assert ev["Rate (zdash)"] == "1.0 MiB/s over 30 s"


def test_stalled_scan_says_nothing_was_issued():
    h = history(lambda i: tank(scrubbing(GiB)), 31)
    assert "nothing issued in the last 30 s" in one(scan_check.check(h, CFG), topic="scrub").title


def test_paused_scrub_offers_resume_and_warns_when_left_paused_for_long():
    recent = scrubbing(3 * GiB, state="paused", pause_time=T0 - 3600, pct_done=74.49)
    f = one(scan_check.check([snap(T0, tank(recent))], CFG), topic="scrub")
    assert f.severity == Severity.INFO and f.title == "tank: scrub paused at 74.5 %"
    assert f.actions[0].argv == ("zpool", "scrub", "tank") and f.actions[0].action == "scrub"
    old = scrubbing(3 * GiB, state="paused", pause_time=T0 - 40 * DAY)
    assert one(scan_check.check([snap(T0, tank(old))], CFG), topic="scrub").severity == Severity.WARNING


def test_resilver_progress_is_info_the_lost_redundancy_is_the_health_finding():
    """One fault, one finding: the health check says what the pool can still survive; the scan
    finding says how far the repair is, and reminds why it matters."""
    res = scrubbing(GiB, function="resilver", processed=GiB)
    degraded = one(scan_check.check([snap(T0, tank(res, state="DEGRADED"))], CFG), topic="resilver")
    assert degraded.severity == Severity.INFO and "reduced redundancy" in degraded.why
    assert evidence(degraded)["Resilvered"] == "1.0 GiB"
    online = one(scan_check.check([snap(T0, tank(res))], CFG), topic="resilver")
    assert online.severity == Severity.INFO


def test_sequential_rebuild_is_about_its_vdev():
    rebuild = scrubbing(GiB, function="rebuild", vdev="mirror-0")
    f = one(scan_check.check([snap(T0, tank(rebuild, state="DEGRADED"))], CFG), topic="rebuild:mirror-0")
    assert f.subject == "mirror-0" and f.subject_kind == "vdev"


def finished(days_ago, **kw):
    end = T0 - days_ago * DAY
    return scan("scrub", "finished", start_time=end - 600, end_time=end, **kw)


@pytest.mark.parametrize("days, expected", [(34.9, None), (35.1, Severity.WARNING)])
def test_scrub_age_boundary(days, expected):
    findings = scan_check.check([snap(T0, tank(finished(days, processed=0, errors=0)))], CFG)
    if expected is None:
        assert findings == []
    else:
        f = one(findings, topic="scrub-history")
        assert f.severity == expected and "35 d" in f.title
        assert f.actions[0].argv == ("zpool", "scrub", "tank")


def test_never_scrubbed_is_info():
    f = one(scan_check.check([snap(T0, tank())], CFG), topic="scrub-history")
    assert f.severity == Severity.INFO and "no scrub on record" in f.title


def test_canceled_scrub_is_noted():
    canceled = scan("scrub", "canceled", start_time=T0 - 2 * DAY, end_time=T0 - 2 * DAY)
    f = one(scan_check.check([snap(T0, tank(canceled))], CFG), topic="scrub-history")
    assert f.severity == Severity.INFO and "canceled" in f.title


def test_last_scrub_repairs_are_the_health_checks_story_not_scan_hygiene():
    """errors capture: 'scrub repaired 3K in 00:00:01 with 0 errors' a day ago: nothing for
    the scan check to say (what was repaired, and on which disk, is the health finding)."""
    assert scan_check.check([snap(T0, tank(finished(1, processed=3072, errors=0)))], CFG) == []


def test_no_hygiene_advice_while_a_scan_runs():
    running = scrubbing(GiB)
    old = finished(100, processed=0, errors=0)
    findings = scan_check.check([snap(T0, tank(old, scrubbing(GiB, function="resilver")))], CFG)
    assert [f.topic for f in findings] == ["resilver"]
    assert [f.topic for f in scan_check.check([snap(T0, tank(running))], CFG)] == ["scrub"]
