"""`zdash check`: the diagnosis engine once, without Textual, for cron, Nagios and scripts.

Exit codes follow the Nagios plugin convention: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN (the
pool could not be read at all). JSON schema version 1 (documented in README, 'zdash check'):
  {"schema": 1, "zdash_version", "time", "source": "live" | "replay:<file>",
   "status": "OK"|"WARNING"|"CRITICAL"|"UNKNOWN", "exit_code",
   "pools": [{"name", "state", "cap_pct"}],
   "problems": [one-line messages of inputs that failed],
   "findings": [{"check", "severity": "info"|"warning"|"critical", "pool", "subject",
                 "subject_kind", "topic", "title", "why", "evidence": [[label, value]...],
                 "actions": [{"label", "argv": [...], "action"}]}]}
"""
from __future__ import annotations

import asyncio
import json
import sys
from typing import Sequence

from . import __version__
from .builder import SnapshotBuilder
from .checks.finding import Finding, Severity
from .checks.registry import run_checks
from .config import CheckConfig
from .model import Snapshot

STATUS = {0: "OK", 1: "WARNING", 2: "CRITICAL", 3: "UNKNOWN"}


async def live_history(samples: int, interval: float, pools: tuple[str, ...]) -> list[Snapshot]:
    from .sources.live import LiveSource
    source = LiveSource(interval, pools, structure_every=max(interval, 2.0))
    builder = SnapshotBuilder(interval, source.host)
    history: list[Snapshot] = []
    gen = source.ticks()
    try:
        async for tick in gen:
            history.append(builder.feed(tick))
            if len(history) >= samples:
                break
    finally:
        await gen.aclose()
    return history


def exit_code(history: Sequence[Snapshot], findings: Sequence[Finding], pools: tuple[str, ...]) -> int:
    last = history[-1] if history else None
    if last is None or not last.pools or any(last.pool(p) is None for p in pools):
        return 3
    worst = max((f.severity for f in findings), default=Severity.INFO)
    return {Severity.INFO: 0, Severity.WARNING: 1, Severity.CRITICAL: 2}[worst]


def finding_json(f: Finding) -> dict:
    return {"check": f.check, "severity": f.severity.name.lower(), "pool": f.pool,
            "subject": f.subject, "subject_kind": f.subject_kind, "topic": f.topic,
            "title": f.title, "why": f.why, "evidence": [list(e) for e in f.evidence],
            "actions": [{"label": a.label, "argv": list(a.argv), "action": a.action} for a in f.actions]}


def report(history: Sequence[Snapshot], findings: Sequence[Finding], code: int, source: str) -> dict:
    last = history[-1] if history else None
    return {"schema": 1, "zdash_version": __version__, "time": last.time if last else None,
            "source": source, "status": STATUS[code], "exit_code": code,
            "pools": [{"name": p.name, "state": p.state, "cap_pct": p.cap_pct}
                      for p in (last.pools if last else ())],
            "problems": [s.message for s in (last.problems if last else ()) if s.message],
            "findings": [finding_json(f) for f in findings]}


def text_report(doc: dict) -> str:
    pools = ", ".join(f"{p['name']} {p['state']}" for p in doc["pools"]) or "no pools"
    lines = [f"ZDASH {doc['status']} - {pools}"]
    for msg in doc["problems"]:
        lines.append(f"  ! {msg}")
    for f in doc["findings"]:
        lines.append(f"  [{f['severity'].upper():8}] {f['title']}")
    return "\n".join(lines)


def run_check(as_json: bool, replay: str | None, samples: int, interval: float,
              pools: tuple[str, ...], cfg: CheckConfig, at: float | None = None) -> int:
    if replay:
        from .sources.replay import load_replay
        from .sources.session import SessionError
        try:
            _, history = load_replay(replay)
        except SessionError as e:
            print(f"zdash: {e}", file=sys.stderr)
            return 3
        source = f"replay:{replay}"
        if at is not None and history:
            # The history a live run would have had then: the same window the UI replays with.
            history = [s for s in history if s.time <= history[0].time + at] or history[:1]
            source += f"@{at:g}s"
    else:
        history = asyncio.run(live_history(samples, interval, pools))
        source = "live"
    # Checks see the whole history (sustained slowness, trends, error growth); a pool filter
    # narrows only what is reported.
    findings = [f for f in run_checks(history, cfg) if not pools or f.pool in pools or f.pool is None]
    code = exit_code(history, findings, pools)
    doc = report(history, findings, code, source)
    print(json.dumps(doc, indent=2) if as_json else text_report(doc))
    return code
