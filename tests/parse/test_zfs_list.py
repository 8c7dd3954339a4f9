"""zfs_list.parse_zfs_list on the captures' -o lists and on the collector's ZFS_LIST_FIELDS."""

from __future__ import annotations

from pathlib import Path

import pytest

from zdash.model import Dataset
from zdash.parse import ParseError
from zdash.parse.zfs_list import ZFS_LIST_FIELDS, parse_zfs_list

CAPTURES = Path(__file__).resolve().parents[1] / "captures"
# meta.txt: zfs list -r -t all -H -p -o name,type,used,avail,refer,mountpoint,origin <pool>
CAPTURE_FIELDS = ("name", "type", "used", "avail", "refer", "mountpoint", "origin")
# meta.txt (clones): zfs list -t all -H -p -o name,type,origin,clones,used,refer,avail,mountpoint
CLONE_FIELDS = ("name", "type", "origin", "clones", "used", "refer", "avail", "mountpoint")
LISTS = sorted(CAPTURES.glob("*/zfs-list-H-p*.txt"))


def _id(p: Path) -> str:
    return f"{p.parent.name}/{p.name}"


def _by_name(rel: str, fields) -> dict[str, Dataset]:
    return {d.name: d for d in parse_zfs_list((CAPTURES / rel).read_text(), fields)}


@pytest.mark.parametrize("path", LISTS, ids=_id)
def test_captures_parse(path):
    datasets = parse_zfs_list(path.read_text(), CAPTURE_FIELDS)
    assert len(datasets) == len(path.read_text().splitlines())
    assert {d.kind for d in datasets} <= {"filesystem", "volume", "snapshot"}
    # no quotas or reservations in these scenarios: every filesystem sees the pool's avail
    assert len({d.avail for d in datasets if d.kind == "filesystem"}) == 1
    assert all(d.avail is None for d in datasets if d.kind == "snapshot")  # '-' under -p
    assert all(d.used is not None and d.refer is not None for d in datasets)


def test_clones_by_hand():
    ds = _by_name("clones/zfs-list-all-H-p-origin-clones.txt", CLONE_FIELDS)
    assert ds["clones/base@s1"].clones == ("clones/clone1", "clones/clone2")
    assert ds["clones/base@s1"].used == 14336 and ds["clones/base@s1"].refer == 100754432
    assert ds["clones/base@s2"].clones == () and ds["clones/base@s2"].origin is None
    assert ds["clones/clone2"].origin == "clones/base@s1"
    # a clone shares its origin's blocks: it uses less than it refers to
    assert ds["clones/clone1"].used == 50378752 < ds["clones/clone1"].refer == 117541888


def test_promote_reverses_the_dependency_and_clones_are_unsorted():
    ds = _by_name("clones/zfs-list-all-H-p-origin-clones.after-promote.txt", CLONE_FIELDS)
    assert "clones/base@s1" not in ds
    assert ds["clones/clone1"].origin is None
    assert ds["clones/base"].origin == "clones/clone1@s1"
    assert ds["clones/clone1@s1"].clones == ("clones/clone2", "clones/base")  # nvlist order


@pytest.mark.parametrize(
    "name", ["zfs-list-all-H-p-origin-clones.txt", "zfs-list-all-H-p-origin-clones.after-promote.txt"]
)
def test_clone_graph_is_consistent(name):
    """Edges snapshot -> clone (from clones) agree with clone.origin (reference §6)."""
    ds = _by_name(f"clones/{name}", CLONE_FIELDS)
    edges = {(s.name, c) for s in ds.values() for c in s.clones}
    assert edges == {(d.origin, d.name) for d in ds.values() if d.origin}
    assert len(edges) == 2


def test_origin_in_the_common_capture_fields():
    ds = _by_name("clones/zfs-list-H-p.txt", CAPTURE_FIELDS)
    assert ds["clones/clone1"].origin == "clones/base@s1" and ds["clones/base"].origin is None
    assert ds["clones/base@s1"].clones == ()  # not asked for


# The collector's field list, with the values of healthy/zfs-get-all-H-p.txt for healthy/data,
# plus a snapshot with a clone and a volume (compressratio may carry its 'x').
DEFAULT_FIELDS_TEXT = (
    "healthy/data\tfilesystem\t-\t-\t314806272\t1564109824\t314806272\t314806272\t0\ton\t1.00\toff\ton\ton\ton\n"
    "healthy/data@a\tsnapshot\t-\thealthy/c\t0\t-\t314806272\t-\t-\t-\t1.00x\t-\t-\t-\t-\n"
    "healthy/vol\tvolume\t-\t-\t1090519040\t1564109824\t57344\t57344\t0\tlz4\t2.35x\toff\t-\t-\t-\n"
)


def test_default_fields():
    assert ZFS_LIST_FIELDS[:2] == ("name", "type")
    data, snap, vol = parse_zfs_list(DEFAULT_FIELDS_TEXT)
    assert data == Dataset(
        "healthy/data",
        "filesystem",
        None,
        (),
        314806272,
        1564109824,
        314806272,
        314806272,
        0,
        "on",
        1.0,
        "off",
        "on",
        "on",
        "on",
    )
    assert (snap.clones, snap.avail, snap.compressratio, snap.compression) == (
        ("healthy/c",),
        None,
        1.0,
        None,
    )
    assert (vol.kind, vol.compressratio, vol.atime, vol.pool) == ("volume", 2.35, None, "healthy")


def test_long_property_names_are_accepted():
    text = "p/fs\tfilesystem\t100\t200\t300\n"
    (d,) = parse_zfs_list(text, ("name", "type", "used", "available", "referenced"))
    assert (d.used, d.avail, d.refer) == (100, 200, 300)


@pytest.mark.parametrize(
    "text, fields",
    [
        ("p/fs\tfilesystem\t100\n", CAPTURE_FIELDS),  # too few columns
        ("p/fs\tfilesystem\t300M\t1G\t24K\t/p/fs\t-\n", CAPTURE_FIELDS),  # human: -p missing
        ("p/fs\tfilesystem\t1\t1\t1\t-\t-\t-\t-\t-\tbig\t-\t-\t-\n", ZFS_LIST_FIELDS),
        ("p/fs\t100\n", ("name", "used")),  # no type column
    ],
)
def test_garbage_is_a_parse_error(text, fields):
    with pytest.raises(ParseError):
        parse_zfs_list(text, fields)


def test_no_datasets():
    assert parse_zfs_list("") == ()
