"""ashift: mixed top-level ashift, native sector larger than configured, small-ashift advice."""

from __future__ import annotations

import dataclasses

from tests.checks.builders import T0, evidence, leaf, mirror, one, pool, snap
from zdash.checks import ashift
from zdash.checks.finding import Severity
from zdash.config import CheckConfig

CFG = CheckConfig()


def check_now(p):
    return ashift.check([snap(T0, p)], CFG)


def test_mixed_ashift_blocks_removal_forever():
    """ashift-mismatch capture: mirror-0 created with ashift=9, mirror-1 added with ashift=12."""
    p = pool(
        "ashift",
        mirror(0, leaf("/a/d1", kind="file"), leaf("/a/d2", kind="file"), ashift=9),
        mirror(1, leaf("/a/d3", kind="file"), leaf("/a/d4", kind="file"), ashift=12),
    )
    findings = check_now(p)
    mixed = one(findings, subject="ashift", topic="")
    assert (
        mixed.severity == Severity.WARNING
        and mixed.title == "ashift mixes ashift 9 and 12 across top-level vdevs"
    )
    assert "zpool remove" in mixed.why
    # The advice never invites matching the old vdev downward.
    assert "every vdev at ashift 12" in mixed.why and "Never add vdevs below ashift 12" in mixed.why
    assert evidence(mixed) == {
        "mirror-0": "ashift 9 (512 B sectors)",
        "mirror-1": "ashift 12 (4096 B sectors)",
    }
    small = one(findings, topic="small")
    assert small.severity == Severity.INFO and small.subject == "ashift" and "mirror-0" in small.title
    assert "mirror-1" not in small.title


def test_native_sector_larger_than_configured_is_read_modify_write():
    p = pool("tank", mirror(0, leaf("sda", native_sector=512), leaf("sdb", native_sector=4096), ashift=9))
    findings = check_now(p)
    f = one(findings, subject="/dev/sdb")
    assert f.severity == Severity.WARNING and f.subject_kind == "leaf"
    assert f.title == "/dev/sdb: configured 512B, native 4096B sectors"
    assert "read-modify-write" in f.why
    assert not any(x.subject == "mirror-0" for x in findings)  # the warning already says it
    assert not any(x.subject == "/dev/sda" for x in findings)


def test_zpool_block_size_annotation_counts_as_native():
    """`block size: 512B configured, 4096B native` sets physical_ashift on the leaf."""
    p = pool("tank", mirror(0, leaf("ada2", physical_ashift=12), leaf("ada3"), ashift=9))
    assert "native 4096B" in one(check_now(p), subject="/dev/ada2").title


def test_zfs_own_note_is_enough_without_any_ashift_reading():
    """A paste has no `zpool get ashift`: ZFS's own "512B configured, 4096B native" decides."""
    noted = dataclasses.replace(leaf("ada2", physical_ashift=12), configured_ashift=9)
    p = pool("tank", mirror(0, noted, leaf("ada3"), ashift=None))
    f = one(check_now(p), subject="/dev/ada2")
    assert f.severity == Severity.WARNING and f.title == "/dev/ada2: configured 512B, native 4096B sectors"


def test_matching_sectors_and_unknown_ashift_are_quiet():
    assert check_now(pool("tank", mirror(0, leaf("sda", native_sector=4096), leaf("sdb"), ashift=12))) == []
    assert check_now(pool("tank", mirror(0, leaf("sda", native_sector=4096), leaf("sdb"), ashift=None))) == []


def test_ashift_boundary_for_advice():
    assert check_now(pool("t", mirror(0, leaf("a"), leaf("b"), ashift=12))) == []
    assert (
        one(check_now(pool("t", mirror(0, leaf("a"), leaf("b"), ashift=11))), topic="small").severity
        == Severity.INFO
    )


def test_small_ashift_is_one_note_per_pool_however_many_vdevs():
    p = pool("t", mirror(0, leaf("a"), leaf("b"), ashift=9), mirror(1, leaf("c"), leaf("d"), ashift=9))
    (note,) = check_now(p)
    assert note.severity == Severity.INFO and note.title.startswith("mirror-0, mirror-1 use ashift 9")
    assert "never lower" in note.why


def test_log_vdev_ashift_is_not_part_of_the_mix():
    p = pool(
        "tank",
        mirror(0, leaf("a"), leaf("b"), ashift=12),
        mirror(1, leaf("c"), leaf("d"), ashift=12),
        mirror(2, leaf("nvme0"), leaf("nvme1"), ashift=13, vclass="log"),
    )
    assert check_now(p) == []
