"""`zdash summary FILE`: one line per tick of a recording (headless), a recording read as a
timeline."""

from __future__ import annotations

import sys
from argparse import Namespace

from zdash.model import Snapshot


def line(n: int, snap: Snapshot) -> str:
    pools = ", ".join(f"{p.name} {p.state}" for p in snap.pools) or "no pools"
    bad = "; ".join(s.message or s.key for s in snap.problems)
    return f"tick {n}: {pools}" + (f"  [{bad}]" if bad else "")


def run(args: Namespace) -> int:
    from zdash.scenarios import path_of
    from zdash.sources.replay import replay_snapshots
    from zdash.sources.session import SessionError

    path = path_of(args.file)
    try:
        header, snaps = replay_snapshots(path)
        print(f"{path}: recorded {header.created} on {header.host}, interval {header.interval} s")
        for n, snap in enumerate(snaps, 1):
            print(line(n, snap))
    except SessionError as e:
        print(f"zdash: {e}", file=sys.stderr)
        return 2
    return 0
