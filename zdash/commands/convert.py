"""`zdash convert FILE -o OUT`: a recording from one format to the other, raw samples unchanged.

YAML (format 1, `.yaml`/`.yaml.gz`) to `.zdash` (format 2): the ticks folded once (with the
user's thresholds, as every command folds) to write keyframes, so the day-long recording opens
and seeks at once. `.zdash` to YAML: text for review in git (the bundled scenarios stay YAML). Also rewrites a `.zdash` whose keyframes another
zdash version or another config wrote (a reader folds such a file from the start). Exit 0 on success, 2 on an unreadable input or unwritable output.
"""

from __future__ import annotations

import sys
from argparse import Namespace

from zdash.commands.record import open_writer
from zdash.config import CheckConfig, ConfigError, read_config
from zdash.fold import Fold
from zdash.sources.replay import replay_ticks
from zdash.sources.session import SessionError
from zdash.sources.store import StoreError


def convert(src: str, out: str, force: bool = False, cfg: CheckConfig | None = None) -> int:
    """Returns the number of ticks written. The input is read tick by tick as it is written,
    never held whole."""
    h, ticks = replay_ticks(src)
    fold = Fold.from_header(h, cfg)
    n = 0
    try:
        writer = open_writer(out, h.host, h.interval, h.description, force, created=h.created)
        try:
            for tick in ticks:
                fold.write(writer, tick)
                n += 1
        finally:
            writer.close()
    finally:
        ticks.close()
    return n


def run(args: Namespace) -> int:
    from zdash.scenarios import path_of

    try:
        cfg = read_config(getattr(args, "config", None)).checks
        n = convert(path_of(args.file), args.output, args.force, cfg)
    except (SessionError, StoreError, OSError, ConfigError) as e:
        print(f"zdash: {e}", file=sys.stderr)
        return 2
    print(f"zdash: wrote {n} ticks to {args.output}", file=sys.stderr)
    return 0
