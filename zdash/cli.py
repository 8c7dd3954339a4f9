"""The command line: its grammar (argparse, also the source of shell completion and --help)
and the dispatch to zdash.commands, one module per command.

Only the dashboard commands import Textual (lazily, in zdash.commands.dashboard); record and
check stay headless so they run on a minimal server and in cron.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable
from typing import NoReturn

# The seconds --interval accepts: below 0.1 s zpool iostat cannot keep up and the host's CPU
# goes to zdash; above an hour a tick is no longer a sample of anything live.
INTERVAL_S = (0.1, 3600.0)
SPEEDS = (0.25, 64.0)  # replay --speed (zdash.feed.replay.SPEEDS holds the steps between)
SAMPLES = (1, 10_000)  # check --samples
COMMAND_TIMEOUT_S = (1.0, 600.0)  # check --timeout
# zdash serve's port, on localhost (the exporter's is zdash.prometheus.exporter.DEFAULT_PORT).
SERVE_PORT = 10135
SERVE_LISTEN = f"127.0.0.1:{SERVE_PORT}"


def _number(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"{text} is not a finite number")
    return v


def _positive(text: str) -> float:
    v = _number(text)
    if v <= 0:
        raise argparse.ArgumentTypeError(f"{text}: must be > 0")
    return v


def _not_negative(text: str) -> float:
    v = _number(text)
    if v < 0:
        raise argparse.ArgumentTypeError(f"{text}: must be 0 or more")
    return v


def _between(lo: float, hi: float, unit: str = "") -> Callable[[str], float]:
    def check(text: str) -> float:
        v = _number(text)
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"{text}: must be from {lo:g} to {hi:g}{unit}")
        return v

    return check


_interval = _between(*INTERVAL_S, " seconds")
_timeout = _between(*COMMAND_TIMEOUT_S, " seconds")
_speed = _between(*SPEEDS)


def _range(text: str) -> object:
    from zdash.ranges import Range

    try:
        return Range.parse(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _samples(text: str) -> int:
    v = _between(*SAMPLES)(text)
    if not v.is_integer():
        raise argparse.ArgumentTypeError(f"{text}: must be a whole number")
    return int(v)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (the usage block buries the cause), exit 2."""

    def error(self, message: str) -> NoReturn:
        # A monitoring plugin's bad option is UNKNOWN (3): a 2 would page as CRITICAL.
        code = 3 if self.prog.endswith(" check") else 2
        self.exit(code, f"{self.prog}: {message} (see {self.prog} --help)\n")


EXAMPLES = {
    None: """\
examples:
  zdash                          the dashboard on every pool of this host (root, or zfs allow)
  zdash tank --theme zdash-light one pool, light theme
  zdash --wall                   read-only wall, read across a room: a big verdict per pool
  zdash --demo                   the bundled demo recording (also what runs without ZFS)
  zdash --host nas1 --host admin@nas2:2222 --wall   a fleet wall: every host's pools, over ssh
  zdash completion bash > ~/.local/share/bash-completion/completions/zdash

commands (zdash COMMAND --help for each):
  replay, record, convert, check, exporter, serve, summary, incidents, import, plan, completion""",
    "replay": """\
examples:
  zdash replay --list                       the bundled scenarios, one line each
  zdash replay deranged-mirror              a bundled scenario by name
  zdash replay incident.yaml.gz --speed 4   a recording of yours, four times as fast
keys: space pause, , . step, - + speed, t seek (12:03:10, +30s, 50%, #120), ? all keys""",
    "record": """\
examples:
  sudo zdash record -o incident.zdash --duration 600 tank
  sudo zdash record -o nightly.zdash --interval 5 --description "backup window"
  sudo zdash record -o scenario.yaml.gz --duration 60      text, for review in git
  zdash record -o nas1.zdash --host root@nas1 --duration 3600   another host, over ssh
.zdash files seek at once however long; Ctrl-C stops and keeps every complete tick.""",
    "convert": """\
examples:
  zdash convert incident.yaml.gz -o incident.zdash     keyframes: opens and seeks at once
  zdash convert incident.zdash -o incident.yaml.gz     text, for review""",
    "check": """\
examples:
  zdash check                          live: 5 samples, 1 s apart; exit 0/1/2/3 (Nagios)
  zdash check --json tank              one pool, machine-readable
  zdash check --host nas1              another host over ssh (a central Nagios); unreachable: 3
  zdash check --replay incident.yaml.gz --at 120   a recording as it stood 2 min in
  zdash check --text ticket.txt        what someone pasted (zpool status, list, iostat, zfs list)
  zdash check --prometheus /var/lib/node_exporter/textfile_collector/zdash.prom   also for node_exporter
output: `ZDASH WARNING - tank: <worst cause> (+N more) | perfdata`, then one line per finding.""",
    "exporter": """\
examples:
  zdash exporter                        http://127.0.0.1:10134/metrics, every pool
  zdash exporter --listen :10134 tank    every interface (behind a firewall), one pool
  curl -s localhost:10134/metrics | grep zdash_finding
The default listens on localhost only: the metrics name every pool, vdev and disk and the server
has no authentication or TLS. Let Prometheus scrape it from this host, or open it with --listen
where your firewall allows only the Prometheus server. Not 9134: that is zfs_exporter's.""",
    "serve": """\
examples:
  zdash serve --wall                      the wall at http://127.0.0.1:10135/ (this host only)
  zdash serve --wall --listen :10135      every interface: prints the URL with a new token once
  zdash serve --demo --theme zdash-light  the dashboard, read-only: keys browse, nothing runs
  zdash serve --wall --replay deranged-mirror   a recording or bundled scenario, looping
Each browser that opens the page gets its own zdash (textual-serve relays it to the page).
Read-only unless --allow-actions: the served dashboard opens no repair plan and records nothing
(--wall is read-only anyway). Bound anywhere but localhost, every request needs the token:
open the printed http://HOST:PORT/?token=... once and the browser keeps it (a cookie).
--allow-actions always needs a token: other users of this host reach localhost too. The token
can come from ZDASH_SERVE_TOKEN instead of --token (not visible in ps). No TLS: beyond a
trusted LAN, put it behind a reverse proxy that adds it.
Needs textual-serve: pip install 'zdash[serve]' (exit 2 with that hint when it is missing).""",
    "incidents": """\
examples:
  zdash incidents                      what the flight recorder kept on this host, oldest first
  zdash incidents --json               the same, machine-readable
  zdash replay 20261128-031205-nas1-tank-deranged_disk   replay one (by name or path)
The dashboard, the wall and zdash serve keep the last 10 minutes of raw samples in memory; when a
finding at WARNING or above is raised they write those minutes and what follows to a recording
here (config: flight_recorder:, or --no-flight-recorder).""",
    "summary": """\
example:
  zdash summary incident.yaml.gz       one line per tick: a recording read as a timeline""",
    "import": """\
example:
  zdash import ticket.txt -o ticket.yaml.gz && zdash replay ticket.yaml.gz""",
    "plan": """\
examples:
  zdash plan replace tank /dev/sdc /dev/disk/by-id/ata-NEW_SERIAL
  zdash plan offline tank /dev/mapper/sick --json
Nothing runs: the dashboard runs a plan after you confirm it (open a finding, press its number).""",
    "completion": """\
examples:
  zdash completion bash > ~/.local/share/bash-completion/completions/zdash
  zdash completion zsh  > "${fpath[1]}/_zdash"
  zdash completion fish > ~/.config/fish/completions/zdash.fish""",
}

SHELLS = ("bash", "zsh", "fish")


def _sub(
    sub: argparse._SubParsersAction[_Parser],
    name: str,
    help_text: str,
    formatter_class: type[argparse.HelpFormatter] = argparse.RawDescriptionHelpFormatter,
    usage: str | None = None,
) -> argparse.ArgumentParser:
    return sub.add_parser(
        name,
        help=help_text,
        description=help_text[:1].upper() + help_text[1:] + ".",
        epilog=EXAMPLES[name],
        formatter_class=formatter_class,
        usage=usage,
    )


class _PrintVersion(argparse.Action):
    """-V: the version alone (argparse's own would pass it through the plugin-style help)."""

    def __init__(self, option_strings: list[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, help=help)

    def __call__(self, parser, _namespace, _values, _option_string=None):
        print(_version())
        parser.exit()


class PluginHelp(argparse.RawDescriptionHelpFormatter):
    """`zdash check --help` as monitoring plugins print theirs (the Monitoring Plugins
    development guidelines): the name and version first, `Usage:`, then `Options:` with each
    option's forms on a line of its own (`-w, --warning=RANGE`) and its text indented below."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=4, width=100)

    def format_help(self) -> str:
        return f"{_version().replace('zdash ', 'zdash check v')}\n\n" + super().format_help()

    def add_usage(self, usage, actions, groups, prefix=None):
        super().add_usage(usage, actions, groups, "Usage:\n ")

    def start_section(self, heading: str | None) -> None:
        titles = {"options": "Options", "positional arguments": "Arguments"}
        super().start_section(titles.get(heading or "", heading))

    def _format_action_invocation(self, action: argparse.Action) -> str:
        if not action.option_strings or action.nargs == 0:
            return super()._format_action_invocation(action)
        metavar = self._metavar_formatter(action, action.dest.upper())(1)[0]
        *short, long = action.option_strings
        return ", ".join([*short, f"{long}={metavar}"])

    def _format_action(self, action: argparse.Action) -> str:
        forms = " " + self._format_action_invocation(action) + "\n"
        text = self._expand_help(action) if action.help else ""
        lines = self._split_lines(text, self._width - 4) if text else []
        return forms + "".join(f"    {line}\n" for line in lines)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="zdash",
        description="Terminal dashboard for live ZFS pools: "
        "balance, slow disks, health, capacity, clones, guided repairs.",
        epilog=EXAMPLES[None],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=_version())
    _dashboard_options(p, live=True)
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND")

    rp = _sub(sub, "replay", "the dashboard on a recorded session file or a bundled scenario")
    _completes(
        rp.add_argument("file", nargs="?", help="session file (.yaml or .yaml.gz), or a scenario name"),
        _complete_sessions,
    )
    rp.add_argument("--list", action="store_true", help="list the bundled scenarios and exit")
    _dashboard_options(rp, live=False)
    rp.add_argument("--speed", type=_speed, default=1.0, help="playback speed, 0.25 to 64 (default 1)")

    r = _sub(sub, "record", "record the live pools to a session file (headless)")
    r.add_argument(
        "-o", "--output", required=True, help="recording: .zdash (long sessions) or .yaml/.yaml.gz"
    )
    r.add_argument("--force", action="store_true", help="overwrite OUTPUT if it exists")
    r.add_argument(
        "--config",
        help="config file: the thresholds of the keyframes' findings (default ~/.config/zdash/config.yaml)",
    )
    r.add_argument(
        "--interval", type=_interval, default=1.0, help="seconds per tick, 0.1 to 3600 (default 1)"
    )
    r.add_argument("--duration", type=_positive, help="stop after this many seconds")
    r.add_argument("--description", help="what a viewer should look for (shown on replay)")
    _host_arg(r)
    _pools_arg(r, "pools to record (default: all)")

    c = _sub(
        sub,
        "check",
        "diagnose once and exit like a Nagios plugin (0/1/2/3)",
        formatter_class=PluginHelp,
        usage="zdash check [-w RANGE] [-c RANGE] [-t SECONDS] [-H HOST] [-v] [--json] "
        "[--replay FILE [--at S] | --text FILE] [--samples N] [--interval S] [--config FILE] "
        "[--prometheus FILE] [POOL ...]",
    )
    c.add_argument("-V", "--version", action=_PrintVersion, help="print the version and exit")
    c.add_argument(
        "-w",
        "--warning",
        type=_range,
        metavar="RANGE",
        help="pool capacity (%%, as shown) that is a WARNING, in the Monitoring Plugins range syntax: "
        "70 is above 70, @70:85 from 70 to 85 (default: the config's capacity_pool_warn_pct, 80, at or above)",
    )
    c.add_argument(
        "-c",
        "--critical",
        type=_range,
        metavar="RANGE",
        help="pool capacity that is CRITICAL, the same syntax (default: capacity_pool_crit_pct, 90, at or above)",
    )
    c.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0,
        help="more lines: -v each finding's evidence and suggested commands, -vv also why",
    )
    c.add_argument("--json", action="store_true", help="print the report as JSON (schema 1)")
    src = c.add_mutually_exclusive_group()
    _completes(
        src.add_argument(
            "--replay",
            metavar="FILE",
            help="diagnose a recording (or a bundled scenario) instead of the live host",
        ),
        _complete_sessions,
    )
    src.add_argument("--text", metavar="FILE", help="diagnose pasted zpool/zfs output ('-': stdin)")
    c.add_argument(
        "--at",
        type=_not_negative,
        metavar="S",
        help="with --replay: diagnose the recording as it stood S seconds after its start (default: its end)",
    )
    c.add_argument(
        "--samples", type=_samples, default=5, metavar="N", help="live ticks to collect (default 5)"
    )
    c.add_argument(
        "--interval",
        type=_interval,
        default=1.0,
        metavar="SECONDS",
        help="seconds between ticks, 0.1 to 3600",
    )
    c.add_argument(
        "-t",
        "--timeout",
        type=_timeout,
        default=10.0,
        metavar="SECONDS",
        help="the check ends within this many seconds, UNKNOWN if no pool was read by then "
        "(default 10, 1 to 600; `zpool status` of a pool of a thousand disks, or of a sick one, "
        "can take longer)",
    )
    c.add_argument("--config", metavar="FILE", help="config file (default ~/.config/zdash/config.yaml)")
    c.add_argument(
        "--prometheus",
        metavar="FILE",
        help="also write the diagnosis as Prometheus metrics to FILE (atomically; node_exporter's textfile collector)",
    )
    _host_arg(c, plugin=True)
    _pools_arg(c, "pools to report on (default: all)")

    e = _sub(sub, "exporter", "serve Prometheus metrics of the live pools and zdash's findings (headless)")
    e.add_argument(
        "--listen",
        metavar="ADDR:PORT",
        default="127.0.0.1:10134",
        help="address to serve /metrics on (default 127.0.0.1:10134, this host only: no authentication; "
        ":10134 is every interface)",
    )
    e.add_argument(
        "--interval", type=_interval, default=1.0, help="seconds per tick, 0.1 to 3600 (default 1)"
    )
    e.add_argument("--config", help="config file (default ~/.config/zdash/config.yaml)")
    _pools_arg(e, "pools to export (default: all)")

    sv = _sub(sub, "serve", "serve the dashboard or the wall to web browsers (textual-serve)")
    sv.add_argument(
        "--wall", action="store_true", help="serve the wall: a big verdict per pool, read across a room"
    )
    sv.add_argument("--theme", metavar="NAME", help="zdash-dark (default), zdash-light, zdash-wall")
    what = sv.add_mutually_exclusive_group()
    what.add_argument("--demo", action="store_true", help="serve the bundled demo recording")
    _completes(
        what.add_argument(
            "--replay", metavar="FILE", help="serve a recording (or a bundled scenario), looping on the wall"
        ),
        _complete_sessions,
    )
    sv.add_argument("--speed", type=_speed, default=1.0, help="with --replay: playback speed, 0.25 to 64")
    sv.add_argument(
        "--interval", type=_interval, default=1.0, help="live: seconds per tick, 0.1 to 3600 (default 1)"
    )
    _flight_arg(sv)
    sv.add_argument(
        "--listen",
        metavar="ADDR:PORT",
        default=SERVE_LISTEN,
        help=f"address to serve on (default {SERVE_LISTEN}, this host only; :{SERVE_PORT} is every "
        "interface and needs a token; port 0 picks a free one)",
    )
    sv.add_argument(
        "--token",
        metavar="TOKEN",
        help="what every request must carry (?token= once, then a cookie): at least 16 of A-Z a-z 0-9 - _ . ~; "
        "default $ZDASH_SERVE_TOKEN, else a new one when a token is needed (printed once)",
    )
    sv.add_argument(
        "--allow-actions",
        action="store_true",
        help="let a browser open and confirm guided repairs as on the host's own terminal "
        "(the dashboard only, never --wall or a recording; always needs a token)",
    )
    _pools_arg(sv, "pools to show (default: all)")

    inc = _sub(sub, "incidents", "list the incident recordings the flight recorder kept (headless)")
    inc.add_argument("--json", action="store_true", help="print the list as JSON (schema 1)")

    s = _sub(sub, "summary", "print one line per tick of a session file (headless)")
    _completes(s.add_argument("file"), _complete_sessions)
    s.add_argument("--config", help="config file (default ~/.config/zdash/config.yaml)")

    im = _sub(
        sub, "import", "turn pasted zpool status/list/iostat, zfs list output into a one-tick session file"
    )
    im.add_argument("file", help="text file with the pasted output ('-': stdin)")
    im.add_argument("-o", "--output", required=True, help="session file (.yaml, or .yaml.gz)")
    im.add_argument("--description", help="what a viewer should look for (shown on replay)")
    im.add_argument("--force", action="store_true", help="overwrite SESSION if it exists")

    pl = _sub(
        sub,
        "plan",
        "print a repair plan and its pre-flight checks; runs nothing "
        "(exit 0 all pass, 1 a check fails, 3 cannot read the pool)",
    )
    pl.add_argument("action", choices=_PLAN_ACTIONS, metavar="ACTION", help=", ".join(_PLAN_ACTIONS))
    _completes(pl.add_argument("pool", metavar="POOL"), _complete_pools)
    pl.add_argument(
        "device",
        nargs="?",
        metavar="DEVICE",
        help="the pool's device (path, name or GUID); the clone for promote",
    )
    pl.add_argument("new_device", nargs="?", metavar="NEW_DEVICE", help="the new disk (attach, replace)")
    pl.add_argument("--json", action="store_true", help="print the plan as JSON (schema 1)")
    pl.add_argument(
        "--accept-risk",
        action="store_true",
        help="accept what an ACCEPT check names (taking away a vdev's last redundancy)",
    )
    _host_arg(pl)

    cv = _sub(sub, "convert", "convert a recording between .zdash and .yaml[.gz]")
    _completes(cv.add_argument("file", help="recording to read (or a scenario name)"), _complete_sessions)
    cv.add_argument("-o", "--output", required=True, help="recording to write: .zdash or .yaml/.yaml.gz")
    cv.add_argument("--force", action="store_true", help="overwrite OUTPUT if it exists")
    cv.add_argument(
        "--config",
        help="config file: the thresholds of the keyframes' findings (default ~/.config/zdash/config.yaml)",
    )

    co = _sub(sub, "completion", "print the shell completion script for bash, zsh or fish")
    co.add_argument("shell", choices=SHELLS)
    return p


def _host_arg(p: argparse.ArgumentParser, several: bool = False, plugin: bool = False) -> None:
    p.add_argument(
        *(("-H",) if plugin else ()),  # a monitoring plugin's host option
        "--host",
        metavar="[USER@]HOST[:PORT]",
        action="append" if several else "store",
        help="the pools of another host, over ssh (key access; an ssh config alias works)"
        + ("; repeat for several" if several else ""),
    )


def _flight_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--no-flight-recorder",
        dest="flight_recorder",
        action="store_false",
        help="keep no incident recordings (by default the last 10 minutes are kept in memory and "
        "written out when a warning is raised: zdash incidents)",
    )


def _pools_arg(p: argparse.ArgumentParser, help_text: str) -> None:
    _completes(p.add_argument("pools", nargs="*", metavar="POOL", help=help_text), _complete_pools)


def _completes(action: argparse.Action, complete: Callable[..., list[str]]) -> None:
    """Tab completion for one argument. argcomplete reads `action.completer`, an attribute
    argparse.Action does not declare, hence vars()."""
    vars(action)["completer"] = complete


def _complete_pools(**_kwargs: object) -> list[str]:
    """Pool names for tab completion: `zpool list`, briefly (a hung zpool must not hang a shell)."""
    import subprocess

    try:
        out = subprocess.run(
            ["zpool", "list", "-H", "-o", "name"], capture_output=True, text=True, timeout=2, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return out.split()


def _complete_sessions(prefix: str = "", **_kwargs: object) -> list[str]:
    """Bundled scenario names, then session files in the current directory."""
    import glob

    from zdash.scenarios import names

    files = [f for pattern in ("*.yaml", "*.yaml.gz", "*.zdash") for f in glob.glob(prefix + pattern)]
    return [n for n in names() if n.startswith(prefix)] + sorted(files)


# zdash.actions.plan.ACTIONS, copied: importing zdash.actions (asyncio, the parsers, the
# builder) would make every `zdash --help` and completion slower. tests/commands/test_cli.py
# holds the two equal.
_PLAN_ACTIONS = (
    "attach",
    "detach",
    "replace",
    "offline",
    "online",
    "clear",
    "scrub",
    "scrub-pause",
    "scrub-stop",
    "promote",
)


def _dashboard_options(p: argparse.ArgumentParser, live: bool) -> None:
    p.add_argument(
        "--wall",
        action="store_true",
        help="wall mode: read-only, a big verdict per pool, read across a room",
    )
    p.add_argument("--theme", metavar="NAME", help="zdash-dark (default), zdash-light, zdash-wall")
    p.add_argument(
        "--read-only",
        action="store_true",
        help="no guided action opens or runs and nothing is recorded (what zdash serve starts)",
    )
    if live:
        p.add_argument("--demo", action="store_true", help="show the bundled demo recording")
        p.add_argument(
            "--interval", type=_interval, default=1.0, help="seconds per tick, 0.1 to 3600 (default 1)"
        )
        _flight_arg(p)
        _host_arg(p, several=True)


_VALUED = ("--theme", "--interval", "--host")  # top-level options that take a value


def _parse(argv: list[str] | None) -> argparse.Namespace:
    """`zdash [options] POOL...` shares the command line with `zdash COMMAND`: a first
    positional that is not a command name is a pool, parsed by a dashboard-only parser."""
    parser = build_parser()
    if "_ARGCOMPLETE" in os.environ:  # the shell asks for completions: answer, exit
        import argcomplete

        argcomplete.autocomplete(parser)
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = next(a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    first, skip = None, False
    for tok in argv:
        if skip:
            skip = False
        elif tok in _VALUED:
            skip = True
        elif not tok.startswith("-"):
            first = tok
            break
    if first is None or first in commands:
        args = parser.parse_args(argv)
        if args.cmd is None:
            args.pools = []
        return args
    dash = _Parser(prog="zdash", description="The dashboard on the given pools.")
    _dashboard_options(dash, live=True)
    dash.add_argument("pools", nargs="+", metavar="POOL", help="pools to show (default: all)")
    args = dash.parse_args(argv)
    args.cmd = None
    return args


def _version() -> str:
    from zdash import __version__

    return f"zdash {__version__}"


# The module under zdash.commands that runs each command; None is the dashboard itself.
COMMANDS: dict[str | None, str] = {
    None: "dashboard",
    "replay": "replay",
    "record": "record",
    "check": "check",
    "exporter": "exporter",
    "serve": "serve",
    "summary": "summary",
    "incidents": "incidents",
    "import": "import_paste",
    "plan": "plan",
    "completion": "completion",
    "convert": "convert",
}


# The exit code of a command that fails (an OSError, a file it cannot decode, a bug) where it did
# not say otherwise: `check` and `plan` say UNKNOWN / cannot read (3), `import` 1, the rest 2.
ERROR_EXIT: dict[str | None, int] = {"check": 3, "plan": 3, "import": 1}


def main(argv: list[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):  # an ASCII-only terminal gets "?", not a traceback
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="replace")
    args = _parse(argv)
    import importlib

    from zdash.gcpolicy import tune

    tune()  # a tick's thousands of short-lived objects no longer bring full GC passes

    failed = ERROR_EXIT.get(args.cmd, 2)
    try:
        command = importlib.import_module(f"zdash.commands.{COMMANDS[args.cmd]}")
        code = int(command.run(args))
        sys.stdout.flush()  # a full disk under stdout fails here, not in the interpreter's exit
        return code
    except BrokenPipeError:
        _quiet_stdout()
        return 0
    except KeyboardInterrupt:
        print("zdash: interrupted", file=sys.stderr)
        return 130
    except OSError as e:  # stdout or a file the command did not expect to fail
        _quiet_stdout()
        where = f" ({e.filename})" if getattr(e, "filename", None) else ""
        print(f"zdash: {e.strerror or e}{where}", file=sys.stderr)
        return failed
    except Exception as e:  # noqa: BLE001 - a bug: a report file, never a traceback on the terminal
        from zdash.crash import crash_line, save_report

        print(crash_line(e, save_report(sys.argv if argv is None else ["zdash", *argv])), file=sys.stderr)
        return failed


def _quiet_stdout() -> None:
    """stdout is gone (a closed pipe, a full disk): what is still buffered in it is dropped, so
    the interpreter's own flush at exit does not fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
