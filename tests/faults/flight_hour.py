#!/usr/bin/env python3
"""An hour of the dashboard with repeated faults, its flight recorder's disk use watched: the
installed `zdash` in a pseudo-terminal on the fake zpool (the degraded captures), a mirror side
offline for 90 s every 5 minutes. The incidents directory is measured every 5 s (files and
their write-ahead logs); it must stay under the configured cap all along, every file readable
at the end. Prints a line a minute and the totals; exits 1 when the cap was passed.

    .venv/bin/python -m tests.faults.flight_hour [--seconds 3600] [--max-mb 4] [--keep 5]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from tests.faults.harness import Sandbox
from tests.faults.kill_flight import check_files
from zdash.sources import incidents

CONFIG = """flight_recorder:
  keep: {keep}
  max_mb: {max_mb}
  min_free_mb: 0
  dir: {dir}
"""
MIB = 1 << 20


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=3600)
    ap.add_argument("--max-mb", type=float, default=4.0)
    ap.add_argument("--keep", type=int, default=5)
    ap.add_argument("--every", type=float, default=300, help="seconds between faults")
    ap.add_argument("--lasting", type=float, default=90, help="seconds each fault lasts")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="zdash-flighthour-") as d:
        sb = Sandbox(Path(d), 60.0)
        for sub in ("home", "config", "state", "pids"):
            (sb.dir / sub).mkdir()
        directory = str(sb.dir / "incidents")
        sb.write("config/zdash/config.yaml", CONFIG.format(keep=args.keep, max_mb=args.max_mb, dir=directory))
        control = sb.write("control", "phase resilvered\n")
        term = sb.terminal(FAKE_ZPOOL_SCENARIO="degraded", FAKE_ZPOOL_CONTROL=control)
        started = time.monotonic()
        peak_bytes = peak_files = faults = 0
        seen: set[str] = set()
        offline = False
        last_line = 0.0
        try:
            term.wait_for("degraded", timeout=60)
            while (now := time.monotonic() - started) < args.seconds:
                phase = now > 60 and (now - 60) % args.every < args.lasting
                if phase != offline:
                    offline = phase
                    faults += phase
                    sb.write("control", f"phase {'offline' if phase else 'resilvered'}\nevents post\n")
                paths = incidents.incident_paths(directory)
                seen.update(paths)
                used = sum(incidents.file_bytes(p) for p in paths)
                peak_bytes, peak_files = max(peak_bytes, used), max(peak_files, len(paths))
                if now - last_line >= 60:
                    last_line = now
                    print(
                        f"{now / 60:5.1f} min: {len(paths)} files, {used / MIB:.2f} MiB "
                        f"(peak {peak_bytes / MIB:.2f} MiB, {len(seen)} written, {faults} faults)",
                        flush=True,
                    )
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline and term._read(deadline):
                    term.raw = term.raw[-65536:]
        finally:
            alive = term.proc.poll() is None
            term.close()
            sb.kill_children()
        problems = check_files(directory)
        over = peak_bytes > args.max_mb * MIB or peak_files > args.keep
        print(
            f"{args.seconds / 60:.0f} min, {faults} faults, {len(seen)} incident files written, "
            f"{len(incidents.incident_paths(directory))} kept; peak {peak_bytes / MIB:.2f} MiB in "
            f"{peak_files} files (cap {args.max_mb:g} MiB, {args.keep} files): "
            + ("OVER THE CAP" if over else "under the cap")
            + ("; dashboard still running at the end" if alive else "; THE DASHBOARD HAD EXITED")
            + ("; unreadable: " + "; ".join(problems) if problems else "; every file readable")
        )
        return 1 if over or problems or not alive else 0


if __name__ == "__main__":
    sys.exit(main())
