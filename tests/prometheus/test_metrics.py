"""The Prometheus exposition of the bundled recordings, read back with prometheus_client's own
parser: what an admin's alert rules and Grafana panels would see."""

from __future__ import annotations

import re
import shutil

import pytest

from tests.prometheus.helpers import at, parse, promtool_problems, text_of, value
from zdash.prometheus.exporter import State, ZdashCollector, exposition
from zdash.prometheus.metrics import SPECS, STATES, families
from zdash.scenarios import names


def _degraded(snap) -> bool:
    pool = snap.pool("tank")
    return pool is not None and pool.state == "DEGRADED"


def _resilvering(snap) -> bool:
    pool = snap.pool("tank")
    return pool is not None and any(s.state == "scanning" and (s.pct_done or 0) > 20 for s in pool.scans)


def test_deranged_mirror_names_the_slow_disk_and_shows_why():
    m = parse(text_of("deranged-mirror"))
    finding = [s for s in m["zdash_finding"] if s.labels["check"] == "deranged_disk"]
    assert [s.labels for s in finding] == [
        {
            "check": "deranged_disk",
            "severity": "warning",
            "pool": "tank",
            "subject": "/dev/mapper/sick",
            "topic": "",
        }
    ]
    assert finding[0].value == 1
    # The lesson of the dashboard, in metrics: its %UTIL and wait far above its partner's.
    leaf = dict(pool="tank", vdev="mirror-1")
    sick = value(m, "zdash_leaf_utilization_ratio", leaf="/dev/mapper/sick", **leaf)
    peer = value(m, "zdash_leaf_utilization_ratio", leaf="/dev/loop2", **leaf)
    assert 0.5 < sick <= 1.0 and peer < sick / 3
    wait = value(m, "zdash_leaf_write_disk_wait_seconds", leaf="/dev/mapper/sick", **leaf)
    assert wait > 10 * value(m, "zdash_leaf_write_disk_wait_seconds", leaf="/dev/loop2", **leaf)
    assert 0.01 < wait < 1  # seconds, not ns or ms
    # Joinable with node_exporter's node_disk_* series by the kernel device name.
    assert value(m, "zdash_leaf_info", leaf="/dev/mapper/sick", device="dm-0") == 1
    assert value(m, "zdash_pool_state", pool="tank", state="ONLINE") == 1
    assert value(m, "zdash_vdev_redundancy_left", pool="tank", vdev="mirror-1") == 1


def test_degraded_pool_at_its_degraded_tick():
    m = parse(text_of("degraded-resilver", _degraded))
    assert value(m, "zdash_pool_state", pool="tank", state="DEGRADED") == 1
    assert value(m, "zdash_pool_state", pool="tank", state="ONLINE") == 0
    assert value(m, "zdash_vdev_state", pool="tank", vdev="mirror-1", state="DEGRADED") == 1
    assert value(m, "zdash_leaf_state", pool="tank", vdev="mirror-1", leaf="/dev/loop3", state="OFFLINE") == 1
    # mirror-1 runs on one disk: built to lose one, can lose none now; mirror-0 is whole.
    assert value(m, "zdash_vdev_redundancy_left", pool="tank", vdev="mirror-1") == 0
    assert value(m, "zdash_vdev_redundancy_design", pool="tank", vdev="mirror-1") == 1
    assert value(m, "zdash_vdev_redundancy_left", pool="tank", vdev="mirror-0") == 1
    critical = [s.labels for s in m["zdash_finding"] if s.labels["severity"] == "critical"]
    assert {(f["check"], f["pool"], f["subject"]) for f in critical} == {("health", "tank", "mirror-1")}


def test_resilver_progress_and_state():
    m = parse(text_of("degraded-resilver", _resilvering))
    labels = dict(pool="tank", function="resilver")
    assert value(m, "zdash_pool_scan_state", state="scanning", **labels) == 1
    assert value(m, "zdash_pool_scan_state", state="finished", **labels) == 0
    assert 0.2 < value(m, "zdash_pool_scan_progress_ratio", **labels) < 1
    assert value(m, "zdash_pool_scan_start_timestamp_seconds", **labels) > 1.7e9
    assert "zdash_pool_scan_end_timestamp_seconds" not in m  # still running

    done = parse(text_of("degraded-resilver"))
    assert value(done, "zdash_pool_scan_state", state="finished", **labels) == 1
    assert value(done, "zdash_pool_scan_progress_ratio", **labels) == 1
    assert value(done, "zdash_vdev_redundancy_left", pool="tank", vdev="mirror-1") == 1


def test_full_pool_reads_as_a_ratio_with_its_critical_finding():
    m = parse(text_of("capacity-93"))
    fill = value(m, "zdash_pool_fill_ratio", pool="tank")
    assert 0.925 <= fill <= 0.935
    size, alloc = (
        value(m, "zdash_pool_size_bytes", pool="tank"),
        value(m, "zdash_pool_allocated_bytes", pool="tank"),
    )
    assert alloc == pytest.approx(fill * size)
    assert value(m, "zdash_vdev_fill_ratio", pool="tank") > 0.9  # its one vdev, however it is named
    assert value(m, "zdash_finding", check="capacity", severity="critical", pool="tank", subject="tank") == 1


def test_before_the_first_snapshot_the_sources_read_down():
    m = parse(exposition(None, ()).decode())
    for source in ("status", "list", "iostat"):
        assert value(m, "zdash_source_up", source=source) == 0
    assert "zdash_pool_state" not in m


def test_a_snapshot_that_stops_coming_goes_stale_at_scrape_time():
    snap, findings = at("healthy")
    state = State()
    clock = [snap.time]
    collector = ZdashCollector(state, clock=lambda: clock[0])
    from zdash.prometheus.exporter import Latest

    state.publish(Latest(snap, findings))

    def scrape():
        from prometheus_client import CollectorRegistry, generate_latest

        r = CollectorRegistry()
        r.register(collector)
        return parse(generate_latest(r).decode())

    fresh = scrape()
    assert value(fresh, "zdash_source_up", source="status") == 1
    assert value(fresh, "zdash_source_up", source="iostat") == 1
    clock[0] = snap.time + 120  # the collector has not folded a tick for two minutes
    stale = scrape()
    for source in ("status", "list", "iostat"):
        assert value(stale, "zdash_source_up", source=source) == 0
        assert value(stale, "zdash_source_age_seconds", source=source) >= 120
    assert value(stale, "zdash_pool_state", pool="tank", state="ONLINE") == 1  # last known, still shown


def _layout_words(snap, findings) -> set[str]:
    """Every label value an exposition may hold: names from the pool layout, and enums."""
    words = {"", "read", "write", "checksum", *STATES, "scanning", "paused", "finished", "canceled"}
    for pool in snap.pools:
        words.add(pool.name)
        words.update(s.function for s in pool.scans)
        for v in pool.root.walk():
            words.update(x for x in (v.name, v.path, v.label, v.kind, v.vclass, v.device) if x)
    words.update(s.key for s in snap.sources)
    for f in findings:
        words.update((f.check, f.severity.name.lower(), f.subject, f.topic))
    return words


@pytest.mark.slow
@pytest.mark.parametrize("scenario", names())
def test_every_recording_has_bounded_labels_and_parses(scenario):
    snap, findings = at(scenario)
    text = exposition(snap, findings).decode()
    m = parse(text)
    words = _layout_words(snap, findings)
    longest = max(len(w) for w in words)
    seen = set()
    n_series = 0
    for name, samples in m.items():
        for s in samples:
            n_series += 1
            key = (name, tuple(sorted(s.labels.items())))
            assert key not in seen, f"series emitted twice: {key}"
            seen.add(key)
            for label, v in s.labels.items():
                if label == "version":
                    continue
                assert v in words, f"{name}: {label}={v!r} is not a name from the pool layout"
                assert len(v) <= longest and not re.search(r"\s", v)
    # States are one-hot: exactly one state is 1 for each pool, vdev and device.
    for name in ("zdash_pool_state", "zdash_vdev_state", "zdash_leaf_state", "zdash_pool_scan_state"):
        hot: dict[tuple, float] = {}
        for s in m.get(name, ()):
            key = tuple(sorted((k, v) for k, v in s.labels.items() if k != "state"))
            hot[key] = hot.get(key, 0) + s.value
        assert all(total == 1 for total in hot.values()), (name, hot)
    # No title or reasoning leaks into the exposition.
    for f in findings:
        assert f.title not in text and f.why not in text
    # Linear in the layout: a handful of series per pool, vdev, leaf, finding and source.
    nodes = sum(1 + len(p.top_level) + len(list(p.leaves())) for p in snap.pools)
    assert n_series <= 40 * nodes + len(findings) + 2 * len(snap.sources) + 4
    # Every family is in the documented table, with its documented labels.
    spec = {s.name: s for s in SPECS}
    for family in families(snap, findings):
        suffix = {"info": "_info", "counter": "_total"}.get(family.type, "")
        documented = spec[family.name + suffix]
        for s in family.samples:
            assert set(s.labels) == set(documented.labels)


def test_counters_are_the_only_total_names_and_units_are_base():
    for s in SPECS:
        assert s.name.startswith("zdash_") and re.fullmatch(r"[a-z_]+", s.name)
        assert s.name.endswith("_total") == (s.kind == "counter"), s.name
        assert not re.search(r"_(ms|milliseconds|ns|percent|pct|mb|kb)(_|$)", s.name), s.name
        assert s.help.strip()


@pytest.mark.skipif(
    shutil.which("promtool") is None, reason="promtool not installed (apt-get install prometheus)"
)
@pytest.mark.parametrize("scenario", ["deranged-mirror", "degraded-resilver", "capacity-93", "scrub-repair"])
def test_promtool_accepts_the_exposition(scenario):
    assert promtool_problems(text_of(scenario)) is None
    assert promtool_problems(exposition(None, ()).decode()) is None
