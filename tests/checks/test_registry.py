"""registry: every check runs, failures are isolated, results come worst first."""

from __future__ import annotations

import types

from tests.checks.builders import (
    T0,
    GiB,
    fs,
    healthy_two_mirrors,
    history,
    leaf,
    mirror,
    one,
    pool,
    snap,
    space,
    worst,
)
from zdash.checks import health, registry
from zdash.checks.finding import Finding, Severity
from zdash.checks.tracker import Tracker
from zdash.config import CheckConfig
from zdash.fold import run_checks


def fake_check(check_id, fn):
    return types.SimpleNamespace(ID=check_id, check=fn)


def boom(history, cfg):
    raise KeyError("mirror-9")


def test_every_check_module_follows_the_interface():
    ids = [m.ID for m in registry.CHECKS]
    assert sorted(ids) == sorted(
        [
            "visibility",
            "health",
            "deranged_disk",
            "smart",
            "media_mix",
            "capacity",
            "scan",
            "imbalance",
            "ashift",
            "topology",
            "clones",
            "dedup",
        ]
    )
    for m in registry.CHECKS:
        assert m.__name__ == f"zdash.checks.{m.ID}" and callable(m.check)
        assert issubclass(m.Tracker, Tracker)


def test_a_failing_check_becomes_one_warning_and_the_others_still_run():
    degraded = pool("tank", mirror(0, leaf("sda"), leaf("sdb", state="OFFLINE")), state="DEGRADED")
    findings = run_checks([snap(T0, degraded)], CheckConfig(), checks=(fake_check("boom", boom), health))
    failed = one(findings, check="boom")
    assert failed.severity == Severity.WARNING and failed.pool is None
    assert failed.title == "check boom failed: KeyError: 'mirror-9'"
    assert dict(failed.evidence)["Where"].startswith("test_registry.py:")
    assert any(f.check == "health" and "/dev/sdb OFFLINE" in f.title for f in findings)


def test_a_check_returning_garbage_is_a_failure_too():
    findings = run_checks([snap(T0)], CheckConfig(), checks=(fake_check("bad", lambda h, c: "oops"),))
    assert "returned str, not a list of Finding" in one(findings, check="bad").title


def test_findings_come_worst_first():
    p = pool(
        "tank",
        mirror(0, leaf("sda"), leaf("sdb", state="OFFLINE"), **space(GiB, 95.0)),
        mirror(1, leaf("sdc"), leaf("sdd"), **space(GiB, 94.0)),
        state="DEGRADED",
    )
    findings = run_checks([snap(T0, p)])
    severities = [f.severity for f in findings]
    assert severities == sorted(severities, reverse=True)
    # Both critical: the lost redundancy first (health outranks capacity on ties).
    assert [(f.severity, f.check) for f in findings[:2]] == [
        (Severity.CRITICAL, "health"),
        (Severity.CRITICAL, "capacity"),
    ]
    assert findings[-1].severity == Severity.INFO  # e.g. no scrub on record


def test_disabled_checks_do_not_run():
    p = pool("tank", mirror(0, leaf("sda"), leaf("sdb"), **space(GiB, 95.0)))
    findings = run_checks([snap(T0, p)], CheckConfig(disabled=("capacity", "scan")))
    assert not any(f.check in ("capacity", "scan") for f in findings)


def test_empty_history_is_no_findings():
    assert run_checks([]) == []


def test_keys_are_unique_so_the_ui_can_keep_selection():
    ds = (fs("tank", compression="off", atime="on", dedup="on", xattr="dir"),)
    p = pool("tank", mirror(0, leaf("sda"), leaf("sdb"), ashift=9), leaf("sdc"), state="ONLINE")
    findings = run_checks([snap(T0, p, datasets=ds)])
    keys = [f.key for f in findings]
    assert len(keys) == len(set(keys)) and len(keys) > 5


def test_healthy_pool_of_two_mirrors_under_even_load_is_nothing_above_info():
    datasets = (fs("tank", atime="on", xattr="on", compression="on"), fs("tank/data", atime="on", xattr="on"))
    h = history(lambda i: healthy_two_mirrors(i), 120, datasets=datasets)
    findings = run_checks(h)
    assert worst(findings) in (None, Severity.INFO)
    assert not any(f.check in ("deranged_disk", "health", "capacity", "imbalance") for f in findings)


def test_every_finding_has_a_subject_kind_and_argv_tuples():
    p = pool(
        "tank",
        mirror(0, leaf("sda", errors=(1, 0, 0)), leaf("sdb", state="FAULTED")),
        leaf("sdc"),
        state="DEGRADED",
        error_count=2,
        **space(2 * GiB, 91.0),
    )
    for f in run_checks([snap(T0, p, datasets=(fs("tank", compression="off"),))]):
        assert isinstance(f, Finding) and f.subject_kind in ("pool", "vdev", "leaf", "dataset")
        assert f.title and f.why
        for label, value in f.evidence:
            assert isinstance(label, str) and isinstance(value, str)
        for a in f.actions:
            assert isinstance(a.argv, tuple) and all(isinstance(x, str) for x in a.argv)
            assert a.argv[0] in ("zpool", "zfs", "smartctl")


def test_no_ui_toolkit_in_the_diagnosis_engine():
    import pathlib

    import zdash.checks

    for path in pathlib.Path(zdash.checks.__file__).parent.glob("*.py"):
        assert "textual" not in path.read_text().lower(), path.name


def test_the_engine_folds_snapshots_so_a_verdict_does_not_depend_on_how_history_is_cut():
    """One engine fed tick by tick gives the findings run_checks gives over the whole history."""
    h = history(lambda i: healthy_two_mirrors(i, fill=15 + i * 0.01), 40)
    engine = registry.CheckEngine()
    for s in h:
        last = engine.update(s)
    assert [f.key for f in last] == [f.key for f in run_checks(h)]
    twin = engine.copy()
    assert [f.key for f in twin.update(h[-1])] == [f.key for f in engine.update(h[-1])]


def test_a_failing_tracker_is_reset_and_reported_once_per_tick():
    class Flaky(Tracker):
        calls = 0

        def findings(self, snap):
            Flaky.calls += 1
            if Flaky.calls == 1:
                raise ValueError("first time")
            return []

    flaky = types.SimpleNamespace(ID="flaky", Tracker=Flaky)
    engine = registry.CheckEngine(checks=(flaky,))
    assert [f.check for f in engine.update(snap(T0))] == ["flaky"]
    assert engine.update(snap(T0 + 1)) == ()
