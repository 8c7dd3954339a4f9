"""`zdash [POOL…]`, `zdash --demo`, `zdash replay FILE|NAME`: from parsed arguments to a running
dashboard. Textual loads only when the app is built (zdash.ui), so the CLI stays light."""

from __future__ import annotations

import os
import shutil
import sys
from argparse import Namespace
from collections.abc import Sequence
from typing import TYPE_CHECKING

from zdash.config import Config, ConfigError, read_config
from zdash.resources import ResourceError
from zdash.scenarios import demo_recording
from zdash.sources.remote import HostError, SshHost
from zdash.sources.session import SessionError, read_session

if TYPE_CHECKING:
    from zdash.feed.flight import FlightRecorder
    from zdash.feed.frame import Feed
    from zdash.ui.app import ZdashApp


NO_TERMINAL = (
    "zdash: the dashboard needs a terminal (stdin and stdout are not one); "
    "for cron, systemd or a pipe use `zdash record` or `zdash check`"
)


# What textual-serve (zdash serve) sets for the process it starts per browser: Textual then
# speaks to the web page through stdin/stdout, which are pipes and not a terminal.
WEB_DRIVER = "textual.drivers.web_driver:WebDriver"


def has_terminal() -> bool:
    """Started from a terminal (not cron, systemd or a pipe): the dashboard needs one both ways,
    or a browser's, relayed by zdash serve."""
    return (sys.stdin.isatty() and sys.stdout.isatty()) or os.environ.get("TEXTUAL_DRIVER") == WEB_DRIVER


def build_feed(args: Namespace, config: Config, demo_reason: str | None = None) -> Feed:
    from zdash.feed.live import LiveFeed
    from zdash.feed.replay import LEAD_S, ReplayFeed

    # A recording that says what to look for starts paused, its description in a panel beside
    # the data: read first, then play (space). The wall loops unattended: it plays at once.
    # It opens a few seconds before its onset (the first marker), not at a quiet start.
    cfg = config.checks
    if getattr(args, "cmd", None) == "replay":
        described = _check_session(args.file)
        return ReplayFeed(
            args.file,
            cfg,
            speed=args.speed,
            loop=args.wall,
            playing=args.wall or not described,
            lead=LEAD_S if described and not args.wall else None,
        )
    if args.demo:
        path = str(demo_recording())
        described = _check_session(path)
        return ReplayFeed(
            path,
            cfg,
            demo=True,
            loop=True,
            playing=args.wall or not described,
            label=f"bundled demo ({demo_reason})" if demo_reason else "bundled demo",
            lead=LEAD_S if described and not args.wall else None,
        )
    hosts = getattr(args, "hosts", ())
    if hosts:
        from zdash.feed.fleet import FleetFeed

        return FleetFeed(cfg, hosts, args.interval, tuple(args.pools))
    return LiveFeed(cfg, args.interval, tuple(args.pools), flight=flight_recorder(args, config))


def flight_recorder(args: Namespace, config: Config) -> FlightRecorder | None:
    """The flight recorder of a live dashboard or wall (zdash.feed.flight): on unless the
    config or --no-flight-recorder turns it off, never for --read-only (a browser's process:
    zdash serve records in its own)."""
    if getattr(args, "read_only", False) or not getattr(args, "flight_recorder", True):
        return None
    from zdash.feed.flight import FlightRecorder

    settings = config.flight_recorder
    return FlightRecorder(settings, config.checks, args.interval) if settings.enabled else None


def _check_session(path: str) -> bool:
    """Fail before the screen switches when the file is not a recording we can read, or holds
    no tick that can be read. True when it has a description."""
    from zdash.sources.store import is_store

    if is_store(path):
        from zdash.sources.recording import open_recording

        rec = open_recording(path)
        count, header = rec.count(), rec.header
        rec.close()
    else:
        header, ticks = read_session(path)
        count = 0 if next(ticks, None) is None else 1
        ticks.close()  # a lazy reader holds the file open until closed
    if count == 0:
        raise SessionError(f"{path} holds no complete tick")
    return bool(header.description and header.description.strip())


def build_app(args: Namespace, demo_reason: str | None = None, config: Config | None = None) -> ZdashApp:
    """The app the arguments ask for, not running yet. Raises ConfigError, SessionError or
    ResourceError (a bad config, recording or theme) with the line for the admin; zdash serve
    builds one too, to refuse bad arguments before any browser connects. `config`: the config
    file as the caller read it (else read here)."""
    config = config or read_config()
    cfg = config.checks
    if getattr(args, "cmd", None) != "replay" and not args.demo:
        args.hosts = remote_hosts(getattr(args, "host", None) or config.hosts)
    feed = build_feed(args, config, demo_reason)
    from zdash.ui.app import WallApp, ZdashApp

    return (WallApp if args.wall else ZdashApp)(
        feed,
        cfg=cfg,
        theme=args.theme,
        settings=config.ui,
        record_dir=os.getcwd(),
        read_only=getattr(args, "read_only", False),
    )


def run_dashboard(args: Namespace, config: Config, demo_reason: str | None = None) -> int:
    try:
        app = build_app(args, demo_reason, config)
    except (SessionError, ResourceError, HostError) as e:
        return _refuse(e)
    if not has_terminal():
        print(NO_TERMINAL, file=sys.stderr)
        return 2
    app.report_crashes = True
    app.settle_after_start = True
    app.run()
    if app.crash_message:
        print(app.crash_message, file=sys.stderr)
        return 2
    return 0


def remote_hosts(specs: Sequence[str]) -> tuple[SshHost, ...]:
    """--host (or the config's `hosts:`), parsed; the same host twice is once."""
    hosts: dict[str, SshHost] = {}
    for spec in specs:
        h = SshHost.parse(spec)
        hosts.setdefault(h.label, h)
    return tuple(hosts.values())


def _refuse(e: Exception) -> int:
    print(f"zdash: {e}" if not str(e).startswith("zdash:") else str(e), file=sys.stderr)
    return 2


def run(args: Namespace) -> int:
    reason = None
    try:
        config = read_config()  # the one read of the file: hosts, thresholds, flight recorder, ui
    except ConfigError as e:
        return _refuse(e)
    remote = getattr(args, "host", None) or config.hosts
    if (
        getattr(args, "cmd", None) != "replay"
        and not args.demo
        and not remote
        and shutil.which("zpool") is None
    ):
        print(
            "zdash: no `zpool` command on this host; showing the bundled demo recording "
            "instead (zdash --demo)",
            file=sys.stderr,
        )
        args.demo, reason = True, "no zpool on this host"
    return run_dashboard(args, config, reason)
