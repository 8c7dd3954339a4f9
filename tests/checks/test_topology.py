"""topology: layout advice and per-pool dataset property advice."""

from __future__ import annotations

from tests.checks.builders import T0, evidence, fs, leaf, mirror, one, pool, raidz, snap
from zdash.checks import topology
from zdash.checks.finding import Severity
from zdash.config import CheckConfig

CFG = CheckConfig()


def check_now(*pools, **kw):
    return topology.check([snap(T0, *pools, **kw)], CFG)


def test_raidz_mirror_and_single_disk_mix():
    """raidz-wide capture, pool `mixed`: raidz1 + 3-way mirror + one bare file."""
    files = [leaf(f"/r/m{i}", kind="file") for i in range(1, 8)]
    p = pool("mixed", raidz(0, *files[:3]), mirror(1, *files[3:6]), files[6])
    findings = check_now(p)
    assert all(f.severity == Severity.INFO for f in findings)
    single = one(findings, subject="/r/m7", topic="single-disk")
    assert "losing it loses mixed" in single.title and "The rest of the pool is redundant" in single.why
    assert single.actions[0].action == "attach"
    assert single.actions[0].argv == ("zpool", "attach", "mixed", "/r/m7")
    types = one(findings, topic="vdev-types")
    assert types.title == "mixed mixes top-level vdev types: mirror, raidz1, single disk"
    assert "zpool remove" in types.why


def test_raidz_width_boundary():
    eight = pool("w", raidz(0, *[leaf(f"d{i}") for i in range(8)], parity=2))
    ten = pool("w", raidz(0, *[leaf(f"d{i}") for i in range(10)], parity=2))
    assert check_now(eight) == []
    f = one(check_now(ten), topic="width")
    assert f.subject == "raidz2-0" and f.title == "raidz2-0 is 10 disks wide (more than 8)"


def test_plain_mirrors_have_no_layout_advice():
    p = pool(
        "t",
        mirror(0, leaf("a"), leaf("b")),
        mirror(1, leaf("c"), leaf("d")),
        leaf("nvme0", vclass="log"),
        leaf("nvme1", vclass="cache"),
    )
    assert check_now(p) == []


def test_dataset_property_advice_is_one_finding_per_pool_per_property():
    ds = (
        fs("tank", compression="off"),
        fs("tank/a", compression="off"),
        fs("tank/b", compression="off"),
        fs("tank/c", compression="lz4"),
        fs("tank@snap", kind="snapshot", compression="off"),
        fs("other", compression="off", atime="on", relatime="off"),
        fs("other/linux", compression="lz4", atime="on", relatime="on"),  # relatime: fine
        fs("other/unknown", compression="lz4", atime="on"),  # relatime not read: no verdict
    )
    findings = check_now(pool("tank", mirror(0, leaf("a"), leaf("b"))), datasets=ds)
    comp = one(findings, pool="tank", topic="compression")
    assert comp.subject == "tank" and comp.title == "tank: 3 datasets with compression=off"
    assert evidence(comp)["Datasets"] == "tank, tank/a, tank/b"  # no snapshot
    assert [a.argv for a in comp.actions] == [("zfs", "set", "compression=on", "tank")]
    assert (
        one(findings, pool="other", topic="atime").title == "other: 1 dataset with atime=on and relatime=off"
    )
    assert len([f for f in findings if f.pool == "tank"]) == 1


def test_xattr_on_means_sa_from_openzfs_2_3():
    ds = (fs("tank", xattr="on"), fs("tank/d", xattr="dir"))
    new = check_now(pool("tank", leaf("a")), datasets=ds, zfs_version="zfs-2.3.2-2~bpo12+2")
    assert evidence(one(new, topic="xattr"))["Datasets"] == "tank/d"
    old = check_now(pool("tank", leaf("a")), datasets=ds, zfs_version="zfs-2.2.7-1")
    assert evidence(one(old, topic="xattr"))["Datasets"] == "tank, tank/d"
    unknown = check_now(pool("tank", leaf("a")), datasets=ds, zfs_version=None)
    assert evidence(one(unknown, topic="xattr"))["Datasets"] == "tank/d"


def test_dedup_on_zvol_is_reported():
    ds = (fs("tank"), fs("tank/vm", kind="volume", dedup="on", atime=None, xattr=None))
    f = one(check_now(pool("tank", leaf("a")), datasets=ds), topic="dedup")
    assert evidence(f)["Datasets"] == "tank/vm"
    assert f.actions[0].argv == ("zfs", "set", "dedup=off", "tank/vm")
