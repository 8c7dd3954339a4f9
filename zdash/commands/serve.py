"""`zdash serve`: the wall or the dashboard in web browsers, for a TV in the office.

textual-serve (an optional extra: pip install 'zdash[serve]') starts one zdash per browser
connection under Textual's web driver and relays its screen to xterm.js in the page. What each
browser gets is the same command line: `zdash [--wall] [--demo] ... --read-only` (or `zdash
replay FILE ...`), checked here once, before anything listens, so a bad theme, config or
recording is one line and exit 2 instead of a blank page per browser.

Read-only unless --allow-actions: the served dashboard opens no plan and records nothing.
Bound to localhost by default; anywhere else (and with --allow-actions) every request needs the
token (zdash.serve.guard), made here when not given and printed once with the URL on stdout.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import shutil
import socket
import sys
from argparse import Namespace
from collections.abc import Callable
from typing import TYPE_CHECKING

from zdash.commands.exporter import parse_listen

if TYPE_CHECKING:
    from zdash.config import Config
    from zdash.feed.live import LiveFeed
    from zdash.serve.server import ZdashServer

PORT = 10135  # zdash.cli.SERVE_PORT (the CLI does not import the commands)
TOKEN_ENV = "ZDASH_SERVE_TOKEN"
NEEDS_SERVE = "zdash serve: needs textual-serve, which is not installed: pip install 'zdash[serve]'"


def served_args(args: Namespace) -> list[str]:
    """The zdash arguments each browser's process runs with."""
    if args.replay:
        argv = ["replay", args.replay, "--speed", repr(args.speed)]
    elif args.demo:
        argv = ["--demo"]
    else:
        argv = ["--interval", repr(args.interval)]
    if args.wall:
        argv.append("--wall")
    if args.theme:
        argv += ["--theme", args.theme]
    if not args.allow_actions:
        argv.append("--read-only")
    if not args.replay and not args.demo:
        argv.append("--no-flight-recorder")  # zdash serve records in its own process, once
    if args.pools:
        argv += ["--", *args.pools]
    return argv


def _dashboard_namespace(args: Namespace) -> Namespace:
    """The arguments as the served `zdash` will parse them (served_args), to build its app here."""
    return Namespace(
        cmd="replay" if args.replay else None,
        file=args.replay,
        speed=args.speed,
        demo=args.demo,
        interval=args.interval,
        wall=args.wall,
        theme=args.theme,
        read_only=not args.allow_actions,
        pools=list(args.pools),
        flight_recorder=False,  # zdash serve records in its own process (_flight_feed)
    )


def url_host(host: str) -> str:
    """How a browser elsewhere names the bound address: this host's name for every interface."""
    if host in ("0.0.0.0", "::", ""):
        return socket.gethostname()
    return f"[{host}]" if ":" in host else host


def _refuse(why: str) -> int:
    print(f"zdash serve: {why}", file=sys.stderr)
    return 2


def _flight_feed(args: Namespace, config: Config) -> LiveFeed | None:
    """The served pools' flight recorder, in this process: the browsers' own zdash processes are
    --read-only and record nothing (each would write the same incident), and incidents must be
    kept while no browser is connected too. A live feed of its own, shown to no one."""
    if args.demo or args.replay:
        return None
    from zdash.commands.dashboard import flight_recorder
    from zdash.feed.live import LiveFeed

    recorder = flight_recorder(Namespace(**{**vars(args), "read_only": False}), config)
    if recorder is None:
        return None
    return LiveFeed(config.checks, args.interval, tuple(args.pools), flight=recorder)


async def _record_incidents(feed: LiveFeed) -> None:
    """Fold the live pools for the flight recorder; its notices (an incident recorded, the disk
    too full) go to stderr, the service's journal. A failing zpool is retried, never the end of
    the server."""

    def say() -> None:
        while notice := feed.take_notice():
            print(f"zdash serve: {notice}", file=sys.stderr, flush=True)

    delay = 1.0
    try:
        while True:
            try:
                async for _frame in feed.frames():
                    delay = 1.0
                    say()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - said once per failure, then tried again
                print(f"zdash serve: flight recorder: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 60.0)
    finally:
        say()  # what the recorder said while stopping (the incident it closed)


async def _serve(server: ZdashServer, bound: Callable[[int], None], flight: LiveFeed | None) -> None:
    if flight is None:
        await server.run(bound)
        return
    recorder = asyncio.ensure_future(_record_incidents(flight))
    try:
        await server.run(bound)
    finally:
        recorder.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await recorder


def run(args: Namespace) -> int:
    try:
        from zdash.serve.server import ZdashServer
    except ImportError:
        print(NEEDS_SERVE, file=sys.stderr)
        return 2
    from zdash.serve.guard import is_loopback, new_token, token_problem

    token = args.token or os.environ.get(TOKEN_ENV) or None
    os.environ.pop(TOKEN_ENV, None)  # the browsers' processes have no use for it
    if args.allow_actions and (args.wall or args.demo or args.replay):
        return _refuse("--allow-actions is for the live dashboard: the wall and recordings never run actions")
    if args.speed != 1.0 and not args.replay:
        return _refuse("--speed needs --replay FILE")
    try:
        host, port = parse_listen(args.listen, PORT)
    except ValueError as e:
        return _refuse(str(e))
    if token is not None and (why := token_problem(token)):
        return _refuse(f"--token: {why}")
    if token is None and (args.allow_actions or not is_loopback(host)):
        token = new_token()  # printed once, below, in the URL

    if args.replay:
        from zdash.scenarios import path_of

        args.replay = path_of(args.replay)
    elif not args.demo and shutil.which("zpool") is None:
        print(
            "zdash serve: no `zpool` command on this host; serving the bundled demo recording "
            "instead (--demo)",
            file=sys.stderr,
        )
        args.demo = True
    from zdash.commands.dashboard import build_app
    from zdash.config import ConfigError, read_config
    from zdash.resources import ResourceError
    from zdash.sources.session import SessionError

    try:
        config = read_config()
        build_app(_dashboard_namespace(args), config=config)
        flight = _flight_feed(args, config)
    except (ConfigError, SessionError, ResourceError) as e:
        return _refuse(str(e).removeprefix("zdash: "))

    command = shlex.join([sys.executable, "-m", "zdash", *served_args(args)])
    server = ZdashServer(command, host, port, token, fit_font=args.wall)
    what = "the wall" if args.wall else "the dashboard"
    mode = "actions allowed" if args.allow_actions else "read-only"

    def bound(real_port: int) -> None:
        query = f"?token={token}" if token else ""
        print(f"http://{url_host(host)}:{real_port}/{query}", flush=True)
        print(
            f"zdash serve: {what} ({mode}) for every browser that opens that URL"
            + ("; keep the token to those who may see it" if token else ", from this host only")
            + ". Ctrl-C stops.",
            file=sys.stderr,
            flush=True,
        )

    from zdash.commands.stopping import run_stoppable

    try:
        _, signalled = run_stoppable(lambda _stop: _serve(server, bound, flight))
    except OSError as e:
        return _refuse(f"cannot listen on {args.listen}: {e.strerror or e}")
    if signalled:
        print(f"zdash serve: stopped ({signalled})", file=sys.stderr)
    return 0
