"""Run every fault probe (tests/faults/probes.py) in parallel and print the summary issue #13
asks for: probes / passed / tracebacks / hangs / data-loss / wrong-OK (and other failures), then
one line per failed probe. Exit 1 when any probe fails.

    .venv/bin/python -m tests.faults.run_probes [-j 6] [-k WORD] [--list]

Each probe runs the installed `zdash` (the entry point beside this interpreter) in its own
sandbox; every run is bounded by a timeout, so a hang is counted, never waited for.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from tests.faults.harness import KINDS, Outcome, run_probe
from tests.faults.probes import PROBES

LABELS = {
    "traceback": "tracebacks",
    "hang": "hangs",
    "data-loss": "data-loss",
    "wrong-OK": "wrong-OK",
    "fail": "other failures",
}


def run_all(jobs: int = 6, word: str | None = None, on_done=None) -> list[Outcome]:
    chosen = [p for p in PROBES if not word or word in p.name or word == p.bullet]
    # The slowest first, so the pool is not left waiting on one long probe at the end.
    chosen.sort(key=lambda p: -p.timeout)
    outcomes = []
    with ThreadPoolExecutor(jobs) as pool:
        for outcome in pool.map(run_probe, chosen):
            outcomes.append(outcome)
            if on_done:
                on_done(outcome)
    return outcomes


def summary(outcomes: list[Outcome]) -> str:
    kinds = Counter(o.kind for o in outcomes)
    parts = [f"probes {len(outcomes)}", f"passed {kinds[None]}"]
    parts += [f"{LABELS[k]} {kinds[k]}" for k in KINDS]
    return " / ".join(parts)


def by_bullet(outcomes: list[Outcome]) -> str:
    bullets: dict[str, list[Outcome]] = {}
    for o in outcomes:
        bullets.setdefault(o.probe.bullet, []).append(o)
    return "  ".join(f"{b} {sum(o.kind is None for o in os)}/{len(os)}" for b, os in bullets.items())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-j", "--jobs", type=int, default=6, help="probes at once (default 6)")
    ap.add_argument("-k", metavar="WORD", help="only probes whose name contains WORD, or of that bullet")
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
            print(
                f"{'pass' if o.kind is None else o.kind.upper():9} {o.seconds:5.1f}s  {o.probe.name}",
                flush=True,
            )

    outcomes = run_all(args.jobs, args.k, show)
    failed = sorted((o for o in outcomes if o.kind), key=lambda o: (o.probe.bullet, o.probe.name))
    for o in failed:
        print(f"{o.kind:9} {o.probe.bullet:11} {o.probe.name}: {o.detail}")
    print(by_bullet(outcomes))
    print(summary(outcomes) + f"   ({time.monotonic() - started:.0f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
