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
    io = pool.io_of(pool.root)
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
    from zdash.config import ConfigError, read_config
    from zdash.fold import Fold
    from zdash.scenarios import path_of
    from zdash.sources.session import SessionError, SessionReport, read_session
    from zdash.sources.store import is_store

    path = path_of(args.file)
    report = SessionReport()
    try:
        cfg = read_config(getattr(args, "config", None)).checks
        if is_store(path):
            from zdash.sources.replay import replay_ticks

            header, ticks = replay_ticks(path)
        else:
            header, ticks = read_session(path, report)
        fold = Fold.from_header(header, cfg)
        n = 0
        try:
            for n, tick in enumerate(ticks, 1):  # one tick at a time: a long recording is never held whole
                if n == 1:
                    print(
                        f"{path}: recorded {header.created} on {header.host}, interval {header.interval} s (times UTC)"
                    )
                frame = fold.step(tick)
                print(line(n, frame.snapshot, frame.findings))
        finally:
            ticks.close()
        if n == 0:
            raise SessionError(f"{path} holds no complete tick")
    except (SessionError, ConfigError) as e:
        print(f"zdash: {e}", file=sys.stderr)
        return 2
    if damage := report.summary():  # what could not be read is said, never silently dropped
        print(f"zdash: {path}: {damage}", file=sys.stderr)
    return 0
