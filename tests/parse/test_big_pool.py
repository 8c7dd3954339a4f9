"""A real pool of 1,000 disks (tests/captures/big-1000: 100 raidz2 of 10 loop devices, OpenZFS
2.3.2 in the lab VM): its status, list and iostat read into one tree of 1,000 leaves, every
leaf joined to its list and iostat rows."""

from __future__ import annotations

from pathlib import Path

from zdash.fold import look
from zdash.raw import RawSample, Tick

BIG = Path(__file__).resolve().parents[1] / "captures" / "big-1000"


def _tick() -> Tick:
    def sample(key: str, argv: tuple[str, ...], name: str) -> RawSample:
        return RawSample(key, argv, 0, (BIG / name).read_text(), "", 1764030180.0, 0.1)

    return Tick(
        1764030180.0,
        (
            sample("status", ("zpool", "status", "big"), "zpool-status.txt"),
            sample("list", ("zpool", "list", "-v", "-H", "-p", "big"), "zpool-list-v-H-p.txt"),
            sample(
                "iostat",
                ("zpool", "iostat", "-v", "-l", "-H", "-p", "big"),
                "zpool-iostat-v-l-H-p.txt",
            ),
        ),
    )


def test_a_thousand_disk_pool_reads_whole():
    snap = look(_tick(), "zfslab")
    (pool,) = snap.pools
    leaves = list(pool.leaves())
    assert (pool.name, pool.state, len(pool.top_level), len(leaves)) == ("big", "ONLINE", 100, 1000)
    assert {t.kind for t in pool.top_level} == {"raidz2"} and all(
        len(t.children) == 10 for t in pool.top_level
    )
    assert leaves[0].name == "slow0" and leaves[-1].name == "loop999"
    assert all(v.size == 64 * 2**20 for v in leaves)  # from zpool list -v
    assert pool.size == 60397977600 and pool.top_level[0].alloc == 273408
    assert all(pool.io_of(v) is not None for v in leaves)  # every iostat row joined to its leaf
