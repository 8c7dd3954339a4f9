"""From parsed CLI arguments to a running dashboard. The CLI imports this module lazily, so
Textual loads only for the dashboard commands."""
from __future__ import annotations

import functools
import os
import sys
from argparse import Namespace

from ..checks.registry import run_checks
from ..config import ConfigError, load_config
from ..sources.session import SessionError, read_session
from .paths import ResourceError, demo_recording
from .settings import load_ui_settings


def build_feed(args: Namespace, checks, demo_reason: str | None = None):
    from .live_feed import LiveFeed
    from .replay_feed import ReplayFeed
    if getattr(args, "cmd", None) == "replay":
        _check_session(args.file)
        return ReplayFeed(args.file, checks, speed=args.speed, loop=args.wall)
    if args.demo:
        path = str(demo_recording())
        _check_session(path)
        return ReplayFeed(path, checks, demo=True, loop=True,
                          label=f"bundled demo ({demo_reason})" if demo_reason else "bundled demo")
    return LiveFeed(checks, args.interval, tuple(args.pools))


def _check_session(path: str) -> None:
    """Fail before the screen switches when the file is not a session we can read."""
    _header, ticks = read_session(path)
    ticks.close()


def run_dashboard(args: Namespace, demo_reason: str | None = None) -> int:
    try:
        cfg = load_config()
        settings = load_ui_settings()
        checks = functools.partial(run_checks, cfg=cfg)
        feed = build_feed(args, checks, demo_reason)
        from .app import ZdashApp
        app = ZdashApp(feed, cfg=cfg, wall=args.wall, theme=args.theme, settings=settings,
                       record_dir=os.getcwd())
    except (ConfigError, SessionError, ResourceError) as e:
        print(f"zdash: {e}" if not str(e).startswith("zdash:") else str(e), file=sys.stderr)
        return 2
    app.run()
    return 0
