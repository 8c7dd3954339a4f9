"""Every builder at its boundaries, on hand-built snapshots and a fake probe."""

import dataclasses
from pathlib import Path

import pytest

from tests.actions.helpers import (
    Dataset,
    FakeProbe,
    GiB,
    disk,
    leaf,
    mirror,
    pool,
    raidz,
    scan,
    sdisk,
    single_disk_pool,
    snap,
    two_way,
)
from zdash.actions import ACTIONS, Request, UnknownAction, build_plan
from zdash.actions.plan import WARN

NEW = "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4"


def check(plan, name):
    hits = [c for c in plan.checks if c.name == name]
    assert len(hits) == 1, (name, [c.name for c in plan.checks])
    return hits[0]


def probe_with(*infos, sizes=None):
    return FakeProbe({i.path: i for i in infos}, sizes)


def attach(p, device="/dev/sdb", new=NEW, probe=None, **snap_kw):
    return build_plan(
        snap(p, **snap_kw),
        Request("attach", p.name, device, new),
        probe or probe_with(disk(NEW, GiB, kernel="sdz")),
    )


# --- attach ---------------------------------------------------------------------------


def test_attach_single_disk_makes_a_two_way_mirror():
    plan = attach(single_disk_pool())
    assert plan.ok, plan.failures
    assert plan.argv == ("zpool", "attach", "tank", "/dev/sdb", NEW)
    assert plan.shell_text == f"zpool attach tank /dev/sdb {NEW}"
    assert plan.disruptive and plan.confirm_token == NEW
    assert "2-way mirror" in plan.summary and "overwritten" in plan.summary
    assert check(plan, "attach target").ok
    assert "resilver" in plan.duration


def test_attach_widens_a_mirror():
    plan = attach(two_way())
    assert plan.ok and "3-way" in check(plan, "attach target").reason


def test_attach_by_kernel_name_resolves_to_the_leaf_path():
    p = pool("tank", dataclasses.replace(single_disk_pool().top_level[0], path="/dev/disk/by-id/ata-OLD"))
    plan = attach(p, device="sdb")
    assert plan.argv[3] == "/dev/disk/by-id/ata-OLD"


def test_attach_to_raidz_is_refused_never_an_expansion():
    p = pool("tank", raidz(0, sdisk("sda"), sdisk("sdb"), sdisk("sdc")))
    plan = attach(p)
    assert not plan.ok and "RAID-Z expansion" in check(plan, "attach target").reason


def test_attach_needs_a_new_device():
    plan = build_plan(snap(single_disk_pool()), Request("attach", "tank", "/dev/sdb"), FakeProbe())
    assert not plan.ok and not check(plan, "new device given").ok


@pytest.mark.parametrize("new_size,ok", [(GiB, True), (GiB + 1, True), (GiB - 512, False)])
def test_attach_size_boundary(new_size, ok):
    # The disk being mirrored is still there: its own size (1 GiB) counts, not the vdev's space.
    probe = probe_with(disk(NEW, new_size, kernel="sdz"), sizes={"/dev/sdb": GiB})
    plan = attach(single_disk_pool(), probe=probe)
    assert check(plan, "size").ok is ok and plan.ok is ok
    if not ok:
        assert "too small" in check(plan, "size").reason


def test_attach_size_falls_back_to_the_leaf_size_from_zpool_list():
    probe = probe_with(disk(NEW, GiB - 512, kernel="sdz"))  # sda gone from the host: no probe size
    assert not check(attach(two_way(), device="/dev/sda", probe=probe), "size").ok


def test_attach_unknown_sizes_only_warn():
    p = pool("tank", mirror(0, leaf("sda"), leaf("sdb")))
    plan = attach(p, device="/dev/sda")
    c = check(plan, "size")
    assert not c.ok and c.severity == WARN and plan.ok


def test_target_already_in_another_pool():
    other = pool("backup", mirror(0, sdisk("sdz"), sdisk("sdy")))
    probe = probe_with(disk("/dev/sdz", GiB))
    plan = build_plan(
        snap(single_disk_pool(), other), Request("attach", "tank", "/dev/sdb", "/dev/sdz"), probe
    )
    c = check(plan, "target not in a pool")
    assert not c.ok and "backup" in c.reason and not plan.ok


def test_target_whose_partition_is_in_a_pool():
    other = pool("backup", mirror(0, sdisk("sdz1"), sdisk("sdy1")))
    probe = probe_with(disk("/dev/sdz", GiB, partitions=("sdz1",)))
    plan = build_plan(
        snap(single_disk_pool(), other), Request("attach", "tank", "/dev/sdb", "/dev/sdz"), probe
    )
    assert not check(plan, "target not in a pool").ok


def test_target_in_the_same_pool_by_symlink():
    probe = probe_with(disk(NEW, GiB, realpath="/dev/sda", kernel="sda"))
    plan = attach(two_way(), device="/dev/sdb", probe=probe)
    assert not check(plan, "target not in a pool").ok


def test_target_with_a_zfs_label_of_an_exported_pool():
    probe = probe_with(disk(NEW, GiB, kernel="sdz", signatures=(("sdz", "zfs_member", "oldpool"),)))
    c = check(attach(single_disk_pool(), probe=probe), "target not in a pool")
    assert not c.ok and "oldpool" in c.reason and "labelclear" in c.reason


@pytest.mark.parametrize(
    "kw,name,word",
    [
        ({"mounts": ("/srv",)}, "target not mounted", "/srv"),
        ({"mounts": ("swap",)}, "target not mounted", "swap"),
        ({"holders": ("dm-3",)}, "target unused", "dm-3"),
        ({"signatures": (("sdz1", "ext4", "data"),)}, "target unused", "ext4"),
    ],
)
def test_target_in_use(kw, name, word):
    probe = probe_with(disk(NEW, GiB, kernel="sdz", **kw))
    plan = attach(single_disk_pool(), probe=probe)
    assert not plan.ok and word in check(plan, name).reason


def test_target_missing_or_without_medium():
    assert not check(attach(single_disk_pool(), probe=FakeProbe()), "target exists").ok
    plan = attach(single_disk_pool(), probe=probe_with(disk(NEW, 0, kernel="loop7")))
    assert "no medium" in check(plan, "target exists").reason and not plan.ok


def test_bare_kernel_name_warns_with_the_stable_alias():
    probe = probe_with(disk("/dev/sdz", GiB, stable_aliases=(NEW,)))
    plan = attach(single_disk_pool(), new="/dev/sdz", probe=probe)
    c = check(plan, "stable path")
    assert not c.ok and c.severity == WARN and NEW in c.reason and plan.ok
    assert check(attach(single_disk_pool()), "stable path").ok


@pytest.mark.parametrize(
    "ashift,logical,phys,result",
    [
        (12, 512, 4096, "PASS"),
        (12, 4096, 4096, "PASS"),
        (9, 512, 512, "PASS"),
        (9, 512, 4096, "WARN"),  # 512e disk on an ashift-9 vdev: works, slowly
        (9, 4096, 4096, "FAIL"),  # 4Kn disk: zpool refuses
        (None, 512, 4096, "WARN"),
    ],
)
def test_sector_size_against_ashift(ashift, logical, phys, result):
    p = single_disk_pool(ashift=ashift)
    probe = probe_with(disk(NEW, GiB, kernel="sdz", logical=logical, phys=phys))
    assert check(attach(p, probe=probe), "sector size").mark == result


# --- detach ---------------------------------------------------------------------------


def detach(p, device, **kw):
    return build_plan(snap(p, **kw), Request("detach", p.name, device), FakeProbe())


def test_detach_from_a_healthy_two_way_mirror_needs_the_risk_accepted():
    """Taking away a vdev's last redundancy is never PASS: it fails until accepted."""
    plan = detach(two_way(), "/dev/sdb")
    c = check(plan, "redundancy kept")
    assert not plan.ok and c.mark == "FAIL" and c.needs_acceptance
    assert "mirror-0 has no redundancy left: it runs on /dev/sda alone" in c.reason
    assert plan.needs_acceptance == (c,)
    accepted = build_plan(
        snap(two_way()), Request("detach", "tank", "/dev/sdb", accept_risk=True), FakeProbe()
    )
    assert accepted.ok and check(accepted, "redundancy kept").mark == "ACCEPTED"
    assert accepted.argv == ("zpool", "detach", "tank", "/dev/sdb")
    assert accepted.confirm_token == "/dev/sdb" and accepted.disruptive
    assert "no redundancy" in accepted.summary


def test_detach_from_a_three_way_mirror_says_what_is_left():
    three = pool("tank", mirror(0, sdisk("sda"), sdisk("sdb"), sdisk("sdc")))
    plan = detach(three, "/dev/sdb")
    c = check(plan, "redundancy kept")
    assert plan.ok and c.ok and c.reason == "without /dev/sdb, mirror-0 can still lose 1 more disk"


def test_detach_never_removes_the_last_healthy_member():
    plan = detach(two_way(states=("OFFLINE", "ONLINE")), "/dev/sdb")
    c = check(plan, "redundancy kept")
    assert not plan.ok and "last healthy" in c.reason


def test_detach_of_the_unhealthy_member_is_fine():
    assert detach(two_way(states=("OFFLINE", "ONLINE")), "/dev/sda").ok


def test_detach_a_single_disk_or_raidz_member_is_refused():
    plan = detach(single_disk_pool(), "/dev/sdb")
    assert not check(plan, "detachable").ok and not check(plan, "redundancy kept").ok
    rz = pool("tank", raidz(0, sdisk("sda"), sdisk("sdb"), sdisk("sdc")))
    assert "only mirror" in check(detach(rz, "/dev/sda"), "detachable").reason


def test_a_member_being_resilvered_is_not_a_copy():
    resilver = (scan("resilver", "scanning", pct_done=40.0),)
    p = two_way(aux=(None, "(resilvering)"), scans=resilver)
    plan = detach(p, "/dev/sda")
    assert not check(plan, "redundancy kept").ok
    assert not check(plan, "not a resilver source").ok
    other = detach(p, "/dev/sdb")  # the resilver target itself: cancels that resilver
    assert other.ok and "cancels" in check(other, "not a resilver source").reason


def test_no_detach_of_a_possible_resilver_source_anywhere_in_the_pool():
    # A fresh attach shows both sides plain ONLINE: zpool does not say which one is incomplete.
    p = pool(
        "tank",
        mirror(0, sdisk("sda"), sdisk("sdb"), sdisk("sdc")),
        scans=(scan("resilver", "scanning", pct_done=1.0),),
    )
    c = check(detach(p, "/dev/sda"), "not a resilver source")
    assert not c.ok and "zpool wait -t resilver tank" in c.reason


def test_detach_on_real_resilvering_capture():
    from zdash.parse.zpool_status import parse_status

    text = Path("tests/captures/degraded/zpool-status-s-P-p.resilvering.txt").read_text()
    (p,) = parse_status(["zpool", "status", "-s", "-P", "-p"], text)
    assert not detach(p, "/tmp/zl/degraded/d1").ok  # the only complete copy
    assert not detach(p, "/tmp/zl/degraded/d3").ok  # resilver running: wait
    assert check(detach(p, "/tmp/zl/degraded/new2"), "redundancy kept").ok


# --- replace --------------------------------------------------------------------------


def replace(p, device, new=NEW, probe=None, **kw):
    return build_plan(
        snap(p, **kw),
        Request("replace", p.name, device, new),
        probe or probe_with(disk(NEW, GiB, kernel="sdz")),
    )


def test_replace_an_offlined_disk():
    plan = replace(two_way(states=("ONLINE", "OFFLINE")), "sdb")
    assert plan.ok, plan.failures
    assert plan.argv == ("zpool", "replace", "tank", "/dev/sdb", NEW)
    assert plan.confirm_token == "/dev/sdb"


def test_replace_with_a_smaller_disk_fails():
    plan = replace(two_way(), "/dev/sdb", probe=probe_with(disk(NEW, GiB - 4096, kernel="sdz")))
    assert not plan.ok and not check(plan, "size").ok


def test_replace_while_already_replacing():
    rep = dataclasses.replace(
        mirror(1, sdisk("sdb", state="OFFLINE"), sdisk("sdx")), name="replacing-1", kind="replacing"
    )
    p = pool("tank", mirror(0, sdisk("sda"), rep))
    c = check(replace(p, "/dev/sdb"), "not being replaced")
    assert not c.ok and "replacing-1" in c.reason


def test_replace_in_place_needs_a_new_disk_at_the_old_path():
    p = two_way(states=("ONLINE", "UNAVAIL"))
    fresh = probe_with(disk("/dev/sdb", GiB))
    plan = build_plan(snap(p), Request("replace", "tank", "/dev/sdb"), fresh)
    assert plan.ok and plan.argv == ("zpool", "replace", "tank", "/dev/sdb")
    old = probe_with(disk("/dev/sdb", GiB, signatures=(("sdb", "zfs_member", "tank"),)))
    c = check(build_plan(snap(p), Request("replace", "tank", "/dev/sdb"), old), "target not in a pool")
    assert not c.ok and "old disk" in c.reason and "zpool online" in c.reason


# --- offline / online / clear -----------------------------------------------------------


def simple(action, p, device=None, **kw):
    return build_plan(snap(p, **kw), Request(action, p.name, device), FakeProbe())


def test_offline_boundaries():
    one_side = simple("offline", two_way(), "/dev/sda")  # the last redundancy: accept it first
    assert not one_side.ok and one_side.needs_acceptance
    assert not simple("offline", two_way(states=("ONLINE", "OFFLINE")), "/dev/sda").ok
    already = simple("offline", two_way(states=("ONLINE", "OFFLINE")), "/dev/sdb")
    assert "nothing to offline" in check(already, "device state").reason
    rz1 = pool("tank", raidz(0, sdisk("sda", state="OFFLINE"), sdisk("sdb"), sdisk("sdc")))
    rz1_gone = simple("offline", rz1, "/dev/sdb")
    assert not rz1_gone.ok and not rz1_gone.needs_acceptance  # a second column gone: never
    rz1_whole = pool("tank", raidz(0, sdisk("sda"), sdisk("sdb"), sdisk("sdc")))
    assert simple("offline", rz1_whole, "/dev/sdb").needs_acceptance  # raidz1: its only parity
    rz2 = pool(
        "tank", raidz(0, sdisk("sda", state="OFFLINE"), sdisk("sdb"), sdisk("sdc"), sdisk("sdd"), parity=2)
    )
    assert simple("offline", rz2, "/dev/sdb").needs_acceptance  # raidz2 already missing one
    rz2_whole = pool("tank", raidz(0, sdisk("sda"), sdisk("sdb"), sdisk("sdc"), sdisk("sdd"), parity=2))
    assert simple("offline", rz2_whole, "/dev/sdb").ok
    assert simple("offline", two_way(), "/dev/sda").confirm_token == "/dev/sda"


def test_online_and_clear():
    plan = simple("online", two_way(states=("ONLINE", "OFFLINE")), "/dev/sdb")
    assert plan.ok and not plan.disruptive and plan.confirm_token is None
    assert not simple("online", two_way(), "/dev/sdb").ok
    errs = pool("tank", mirror(0, sdisk("sda", errors=(0, 0, 3)), sdisk("sdb")))
    assert simple("clear", errs).ok and simple("clear", errs).argv == ("zpool", "clear", "tank")
    assert simple("clear", errs, "sda").argv == ("zpool", "clear", "tank", "/dev/sda")
    quiet = simple("clear", two_way())
    assert quiet.ok and check(quiet, "something to clear").mark == "WARN"


# --- scrub ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "action,scans,ok,alternatives",
    [
        ("scrub", (), True, ()),
        ("scrub", (scan("scrub", "finished", end_time=1.0),), True, ()),
        ("scrub", (scan("scrub", "scanning", pct_done=30.0),), False, ("scrub-pause", "scrub-stop")),
        ("scrub", (scan("scrub", "paused", pct_done=30.0),), True, ("scrub-stop",)),
        ("scrub", (scan("resilver", "scanning"),), False, ()),
        ("scrub-pause", (scan("scrub", "scanning"),), True, ()),
        ("scrub-pause", (scan("scrub", "paused"),), False, ("scrub", "scrub-stop")),
        ("scrub-pause", (), False, ("scrub",)),
        ("scrub-stop", (scan("scrub", "scanning"),), True, ()),
        ("scrub-stop", (scan("scrub", "paused"),), True, ()),
        ("scrub-stop", (scan("scrub", "finished"),), False, ("scrub",)),
    ],
)
def test_scrub_state_machine(action, scans, ok, alternatives):
    plan = simple(action, two_way(scans=scans))
    assert plan.ok is ok and plan.alternatives == alternatives
    flag = {"scrub": (), "scrub-pause": ("-p",), "scrub-stop": ("-s",)}[action]
    assert plan.argv == ("zpool", "scrub", *flag, "tank")
    assert plan.disruptive is (action == "scrub-stop") and plan.confirm_token is None


def test_resume_is_described_as_such():
    plan = simple("scrub", two_way(scans=(scan("scrub", "paused", pct_done=30.0),)))
    assert "resumes the paused scrub at 30.0%" in check(plan, "scrub state").reason


# --- promote --------------------------------------------------------------------------


def ds(name, kind="filesystem", origin=None):
    return Dataset(name=name, kind=kind, origin=origin)


CLONES = (
    ds("tank"),
    ds("tank/fs"),
    ds("tank/fs@a", "snapshot"),
    ds("tank/fs@b", "snapshot"),
    ds("tank/fs@c", "snapshot"),
    ds("tank/clone", origin="tank/fs@b"),
    ds("tank/clone@c", "snapshot"),
)


def promote(name, datasets=CLONES):
    return build_plan(snap(two_way(), datasets=datasets), Request("promote", "tank", name), FakeProbe())


def test_promote_a_clone():
    plan = promote("tank/clone")
    assert plan.ok and plan.argv == ("zfs", "promote", "tank/clone") and plan.via == "cli"
    assert "tank/fs@b and the 1 older snapshot(s)" in plan.summary


def test_promote_refusals():
    assert "not a clone" in check(promote("tank/fs"), "is a clone").reason
    assert "snapshot" in check(promote("tank/fs@a"), "dataset").reason
    assert not promote("tank/nope").ok
    assert "could not be read" in check(promote("tank/clone", ()), "dataset").reason
    clash = CLONES + (ds("tank/clone@a", "snapshot"),)  # @a moves with the origin: conflict
    assert not check(promote("tank/clone", clash), "snapshot names").ok
    # @c exists on both but stays with tank/fs (newer than the origin): no conflict
    assert promote("tank/clone").ok


def test_promote_uses_libzfs_core_when_importable(monkeypatch):
    import sys
    import types

    monkeypatch.setitem(sys.modules, "libzfs_core", types.ModuleType("libzfs_core"))
    plan = promote("tank/clone")
    assert plan.via == "libzfs_core" and plan.argv == ("zfs", "promote", "tank/clone")


# --- common ---------------------------------------------------------------------------


def test_missing_pool_and_unreadable_status():
    plan = build_plan(snap(two_way()), Request("scrub", "nope"), FakeProbe())
    assert not plan.ok and "pools: tank" in check(plan, "pool found").reason
    plan = build_plan(snap(two_way(), status_ok=False), Request("scrub", "tank"), FakeProbe())
    assert not plan.ok and not check(plan, "fresh state").ok


def test_suspended_pool_allows_only_clear():
    p = dataclasses.replace(two_way(), state="SUSPENDED")
    assert not simple("scrub", p).ok
    assert check(simple("clear", p), "pool usable").ok


def test_unknown_action():
    with pytest.raises(UnknownAction):
        build_plan(snap(two_way()), Request("add", "tank", "/dev/sdz"), FakeProbe())


def test_no_plan_ever_adds_or_forces():
    """The wrong-verb disaster: whatever is asked, no argv is `zpool add`, none carries -f."""
    pools = [
        single_disk_pool(),
        two_way(states=("ONLINE", "OFFLINE")),
        pool("tank", raidz(0, sdisk("sda"), sdisk("sdb"), sdisk("sdc"))),
    ]
    probe = probe_with(disk(NEW, GiB, kernel="sdz"))
    for p in pools:
        for action in ACTIONS:
            for device in (None, "/dev/sda", "/dev/sdb", "nope"):
                for new in (None, NEW):
                    plan = build_plan(snap(p, datasets=CLONES), Request(action, "tank", device, new), probe)
                    assert "add" not in plan.argv[:2] and "-f" not in plan.argv, plan.argv
                    assert plan.argv[0] in ("zpool", "zfs")


def test_json_shape():
    d = attach(single_disk_pool()).to_dict()
    assert d["schema"] == 1 and d["argv"][:2] == ["zpool", "attach"] and d["ok"] is True
    assert {"name", "ok", "severity", "result", "reason"} <= set(d["checks"][0])
    assert d["based_on"][0].startswith("pool tank ONLINE")


def test_replace_may_take_an_available_hot_spare_attach_may_not():
    spare = leaf("sdz", state="AVAIL", vclass="spare", size=GiB)
    p = dataclasses.replace(two_way(states=("ONLINE", "FAULTED")))
    p = dataclasses.replace(p, root=dataclasses.replace(p.root, children=(*p.root.children, spare)))
    info = disk("/dev/sdz", GiB, signatures=(("sdz", "zfs_member", "tank"),))
    rep = replace(p, "/dev/sdb", new="/dev/sdz", probe=probe_with(info))
    c = check(rep, "target not in a pool")
    assert c.ok and "hot spare" in c.reason and rep.ok, rep.failures
    att = build_plan(snap(p), Request("attach", "tank", "/dev/sda", "/dev/sdz"), probe_with(info))
    assert not check(att, "target not in a pool").ok


def test_in_place_replace_of_a_vanished_by_id_path_asks_for_the_new_disk():
    p = pool("tank", mirror(0, sdisk("sda"), leaf("x", path="/dev/disk/by-id/ata-OLD", state="UNAVAIL")))
    plan = build_plan(snap(p), Request("replace", "tank", "/dev/disk/by-id/ata-OLD"), FakeProbe())
    assert "give the new disk's path" in check(plan, "target exists").reason and not plan.ok
