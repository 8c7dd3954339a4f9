"""media_mix: a vdev mixing media runs at its slower member's pace; one finding about the vdev,
INFO while the slower member keeps up, WARNING once it measurably sets the pace."""

from __future__ import annotations

from tests.checks.builders import T0, evidence, history, leaf, mirror, on_medium, one, pool, raidz, snap
from zdash.checks import media_mix
from zdash.checks.finding import Severity
from zdash.config import CheckConfig
from zdash.model import evolve

CFG = CheckConfig()


def ssd(name, **kw):
    return on_medium(name, False, 10.0, 1.0, **kw)


def hdd(name, **kw):
    return on_medium(name, True, 20.0, 3.0, **kw)


def run(make, n, cfg=CFG):
    return media_mix.check(history(make, n), cfg)


def test_a_mirror_of_an_hdd_and_an_ssd_is_one_info_finding_about_the_vdev():
    p = pool(
        "t",
        mirror(
            0, hdd("sda", model="WDC WD40EFRX-68N"), ssd("nvme0n1", transport="nvme", model="Samsung 980")
        ),
        mirror(1, hdd("sdb"), leaf("sdc", rotational=None)),  # unknown is no mix
    )
    f = one(run(lambda i: p, 3), subject="mirror-0")
    assert f.severity == Severity.INFO and f.subject_kind == "vdev" and f.check == "media_mix"
    assert f.title == "mirror-0 runs at its slower member's pace: HDD beside NVMe SSD"
    assert evidence(f) == {
        "Slower by design": "/dev/sda (HDD, WDC WD40EFRX-68N)",
        "Faster": "/dev/nvme0n1 (NVMe SSD, Samsung 980)",
        "Cost": "its HDD kept up in 3 of its last 3 busy samples",
    }
    assert "not a failing disk" in f.why and "special vdev" in f.why and f.actions == ()


def test_it_warns_once_the_slower_member_sets_the_pace():
    """The HDD's write wait 4x the SSD's and over the floor in 5 of its busy samples: WARNING,
    held while it keeps doing so, back to INFO after 10 busy samples that it kept up."""
    paced = lambda: pool("t", mirror(0, hdd("sda", util=90.0, write_ms=24.5), ssd("sdb")))  # noqa: E731
    calm = lambda: pool("t", mirror(0, hdd("sda"), ssd("sdb")))  # noqa: E731
    assert one(run(lambda i: paced(), 4), subject="mirror-0").severity == Severity.INFO
    f = one(run(lambda i: paced(), 5), subject="mirror-0")
    assert f.severity == Severity.WARNING
    assert evidence(f)["Cost"] == (
        "in 5 of its last 5 busy samples a slower member set its pace "
        "(last: /dev/sda's %util 90.0 % vs 10.0 % on its faster members)"
    )
    assert "Measured:" in f.why
    back = lambda n: lambda i: paced() if i < 5 else calm()  # noqa: E731
    assert one(run(back(9), 14), subject="mirror-0").severity == Severity.WARNING
    assert one(run(back(10), 15), subject="mirror-0").severity == Severity.INFO


def test_idle_samples_are_no_evidence():
    def idle(i):
        quiet = {"util": 0.0, "write_bps": 0.0, "write_ms": None}
        return pool("t", mirror(0, hdd("sda", **quiet), ssd("sdb", **quiet)))

    f = one(run(idle, 6), subject="mirror-0")
    assert f.severity == Severity.INFO and evidence(f)["Cost"] == "no busy sample yet"


def test_a_raidz_with_a_sata_ssd_among_nvme_ones_and_plain_vdevs_say_nothing():
    p = pool(
        "t",
        raidz(0, ssd("a", transport="nvme"), ssd("b", transport="nvme"), ssd("c", transport="sata")),
        mirror(1, hdd("d"), hdd("e")),
        mirror(2, ssd("f", transport="usb"), ssd("g", transport="usb")),
    )
    found = run(lambda i: p, 2)
    assert [f.title for f in found] == ["raidz1-0 runs at its slower member's pace: SSD beside NVMe SSD"]


def test_the_mix_is_found_again_when_the_structure_changes():
    """Which vdevs mix media is remembered per structure: a disk replaced by one of the other
    medium (a new structure) changes the answer."""
    t = media_mix.Tracker(CFG)
    mixed = evolve(snap(T0, pool("t", mirror(0, hdd("sda"), ssd("sdb")))), structure_id=1)
    t.observe(mixed)
    assert len(t.findings(mixed)) == 1
    alike = evolve(snap(T0 + 1, pool("t", mirror(0, hdd("sda"), hdd("sdb")))), structure_id=2)
    t.observe(alike)
    assert t.findings(alike) == []
