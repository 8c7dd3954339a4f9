"""clones: what destroy -R would take, and promoting clones that no longer share data."""

from __future__ import annotations

from tests.checks.builders import T0, MiB, evidence, fs, one, snap
from zdash.checks import clones
from zdash.checks.finding import Severity
from zdash.config import CheckConfig
from zdash.model import Dataset

CFG = CheckConfig()


def snapshot(name, clones_=(), **kw):
    return Dataset(name=name, kind="snapshot", clones=tuple(clones_), **kw)


def capture_datasets(clone1_own=50378752):
    """clones capture: base@s1 with two clones that diverged partly."""
    return (
        fs("clones", refer=25600, used_by_dataset=25600),
        fs("clones/base", refer=125938688, used_by_dataset=125938688),
        snapshot("clones/base@s1", ("clones/clone1", "clones/clone2"), refer=100754432),
        snapshot("clones/base@s2", refer=125938688),
        fs(
            "clones/clone1",
            origin="clones/base@s1",
            refer=117541888,
            used_by_dataset=clone1_own,
            used=clone1_own,
        ),
        fs(
            "clones/clone2", origin="clones/base@s1", refer=117544960, used_by_dataset=16804864, used=16804864
        ),
    )


def check_now(datasets):
    return clones.check([snap(T0, datasets=datasets)], CFG)


def test_origin_snapshot_lists_what_destroy_R_takes():
    findings = check_now(capture_datasets())
    f = one(findings, subject="clones/base@s1")
    assert f.severity == Severity.INFO and f.subject_kind == "dataset" and f.pool == "clones"
    assert f.title == "clones/base@s1 has 2 clones: destroy -R would also take 2 datasets"
    assert evidence(f)["destroy -R also destroys"] == "clones/clone1, clones/clone2"
    assert "zfs destroy -r clones/base" in f.why
    assert f.actions[0].argv == ("zfs", "destroy", "-nvR", "clones/base@s1")
    assert len(findings) == 1  # partly diverged clones are not promote candidates


def test_destroy_R_follows_children_snapshots_and_clones_of_clones():
    ds = (
        fs("p/base"),
        snapshot("p/base@s", ("p/c1",)),
        fs("p/c1", origin="p/base@s"),
        fs("p/c1/child"),
        snapshot("p/c1@x", ("p/c2",)),
        fs("p/c2", origin="p/c1@x"),
        fs("p/c10"),
    )  # p/c10 only shares a prefix
    f = one(check_now(ds), subject="p/base@s")
    assert evidence(f)["destroy -R also destroys"] == "p/c1, p/c1/child, p/c1@x, p/c2"


def test_graph_is_built_from_origin_when_clones_property_is_missing():
    ds = (fs("p/base"), snapshot("p/base@s"), fs("p/c", origin="p/base@s"))
    assert one(check_now(ds), subject="p/base@s").title.startswith("p/base@s has 1 clone:")


def test_fully_diverged_clone_suggests_promote():
    findings = check_now(capture_datasets(clone1_own=117541888))
    f = one(findings, subject="clones/clone1")
    assert f.title == "clones/clone1 shares nothing with its origin clones/base@s1 any more"
    assert f.actions[0].argv == ("zfs", "promote", "clones/clone1") and f.actions[0].action == "promote"
    assert evidence(f)["Still shared"] == "0 B"
    assert "clones/base becomes the clone" in f.why


def test_diverged_ratio_boundary():
    refer = 100 * MiB
    at = check_now(
        (snapshot("p/b@s"), fs("p/c", origin="p/b@s", refer=refer, used_by_dataset=int(refer * 0.95)))
    )
    under = check_now(
        (snapshot("p/b@s"), fs("p/c", origin="p/b@s", refer=refer, used_by_dataset=int(refer * 0.94)))
    )
    assert any(f.subject == "p/c" for f in at) and not any(f.subject == "p/c" for f in under)


def test_tiny_empty_clone_is_not_a_promote_candidate():
    ds = (snapshot("p/b@s"), fs("p/c", origin="p/b@s", refer=96 * 1024, used_by_dataset=96 * 1024))
    assert not any(f.subject == "p/c" for f in check_now(ds))


def test_snapshot_name_clash_is_warned_about():
    ds = (
        fs("p/b"),
        snapshot("p/b@daily"),
        snapshot("p/b@s", ("p/c",)),
        fs("p/c", origin="p/b@s", refer=10 * MiB, used_by_dataset=10 * MiB),
        snapshot("p/c@daily"),
    )
    assert "conflicting snapshot" in one(check_now(ds), subject="p/c").why


def test_no_clones_no_findings():
    assert check_now((fs("p"), fs("p/a"), snapshot("p/a@s"))) == []
