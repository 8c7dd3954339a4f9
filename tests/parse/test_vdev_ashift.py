"""vdev_ashift: the 2.2+ vdev property rows and the 0.8-2.1 `zdb -C` fallback."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from zdash.parse import ParseError
from zdash.parse.vdev_ashift import ashift_by_vdev_name, parse_get_ashift, parse_zdb_config

MISMATCH = Path(__file__).resolve().parents[1] / "captures" / "ashift-mismatch"


def test_zdb_mos_config_of_the_mismatch_pool():
    """Created with -o ashift=9, then a mirror added with -o ashift=12 (meta.txt)."""
    tops = parse_zdb_config((MISMATCH / "zdb-C.txt").read_text())["ashift"]
    assert [(t.name, t.type, t.ashift, t.is_log) for t in tops] == [
        ("mirror-0", "mirror", 9, False),
        ("mirror-1", "mirror", 12, False),
    ]
    assert tops[1].leaf_paths == ("/tmp/zl/ashift-mismatch/d3", "/tmp/zl/ashift-mismatch/d4")
    assert tops[0].guid == "14950459363152035721"
    assert ashift_by_vdev_name(tops) == {"mirror-0": 9, "mirror-1": 12}


# `zdb -C` without a pool dumps zpool.cache, one "<pool>:" block per pool indented by 4
# (the 0.8-2.1 fallback, reference §5.2). Layout derived from code (vdev_config_generate(),
# nvlist_print); names as zpool_vdev_name() builds them: raidz<parity>-<id>,
# draid<p>:<d>d:<children>c:<s>s-<id> (zpool_draid_name()), a whole-disk leaf without -partN.
# (alloc_bias is parsed when a config carries it; 2.3.2's own dump does not, see below.)
CACHE_POOL = """\
tank:
    version: 5000
    name: 'tank'
    state: 0
    com.delphix:has_per_vdev_zaps
    vdev_children: 5
    vdev_tree:
        type: 'root'
        id: 0
        guid: 1111
        children[0]:
            type: 'raidz'
            id: 0
            guid: 2222
            nparity: 2
            ashift: 12
            is_log: 0
            children[0]:
                type: 'disk'
                id: 0
                path: '/dev/disk/by-id/ata-A-part1'
                whole_disk: 1
            children[1]:
                type: 'disk'
                id: 1
                path: '/dev/disk/by-id/ata-B-part1'
                whole_disk: 1
            children[2]:
                type: 'disk'
                id: 2
                path: '/dev/disk/by-id/ata-C-part1'
                whole_disk: 1
        children[1]:
            type: 'hole'
            id: 1
            guid: 0
            ashift: 0
        children[2]:
            type: 'disk'
            id: 2
            guid: 3333
            path: '/dev/disk/by-id/nvme-SLOG-part1'
            whole_disk: 1
            ashift: 9
            is_log: 1
        children[3]:
            type: 'mirror'
            id: 3
            ashift: 13
            is_log: 0
            alloc_bias: 'special'
            children[0]:
                type: 'disk'
                path: '/dev/nvme0n1p3'
                whole_disk: 0
            children[1]:
                type: 'disk'
                path: '/dev/nvme1n1p3'
                whole_disk: 0
        children[4]:
            type: 'draid'
            id: 4
            nparity: 1
            draid_ndata: 2
            draid_nspares: 1
            ashift: 12
            children[0]:
                type: 'disk'
                path: '/dev/sdd'
            children[1]:
                type: 'disk'
                path: '/dev/sde'
            children[2]:
                type: 'disk'
                path: '/dev/sdf'
            children[3]:
                type: 'disk'
                path: '/dev/sdg'
    features_for_read:
        com.delphix:hole_birth
"""


def _mismatch_as_cache_block() -> str:
    """The real MOS config re-indented as a cache-file block ("ashift:" header, 4 less)."""
    text = (MISMATCH / "zdb-C.txt").read_text().replace("MOS Configuration:", "ashift:")
    return re.sub(r"^    ", "", text, flags=re.M)


def test_zdb_cache_file_with_several_pools():
    pools = parse_zdb_config(CACHE_POOL + _mismatch_as_cache_block())
    assert list(pools) == ["tank", "ashift"]
    tank = pools["tank"]
    assert [(t.index, t.name) for t in tank] == [
        (0, "raidz2-0"),
        (1, "hole-1"),
        (2, "nvme-SLOG"),
        (3, "mirror-3"),
        (4, "draid1:2d:4c:1s-4"),
    ]
    assert tank[2].is_log and tank[3].alloc_bias == "special"
    assert tank[0].leaf_paths[0] == "/dev/disk/by-id/ata-A-part1"
    assert ashift_by_vdev_name(tank) == {
        "raidz2-0": 12,
        "nvme-SLOG": 9,
        "mirror-3": 13,
        "draid1:2d:4c:1s-4": 12,
    }  # no hole
    assert ashift_by_vdev_name(pools["ashift"]) == {"mirror-0": 9, "mirror-1": 12}


def test_single_disk_and_file_top_levels_keep_their_zpool_names():
    block = """\
MOS Configuration:
        name: 'mixed'
        vdev_tree:
            type: 'root'
            children[0]:
                type: 'file'
                id: 0
                path: '/tmp/zl/raidz-wide/m7'
                ashift: 9
            children[1]:
                type: 'disk'
                id: 1
                path: '/dev/sdb1'
                whole_disk: 0
                ashift: 12
            children[2]:
                type: 'disk'
                id: 2
                guid: 987654321
                not_present: 1
                path: '/dev/sdc1'
                ashift: 12
"""
    (tops,) = parse_zdb_config(block).values()
    assert [t.name for t in tops] == ["/tmp/zl/raidz-wide/m7", "sdb1", "987654321"]


@pytest.mark.parametrize(
    "path, whole_disk, printed",
    [
        ("/dev/sda1", 1, "sda"),
        ("/dev/nvme0n1p1", 1, "nvme0n1"),
        ("/dev/loop0p1", 1, "loop0"),
        ("/dev/disk/by-id/wwn-0x5000c500a1b2c3d4-part1", 1, "wwn-0x5000c500a1b2c3d4"),
        ("/dev/mapper/slowdisk", 1, "slowdisk"),
        ("/dev/sda1", 0, "sda1"),
    ],
)
def test_whole_disk_leaf_names_lose_the_partition(path, whole_disk, printed):
    """zpool_vdev_name(): basename, and zfs_strip_partition() for whole disks (reference §0)."""
    block = (
        "x:\n    name: 'x'\n    vdev_tree:\n        type: 'root'\n        children[0]:\n"
        f"            type: 'disk'\n            id: 0\n            path: '{path}'\n"
        f"            whole_disk: {whole_disk}\n            ashift: 12\n"
    )
    assert ashift_by_vdev_name(parse_zdb_config(block)["x"]) == {printed: 12}


def test_grep_output_is_not_a_pool_config():
    """`zdb -C | grep -E 'type:|path:|ashift:'` has no vdev_tree (the paste reads it line by line)."""
    with pytest.raises(ParseError):
        parse_zdb_config((MISMATCH / "zdb-C-grep-ashift.txt").read_text())


def test_zdb_l_label_gives_its_top_level_vdev():
    """`zdb -l` of a leaf: the label's vdev_tree is the leaf's top-level vdev, at its id among
    vdev_children; d1 sits in mirror-0 (ashift 9), d3 in the mirror added later (ashift 12)."""
    (d1,) = parse_zdb_config((MISMATCH / "zdb-l-d1.txt").read_text())["ashift"]
    (d3,) = parse_zdb_config((MISMATCH / "zdb-l-d3.txt").read_text())["ashift"]
    assert (d1.index, d1.name, d1.ashift) == (0, "mirror-0", 9)
    assert (d3.index, d3.name, d3.ashift) == (1, "mirror-1", 12)
    both = (MISMATCH / "zdb-l-d1.txt").read_text() + (MISMATCH / "zdb-l-d3.txt").read_text()
    assert ashift_by_vdev_name(parse_zdb_config(both)["ashift"]) == {"mirror-0": 9, "mirror-1": 12}


def test_zdb_empty_output():
    assert parse_zdb_config("") == {}


# Real OpenZFS 2.3.2 (zfslab): `zpool get -H -p [-o name,value] ashift ic all-vdevs` for
# `zpool create ic mirror a b special sp log log cache cache spare spare` (all ashift 9).
# The root vdev is root-0 (ashift 0); the cache and spare devices have no row: zpool prints
# "cannot get vdev property ashift from /tmp/ic/cache in ic: invalid argument for this pool
# operation" on stderr for each, and still exits 0.
GET_ALL_VDEVS = "root-0\t0\nmirror-0\t9\n/tmp/ic/a\t9\n/tmp/ic/b\t9\n/tmp/ic/sp\t9\n/tmp/ic/log\t9\n"
GET_ALL_VDEVS_DEFAULT = "".join(
    f"{n}\tashift\t{v}\t-\n" for n, v in (line.split("\t") for line in GET_ALL_VDEVS.splitlines())
)


@pytest.mark.parametrize("text", [GET_ALL_VDEVS, GET_ALL_VDEVS_DEFAULT])
def test_vdev_property_rows(text):
    assert parse_get_ashift(text) == {
        "mirror-0": 9,
        "/tmp/ic/a": 9,
        "/tmp/ic/b": 9,
        "/tmp/ic/sp": 9,
        "/tmp/ic/log": 9,
    }


def test_vdev_property_dash_values_are_skipped():
    assert parse_get_ashift("mirror-0\tashift\t12\t-\nhole-1\tashift\t-\t-\n") == {"mirror-0": 12}


# Real OpenZFS 2.3.2: `zdb -C` (the cache file) for the same pool. The special vdev is not
# marked: alloc_bias lives in the top-level vdev's ZAP, not in this config, and cache/spare
# devices are absent; only is_log tells a class apart.
ZDB_CACHE_FILE = """\
ic:
    version: 5000
    name: 'ic'
    state: 0
    txg: 4
    pool_guid: 17459723602621491786
    errata: 0
    hostid: 12235020
    hostname: 'zfslab'
    com.delphix:has_per_vdev_zaps
    vdev_children: 3
    vdev_tree:
        type: 'root'
        id: 0
        guid: 17459723602621491786
        create_txg: 4
        com.klarasystems:vdev_zap_root: 65
        children[0]:
            type: 'mirror'
            id: 0
            guid: 5140266795937088923
            metaslab_array: 83
            metaslab_shift: 24
            ashift: 9
            asize: 263716864
            is_log: 0
            create_txg: 4
            com.delphix:vdev_zap_top: 66
            children[0]:
                type: 'file'
                id: 0
                guid: 11338052157706302402
                path: '/tmp/ic/a'
                create_txg: 4
                com.delphix:vdev_zap_leaf: 67
            children[1]:
                type: 'file'
                id: 1
                guid: 12166419422397674630
                path: '/tmp/ic/b'
                create_txg: 4
                com.delphix:vdev_zap_leaf: 68
        children[1]:
            type: 'file'
            id: 1
            guid: 13609161261497811527
            path: '/tmp/ic/sp'
            metaslab_array: 76
            metaslab_shift: 24
            ashift: 9
            asize: 263716864
            is_log: 0
            create_txg: 4
            com.delphix:vdev_zap_leaf: 69
            com.delphix:vdev_zap_top: 70
        children[2]:
            type: 'file'
            id: 2
            guid: 1139673314691732276
            path: '/tmp/ic/log'
            metaslab_array: 75
            metaslab_shift: 24
            ashift: 9
            asize: 263716864
            is_log: 1
            create_txg: 4
            com.delphix:vdev_zap_leaf: 71
            com.delphix:vdev_zap_top: 72
    features_for_read:
        com.delphix:hole_birth
        com.delphix:embedded_data
        com.klarasystems:vdev_zaps_v2
"""


def test_zdb_cache_file_real():
    (tops,) = parse_zdb_config(ZDB_CACHE_FILE).values()
    assert [(t.name, t.ashift, t.is_log, t.alloc_bias) for t in tops] == [
        ("mirror-0", 9, False, None),
        ("/tmp/ic/sp", 9, False, None),
        ("/tmp/ic/log", 9, True, None),
    ]
    assert tops[0].leaf_paths == ("/tmp/ic/a", "/tmp/ic/b") and tops[2].leaf_paths == ("/tmp/ic/log",)


@pytest.mark.parametrize("text", ["mirror-0\tnine\n", "mirror-0\n", "mirror-0\tsize\t12\t-\n"])
def test_vdev_property_garbage(text):
    with pytest.raises(ParseError):
        parse_get_ashift(text)
