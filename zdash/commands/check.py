"""`zdash check`: the diagnosis engine once, without Textual, for cron, Nagios and scripts,
on the live host, a recording (--replay FILE [--at S]) or a paste (--text FILE).

Output follows the Nagios plugin guidelines (nagios-plugins.org/doc/guidelines.html), so
Nagios, Icinga, Naemon and a pager show something a person on call can act on:
  line 1:  ZDASH <STATUS> - <the worst cause, naming pool and subject> (+N more) | <perfdata>
  then:    one line per input that failed ("! ..."), one line per finding ("[WARNING ] ...")
Exit codes: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN (the pool could not be read at all).

JSON schema version 1 (documented in docs/check.md); fields are only ever added:
  {"schema": 1, "zdash_version", "time", "source": "live" | "ssh:<host>" | "replay:<file>",
   "status": "OK"|"WARNING"|"CRITICAL"|"UNKNOWN", "exit_code", "summary": <line 1's text>,
   "pools": [{"name", "state", "cap_pct", "fill_pct"}],
   "problems": [one-line messages of inputs that failed],
   "findings": [{"check", "severity": "info"|"warning"|"critical", "pool", "subject",
                 "subject_kind", "topic", "title", "why", "evidence": [[label, value]...],
                 "actions": [{"label", "argv": [...], "action", "new_device"}]}],
   "perfdata": [{"label", "value", "uom", "warn", "crit", "min", "max"}]}
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import shlex
import sys
import time
from argparse import Namespace
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, TypeAlias, TypedDict

from zdash import __version__
from zdash.aio import within
from zdash.checks.finding import Finding, Severity
from zdash.config import CheckConfig
from zdash.fmt import fill_figure
from zdash.model import UNSEEN, Pool, Snapshot

if TYPE_CHECKING:
    from zdash.fold import Fold, Frame
    from zdash.sources.remote import SshHost
from zdash.perfdata import PerfDatum, perfdata, perfdata_text, plugin_text

# The status word line 1 starts with, by exit code (Nagios plugin guidelines).
Status: TypeAlias = Literal["OK", "WARNING", "CRITICAL", "UNKNOWN"]
STATUS: dict[int, Status] = {0: "OK", 1: "WARNING", 2: "CRITICAL", 3: "UNKNOWN"}


class ActionJson(TypedDict):
    label: str
    argv: list[str]
    action: str | None
    new_device: str | None  # "required": the plan needs a new disk named (argv is its prefix)


class FindingJson(TypedDict):
    check: str
    severity: str  # info, warning, unknown, critical
    pool: str | None
    subject: str
    subject_kind: str
    topic: str
    title: str
    why: str
    evidence: list[list[str]]  # [label, value] pairs
    actions: list[ActionJson]


class PoolJson(TypedDict):
    name: str
    state: str  # as zpool printed it; UNSEEN when the input did not show it (a paste of iostat)
    cap_pct: int | None  # fill_pct rounded down, as zpool's CAP column is
    fill_pct: float | None  # ALLOC/SIZE to one decimal, rounded down: perfdata's `_cap`


class UnreadJson(TypedDict):
    line: int
    text: str
    why: str


class _Report(TypedDict):
    schema: int
    zdash_version: str
    time: float | None
    source: str
    status: Status
    exit_code: int
    summary: str
    pools: list[PoolJson]
    problems: list[str]
    findings: list[FindingJson]
    perfdata: list[dict[str, float | str | None]]  # PerfDatum.to_dict()


# How much longer than `samples` intervals a live check waits for the iostat reports it counts:
# a remote host's first report comes after ssh connects (up to its 10 s ConnectTimeout) and
# zpool starts.
STARTUP_GRACE_S = 20.0


class Report(_Report, total=False):
    """`zdash check --json`, schema 1 (see the module docstring)."""

    unread: list[UnreadJson]  # --text: the lines of the paste that could not be read


def collection_window(timeout: float, started: float) -> float:
    """Of `-t` seconds counted from `started` (time.monotonic() as the command began), how long
    a live check may still collect: the rest is for stopping zpool, judging and printing (a
    quarter, at most a second; it also covers Python's own start-up before that)."""
    return max(0.1, timeout - min(1.0, timeout / 4) - (time.monotonic() - started))


@dataclasses.dataclass
class Collected:
    """What a live check has folded so far: the fold, how many ticks, whether any pool was read."""

    cfg: CheckConfig
    fold: Fold | None = None
    ticks: int = 0
    pools_read: bool = False

    def frame(self) -> Frame | None:
        """The last tick judged (None: no tick came)."""
        return self.fold.judge() if self.fold is not None and self.ticks else None


async def live_history(
    samples: int,
    interval: float,
    pools: tuple[str, ...],
    got: Collected,
    host: SshHost | None = None,
    timeout: float = 10.0,
    started: float | None = None,
) -> None:
    """The live host's ticks folded into `got` until `samples` of them carried an iostat report
    (or nothing more will come): the checks see them all (sustained slowness, trends, error
    growth). The caller keeps `got`, so what came is judged even when the time limit cuts this
    short."""
    from zdash.fold import Fold
    from zdash.sources.live import LiveSource
    from zdash.sources.remote import RemoteRunner

    window = collection_window(timeout, time.monotonic() if started is None else started)
    collect_until = time.monotonic() + window
    # Each command gets most of the window, so a hung one is named ("zpool status timed out
    # after 7 s") before the time limit ends the whole check.
    per_command = max(0.5, round(0.8 * window))
    runner = RemoteRunner(host, per_command) if host is not None else None
    source = LiveSource(
        interval, pools, structure_every=max(interval, 2.0), timeout=per_command, runner=runner
    )
    fold = got.fold = Fold.from_source(source, got.cfg, interval)
    measured = 0
    # `samples` ticks that carry an iostat report, not merely `samples` ticks: over ssh the
    # stream's first report can come several ticks late (ssh's connection, zpool's start-up;
    # seconds on a busy host), and a check that stopped at 5 ticks said "cannot see: iostat:
    # no data in 5 ticks", UNKNOWN, of a healthy pool. Bounded: past the grace, what there is.
    give_up = time.monotonic() + min(samples * interval + STARTUP_GRACE_S, window)
    stream_failed = False
    gen = source.ticks()
    try:
        async for tick in gen:
            snap = fold.observe(tick)
            got.ticks += 1
            got.pools_read |= bool(snap.pools)
            measured += any(s.key == "iostat" and s.ok for s in tick.samples)
            stream_failed |= any(s.key == "iostat" and not s.ok for s in tick.samples)
            if measured >= samples:
                break
            if got.ticks >= samples and (
                # nothing more will come: no pools to measure, a stream that failed (no zpool,
                # denied), or the grace is over
                not snap.pools or stream_failed or time.monotonic() >= give_up
            ):
                break
            # A host that cannot be reached from the start: UNKNOWN now, not after the samples.
            if runner is not None and runner.unreachable_since is not None and not snap.pools:
                break
        # zpool status or list still out at the end (hung, slow): their answer, or their
        # timeout, is what the verdict is on, never the previous answer taken for now.
        # Settled within the window, with a margin for the tick's fold, so the caller's limit
        # never cuts the wait and leaves the previous answer standing as now.
        left = collect_until - time.monotonic() - 0.3
        if got.ticks and snap.pools and (last := await source.settle(wait=left)) is not None:
            fold.observe(last)
            got.ticks += 1
    finally:
        await gen.aclose()


def exit_code(
    history: Sequence[Snapshot],
    findings: Sequence[Finding],
    pools: tuple[str, ...],
    datasets_only: bool = False,
) -> int:
    """3 when no pool was read, unless the input is zfs output alone (datasets_only, a paste):
    that is judged by the findings it supports (clones, space), and is UNKNOWN only when it
    supports none."""
    last = history[-1] if history else None
    if last is None or any(last.pool(p) is None for p in pools):
        return 3
    if not last.pools and not (datasets_only and findings):
        return 3
    worst = max((f.severity for f in findings), default=Severity.INFO)
    return worst.exit_code


def finding_json(f: Finding) -> FindingJson:
    return {
        "check": f.check,
        "severity": f.severity.name.lower(),
        "pool": f.pool,
        "subject": f.subject,
        "subject_kind": f.subject_kind,
        "topic": f.topic,
        "title": f.title,
        "why": f.why,
        "evidence": [list(e) for e in f.evidence],
        "actions": [
            {"label": a.label, "argv": list(a.argv), "action": a.action, "new_device": a.new_device}
            for a in f.actions
        ],
    }


def _cause(f: Finding) -> str:
    """A finding as the pager line names it: pool first, then the title (which repeats the
    pool's name at its start for pool-level findings; said once is enough)."""
    if f.pool is None:
        return f.title
    title = f.title[len(f.pool) + 2 :] if f.title.startswith(f.pool + ": ") else f.title
    return f"{f.pool}: {title}"


# What the line adds when the input is zfs output alone: no zpool output, so no pool state.
NO_POOL_HEALTH = "pool health not in this output"


def summary(
    history: Sequence[Snapshot],
    findings: Sequence[Finding],
    code: int,
    pools: tuple[str, ...] = (),
    datasets_only: bool = False,
) -> str:
    """The text of the first line after "ZDASH <STATUS> - ": what a person on call reads."""
    if datasets_only and not pools:
        return _datasets_summary(history, findings, code)
    last = history[-1] if history else None
    serious = [f for f in findings if f.severity > Severity.INFO]
    if code == 3 and not any(f.severity == Severity.UNKNOWN for f in serious):
        missing = [p for p in pools if last is None or last.pool(p) is None]
        problems = [s.message for s in (last.problems if last else ()) if s.message]
        # zpool answered without it (other pools, or none at all): the pool is gone, not unread.
        # zpool status is what says which pools exist: an iostat stream that lags behind it (a
        # loaded host) does not make a pool it answered without "unread".
        structure_answered = last is not None and any(s.key == "status" and s.ok for s in last.sources)
        if missing and last is not None and (last.pools or not problems or structure_answered):
            return f"pool {', '.join(missing)} not found" + (f" ({problems[0]})" if problems else "")
        return "no pool could be read" + (f": {problems[0]}" if problems else "")
    if serious:
        more = f" (+{len(serious) - 1} more)" if len(serious) > 1 else ""
        return _cause(serious[0]) + more
    shown = [p for p in (last.pools if last else ()) if not pools or p.name in pools]
    return ", ".join(_pool_line(p) for p in shown) or "no pools"


def _pool_line(p: Pool) -> str:
    """'tank ONLINE, 27.9% full': the state zpool printed (or that the input did not show it),
    and the fill from ALLOC/SIZE by the one rounding rule, the figure perfdata's `_cap` gives."""
    state = "(health not shown)" if p.state == UNSEEN else p.state
    fill = p.fill_pct
    return f"{p.name} {state}" + (f", {fill_figure(fill):.1f}% full" if fill is not None else "")


def _datasets_summary(history: Sequence[Snapshot], findings: Sequence[Finding], code: int) -> str:
    """A paste of zfs output alone (issue 26): what it shows (the worst finding, else each
    pool's fill from its root dataset, else the first note), and that the pools' health is not
    in it, which no dataset listing can say."""
    from zdash.checks.capacity import dataset_fill_pct

    serious = [f for f in findings if f.severity > Severity.INFO]
    if serious:
        more = f" (+{len(serious) - 1} more)" if len(serious) > 1 else ""
        return f"{_cause(serious[0])}{more}; zfs list only, {NO_POOL_HEALTH}"
    shown = []
    last = history[-1] if history else None
    for p in last.pools if last is not None else ():
        pct = p.fill_pct if p.fill_pct is not None else dataset_fill_pct(history[-1], p)
        if pct is not None:  # a pool known from a snapshot's USED alone says nothing here
            shown.append(f"{p.name} {fill_figure(pct):.1f}% full")
    if findings:
        more = f" (+{len(findings) - 1} more)" if len(findings) > 1 else ""
        shown.append(findings[0].title + more)
    if code == 3 or not shown:
        return f"zfs list only: nothing in it zdash judges (no space, no clones); {NO_POOL_HEALTH}"
    return f"zfs list only: {', '.join(shown)}; {NO_POOL_HEALTH}"


def perf_of(history: Sequence[Snapshot], cfg: CheckConfig, pools: tuple[str, ...] = ()) -> list[PerfDatum]:
    """The last snapshot's performance data, of the given pools only when some are named."""
    perf = perfdata(history[-1], cfg) if history else []
    if pools:
        perf = [d for d in perf if any(d.label.startswith(p + "_") for p in pools)]
    return perf


def report(
    history: Sequence[Snapshot],
    findings: Sequence[Finding],
    code: int,
    source: str,
    perf: Sequence[PerfDatum] = (),
    pools: tuple[str, ...] = (),
    datasets_only: bool = False,
) -> Report:
    last = history[-1] if history else None
    return {
        "schema": 1,
        "zdash_version": __version__,
        "time": last.time if last else None,
        "source": source,
        "status": STATUS[code],
        "exit_code": code,
        "summary": summary(history, findings, code, pools, datasets_only),
        "pools": [
            {
                "name": p.name,
                "state": p.state,
                "cap_pct": None if p.fill_pct is None else int(fill_figure(p.fill_pct, 0)),
                "fill_pct": None if p.fill_pct is None else fill_figure(p.fill_pct),
            }
            for p in (last.pools if last else ())
        ],
        "problems": [s.message for s in (last.problems if last else ()) if s.message],
        "findings": [finding_json(f) for f in findings],
        "perfdata": [d.to_dict() for d in perf],
    }


def text_report(doc: Report, perf: Sequence[PerfDatum], verbose: int = 0) -> str:
    """Plugin output: status line with perfdata, then the long text (Nagios 3+ reads it all).
    Every piece of text is one line without '|' (plugin_text): a name cannot end the text early,
    inject perfdata or forge a second status line."""
    perf_text = perfdata_text(list(perf))
    lines = [
        f"ZDASH {doc['status']} - {plugin_text(doc['summary'])}" + (f" | {perf_text}" if perf_text else "")
    ]
    lines += [f"! {plugin_text(msg)}" for msg in doc["problems"]]
    for f in doc["findings"]:
        lines.append(f"[{f['severity'].upper():8}] {plugin_text(f['title'])}")
        if verbose >= 2:  # -vv: why, as the dashboard's finding screen says it
            lines.append(f"    why: {plugin_text(f['why'])}")
        if verbose >= 1:  # -v: what it rests on and what to run
            lines += [f"    {plugin_text(label)}: {plugin_text(value)}" for label, value in f["evidence"]]
            lines += [f"    $ {plugin_text(shlex.join(a['argv']))}" for a in f["actions"]]
    return "\n".join(lines)


def run_check(
    as_json: bool,
    replay: str | None,
    samples: int,
    interval: float,
    pools: tuple[str, ...],
    cfg: CheckConfig,
    at: float | None = None,
    prometheus: str | None = None,
    host: SshHost | None = None,
    timeout: float = 10.0,
    verbose: int = 0,
    started: float | None = None,
) -> int:
    started = time.monotonic() if started is None else started
    problems_first: list[str] = []  # said before the inputs' own problems
    if replay:
        from zdash.fold.recording import fold_path
        from zdash.sources.session import SessionError

        try:
            # The recording as it stood `at` seconds in (the fold from its start, as live had
            # it then; a .zdash file starts from its nearest keyframe, exactly the same).
            _header, frame, read = fold_path(replay, cfg, at)
            if frame is None:
                raise SessionError(f"{replay} holds no complete tick")
        except SessionError as e:
            print(f"zdash: {e}", file=sys.stderr)
            return 3
        damage = read.summary()
        source = f"replay:{replay}" + (f"@{at:g}s" if at is not None else "")
    else:
        from zdash.commands.stopping import run_stoppable

        damage = None
        got = Collected(cfg)

        async def bounded() -> bool:
            """Collect into `got`; False when the time limit (-t) cut it short."""
            try:
                collecting = live_history(samples, interval, pools, got, host, timeout, started)
                await within(collecting, collection_window(timeout, started))
            except asyncio.TimeoutError:
                return False
            return True

        whole, signalled = run_stoppable(lambda _stop: bounded())
        if whole is None:
            print(f"zdash check: stopped by {signalled} before the pools were read", file=sys.stderr)
            return 3
        frame = got.frame()
        if not whole:  # the time limit (-t) ended the collection: said, whatever came
            limit = f"the {timeout:g} s time limit (-t {timeout:g})"
            if not got.pools_read:
                problems_first.append(f"no pool was read: the check timed out at {limit}")
            else:
                problems_first.append(
                    f"judged on {min(got.ticks, samples)} of {samples} samples: {limit} came first"
                )
        source = f"ssh:{host.label}" if host is not None else "live"
    history = [frame.snapshot] if frame is not None else []
    all_findings = list(frame.findings) if frame is not None else []
    # A pool filter narrows only what is reported.
    findings = [f for f in all_findings if not pools or f.pool in pools or f.pool is None]
    code = exit_code(history, findings, pools)
    perf = perf_of(history, cfg, pools)
    doc = report(history, findings, code, source, perf, pools)
    if damage:  # what could not be read is said, never silently dropped
        problems_first.append(f"recording: {damage}")
    doc["problems"][:0] = problems_first
    if problems_first and code == 3 and not findings:
        doc["summary"] = problems_first[0]
    print(json.dumps(doc, indent=2) if as_json else text_report(doc, perf, verbose))
    return write_prometheus(prometheus, history, findings, code)


def one_look(cfg: CheckConfig) -> CheckConfig:
    """The config a paste is judged with: one moment, so checks that want a sustained signal
    judge that one sample (the verdict digests fold the corpus with it too)."""
    return dataclasses.replace(
        cfg, deranged_sustain_samples=min(cfg.deranged_sustain_samples, 1), one_look=True
    )


def run_check_text(
    path: str,
    as_json: bool,
    pools: tuple[str, ...],
    cfg: CheckConfig,
    prometheus: str | None = None,
    verbose: int = 0,
) -> int:
    """A paste is one moment: checks that want a sustained signal judge that one sample."""
    from zdash.paste.front import import_file, paste_tick

    loaded = import_file(path)
    if loaded is None:
        return 3
    imported, mtime = loaded
    from zdash.fold import Fold

    frame = Fold(one_look(cfg)).step(paste_tick(imported, mtime))
    history = [frame.snapshot]
    findings = [f for f in frame.findings if not pools or f.pool in pools or f.pool is None]
    only = imported.datasets_only
    code = exit_code(history, findings, pools, only)
    perf = perf_of(history, cfg, pools)
    doc = report(history, findings, code, f"text:{path}", perf, pools, only)
    doc["unread"] = [{"line": u.line, "text": u.text, "why": u.why} for u in imported.unread]
    print(json.dumps(doc, indent=2) if as_json else text_report(doc, perf, verbose))
    return write_prometheus(prometheus, history, findings, code)


def write_prometheus(
    path: str | None, history: Sequence[Snapshot], findings: Sequence[Finding], code: int
) -> int:
    """--prometheus FILE: the same diagnosis as metrics for node_exporter's textfile collector,
    written atomically; a file that cannot be written is one line and exit 2."""
    if not path:
        return code
    from zdash.prometheus.exporter import write_textfile

    try:
        write_textfile(path, history[-1] if history else None, findings)
    except OSError as e:
        print(f"zdash check: cannot write {path}: {e.strerror or e}", file=sys.stderr)
        return 2
    return code


def run(args: Namespace) -> int:
    started = time.monotonic()  # -t counts from here
    from zdash.config import ConfigError, read_config
    from zdash.scenarios import path_of

    try:
        cfg = read_config(args.config).checks
    except ConfigError as e:
        print(f"zdash: {e}", file=sys.stderr)
        return 3
    # -w/-c: the pool capacity thresholds, as the Monitoring Plugins ranges given
    cfg = dataclasses.replace(
        cfg,
        capacity_pool_warn_range=getattr(args, "warning", None),
        capacity_pool_crit_range=getattr(args, "critical", None),
    )
    timeout = getattr(args, "timeout", 10.0)
    verbose = getattr(args, "verbose", 0)
    samples = max(2, args.samples)
    prometheus = getattr(args, "prometheus", None)
    if prometheus:
        from zdash.prometheus.exporter import textfile_problem

        if (why := textfile_problem(prometheus)) is not None:
            print(f"zdash check: --prometheus {prometheus}: {why}", file=sys.stderr)
            return 2
    host = None
    if getattr(args, "host", None):
        from zdash.sources.remote import HostError, SshHost

        if args.text or args.replay:
            print("zdash check: --host reads a live host; not with --text or --replay", file=sys.stderr)
            return 3
        try:
            host = SshHost.parse(args.host)
        except HostError as e:
            print(f"zdash check: {e}", file=sys.stderr)
            return 3
    if args.text:
        return run_check_text(args.text, args.json, tuple(args.pools), cfg, prometheus, verbose)
    if args.at is not None and not args.replay:
        print("zdash check: --at needs --replay FILE", file=sys.stderr)
        return 3
    return run_check(
        args.json,
        args.replay and path_of(args.replay),
        samples,
        args.interval,
        tuple(args.pools),
        cfg,
        at=args.at,
        prometheus=prometheus,
        host=host,
        timeout=timeout,
        verbose=verbose,
        started=started,
    )
