#!/usr/bin/env python3
"""Kill the dashboard with SIGKILL at random moments while its flight recorder writes an
incident, and read every incident file back: each must open, say what it is, and hold every
tick it committed (SQLite, one transaction per tick; the minutes before in one). Prints one line
per trial and the totals; exits 1 when a file cannot be read. A script, not a test (the e2e
suite runs 2 trials).

    .venv/bin/python -m tests.faults.kill_flight [--trials 20]

Each trial is the installed `zdash` in a pseudo-terminal on the fake zpool (tests/fakes/bin,
the degraded captures): healthy, then a mirror side goes offline (the fake's control file,
`phase offline`, with a ZFS event so status is asked at once), written as soon as the first
sample is drawn: the recorder has no settle time here (`settle_s: 0`; the healthy phase raises
nothing, so there is no premise to wait out, and no wait on the clock); the kill falls anywhere from
just before the incident file appears to 8 s after. The incidents of all trials share one
directory: a later trial's recorder must live with the files a killed one left.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import tempfile
import time
from pathlib import Path

from tests.faults.harness import Failed, Sandbox
from zdash.sources import incidents
from zdash.sources.recording import open_recording

CONFIG = """flight_recorder:
  minutes: 1
  settle_s: 0
  after_clear_s: 5
  min_free_mb: 0
  dir: {dir}
"""


def check_files(directory: str) -> list[str]:
    """Every incident file read whole: its problems (none when all are readable)."""
    problems = []
    for path in incidents.incident_paths(directory):
        try:
            rec = open_recording(path)
            try:
                n = rec.count()
                ticks = list(rec.ticks())
                if len(ticks) != n or (n and rec.header.onset is None):
                    problems.append(f"{path}: {len(ticks)} of {n} ticks readable, onset {rec.header.onset}")
            finally:
                rec.close()
            if incidents.read_incident(path) is None:
                problems.append(f"{path}: not listed as an incident")
        except Exception as e:  # noqa: BLE001 - what is wrong with the file, reported
            problems.append(f"{path}: {type(e).__name__}: {e}")
    return problems


def trial(sb: Sandbox, directory: str, rng: random.Random, n: int) -> tuple[int, list[str]]:
    """One dashboard run killed at a random moment: (incident files now, problems)."""
    control = sb.write("control", "phase resilvered\n")
    before = set(incidents.incident_paths(directory))
    term = sb.terminal(
        "--interval",
        "0.5",
        FAKE_ZPOOL_SCENARIO="degraded",
        FAKE_ZPOOL_CONTROL=control,
    )
    try:
        try:
            term.wait_for("degraded", timeout=60)
        except Failed as e:  # the trial's number and the screen in the report, the next trials run
            return len(incidents.incident_paths(directory)), [f"trial {n}: {e}"]
        sb.write("control", "phase offline\nevents post\n")
        early = rng.uniform(-1.0, 8.0)
        deadline = time.monotonic() + 60
        appeared = None
        while time.monotonic() < deadline:
            if set(incidents.incident_paths(directory)) - before:
                appeared = time.monotonic()
                break
            term._read(time.monotonic() + 0.05)
        if appeared is None:
            return len(incidents.incident_paths(directory)), [f"trial {n}: no incident file within 60 s"]
        while time.monotonic() < appeared + early:
            term._read(time.monotonic() + 0.05)
        os.killpg(term.proc.pid, signal.SIGKILL)
        term.proc.wait()
    finally:
        term.close()
        sb.kill_children()
    return len(incidents.incident_paths(directory)), check_files(directory)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--seed", type=int, default=20261128)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    bad = 0
    with tempfile.TemporaryDirectory(prefix="zdash-killflight-") as d:
        sb = Sandbox(Path(d), 60.0)
        for sub in ("home", "config", "state", "pids"):
            (sb.dir / sub).mkdir()
        directory = str(sb.dir / "incidents")
        sb.write("config/zdash/config.yaml", CONFIG.format(dir=directory))
        for n in range(args.trials):
            started = time.monotonic()
            files, problems = trial(sb, directory, rng, n)
            bad += bool(problems)
            print(
                f"trial {n + 1:2d}: {files} incident files, "
                + ("all readable" if not problems else "; ".join(problems))
                + f" ({time.monotonic() - started:.0f} s)",
                flush=True,
            )
        states = [i.state for i in incidents.list_incidents(directory) if isinstance(i, incidents.Incident)]
        print(f"{args.trials} kills, {len(states)} incident files, {bad} trials with an unreadable file; "
              f"states: {', '.join(sorted(set(states)))}")  # fmt: skip
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
