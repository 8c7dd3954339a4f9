"""Hit rates of the slow-disk verdict: each scenario of tests/zfs/bursty.py (a slow disk under
bursty load) and tests/zfs/mixed.py (mirrors pairing an SSD with an HDD, under steady writes)
run N times, one table. Inside ../shared/zfslab, from the repository root:

    ../shared/zfslab/zfslab run --mem 6G '.venv/bin/python -m tests.zfs.bursty_hits --repeats 5'
    ../shared/zfslab/zfslab run --mem 6G '.venv/bin/python -m tests.zfs.bursty_hits --scenarios mixed-healthy'

`--keep DIR` keeps each run's recording (and what a replay needs); `--replay DIR`, anywhere (no
lab, no root), folds those recordings again through this checkout's zdash and prints the same
table: a change to the checks measured before and after on the very same runs.

Columns, per scenario: runs; named (runs in which the slow disk was named before the end);
flicker ticks (ticks, summed over the runs, at which it was missing after it was first named);
false alarms (runs with anything above INFO that is not the slow disk after its onset, and the
ticks they cover; the media-mix finding of a mixed scenario is not one, nor zdash saying it
cannot see the pool while `dmsetup suspend` held the disk, within bursty.SWITCH_GRACE_S of the
switch: that is true); in the switch (those findings, runs/ticks); media-mix (runs whose
last tick has the media-mix finding on both mirrors, and the severities it had); onset to first raise (min / median / max seconds, from the moment the delay
switch began: `dmsetup suspend/reload/resume` itself can take a few seconds in the emulator). The timelines of every run
follow the table ('R'/'r' named in a busy/idle tick, '.'/'_' nothing above INFO, '!' a false
alarm, 's' zdash unable to see the pool in the switch, '|' the onset).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

from tests.zfs import bursty, mixed
from tests.zfs.lab import Lab, cap_arc, zfs_available

MODULES = {**dict.fromkeys(bursty.SCENARIOS, bursty), **dict.fromkeys(mixed.SCENARIOS, mixed)}


def _seconds(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{min(values):.1f} / {statistics.median(values):.1f} / {max(values):.1f}"


def table(runs: dict[str, list[bursty.Run]]) -> str:
    head = (
        "scenario",
        "runs",
        "named",
        "flicker ticks",
        "false alarms (runs/ticks)",
        "in the switch (runs/ticks)",
        "media-mix",
        "onset to raise s (min/med/max)",
    )
    rows = [head]
    for name, rs in runs.items():
        slow = any(r.slow for r in rs)
        alarms = [r.false_alarms() for r in rs]
        switch = [r.switch_findings() for r in rs]
        mixes = [mixed.media(r) for r in rs if r.ticks] if MODULES[name] is mixed else []
        severities = sorted({sev for m in mixes for sev in m.values()})
        rows.append(
            (
                name,
                str(len(rs)),
                f"{sum(r.first_raise is not None for r in rs)}/{len(rs)}" if slow else "-",
                str(sum(r.flicker for r in rs)) if slow else "-",
                f"{sum(bool(a) for a in alarms)}/{sum(len({i for i, _ in a}) for a in alarms)}",
                f"{sum(bool(a) for a in switch)}/{sum(len({i for i, _ in a}) for a in switch)}"
                if slow
                else "-",
                f"{sum(len(m) == 2 for m in mixes)}/{len(rs)} {','.join(severities)}".strip()
                if MODULES[name] is mixed
                else "-",
                _seconds([r.to_raise_s for r in rs if r.to_raise_s is not None]) if slow else "-",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--scenarios", nargs="*", default=list(MODULES), choices=list(MODULES))
    ap.add_argument(
        "--seconds",
        type=float,
        help="length of each recording (default: the scenario's own); a slow scenario's lasts"
        f" until {bursty.AFTER_ONSET_S:.0f} s past its delay switch if that is later",
    )
    ap.add_argument("--keep", metavar="DIR", help="keep the recordings here (default: thrown away)")
    ap.add_argument("--replay", metavar="DIR", help="fold the recordings --keep kept in DIR again, no lab")
    args = ap.parse_args(argv)
    if args.replay:
        return report(replayed(args.replay), 0.0)
    why_not = zfs_available()
    if why_not:
        print(f"bursty_hits: {why_not}", file=sys.stderr)
        return 2
    cap_arc()
    runs: dict[str, list[bursty.Run]] = {s: [] for s in args.scenarios}
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bursty-") as tmp:
        keep = args.keep or tmp
        os.makedirs(keep, exist_ok=True)
        for n in range(args.repeats):  # interleaved: a drift of the VM over time hits all alike
            for name in args.scenarios:
                lab = Lab(os.path.join(tmp, f"lab-{name}-{n}"))
                began, load_before = time.time(), os.getloadavg()[0]
                try:
                    module = MODULES[name]
                    seconds = args.seconds or module.RECORD_S
                    r = module.run(lab, name, os.path.join(keep, f"{name}-{n}.yaml.gz"), seconds)
                    with open(os.path.join(keep, f"{name}-{n}.json"), "w") as f:  # what replays need
                        json.dump(
                            {
                                "scenario": name,
                                "slow": r.slow,
                                "onset": r.onset,
                                "switch_s": r.switch_s,
                                # when it ran and the VM's load around it: the host's is logged
                                # beside, outside the VM
                                "began": began,
                                "ended": time.time(),
                                "load": [round(load_before, 1), round(os.getloadavg()[0], 1)],
                            },
                            f,
                        )
                finally:
                    lab.cleanup()
                runs[name].append(r)
                print(f"[{time.monotonic() - t0:6.0f} s] {r.summary()}", file=sys.stderr, flush=True)
    return report(runs, time.monotonic() - t0)


def replayed(directory: str) -> dict[str, list[bursty.Run]]:
    """The runs kept in `directory` (--keep), each recording folded again tick by tick."""
    runs: dict[str, list[bursty.Run]] = {}
    for meta in sorted(f for f in os.listdir(directory) if f.endswith(".json")):
        with open(os.path.join(directory, meta)) as f:
            m = json.load(f)
        module = MODULES[m["scenario"]]
        expected = getattr(module, "EXPECTED", frozenset())
        r = bursty.Run(
            m["scenario"], m["slow"], m["onset"], m["switch_s"], expected=expected, pool=module.POOL
        )
        r.ticks = bursty.replay(os.path.join(directory, meta[: -len(".json")] + ".yaml.gz"), module.POOL)
        runs.setdefault(m["scenario"], []).append(r)
    return runs


def report(runs: dict[str, list[bursty.Run]], seconds: float) -> int:
    print(table(runs))
    print()
    for name, rs in runs.items():
        for n, r in enumerate(rs):
            raise_s = "-" if r.to_raise_s is None else f"{r.to_raise_s:.1f} s"
            switch = f", delay switch {r.switch_s:.1f} s" if r.onset is not None else ""
            print(f"{name} #{n}: {r.timeline()}  (raise {raise_s}{switch}, flicker {r.flicker})")
            for subject, title in r.blamed().items():
                print(f"    named {subject}: {title}")
            if MODULES[name] is mixed and r.ticks:
                print(f"    media-mix at the end: {mixed.media(r) or 'none'}")
    print(f"\n{sum(len(rs) for rs in runs.values())} runs" + (f" in {seconds:.0f} s" if seconds else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
