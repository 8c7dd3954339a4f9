"""Issue 2, on a real pool: live collection, the recording and its replay agree with zpool and
/proc/diskstats read independently at the same time, and the dm-delay disk stands out."""

import asyncio
import statistics
import subprocess
import time

from tests.zfs.lab import sh
from zdash.commands.record import record
from zdash.fold.recording import load_replay
from zdash.parse.diskstats import parse_diskstats
from zdash.parse.zpool_iostat import parse_iostat, split_reports
from zdash.parse.zpool_list import parse_list
from zdash.sources.session import read_session

MiB = 1 << 20
LOADED = 8  # ticks of the recording during which fio runs
QUIET = 4  # ticks recorded after the pool was synced (those begun 1.5 s after it are compared)
LIMIT_S = 120.0  # the recording's limit: a VM this starved is said to be so


def _leaf_series(snaps, pool, fn):
    """fn(pool, leaf) of every leaf of `pool` in each snapshot, by leaf path (None left out)."""
    out = {}
    for s in snaps:
        p = s.pool(pool)
        for leaf in p.leaves() if p else ():
            v = fn(p, leaf)
            if v is not None:
                out.setdefault(leaf.path, []).append(v)
    return out


async def _record_then_quiesce(path, fio, live):
    """Record LOADED ticks under fio, stop fio and sync the pool, then record until QUIET ticks
    came after the sync, so their capacity can be compared exactly with a `zpool list` taken
    after it. Waits on those, not on a fixed length: under a busy host the emulated VM's sync
    once outlasted the 16 s the recording had (no tick after it, 1 run in 2)."""
    synced = {}
    stop = asyncio.Event()

    async def sync_after_fio():
        while len(live) < LOADED:
            await asyncio.sleep(0.2)
        fio.kill()
        await asyncio.to_thread(sh, "zpool", "sync", "tank")
        synced["t"] = time.time()
        after = len(live)
        while len(live) < max(after + QUIET, 12):
            await asyncio.sleep(0.2)
        stop.set()

    task = asyncio.create_task(sync_after_fio())
    n = await record(
        path, 1.0, LIMIT_S, ("tank",), quiet=True, snapshots=live, structure_every=2.0, stop=stop
    )
    if not task.done():  # a starved VM: say so instead of waiting for ever
        task.cancel()
        raise AssertionError(
            f"in {LIMIT_S:.0f} s the recording produced {len(live)} snapshots (n={n}), "
            f"{'after the sync' if synced else 'the sync not done'}: wanted {LOADED} under load "
            f"and {QUIET} after the sync"
        )
    await task
    return n, synced["t"]


def test_record_replay_agree_with_zpool_and_diskstats(lab, tmp_path):
    l0, l1, l2 = lab.loop("d0"), lab.loop("d1"), lab.loop("d2")
    slow = lab.slow("zdslow", 30)
    lab.pool("tank", "mirror", l0, l1, "mirror", l2, slow)
    lab.fill("/tank/prefill", 24)
    fio = lab.load("/tank", 120)
    path = str(tmp_path / "s.yaml")
    live = []
    with open("/proc/diskstats") as f:
        before = f.read()
    ref = subprocess.Popen(
        ["zpool", "iostat", "-v", "-l", "-H", "-p", "-P", "-y", "-T", "u", "tank", "1", str(LOADED)],
        stdout=subprocess.PIPE,
        text=True,
    )
    n, synced_at = asyncio.run(_record_then_quiesce(path, fio, live))
    with open("/proc/diskstats") as f:
        after = f.read()
    listed = parse_list(sh("zpool", "list", "-v", "-H", "-p", "-P", "tank"))["tank"]
    ref_out = ref.communicate(timeout=60)[0]
    assert n >= 12

    # The replay yields exactly the snapshots live produced.
    header, replayed = load_replay(path)
    assert header.host and replayed == live

    # Per-vdev alloc/free: every snapshot taken after the pool went quiet equals an independent
    # `zpool list -v -p` now, vdev by vdev. Capacity comes from each tick's iostat report (its
    # ALLOC/FREE columns; `zpool list` runs once a minute), so every tick whose report began
    # after the sync counts.
    _, ticks = read_session(path)
    quiet = [
        snap
        for tick, snap in zip(ticks, replayed)
        if tick.get("iostat") is not None and tick.time > synced_at + 1.5
    ]
    assert quiet, (
        "no tick after the load ended",
        synced_at,
        [(t.time, t.get("iostat") and t.get("iostat").time) for t in read_session(path)[1]],
    )
    # A pool with no writer still moves a few KiB per txg (deferred frees, space maps): exact
    # sizes, and alloc/free within 1 MiB of the independent reading (a unit or row mix-up in
    # the parse or the join would be off by far more than that).
    for snap in quiet:
        for top in snap.pool("tank").top_level:
            row = next(r for r in listed.vdevs if r.name == top.name)
            assert top.size == row.size, top.name
            assert abs(top.alloc - row.alloc) <= MiB and abs(top.free - row.free) <= MiB, (
                top.name,
                top.alloc,
                row.alloc,
            )

    # Per-leaf disk_wait agrees with an independent `zpool iostat -l -p` over the loaded ticks.
    ref_wait = {}
    for _, rep in split_reports(ref_out):
        for r in parse_iostat(rep):
            if r.name.startswith("/dev/") and r.io.disk_wait_write is not None:
                ref_wait.setdefault(r.name, []).append(r.io.disk_wait_write)
    ours = _leaf_series(replayed[1:LOADED], "tank", lambda p, v: (io := p.io_of(v)) and io.disk_wait_write)
    assert set(ours) == {l0, l1, l2, slow}
    for leaf, values in ours.items():
        a, b = statistics.median(values), statistics.median(ref_wait[leaf])
        assert 0.5 <= a / b <= 2.0, (leaf, a, b)

    # %UTIL agrees with /proc/diskstats read directly around the recording.
    d0, d1 = parse_diskstats(before), parse_diskstats(after)
    last = replayed[-1].pool("tank")
    util = _leaf_series(replayed[1:], "tank", lambda p, v: (d := p.disk_of(v)) and d.util_pct)
    span_ms = (replayed[-1].time - replayed[0].time) * 1000
    for leaf in last.leaves():
        dev = leaf.device
        direct = min(100.0, 100.0 * (d1[dev].io_ms - d0[dev].io_ms) / span_ms)
        assert abs(statistics.mean(util[leaf.path]) - direct) <= 15, (leaf.path, direct)

    # The dm-delay disk has the highest %UTIL and disk_wait of the pool, and it is dm-N.
    loaded_util = _leaf_series(replayed[1:LOADED], "tank", lambda p, v: (d := p.disk_of(v)) and d.util_pct)
    med_util = {k: statistics.median(v) for k, v in loaded_util.items()}
    med_wait = {k: statistics.median(v) for k, v in ours.items()}
    assert max(med_util, key=med_util.get) == slow, med_util
    assert max(med_wait, key=med_wait.get) == slow, med_wait
    assert last.find(slow).device.startswith("dm-")
