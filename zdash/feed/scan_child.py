"""The scan for a recording's events (zdash.feed.timeline.scan) in a process of its own.

Run as `python -m zdash.feed.scan_child PATH CONFIG` by the replay (ReplayFeed.timelines):
in a thread of the dashboard's process, the scan's fold of the whole recording held the
interpreter lock the replay's own fold and its drawing need, and a 64x replay drew a third of
its frames for as long as it ran (half a minute on an hour's recording). Here it competes only
for the CPU, and at a lower priority (nice +10): the screen the viewer watches comes first.

CONFIG is the replay's CheckConfig as JSON (the markers come from the same thresholds as the
replay's findings): its settings by name, a Monitoring Plugins range by its text. JSON, not
pickle: an argument is data whoever runs the module, never code. Each timeline found is written to stdout as one line of
JSON (`encode` / `decode`), in parts as the scan goes, then whole; a tick that cannot be folded
ends it with `stopped` saying why. The child is started to die with zdash (spawn's
die_with_parent) and killed when the replay stops wanting its markers.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import sys
import threading

from zdash.checks.finding import Severity
from zdash.config import CheckConfig
from zdash.feed.timeline import Event, Timeline, scan
from zdash.gcpolicy import tune
from zdash.ranges import Range
from zdash.sources.recording import open_recording

NICE = 10  # the scan yields the CPU to the dashboard that shows the replay


def config_arg(cfg: CheckConfig | None) -> str:
    if cfg is None:
        return "null"
    settings = {}
    for f in dataclasses.fields(cfg):
        value = getattr(cfg, f.name)
        settings[f.name] = {"range": value.text} if isinstance(value, Range) else value
    return json.dumps(settings)


def config_of(arg: str) -> CheckConfig | None:
    """The CheckConfig config_arg wrote; a setting that is not one is refused by CheckConfig."""
    settings = json.loads(arg)
    if settings is None:
        return None
    for name, value in settings.items():
        if isinstance(value, dict):
            settings[name] = Range.parse(value["range"])
        elif isinstance(value, list):
            settings[name] = tuple(value)
    return CheckConfig(**settings)


def encode(timeline: Timeline) -> bytes:
    events = [
        [e.index, e.time, e.kind, e.text, None if e.severity is None else int(e.severity)]
        for e in timeline.events
    ]
    doc = {
        "events": events,
        "scanned": timeline.scanned,
        "count": timeline.count,
        "stopped": timeline.stopped,
    }
    return json.dumps(doc).encode() + b"\n"


def decode(line: bytes) -> Timeline:
    doc = json.loads(line)
    events = tuple(
        Event(index, when, kind, text, None if severity is None else Severity(severity))
        for index, when, kind, text, severity in doc["events"]
    )
    return Timeline(events, doc["scanned"], doc["count"], doc["stopped"])


def main(argv: list[str]) -> int:
    path, cfg = argv[0], config_of(argv[1])
    with contextlib.suppress(OSError):
        os.nice(NICE)
    tune()
    out = sys.stdout.buffer

    def publish(timeline: Timeline) -> None:
        try:
            out.write(encode(timeline))
            out.flush()
        except OSError:  # the replay is gone (or stopped wanting markers): nothing to do
            os._exit(0)

    try:
        rec = open_recording(path)
        times = rec.times()
    except Exception as e:  # noqa: BLE001 - said on the timeline: the replay reports its own errors
        publish(Timeline((), 0, 0, f"{type(e).__name__}: {e}"))
        return 0
    scan(rec, cfg, times, publish, threading.Event())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
