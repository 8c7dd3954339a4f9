#!/usr/bin/env python3
"""CPU of zdash against the floor, on a real pool: run inside the zfslab VM (as root).

    zfslab run -- .venv/bin/python -m tests.bench.lab_cpu [--seconds 60]

Builds one pool (two 2-way mirrors on sparse files), puts a bursty load on it (writes of a
few MB with fsync, then idle gaps, like a real workload, not a steady stream), and measures,
one after another under that same load, the CPU (the process and its children, from /proc)
over `seconds` after a warm-up (`--warmup`, 45 s: in the emulated VM the dashboard's start-up,
its imports read over 9p, takes longer than 10 s, and a shorter warm-up measured part of it), of:

- bare `zpool iostat -vl 1` in a terminal: the floor, what an admin would otherwise run;
- `zdash record` (the headless recorder);
- the `zdash` dashboard in a 120x40 terminal;
- a bare Textual app updating a table of the pool's rows once a second (tests/bench/
  textual_floor.py): what any Textual dashboard of that screen spends, zdash or not;
- a Textual app changing one line of text once a second, and the same app idle: what Textual
  itself costs before any table (the least any Textual screen updated at 1 Hz can spend).

Prints each one's CPU in ms per second and its ratio to the floor. Destroys the pool after.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading

from tests.bench.pty_cpu import cpu_in_pty

POOL = "zbench"
WORK = "/tmp/zbench"


def sh(*argv: str) -> None:
    subprocess.run(argv, check=True, capture_output=True)


def build() -> None:
    os.makedirs(WORK, exist_ok=True)
    disks = []
    for i in range(4):
        path = f"{WORK}/d{i}"
        with open(path, "wb") as f:
            f.truncate(512 << 20)
        disks.append(path)
    sh("zpool", "create", "-f", POOL, "mirror", disks[0], disks[1], "mirror", disks[2], disks[3])


def load(stop: threading.Event) -> None:
    """Bursts: 8 MB written and synced, then 1-3 s of nothing; every 20 s a file deleted."""
    block = os.urandom(1 << 20)
    n = 0
    while not stop.is_set():
        path = f"/{POOL}/f{n % 8}"
        with open(path, "wb") as f:
            for _ in range(8):
                f.write(block)
            f.flush()
            os.fsync(f.fileno())
        n += 1
        stop.wait(1 + (n % 3))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--warmup", type=float, default=45.0)
    args = p.parse_args(argv)
    if os.geteuid() != 0 or subprocess.run(["zpool", "version"], capture_output=True).returncode != 0:
        print("lab_cpu: needs root and ZFS (run it in the zfslab VM)", file=sys.stderr)
        return 2
    build()
    stop = threading.Event()
    loader = threading.Thread(target=load, args=(stop,), daemon=True)
    loader.start()
    zdash = [sys.executable, "-m", "zdash"]
    results: list[tuple[str, float, dict[str, float]]] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            runs = [
                ("zpool iostat -vl 1 (the floor)", ["zpool", "iostat", "-vl", POOL, "1"]),
                ("zdash record", [*zdash, "record", "-o", f"{tmp}/bench.zdash", POOL]),
                ("zdash dashboard (120x40)", [*zdash, POOL]),
                ("Textual floor: 1 table, 1 Hz", [sys.executable, "-m", "tests.bench.textual_floor"]),
                (
                    "Textual: 1 line of text, 1 Hz",
                    [sys.executable, "-m", "tests.bench.textual_floor", "--label"],
                ),
                (
                    "Textual: idle (nothing changes)",
                    [sys.executable, "-m", "tests.bench.textual_floor", "--idle"],
                ),
            ]
            for name, cmd in runs:
                split: dict[str, float] = {}
                used, wall = cpu_in_pty(cmd, args.seconds, warmup=args.warmup, size=(120, 40), split=split)
                results.append((name, used * 1000 / wall, {k: v * 1000 / wall for k, v in split.items()}))
    finally:
        stop.set()
        loader.join(timeout=10)
        subprocess.run(["zpool", "destroy", "-f", POOL], capture_output=True)
    floor = results[0][1]
    print(
        f"\nCPU over {args.seconds:.0f} s after {args.warmup:.0f} s warm-up, pool of 4 disks under bursty writes"
    )
    with open("/sys/module/zfs/version") as f:
        version = f.read().strip()
    print(f"(OpenZFS {version}, emulated VM: compare ratios)\n")
    print(f"{'process':34} {'ms CPU/s':>9} {'x floor':>8} {'itself':>8} {'children':>9}")
    for name, ms, split in results:
        ratio = ms / floor if floor else float("nan")
        print(f"{name:34} {ms:9.1f} {ratio:8.1f} {split['own']:8.1f} {split['children']:9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
