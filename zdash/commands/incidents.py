"""`zdash incidents`: the incident recordings the flight recorder kept (zdash.feed.flight), oldest
first, one line each: when the finding was raised, host and pool, its severity and title, how
long the recording runs, its size and how it ended. Headless; `--json` for scripts."""

from __future__ import annotations

import json
import sys
from argparse import Namespace

from zdash import fmt
from zdash.config import ConfigError, read_config
from zdash.sources.incidents import Incident, default_dir, list_incidents
from zdash.visible import visible

SCHEMA = 1


def incidents_dir() -> str:
    """Where the flight recorder writes (the config's flight_recorder.dir, or the default)."""
    return read_config().flight_recorder.dir or default_dir()


def _row(i: Incident) -> dict[str, object]:
    return {
        "file": i.path,
        "onset": i.onset,
        "host": i.host,
        "pool": i.pool,
        "severity": i.severity,
        "title": i.title,
        "start": i.start,
        "end": i.end,
        "state": i.state,
        "bytes": i.size,
    }


def _line(i: Incident) -> str:
    length = fmt.duration(i.end - i.start) if i.start is not None and i.end is not None else "-"
    when = fmt.stamp(i.onset) if i.onset is not None else "-"
    # The file's own words, shown safe (its header could hold any bytes: zdash.visible).
    where = visible(":".join(p for p in (i.host, i.pool) if p) or "-")
    return (
        f"{when}  {where}  {visible(i.severity)}  {visible(i.title)}\n"
        f"    {length} recorded, {fmt.fmt_bytes(i.size)}, {visible(i.state)}: {visible(i.name)}"
    )


def run(args: Namespace) -> int:
    try:
        directory = incidents_dir()
    except ConfigError as e:
        print(f"zdash: {e}", file=sys.stderr)
        return 2
    found = list_incidents(directory)
    if args.json:
        doc = {
            "schema": SCHEMA,
            "dir": directory,
            "incidents": [_row(i) for i in found if isinstance(i, Incident)],
            "unreadable": [p for p in found if isinstance(p, str)],
        }
        print(json.dumps(doc, indent=2))
        return 0
    if not found:
        print(f"no incidents recorded in {directory}")
        return 0
    for i in found:
        print(_line(i) if isinstance(i, Incident) else f"(unreadable) {i}")
    print(f"\n{len(found)} in {directory}; replay one with: zdash replay NAME (or its path)")
    return 0
