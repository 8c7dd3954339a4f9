#!/usr/bin/env python3
"""Every tick's verdicts, digested (a script, not a test): run it on two versions of zdash and
compare the digests to show a change to the fold or the checks kept every finding the same.

    .venv/bin/python -m tests.bench.verdicts            # per source: ticks, findings, digest
    .venv/bin/python -m tests.bench.verdicts --verbose  # ... and each tick's digest

Sources: every bundled scenario under fixtures/ (the recordings `zdash check --replay` and the
demo read), every case of the published-output corpus (tests/corpus/NNN-slug.txt, judged as
`zdash check --text` judges a paste: one moment, one tick) and the benchmark's synthetic pools (tests/bench/synthetic.py, 4 to 5,000 leaves,
status and list every 5th tick, a slow disk in 97). Each goes through zdash's own fold, tick by
tick, as `zdash check --replay` and the replay feed do (zdash.fold.Fold.step: the snapshot
builder, then the check engine). A tick's digest covers each finding's check, severity, pool, subject,
topic, title and evidence, in the order the engine gives them.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from collections.abc import Iterable

from zdash.checks.finding import Finding
from zdash.fold import Fold
from zdash.raw import Tick

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SYNTHETIC = {4: 120, 100: 120, 1000: 60, 5000: 30}  # leaves: ticks
SYNTHETIC_WITH_EVENTS = {100: 120, 1000: 40}
SYNTHETIC_WITH_DATASETS = {100: (1000, 20, 130)}  # leaves: filesystems, snapshots each, ticks
PASTED_AT = 1_750_000_000.0  # 2025-06-15: a corpus paste's time when it shows none


def finding_line(f: Finding) -> str:
    return repr((f.check, int(f.severity), f.pool, f.subject, f.topic, f.title, f.evidence))


def digest(ticks: Iterable[Tick], interval: float, host: str | None, verbose: bool) -> tuple[int, int, str]:
    fold = Fold(None, interval, host)
    total, n, found = hashlib.sha256(), 0, 0
    for n, tick in enumerate(ticks, 1):
        findings = fold.step(tick).findings
        found += len(findings)
        h = hashlib.sha256("\n".join(map(finding_line, findings)).encode()).hexdigest()[:16]
        total.update(h.encode())
        if verbose:
            print(f"    tick {n - 1}: {len(findings)} findings {h}")
    return n, found, total.hexdigest()[:16]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--verbose", action="store_true")
    args = p.parse_args(argv)
    from tests.bench.bench import host_for
    from zdash.commands.check import one_look
    from zdash.config import CheckConfig
    from zdash.paste.front import paste_tick, read_paste
    from zdash.paste.samples import import_paste
    from zdash.sources.recording import open_recording

    every = hashlib.sha256()
    fixtures = os.path.join(ROOT, "fixtures")
    for name in sorted(os.listdir(fixtures)):
        if not name.endswith((".yaml.gz", ".zdash")):
            continue
        rec = open_recording(os.path.join(fixtures, name))
        ticks, found, h = digest(rec.ticks(), rec.header.interval or 1.0, rec.header.host, args.verbose)
        every.update(h.encode())
        print(f"{name:32} {ticks:6} ticks {found:7} findings  {h}", flush=True)
    corpus = os.path.join(ROOT, "tests", "corpus")
    cases = sorted(n for n in os.listdir(corpus) if n.endswith(".txt"))
    pastes = hashlib.sha256()
    found = 0
    for name in cases:
        # A fixed time where the paste shows none (check uses the file's mtime): the same ticks
        # on every checkout.
        tick = paste_tick(import_paste(read_paste(os.path.join(corpus, name))[0]), PASTED_AT)
        findings = Fold(one_look(CheckConfig())).step(tick).findings
        found += len(findings)
        h = hashlib.sha256("\n".join(map(finding_line, findings)).encode()).hexdigest()[:16]
        pastes.update(h.encode())
        if args.verbose:
            print(f"    {name}: {len(findings)} findings {h}")
    every.update(pastes.hexdigest()[:16].encode())
    label = f"corpus ({len(cases)} pastes)"
    print(f"{label:32} {len(cases):6} ticks {found:7} findings  {pastes.hexdigest()[:16]}", flush=True)
    for leaves, count in SYNTHETIC.items():
        host = host_for(leaves)
        ticks, found, h = digest((host.tick(i) for i in range(count)), 1.0, None, args.verbose)
        every.update(h.encode())
        print(f"{f'synthetic {leaves} leaves':32} {ticks:6} ticks {found:7} findings  {h}", flush=True)
    # What real hosts add: ZFS's event log (history events about no disk, delay ereports naming
    # the slow disks: what deranged_disk cites), tens of thousands of datasets with clones
    # among them (what clones cites).
    extras = [
        (leaves, count, "events", {"history_events_per_hour": 2000, "delay_events_every": 7})
        for leaves, count in SYNTHETIC_WITH_EVENTS.items()
    ] + [
        (leaves, count, f"{fs * (each + 2):,} datasets", {"filesystems": fs, "snapshots_each": each})
        for leaves, (fs, each, count) in SYNTHETIC_WITH_DATASETS.items()
    ]
    for leaves, count, what, extra in extras:
        host = host_for(leaves, **extra)
        ticks, found, h = digest((host.tick(i) for i in range(count)), 1.0, None, args.verbose)
        every.update(h.encode())
        label = f"synthetic {leaves} leaves + {what}"
        print(f"{label:32} {ticks:6} ticks {found:7} findings  {h}", flush=True)
    print(f"all: {every.hexdigest()[:16]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
