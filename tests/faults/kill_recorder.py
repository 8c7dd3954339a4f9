#!/usr/bin/env python3
"""Kill a recording writer with SIGKILL at random moments and read the file back: every tick
that was complete before the kill must be there, in order, unchanged. Prints one line per trial
and the totals; exits 1 on any loss. A script, not a test (the unit suite runs 5 trials).

    .venv/bin/python -m tests.faults.kill_recorder [--trials 20] [--format yaml.gz|yaml|zdash|all]

The writer is the real SessionWriter / StoreWriter in a child process; after each tick it
records how many ticks it has written in a side file, so the parent knows what was complete.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import os
import sys
sys.path.insert(0, {root!r})
from tests.sources.test_session_damage import _tick
from zdash.commands.record import open_writer
w = open_writer({path!r}, "h", 1.0, None)
for i in range(1_000_000):
    if {store}:
        w.write(_tick(i), None)
    else:
        w.write(_tick(i))
    with open({done!r} + ".tmp", "w") as f:  # replaced whole: a kill never leaves it empty
        f.write(str(i + 1))
    os.replace({done!r} + ".tmp", {done!r})
"""


def trial(fmt: str, rng: random.Random, workdir: str, n: int) -> tuple[int, int, bool]:
    from tests.sources.test_session_damage import _tick
    from zdash.sources.recording import open_recording

    path = os.path.join(workdir, f"t{n}.{fmt}")
    done = os.path.join(workdir, f"t{n}.{fmt}.done")
    code = CHILD.format(root=str(ROOT), path=path, done=done, store=fmt == "zdash")
    child = subprocess.Popen([sys.executable, "-c", code])
    deadline = time.monotonic() + 60
    while not os.path.exists(done) and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(rng.uniform(0.0, 1.0))
    child.kill()
    child.wait()
    committed = int(Path(done).read_text() or 0) if os.path.exists(done) else 0
    rec = open_recording(path)
    got = [rec.tick(i) for i in range(rec.count())]
    intact = got == [_tick(i) for i in range(len(got))]
    return committed, len(got), intact and len(got) >= committed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--format", default="all", choices=["yaml.gz", "yaml", "zdash", "all"])
    ap.add_argument("--seed", type=int, default=20261124)
    args = ap.parse_args(argv)
    formats = ["yaml.gz", "yaml", "zdash"] if args.format == "all" else [args.format]
    rng = random.Random(args.seed)
    lost = 0
    with tempfile.TemporaryDirectory() as workdir:
        for fmt in formats:
            ok = 0
            for n in range(args.trials):
                committed, read, good = trial(fmt, rng, workdir, n)
                ok += good
                lost += not good
                print(
                    f"{fmt:8} trial {n + 1:2}: {committed:6} ticks complete before the kill, {read:6} read back"
                    f"  {'ok' if good else 'LOST DATA'}"
                )
            print(f"{fmt:8} {ok}/{args.trials} trials kept every complete tick\n")
    print("no data lost" if not lost else f"{lost} trial(s) lost data")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
