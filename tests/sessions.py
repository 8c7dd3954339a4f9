"""Session files for the UI tests. The lab recordings (fixtures/*.yaml.gz) are used when they
exist; otherwise a session is written from the real captures in tests/captures, through the
same SessionWriter the recorder uses, so the app always replays a real file."""

from __future__ import annotations

import os

from tests.capture_ticks import CAPTURES, capture_tick
from zdash.parse.zfs_list import ZFS_LIST_FIELDS
from zdash.raw import RawSample, Tick
from zdash.sources.session import SessionWriter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the repository
FIXTURES = os.path.join(ROOT, "fixtures")
T0 = 1_795_318_800.0  # 2026-11-22 03:40:00 UTC, near when the captures were taken


def fixture(name: str) -> str | None:
    path = os.path.join(FIXTURES, f"{name}.yaml.gz")
    return path if os.path.exists(path) else None


def _read(scenario: str, name: str) -> str:
    with open(os.path.join(CAPTURES, scenario, name)) as f:
        return f.read()


def _with(tick: Tick, *samples: RawSample) -> Tick:
    return Tick(tick.time, tick.samples + samples)


def _deranged_ticks() -> list[Tick]:
    """Five real iostat reports and six /proc/diskstats reads taken 1 s apart under load, with
    /dev/mapper/slowdisk on dm-delay 100 ms."""
    rows = _read("deranged-disk", "zpool-iostat-v-l-H-p-1-5.txt").splitlines()
    per = len(rows) // 5
    reports = ["\n".join(rows[i * per : (i + 1) * per]) for i in range(5)]
    devices = (
        "/dev/loop0\tloop0\t512\t0\n/dev/loop1\tloop1\t512\t0\n/dev/loop2\tloop2\t512\t0\n"
        "/dev/mapper/slowdisk\tdm-0\t512\t0\n"
    )
    ticks = []
    for k in range(6):
        t = T0 + k
        base = capture_tick("deranged-disk", "after-load", t)
        samples = [s for s in base.samples if s.key != "iostat"]
        samples.append(
            RawSample(
                "iostat",
                ("zpool", "iostat", "-v", "-H", "-p", "-l", "-y", "1"),
                None,
                f"{int(t)}\n{reports[max(0, k - 1)]}\n",
                "",
                t,
            )
        )
        samples.append(
            RawSample(
                "diskstats",
                ("cat", "/proc/diskstats"),
                0,
                _read("deranged-disk", f"proc-diskstats.{k}.txt"),
                "",
                t,
            )
        )
        samples.append(RawSample("devices", ("zdash", "describe-devices"), 0, devices, "", t))
        ticks.append(Tick(t, tuple(samples)))
    return ticks


def _clones_datasets(t: float) -> RawSample:
    """The capture's `zfs list -o name,type,origin,clones,used,refer,avail,mountpoint` in the
    collector's field order."""
    lines = []
    for line in _read("clones", "zfs-list-all-H-p-origin-clones.txt").splitlines():
        name, kind, origin, clones, used, refer, avail, _mp = line.split("\t")
        vals = {
            "name": name,
            "type": kind,
            "origin": origin,
            "clones": clones,
            "used": used,
            "avail": avail,
            "refer": refer,
        }
        lines.append("\t".join(vals.get(f, "-") for f in ZFS_LIST_FIELDS))
    return RawSample("datasets", ("zfs", "list", "-H", "-p"), 0, "\n".join(lines) + "\n", "", t)


SCENARIOS = {
    "healthy": lambda: [capture_tick("healthy", None, T0 + k) for k in range(12)],
    "deranged": _deranged_ticks,
    "degraded": lambda: (
        [capture_tick("degraded", "offline", T0 + k) for k in range(4)]
        + [capture_tick("degraded", "resilvering", T0 + 4 + k) for k in range(8)]
    ),
    "clones": lambda: [
        _with(capture_tick("clones", None, T0 + k), _clones_datasets(T0 + k)) for k in range(4)
    ],
    "scrub": lambda: [capture_tick("scrub", "scrubbing", T0 + k) for k in range(6)],
}


def write_session(path: str, scenario: str, description: str | None = None) -> str:
    with SessionWriter(path, "lab", 1.0, description or f"test session: {scenario}") as w:
        for tick in SCENARIOS[scenario]():
            w.write(tick)
    return path
