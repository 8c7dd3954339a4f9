"""`zdash exporter`: serve Prometheus metrics of the live pools, headless (no Textual).

One collector loop runs the live source for as long as the process lives (the same LiveSource
and fold, zdash.fold, the dashboard uses); each scrape renders the latest snapshot and
its findings and never waits for a zpool command. Bad input (an address that cannot be read or
bound, a config file) is one line on stderr and exit 2.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from argparse import Namespace

from zdash.prometheus.exporter import DEFAULT_PORT

DEFAULT_LISTEN = f"127.0.0.1:{DEFAULT_PORT}"


def parse_listen(text: str, example_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """ADDR:PORT, [IPv6]:PORT, :PORT (every IPv4 interface) or PORT alone (the default address,
    localhost). Raises ValueError with a message for the admin (its examples on example_port)."""
    text = text.strip()
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = DEFAULT_LISTEN.rsplit(":", 1)[0], text
    elif host.startswith("["):
        if not host.endswith("]") or len(host) < 3:
            raise ValueError(
                f"--listen {text!r}: an IPv6 address goes in brackets, e.g. [::1]:{example_port}"
            )
        host = host[1:-1]
    elif ":" in host:
        raise ValueError(f"--listen {text!r}: put an IPv6 address in brackets, e.g. [{host}]:{example_port}")
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"--listen {text!r}: the port must be a number from 0 to 65535")
    return host or "0.0.0.0", int(port)


async def _until_stopped(state, cfg, interval: float, pools: tuple[str, ...]) -> None:
    from zdash.prometheus.exporter import collect_live

    task = asyncio.ensure_future(collect_live(state, cfg, interval, pools))
    loop = asyncio.get_running_loop()
    # systemd stops with SIGTERM, a closed terminal sends SIGHUP: leave no zpool child
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        loop.add_signal_handler(sig, task.cancel)
    with contextlib.suppress(asyncio.CancelledError):
        await task


def run(args: Namespace) -> int:
    from zdash.config import ConfigError, read_config
    from zdash.prometheus.exporter import State, serve

    try:
        host, port = parse_listen(args.listen)
    except ValueError as e:
        print(f"zdash exporter: {e}", file=sys.stderr)
        return 2
    try:
        cfg = read_config(args.config).checks
    except ConfigError as e:
        print(f"zdash exporter: {e}", file=sys.stderr)
        return 2
    state = State()
    try:
        server = serve(host, port, state)
    except OSError as e:
        print(f"zdash exporter: cannot listen on {args.listen}: {e.strerror or e}", file=sys.stderr)
        return 2
    bound_host, bound_port = server.server_address[:2]
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    pools = tuple(args.pools)
    print(
        f"zdash exporter: serving http://{shown}:{bound_port}/metrics "
        f"({', '.join(pools) or 'all pools'}, every {args.interval:g} s)",
        file=sys.stderr,
        flush=True,
    )
    try:
        asyncio.run(_until_stopped(state, cfg, args.interval, pools))
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        server.server_close()
    return 0
