"""`zdash summary FILE`: a recording read as a timeline, one line per tick (headless): for each
pool its state, capacity, scan progress, read/write throughput, and the worst finding at that
moment (the same check engine the dashboard and `zdash check` fold), then any source that failed.

  tick 47  16:04:12  tank DEGRADED 25%  resilver 43%  r 1.20 MiB/s w 3.41 MiB/s  CRIT mirror-1 has no …
"""

from __future__ import annotations

import sys
import time
from argparse import Namespace
from collections.abc import Sequence

from zdash import fmt
from zdash.checks.finding import Finding, Severity
from zdash.fmt import fmt_rate
from zdash.model import Pool, Snapshot

WORD = {Severity.CRITICAL: "CRIT", Severity.UNKNOWN: "STALE", Severity.WARNING: "WARN", Severity.INFO: "ok"}


def _rates(pool: Pool) -> str:
    io = pool.root.io
    if io is None:
        return "r - w -"  # no rate this tick (first sample, a tree change, a stalled stream)
    return f"r {fmt_rate(io.read_bytes)} w {fmt_rate(io.write_bytes)}"


def _scan(pool: Pool) -> str:
    s = pool.scan
    if s is None or s.state not in ("scanning", "paused"):
        return ""
    pct = f" {s.pct_done:.0f}%" if s.pct_done is not None else ""
    return f"  {s.function}{pct}" + (" paused" if s.state == "paused" else "")


def _pool_part(pool: Pool, findings: Sequence[Finding]) -> str:
    cap = f" {fmt.fill(pool.fill_pct)}" if pool.fill_pct is not None else ""
    mine = [f for f in findings if f.pool == pool.name or f.pool is None]
    worst = mine[0] if mine else None  # findings come worst first
    verdict = (
        "ok" if worst is None or worst.severity == Severity.INFO else f"{WORD[worst.severity]} {worst.title}"
    )
    return f"{pool.name} {pool.state}{cap}{_scan(pool)}  {_rates(pool)}  {verdict}"


def line(n: int, snap: Snapshot, findings: Sequence[Finding] | None = None) -> str:
    """One tick. Without findings (the recorder's progress line), pools and failures only."""
    clock = time.strftime("%H:%M:%S", time.gmtime(snap.time))
    if findings is None:
        pools = ", ".join(f"{p.name} {p.state}" for p in snap.pools) or "no pools"
    else:
        pools = " | ".join(_pool_part(p, findings) for p in snap.pools) or "no pools"
    bad = "; ".join(s.message or s.key for s in snap.problems)
    return f"tick {n}  {clock}  {pools}" + (f"  [{bad}]" if bad else "")


def run(args: Namespace) -> int:
    """Exit 0 when the recording was read (what could not be, said on stderr), 2 when it cannot
    be read or holds no complete tick."""
    from zdash.builder import SnapshotBuilder
    from zdash.checks.registry import CheckEngine
    from zdash.config import ConfigError, load_config
    from zdash.scenarios import path_of
    from zdash.sources.recording import open_recording
    from zdash.sources.session import SessionError

    path = path_of(args.file)
    try:
        engine = CheckEngine(load_config())
        rec = open_recording(path)
        if rec.count() == 0:
            raise SessionError(f"{path} holds no complete tick")
        header = rec.header
        builder = SnapshotBuilder(header.interval or 1.0, header.host)
        print(f"{path}: recorded {header.created} on {header.host}, interval {header.interval} s (times UTC)")
        for n in range(rec.count()):
            snap = builder.feed(rec.tick(n))
            print(line(n + 1, snap, engine.update(snap)))
    except (SessionError, ConfigError) as e:
        print(f"zdash: {e}", file=sys.stderr)
        return 2
    if damage := rec.report.summary():  # what could not be read is said, never silently dropped
        print(f"zdash: {path}: {damage}", file=sys.stderr)
    return 0
