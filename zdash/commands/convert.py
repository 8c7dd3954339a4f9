"""`zdash convert FILE -o OUT`: a recording from one format to the other, raw samples unchanged.

YAML (format 1, `.yaml`/`.yaml.gz`) to `.zdash` (format 2): the ticks folded once to write
keyframes, so the day-long recording opens and seeks at once. `.zdash` to YAML: text for review
in git (the bundled scenarios stay YAML). Also rewrites a `.zdash` whose keyframes another
zdash version wrote. Exit 0 on success, 2 on an unreadable input or unwritable output.
"""

from __future__ import annotations

import sys
from argparse import Namespace

from zdash.builder import SnapshotBuilder
from zdash.checks.registry import CheckEngine
from zdash.commands.record import open_writer
from zdash.feed.fold import write_tick
from zdash.sources.recording import open_recording
from zdash.sources.session import SessionError
from zdash.sources.store import StoreError


def convert(src: str, out: str, force: bool = False) -> int:
    """Returns the number of ticks written."""
    rec = open_recording(src)
    h = rec.header
    builder, engine = SnapshotBuilder(h.interval or 1.0, h.host), CheckEngine()
    writer = open_writer(out, h.host, h.interval, h.description, force, created=h.created)
    n = 0
    try:
        for n in range(rec.count()):
            write_tick(writer, rec.tick(n), builder, engine)
        n = rec.count()
    finally:
        writer.close()
        rec.close()
    return n


def run(args: Namespace) -> int:
    from zdash.scenarios import path_of

    try:
        n = convert(path_of(args.file), args.output, args.force)
    except (SessionError, StoreError, OSError) as e:
        print(f"zdash: {e}", file=sys.stderr)
        return 2
    print(f"zdash: wrote {n} ticks to {args.output}", file=sys.stderr)
    return 0
