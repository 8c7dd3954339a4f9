"""Hit rates of the slow-disk verdict under bursty load: each scenario of tests/zfs/bursty.py
run N times, one table. Inside ../shared/zfslab, from the repository root:

    ../shared/zfslab/zfslab run --mem 6G '.venv/bin/python -m tests.zfs.bursty_hits --repeats 5'

Columns, per scenario: runs; named (runs in which the slow disk was named before the end);
flicker ticks (ticks, summed over the runs, at which it was missing after it was first named);
false alarms (runs with anything above INFO that is not the slow disk after its onset, and the
ticks they cover); onset to first raise (min / median / max seconds, from the moment the delay
switch began: `dmsetup suspend/reload/resume` itself can take a few seconds in the emulator). The timelines of every run
follow the table ('R'/'r' named in a busy/idle tick, '.'/'_' nothing above INFO, '!' a false
alarm, '|' the onset).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

from tests.zfs import bursty
from tests.zfs.lab import Lab, cap_arc, zfs_available


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
        "onset to raise s (min/med/max)",
    )
    rows = [head]
    for name, rs in runs.items():
        slow = name.endswith("-slow")
        alarms = [r.false_alarms() for r in rs]
        rows.append(
            (
                name,
                str(len(rs)),
                f"{sum(r.first_raise is not None for r in rs)}/{len(rs)}" if slow else "-",
                str(sum(r.flicker for r in rs)) if slow else "-",
                f"{sum(bool(a) for a in alarms)}/{sum(len({i for i, _ in a}) for a in alarms)}",
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
    ap.add_argument("--scenarios", nargs="*", default=list(bursty.SCENARIOS), choices=bursty.SCENARIOS)
    ap.add_argument("--seconds", type=float, default=bursty.RECORD_S, help="length of each recording")
    ap.add_argument("--keep", metavar="DIR", help="keep the recordings here (default: thrown away)")
    args = ap.parse_args(argv)
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
                try:
                    r = bursty.run(lab, name, os.path.join(keep, f"{name}-{n}.yaml.gz"), args.seconds)
                finally:
                    lab.cleanup()
                runs[name].append(r)
                print(f"[{time.monotonic() - t0:6.0f} s] {r.summary()}", file=sys.stderr, flush=True)
    print(table(runs))
    print()
    for name, rs in runs.items():
        for n, r in enumerate(rs):
            raise_s = "-" if r.to_raise_s is None else f"{r.to_raise_s:.1f} s"
            switch = f", delay switch {r.switch_s:.1f} s" if r.onset is not None else ""
            print(f"{name} #{n}: {r.timeline()}  (raise {raise_s}{switch}, flicker {r.flicker})")
    print(f"\n{sum(len(rs) for rs in runs.values())} runs in {time.monotonic() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
