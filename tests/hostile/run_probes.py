"""Run every hostile-input probe (tests/hostile/probes.py) in parallel and print, per class, how
many pass: probes / passed / skipped / and each kind of failure, then one line per failed probe.
Exit 1 when any probe fails (a skipped one says why and does not fail the run).

    .venv/bin/python -m tests.hostile.run_probes [-j 4] [-k WORD] [--list] [-v]

The flood probes open 2,000 sockets each and two serve sessions: they run one at a time, after
the others, so two cores are not asked for four servers at once.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from tests.faults.harness import KINDS, Outcome
from tests.hostile.harness import run_probe
from tests.hostile.probes import CLASSES, PROBES

SERIAL = "exhaustion"  # one at a time: each starts servers and thousands of sockets


def run_all(jobs: int = 4, word: str | None = None, on_done=None) -> list[Outcome]:
    chosen = [p for p in PROBES if not word or word in p.name or word == p.bullet]
    chosen.sort(key=lambda p: -p.timeout)
    outcomes: list[Outcome] = []

    def done(o: Outcome) -> None:
        outcomes.append(o)
        if on_done:
            on_done(o)

    with ThreadPoolExecutor(jobs) as pool:
        for o in pool.map(run_probe, [p for p in chosen if p.bullet != SERIAL]):
            done(o)
    for p in chosen:
        if p.bullet == SERIAL:
            done(run_probe(p))
    return outcomes


def summary(outcomes: list[Outcome]) -> str:
    kinds = Counter(o.kind for o in outcomes)
    parts = [f"probes {len(outcomes)}", f"passed {kinds[None]}", f"skipped {kinds['skipped']}"]
    parts += [f"{k} {kinds[k]}" for k in KINDS if kinds[k]]
    return " / ".join(parts)


def by_class(outcomes: list[Outcome]) -> str:
    out = []
    for c in CLASSES:
        mine = [o for o in outcomes if o.probe.bullet == c]
        if mine:
            out.append(f"{c} {sum(o.kind is None for o in mine)}/{len(mine)}")
    return "  ".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-j", "--jobs", type=int, default=4, help="probes at once (default 4)")
    ap.add_argument("-k", metavar="WORD", help="only probes whose name contains WORD, or of that class")
    ap.add_argument("--list", action="store_true", help="list the probes and exit")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per probe as it ends")
    args = ap.parse_args(argv)
    if args.list:
        for p in PROBES:
            print(f"{p.bullet:11} {p.name}")
        print(f"{len(PROBES)} probes")
        return 0
    started = time.monotonic()

    def show(o: Outcome) -> None:
        if args.verbose:
            word = "pass" if o.kind is None else o.kind.upper()
            print(f"{word:9} {o.seconds:5.1f}s  {o.probe.bullet:10} {o.probe.name}", flush=True)

    outcomes = run_all(args.jobs, args.k, show)
    failed = sorted((o for o in outcomes if o.kind), key=lambda o: (o.probe.bullet, o.probe.name))
    for o in failed:
        print(f"{o.kind:9} {o.probe.bullet:11} {o.probe.name}: {o.detail}")
    print(by_class(outcomes))
    print(summary(outcomes) + f"   ({time.monotonic() - started:.0f} s)")
    return 1 if any(o.kind not in (None, "skipped") for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
