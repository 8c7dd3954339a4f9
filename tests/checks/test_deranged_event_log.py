"""deranged_disk on a host whose ZFS event log is busy with events about no disk (a history
event per `zfs snapshot` from cron on each of many datasets, config syncs): those say nothing
about any disk and must cost nothing per disk, while a delay ereport still names its disk.
(Before, every leaf was looked up in every event of the last hour each tick: at 1,000 disks
and 2,000 events a tick took 361 ms of CPU, more than a 1 s dashboard can spend.)"""

from __future__ import annotations

import time

from tests.bench.synthetic import SyntheticHost
from zdash.checks import deranged_disk
from zdash.fold import Fold
from zdash.raw import RawSample, Tick


def _delay_events(pool: str, path: str, when: float, count: int) -> str:
    stamp = time.strftime("%b %d %Y %H:%M:%S", time.gmtime(when))
    return "".join(
        f"{stamp}.000000000 ereport.fs.zfs.delay\n"
        f'        class = "ereport.fs.zfs.delay"\n        pool = "{pool}"\n'
        f'        vdev_path = "{path}"\n        zio_delay = 0x7735940000\n'
        f"        time = {hex(int(when))} 0x{k:x}\n        eid = {hex(90000 + k)}\n\n"
        for k in range(count)
    )


def test_a_busy_event_log_is_asked_only_about_the_disks_it_names(monkeypatch):
    host = SyntheticHost(leaves=100, history_events_per_hour=200)
    asked: list[str] = []
    real = deranged_disk.leaf_events

    def counted(snap, pool, leaf, kinds):  # type: ignore[no-untyped-def]
        asked.append(leaf.label)
        return real(snap, pool, leaf, kinds)

    monkeypatch.setattr(deranged_disk, "leaf_events", counted)
    fold = Fold()
    for i in range(6):
        fold.step(host.tick(i))
    quiet = fold.step(host.tick(6)).snapshot
    assert len(quiet.events) >= 150 and asked == []  # a log of no disk's events: nobody asked

    sick = host.paths[7]
    tick = host.tick(7)
    delays = RawSample(
        "events",
        ("zpool", "events", "-v", "-f"),
        None,
        _delay_events(host.pool, sick, tick.time - 5, 3),
        "",
        tick.time,
        0.0,
    )
    findings = fold.step(Tick(tick.time, (*tick.samples, delays))).findings

    assert asked == [sick]
    (f,) = [f for f in findings if f.check == "deranged_disk"]
    assert f.subject == sick and "ZFS logged 3 delay events for it in 10 minutes" in f.title
