#!/usr/bin/env python3
"""zdash's performance, printed (asserts nothing): the figures behind docs/performance.md.

    .venv/bin/python -m tests.bench.bench                 # ticks, history, recordings (1 h)
    .venv/bin/python -m tests.bench.bench --day           # ... and the 24 h recording (~15 min once)
    .venv/bin/python -m tests.bench.bench --lab ../shared/zfslab/zfslab   # + CPU on a real pool
    .venv/bin/python -m tests.bench.bench --only ticks --leaves 4,100
    .venv/bin/python -m tests.bench.bench --markdown docs/performance.md   # rewrite its generated block

Every figure comes with a ratio against a baseline measured in the same run on the same machine,
so runs on different machines (or on a busy one) compare:

- ticks: per tick at 4, 100, 1,000, 5,000 leaves, on synthetic outputs shaped like OpenZFS
  2.3.2's (tests/bench/synthetic.py) through zdash's own parsers, SnapshotBuilder, checks and
  Textual dashboard (headless). Baseline: *tokenise*, splitting the tick's raw outputs into
  lines and fields, the least any tool reading them must do.
- history: fold + checks per tick after 1 and after 10 minutes of history (flat: ratio ~1).
- recordings: a 1 h (and with --day a 24 h) 1 s recording of a 100-leaf pool, each measured in
  a fresh process: open to the first frame, seeks to random ticks, `zdash check --replay --at`
  as users run it, peak RSS. Baseline: `zdash --version`, the cost of starting zdash at all.
- yaml: `zdash check --replay` of a `.yaml.gz` (100 and 1,000 leaves, 78 ticks). Baseline: the
  fold of the same ticks alone, in the same process. And its peak RSS on 780 ticks. Baseline:
  the same on 78 ticks of the same host, as zdash writes the file and gzipped whole.
- replay: RSS of the dashboard (headless) replaying the 1 h recording at 64x, sampled as it
  plays. Baseline: its RSS at the first frame.
- screen: the dashboard's CPU at 1 Hz in a 200x60 pty (the 100-leaf synthetic replay, and
  `zdash --demo` playing). Baselines: a bare Textual app redrawing a table of the same rows once
  a second (tests/bench/textual_floor.py), and glances `-t 1` (on PATH or $GLANCES), all
  interleaved round by round in the same run.
- lab (--lab): CPU of `zdash record` and of the dashboard (in a pty) vs bare
  `zpool iostat -vl 1` over 60 s on one pool under bursty load, and of bare Textual apps: one
  redrawing a table of that size once a second, one changing a line of text once a second, one
  idle (the toolkit's own floors; tests/bench/lab_cpu.py).

Generated recordings are cached in --cache (default: $TMPDIR/zdash-bench).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAYOUTS = {4: ("mirror", 2), 100: ("mirror", 2), 1000: ("raidz2", 10), 5000: ("raidz2", 10)}


def host_for(leaves: int, **extra: int):  # type: ignore[no-untyped-def]
    """The bench's synthetic pool of this size (a slow disk in 97); `extra`: what else the host
    has (SyntheticHost's event log and dataset options, or another `slow_every`)."""
    from tests.bench.synthetic import SyntheticHost

    layout, width = LAYOUTS.get(leaves, ("raidz2", 10) if leaves >= 1000 else ("mirror", 2))
    return SyntheticHost(**{"leaves": leaves, "layout": layout, "width": width, "slow_every": 97, **extra})


def cpu_ms(fn: Callable[[], Any], repeat: int = 3) -> float:
    """Best of `repeat` runs, process CPU time in ms (what a busy machine disturbs least)."""
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best * 1000


def row(cells: list[str], widths: list[int], header: bool = False) -> str:
    """A Markdown table row, padded to `widths` so it also reads as a table in a terminal; the
    header row carries the separator line under it."""
    line = (
        "| "
        + " | ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths)))
        + " |"
    )
    if not header:
        return line
    rule = "| " + " | ".join(("-" * (w - 1) + ":") if i else "-" * w for i, w in enumerate(widths)) + " |"
    return line + "\n" + rule


# --- ticks ---------------------------------------------------------------------------------------


def bench_ticks(leaves: list[int], render: bool) -> None:
    from zdash.builder import PARSERS, SnapshotBuilder
    from zdash.checks.registry import CheckEngine

    print("\n## Per tick (synthetic OpenZFS 2.3.2 outputs; ms of CPU, x = ratio to tokenise)\n")
    widths = [7, 14, 16, 18, 16, 16, 16]
    print(
        row(
            ["leaves", "tokenise (base)", "parse", "parse + fold", "checks", "render", "total"],
            widths,
            header=True,
        )
    )
    for n in leaves:
        host = host_for(n)
        # 25 ticks: status and list answer every 5th, as live; the mean covers both kinds.
        warm, ticks = [host.tick(i) for i in range(10)], [host.tick(i) for i in range(10, 35)]
        per = len(ticks)
        samples = [s for t in ticks for s in t.samples]
        base = cpu_ms(lambda: [[line.split() for line in s.stdout.splitlines()] for s in samples]) / per  # noqa: B023
        parse = cpu_ms(lambda: [PARSERS[s.key.split(":", 1)[0]](s) for s in samples]) / per  # noqa: B023
        # The fold's two stages timed apart (zdash.fold.Fold runs them as one step): the
        # builder's feed (parse + fold), then the engine's update (checks).
        builder, engine = SnapshotBuilder(), CheckEngine()
        for t in warm:
            engine.update(builder.feed(t))
        state = builder.checkpoint()
        fold_best = checks_best = float("inf")
        for _ in range(3):
            b, e = SnapshotBuilder.restore(state), engine.copy()
            fold_s = checks_s = 0.0
            # Tick by tick, as the dashboard and `zdash record` do: each snapshot checked, then
            # dropped for the next (holding all 25 would make the GC walk what no zdash keeps).
            for t in ticks:
                t0 = time.process_time()
                snap = b.feed(t)
                t1 = time.process_time()
                e.update(snap)
                t2 = time.process_time()
                fold_s, checks_s = fold_s + t1 - t0, checks_s + t2 - t1
            fold_best, checks_best = min(fold_best, fold_s), min(checks_best, checks_s)
        fold, checks = fold_best * 1000 / per, checks_best * 1000 / per
        shown = render_ms(n, fold + checks) if render else None
        total = fold + checks + (shown or 0.0)

        def cell(ms: float | None, base: float = base) -> str:
            return "-" if ms is None else f"{ms:7.1f} {ms / base:5.1f}x"

        print(
            row(
                [str(n), f"{base:7.2f}", cell(parse), cell(fold), cell(checks), cell(shown), cell(total)],
                widths,
            )
        )
    print(
        "\nparse + fold includes parsing (every sample of the tick); render is the dashboard's own "
        "CPU per frame playing at 1x in a 200x60 terminal (minus its fold and checks)."
    )
    bench_young(leaves)


def young_per_tick(leaves: int, ticks: int = 25, slow_every: int = 97) -> tuple[float, float]:
    """Objects per tick that each tick of fold + checks leaves alive, with the collector off and
    every frame kept (so nothing a tick made for its frame is freed by the next one, and nothing
    is collected), two ways: (tracked, counted).

    - tracked: objects the collector tracks and would walk (gc.get_objects() after the ticks
      less before, the objects from before held so no new one can take a freed one's id);
    - counted: the collector's own young-generation count (gc.get_count()[0]), which also
      counts containers allocated untracked and never tracked (a dict of plain values, as
      json makes for a status's vdevs), which no collection walks.

    `slow_every`: every Nth disk slow, each with its finding (97: the bench's pool; `leaves`:
    one slow disk whatever the pool's size; 0: none)."""
    import gc

    from zdash.fold import Fold

    host = host_for(leaves, slow_every=slow_every)
    # (made once, in order: the synthetic host's ticks depend on the ticks asked before them)
    warm, batch = [host.tick(i) for i in range(10)], [host.tick(i) for i in range(10, 10 + ticks)]

    def alive(held: bool) -> float:
        """Per tick: objects tracked and new (held: the objects from before are held, so no new
        one can take a freed one's id), else the collector's young count (nothing held: what
        the ticks free is taken off it)."""
        fold = Fold()
        for tick in warm:
            fold.step(tick)
        kept: list[Any] = []
        gc.collect()
        gc.disable()
        try:
            before = gc.get_objects() if held else []
            known = set(map(id, before))
            count = gc.get_count()[0]
            for tick in batch:
                kept.append(fold.step(tick))
            if not held:
                return (gc.get_count()[0] - count) / ticks
            return (sum(1 for o in gc.get_objects() if id(o) not in known) - 2) / ticks  # (before, known)
        finally:
            gc.enable()

    return alive(held=True), alive(held=False)


def bench_young(leaves: list[int]) -> None:
    print("\n## Young objects per tick (fold + checks: left alive per tick; tracked / counted)\n")
    widths = [7, 26, 26, 26]
    print(
        row(
            ["leaves", "bench pool (per leaf)", "one slow disk (per leaf)", "no slow disk (per leaf)"],
            widths,
            header=True,
        )
    )
    for n in leaves:
        cells = [
            f"{t:.0f} / {c:.0f} ({t / n:.2f})"
            for t, c in (young_per_tick(n), young_per_tick(n, slow_every=n), young_per_tick(n, slow_every=0))
        ]
        print(row([str(n), *cells], widths))
    print(
        "\ntracked: objects the collector tracks (what a collection walks); counted: its young-"
        "generation count, which also counts containers never tracked (dicts of plain values). "
        "The bench pool's slow disks (one in 97) each raise a finding, made anew every tick (its "
        "evidence's figures move: about 10 objects a slow disk); one slow disk: the same pool "
        "with only its last disk slow; "
        "`zpool status` answers every 5th tick with new text (its tick counted in the mean)."
    )


def render_ms(leaves: int, fold_and_checks_ms: float, seconds: float = 20.0) -> float | None:
    """CPU per frame of `zdash replay` playing a synthetic recording of this pool at 1x (a frame
    a second, as live) in a 200x60 pseudo-terminal, after 5 s of warm-up, minus the fold and
    checks measured separately: what drawing the screen costs a second."""
    from tests.bench.pty_cpu import cpu_in_pty

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "r.zdash")
        # no description: a described recording opens paused, and a paused screen draws nothing
        write_recording(path, leaves, int(seconds) + 30, described=False)
        used, wall = cpu_in_pty([sys.executable, "-m", "zdash", "replay", path], seconds, warmup=5.0)
        return max(0.0, used * 1000 / wall - fold_and_checks_ms)


# --- screen -------------------------------------------------------------------------------------


def _table_rows(leaves: int) -> int:
    """Rows of the dashboard's vdev table for the bench's pool of this size: each pool, each vdev
    and each leaf one row (what a bare Textual table of "the same rows" must show)."""
    from zdash.fold import Fold

    snapshot = Fold().step(host_for(leaves).tick(0)).snapshot
    return sum(1 for pool in snapshot.pools for _ in pool.root.walk())


def _demo_rows() -> int:
    from zdash.fold.recording import fold_path
    from zdash.scenarios import demo_recording

    _, frame, _ = fold_path(str(demo_recording()), None)
    assert frame is not None, "the bundled demo recording holds no complete tick"
    snapshot = frame.snapshot
    return sum(1 for pool in snapshot.pools for _ in pool.root.walk())


def bench_screen(seconds: float, rounds: int, base: str | None = None) -> None:
    """The dashboard's steady-state CPU at 1 Hz in a 200x60 pseudo-terminal, beside what the same
    screen costs any Textual app and beside glances, all in this run and interleaved round by
    round (load that comes and goes touches each alike); the median of the rounds is kept.

    - zdash playing the bench's 100-leaf synthetic recording at 1x (space pressed: it plays);
    - `zdash --demo` (opens paused on its story; space plays it, looping);
    - a bare Textual app redrawing a table of the same rows once a second (textual_floor.py),
      one for each of the two screens;
    - glances `-t 1` in the same terminal, when `glances` is on PATH or in $GLANCES;
    - Textual's own floors (textual_floor.py --label and --idle): one line of text changed once a
      second, and that screen never changed;
    - with `base` (a checkout of other zdash code, e.g. a worktree of main): both zdash rows again
      from that code, in the same rounds (an A/B that load coming and going touches alike)."""
    import shutil

    from tests.bench.pty_cpu import cpu_in_pty

    glances = os.environ.get("GLANCES") or shutil.which("glances")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "r.zdash")
        write_recording(path, 100, int(seconds * rounds) + 60, described=False)
        synthetic_rows, demo_rows = _table_rows(100), _demo_rows()
        floor = [sys.executable, "-m", "tests.bench.textual_floor", "--rows"]
        runs: list[tuple[str, list[str], bytes]] = [
            (f"Textual table, {synthetic_rows} rows", [*floor, str(synthetic_rows)], b""),
            ("zdash replay, 100 leaves", [sys.executable, "-m", "zdash", "replay", path], b""),
            (f"Textual table, {demo_rows} rows", [*floor, str(demo_rows)], b""),
            ("zdash --demo (playing)", [sys.executable, "-m", "zdash", "--demo"], b" "),
        ]
        if base:
            # `python -m zdash` with the base checkout first on the path (ahead of this one, the cwd)
            run_base = f"import runpy, sys; sys.path.insert(0, {os.path.abspath(base)!r}); "
            run_base += "runpy.run_module('zdash', run_name='__main__', alter_sys=True)"
            at_base = [sys.executable, "-c", run_base]
            runs[2:2] = [("zdash replay, 100 leaves (base)", [*at_base, "replay", path], b"")]
            runs.append(("zdash --demo (playing) (base)", [*at_base, "--demo"], b" "))
        if glances:
            runs.append(("glances -t 1", [glances, "-t", "1"], b""))
        floor_only = [sys.executable, "-m", "tests.bench.textual_floor"]
        runs.append(("Textual, one line at 1 Hz", [*floor_only, "--label"], b""))
        runs.append(("Textual, idle", [*floor_only, "--idle"], b""))
        print(
            f"\n## The screen at 1 Hz (ms of CPU a second, 200x60 pty, {seconds:.0f} s after 8 s of "
            f"warm-up, median of {rounds} interleaved rounds)\n"
        )
        measured: dict[str, list[float]] = {name: [] for name, _, _ in runs}
        coarse = 0  # windows read in /proc's clock ticks (a thread or child came or went)
        for _ in range(rounds):
            for name, argv, keys in runs:
                split: dict[str, float] = {}
                used, wall = cpu_in_pty(argv, seconds, warmup=8.0, keys=keys, split=split)
                measured[name].append(used * 1000 / wall)
                coarse += not split.get("precise")
        ms = {name: statistics.median(values) for name, values in measured.items()}
        widths = [34, 10, 13, 16, 12]
        print(row(["process", "ms CPU/s", "rounds", "x its table", "x glances"], widths, header=True))
        tables = {
            "zdash replay, 100 leaves": f"Textual table, {synthetic_rows} rows",
            "zdash --demo (playing)": f"Textual table, {demo_rows} rows",
        }
        tables.update({f"{name} (base)": table for name, table in list(tables.items())})
        for name, value in ms.items():
            table = tables.get(name)
            vs_table = f"{value / ms[table]:.2f}x" if table else "-"
            vs_glances = f"{value / ms['glances -t 1']:.2f}x" if "glances -t 1" in ms and table else "-"
            spread = f"{min(measured[name]):.1f}-{max(measured[name]):.1f}"
            print(row([name, f"{value:.1f}", spread, vs_table, vs_glances], widths))
        print("\ngoal (issue #28): zdash <= 1.2x its table and <= 0.6x glances")
        print(
            "CPU read as each thread's nanoseconds (/proc/PID/task/TID/schedstat)"
            + (
                f"; {coarse} window(s) in /proc's 10 ms clock ticks (a thread or child came or went)"
                if coarse
                else ""
            )
        )


# --- history ------------------------------------------------------------------------------------


def bench_history(leaves: list[int], rounds: int = 5, span: int = 10) -> None:
    """fold + checks of `span` ticks after 1 minute of history and after 10, each from its own
    saved state (builder checkpoint, engine copy), the two interleaved `rounds` times and the
    best of each kept: load that comes and goes touches both alike, and the ratio says what
    the length of the history costs, not what the machine was doing meanwhile."""
    from zdash.fold import Fold
    from zdash.fold.fold import Mark

    print(f"\n## Flat in history length (fold + checks per tick, ms of CPU; best of {rounds}, interleaved)\n")
    widths = [7, 22, 22, 8]
    print(
        row(["leaves", "after 1 min (ticks 60-70)", "after 10 min (600-610)", "ratio"], widths, header=True)
    )
    for n in leaves:
        host = host_for(n)
        fold = Fold()
        saved: dict[int, Mark] = {}
        for i in range(600):
            fold.step(host.tick(i))
            if i + 1 in (60, 600):
                saved[i + 1] = fold.mark()
        ticks = {start: [host.tick(i) for i in range(start, start + span)] for start in saved}
        best = {start: float("inf") for start in saved}
        for _ in range(rounds):
            for start, mark in saved.items():
                f = Fold.resume(mark)
                used = 0.0
                for tick in ticks[start]:
                    t = time.process_time()
                    f.step(tick)
                    used += time.process_time() - t
                best[start] = min(best[start], used * 1000 / span)
        one, ten = best[60], best[600]
        print(row([str(n), f"{one:.1f}", f"{ten:.1f}", f"{ten / one:.2f}"], widths))


def _fold_and_checks_ms(host: Any) -> float:
    """fold + checks per tick (ms of CPU; best of 3) over 25 ticks after 61 of warm-up, tick by
    tick as the app does: the warm-up takes in the answers given only at the start or rarely
    (an event log's last hour, `zfs list` at tick 0 and 60)."""
    from zdash.fold import Fold

    fold = Fold()
    for i in range(61):
        fold.step(host.tick(i))
    ticks = [host.tick(i) for i in range(61, 86)]
    mark, best = fold.mark(), float("inf")
    for _ in range(3):
        f = Fold.resume(mark)
        t = time.process_time()
        for tick in ticks:
            f.step(tick)
        best = min(best, (time.process_time() - t) * 1000 / len(ticks))
    return best


def bench_real_world(leaves: list[int]) -> None:
    """fold + checks per tick with what real hosts add to a pool: ZFS's event log, mostly
    history events (a `zfs snapshot` from cron on each of many datasets), none about a disk
    (2,000 is the most zdash keeps, zdash.builder.EVENTS_KEEP); and many datasets
    (auto-snapshots, clones among them)."""
    variants: list[tuple[str, dict[str, int]]] = [
        ("bare pool", {}),
        ("200 events/h", {"history_events_per_hour": 200}),
        ("2,000 events/h", {"history_events_per_hour": 2000}),
        ("2,200 datasets", {"filesystems": 100, "snapshots_each": 20}),
        ("22,000 datasets", {"filesystems": 1000, "snapshots_each": 20}),
    ]
    print("\n## What real hosts add (fold + checks per tick, ms of CPU)\n")
    widths = [7, *[16] * len(variants)]
    print(row(["leaves", *[name for name, _ in variants]], widths, header=True))
    for n in leaves:
        cells = [f"{_fold_and_checks_ms(host_for(n, **extra)):.1f}" for _, extra in variants]
        print(row([str(n), *cells], widths))


# --- recordings ---------------------------------------------------------------------------------


def write_recording(
    path: str,
    leaves: int,
    ticks: int,
    report: Callable[[int], None] | None = None,
    described: bool = True,
) -> None:
    """A .zdash file as `zdash record` writes it (keyframes by the writer's policy). A described
    one opens paused in the dashboard (its description read first), as users' recordings do."""
    from zdash.fold import Fold
    from zdash.sources.store import StoreWriter

    host = host_for(leaves)
    fold = Fold(None, 1.0, "bench")
    description = f"synthetic {leaves}-leaf pool, {ticks} ticks" if described else None
    with StoreWriter(path, "bench", 1.0, description, force=True) as w:
        for i in range(ticks):
            fold.write(w, host.tick(i))
            if report and i and i % 3600 == 0:
                report(i)


def cached_recording(cache: str, hours: float) -> str:
    ticks = int(hours * 3600)
    path = os.path.join(cache, f"synthetic-100-{ticks}.zdash")
    if not os.path.exists(path):
        os.makedirs(cache, exist_ok=True)
        print(f"  writing {path} ({ticks} ticks; cached for later runs)...", flush=True)
        t0 = time.monotonic()
        write_recording(path + ".part", 100, ticks, lambda i: print(f"    {i} ticks", flush=True))
        os.replace(path + ".part", path)
        print(f"  written in {time.monotonic() - t0:.0f} s", flush=True)
    return path


def _spawn_measured(argv: list[str], timeout: float = 3600) -> tuple[str, float, float, int]:
    """(output, wall seconds, peak RSS in MB, exit status) of one fresh process. The peak comes
    from GNU time (`-f %M`), which forks from its own small process: the rusage of a child forked
    straight from this script would count this script's pages it held before exec."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.NamedTemporaryFile("r") as rss:
        proc = subprocess.Popen(
            ["/usr/bin/time", "-f", "%M", "-o", rss.name, *argv],
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=ROOT,
        )
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise RuntimeError(f"{argv[:4]}: timed out") from None
        wall = time.perf_counter() - t0
        out.seek(0)
        peak_kb = float((rss.read().strip().splitlines() or ["0"])[-1])
        return out.read(), wall, peak_kb / 1024, proc.returncode


FIRST_FRAME = """
import asyncio, sys, time
t0 = time.perf_counter()
from zdash.config import CheckConfig
from zdash.feed.replay import ReplayFeed

async def main():
    feed = ReplayFeed(sys.argv[1], CheckConfig(), playing=False)
    async for frame in feed.frames():
        print(time.perf_counter() - t0, frame.position.count if frame.position else 0)
        return

asyncio.run(main())
"""

SEEKS = """
import random, sys, time
from zdash.fold.recording import fold_to
from zdash.sources.recording import open_recording
rec = open_recording(sys.argv[1])
n = rec.count()
rng = random.Random(7)
out = []
for i in [rng.randrange(n) for _ in range(int(sys.argv[2]))]:
    t = time.perf_counter()
    fold_to(rec, i)
    out.append(time.perf_counter() - t)
print(" ".join(f"{x:.5f}" for x in out))
"""


def bench_recordings(cache: str, hours: list[float]) -> None:
    print("\n## Recordings of a 100-leaf pool at 1 s (each figure a fresh process)\n")
    zdash = [sys.executable, "-m", "zdash"]
    _, base_wall, base_rss, _ = _spawn_measured([*zdash, "--version"])
    print(f"baseline `zdash --version`: {base_wall * 1000:.0f} ms, peak RSS {base_rss:.0f} MB\n")
    widths = [10, 9, 22, 26, 24, 10]
    print(
        row(
            ["recording", "size", "first frame", "seek mean / worst", "check --replay --at", "peak RSS"],
            widths,
            header=True,
        )
    )
    for h in hours:
        path = cached_recording(cache, h)
        size = os.path.getsize(path) / 2**20
        out, _, rss1, _ = _spawn_measured([sys.executable, "-c", FIRST_FRAME, path])
        first = float(out.split()[0])
        out, _, rss2, _ = _spawn_measured([sys.executable, "-c", SEEKS, path, "30"])
        seeks = [float(x) for x in out.split()]
        _, check_wall, rss3, _ = _spawn_measured(
            [*zdash, "check", "--replay", path, "--at", f"{h * 1800:.0f}"]
        )
        peak = max(rss1, rss2, rss3)
        print(
            row(
                [
                    f"{h:g} h",
                    f"{size:.0f} MB",
                    f"{first * 1000:.0f} ms {first / base_wall:.1f}x",
                    f"{statistics.mean(seeks) * 1000:.0f} / {max(seeks) * 1000:.0f} ms",
                    f"{check_wall * 1000:.0f} ms {check_wall / base_wall:.1f}x",
                    f"{peak:.0f} MB",
                ],
                widths,
            )
        )
    print("\nfirst frame and check are x `zdash --version`; seeks are folds from the nearest keyframe.")


# --- YAML recordings (format 1): reading against folding --------------------------------------

YAML_CPU = """
import sys, time
from zdash.fold import Fold
from zdash.fold.recording import fold_path
from zdash.sources.session import read_session
from zdash.gcpolicy import tune
tune()  # as `zdash check --replay` runs (zdash.cli sets the collector's thresholds)
path = sys.argv[1]
# Best of 5 of each, fold and check --replay alternating: one pass of either on a busy host
# can take half again as long as the next (a single pass once gave 1.85x where five gave 1.4x).
read = fold = replay = float("inf")
for _ in range(5):
    header, ticks = read_session(path)
    t = time.process_time()
    ticks = list(ticks)
    read = min(read, time.process_time() - t)
    t = time.process_time()
    Fold.from_header(header, None).last(ticks)
    fold = min(fold, time.process_time() - t)
    del ticks
    t = time.process_time()
    fold_path(path, None)
    replay = min(replay, time.process_time() - t)
print(read, fold, replay)
"""


def yaml_recording(cache: str, leaves: int, ticks: int, whole: bool) -> str:
    """A `.yaml.gz` recording of the synthetic pool: as zdash writes it (one gzip member per
    tick), or gzipped whole (`gzip rec.yaml`: one member, the layout the reader once held whole)."""
    import gzip
    import shutil

    from zdash.sources.session import SessionWriter

    name = f"synthetic-{leaves}-{ticks}{'-whole' if whole else ''}.yaml.gz"
    path = os.path.join(cache, name)
    if os.path.exists(path):
        return path
    os.makedirs(cache, exist_ok=True)
    plain = os.path.join(cache, f"synthetic-{leaves}-{ticks}.yaml")
    host = host_for(leaves)
    # The writer gzips by the name's ending: the part file must end in .gz too (it ended in
    # .part, so the files "as zdash writes" were plain text until 2026-11-29).
    part = path[: -len(".gz")] + ".part.gz"
    with SessionWriter(plain if whole else part, "bench", 1.0, force=True) as w:
        for i in range(ticks):
            w.write(host.tick(i))
    if whole:
        with open(plain, "rb") as src, gzip.open(part, "wb") as dst:
            shutil.copyfileobj(src, dst)
        os.remove(plain)
    os.replace(part, path)
    return path


def bench_yaml(cache: str) -> None:
    """`check --replay` of a `.yaml.gz`: its CPU against the fold of the same ticks alone (held in
    memory, not timed reading), in one process, best of 5 each; peak RSS of a 780-tick file against a 78-tick
    one of the same host, each in a fresh process, in both gzip layouts."""
    print("\n## YAML recordings (format 1): reading against folding\n")
    widths = [22, 16, 16, 24]
    print(row(["recording", "read, ms/tick", "fold, ms/tick", "check --replay / fold"], widths, header=True))
    for leaves, ticks in ((100, 78), (1000, 78)):
        path = yaml_recording(cache, leaves, ticks, whole=False)
        out, _, _, _ = _spawn_measured([sys.executable, "-c", YAML_CPU, path])
        read, fold, replay = (float(x) for x in out.split()[-3:])
        print(
            row(
                [
                    f"{leaves} leaves, {ticks} ticks",
                    f"{read * 1000 / ticks:.1f}",
                    f"{fold * 1000 / ticks:.1f}",
                    f"{replay / fold:.2f}x",
                ],
                widths,
            )
        )
    print("\nPeak RSS of `zdash check --replay` (100 leaves), 780 ticks against 78:\n")
    widths = [30, 12, 12, 10]
    print(row(["layout", "78 ticks", "780 ticks", "ratio"], widths, header=True))
    for whole in (False, True):
        peaks = []
        for ticks in (78, 780):
            path = yaml_recording(cache, 100, ticks, whole)
            _, _, peak, _ = _spawn_measured([sys.executable, "-m", "zdash", "check", "--replay", path])
            peaks.append(peak)
        label = "gzipped whole (one member)" if whole else "as zdash writes (per tick)"
        print(row([label, f"{peaks[0]:.0f} MB", f"{peaks[1]:.0f} MB", f"{peaks[1] / peaks[0]:.2f}x"], widths))


# --- replay at 64x ------------------------------------------------------------------------------

REPLAY_RSS = """
import asyncio, sys, time, psutil
from zdash.config import CheckConfig
from zdash.feed.replay import ReplayFeed
from zdash.ui.app import ZdashApp

class Counting(ZdashApp):
    # the dashboard, counting the frames it was handed to draw (the feed coalesces them)

    drawn = 0

    def on_frame_ready(self, message):
        # Textual runs every class's handler of a message in turn (this one, then ZdashApp's):
        # calling super() here as well handled each frame twice (until 2026-11-29)
        Counting.drawn += 1

async def main():
    feed = ReplayFeed(sys.argv[1], CheckConfig(), speed=64.0)
    app = Counting(feed, theme=None)
    me = psutil.Process()
    async with app.run_test(size=(160, 50)) as pilot:
        while app.frame is None:
            await pilot.pause(0.05)
        start = time.monotonic()
        while True:
            await pilot.pause(5.0)
            pos = app.frame.position
            print(f"{time.monotonic() - start:.0f} {pos.index} {pos.count} {me.memory_info().rss / 2**20:.1f} {Counting.drawn}", flush=True)
            if pos.index >= pos.count - 1 or time.monotonic() - start > float(sys.argv[2]):
                break

asyncio.run(main())
"""


def bench_replay(cache: str, limit_s: float, base: str | None = None) -> None:
    """The 1 h recording at 64x in the headless dashboard: ticks folded, frames drawn, RSS. With
    `base` (a checkout of other zdash code): the same from that code too, the two alternating
    (base, this, base, this) so load that comes and goes touches both alike."""
    print("\n## Replaying the 1 h recording at 64x in the dashboard (headless), RSS as it plays\n")
    path = cached_recording(cache, 1.0)
    builds: list[tuple[str, list[str]]] = [("this checkout", [])]
    if base:
        builds = [("base " + os.path.abspath(base), [os.path.abspath(base)]), *builds] * 2
    for label, first_on_path in builds:
        # the script with the base checkout first on the path (ahead of this one, the cwd)
        script = f"import sys; sys.path[:0] = {first_on_path!r}\n" + REPLAY_RSS
        out, _, peak, rc = _spawn_measured(
            [sys.executable, "-c", script, path, str(limit_s)], timeout=limit_s + 300
        )
        samples = [line.split() for line in out.splitlines() if line and line[0].isdigit()]
        if base:
            print(f"  {label}:")
        if rc != 0 or not samples:
            print(f"  replay failed ({rc}): {out.strip()[-400:]}")
            continue
        first = float(samples[0][3])
        for s in samples:
            print(
                f"  {s[0]:>4} s  tick {s[1]:>5} of {s[2]}  RSS {float(s[3]):6.1f} MB  {float(s[3]) / first:5.2f}x"
            )
        last = samples[-1]
        rate = int(last[1]) / max(1.0, float(last[0]))
        fps = int(last[4]) / max(1.0, float(last[0]))
        print(
            f"  played {last[1]} ticks in {last[0]} s ({rate:.0f} ticks/s of 64 asked), "
            f"{last[4]} frames drawn ({fps:.0f}/s); peak RSS {peak:.0f} MB; "
            f"1-min load {os.getloadavg()[0]:.1f}"
        )


# --- lab ----------------------------------------------------------------------------------------


def bench_lab(zfslab: str, seconds: int) -> None:
    print(f"\n## CPU over {seconds} s on a real pool (OpenZFS in the zfslab VM, bursty load)\n")
    cmd = [zfslab, "run", "--", ".venv/bin/python", "-m", "tests.bench.lab_cpu", "--seconds", str(seconds)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=seconds * 8 + 900)
    sys.stdout.write(proc.stdout)
    if proc.returncode != 0:
        print(f"  lab run failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")


def tune_gc() -> None:
    try:
        from zdash.gcpolicy import tune
    except ImportError:  # a zdash before the policy: its processes ran with CPython's defaults
        return
    tune()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--only",
        choices=("ticks", "history", "events", "recordings", "yaml", "replay", "screen", "lab"),
        action="append",
    )
    p.add_argument("--leaves", default="4,100,1000,5000", help="pool sizes for the per-tick table")
    p.add_argument("--no-render", action="store_true", help="skip the headless dashboard render figure")
    p.add_argument("--day", action="store_true", help="also the 24 h recording (written once, ~15 min)")
    p.add_argument("--replay-seconds", type=float, default=120.0, help="cap on the 64x replay (default 120)")
    p.add_argument("--screen-seconds", type=float, default=30.0, help="window of each screen CPU figure")
    p.add_argument("--screen-rounds", type=int, default=3, help="interleaved rounds of the screen table")
    p.add_argument(
        "--screen-base",
        metavar="DIR",
        help="also the screen rows and the 64x replay of the zdash code in DIR (an A/B in one run)",
    )
    p.add_argument("--lab", metavar="ZFSLAB", help="path of zfslab: also measure CPU on a real pool")
    p.add_argument("--lab-seconds", type=int, default=60)
    p.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "zdash-bench"))
    p.add_argument(
        "--markdown",
        metavar="PATH",
        help="also write this run's output into PATH's generated block (docs/performance.md)",
    )
    args = p.parse_args(argv)
    if args.markdown:
        return _into_markdown(args.markdown, lambda: run(args), argv if argv is not None else sys.argv[1:])
    return run(args)


def run(args: argparse.Namespace) -> int:
    only = set(
        args.only
        or ["ticks", "history", "events", "recordings", "yaml", "replay", "screen"]
        + (["lab"] if args.lab else [])
    )
    leaves = [int(x) for x in args.leaves.split(",")]
    tune_gc()  # the collector's thresholds as zdash's own processes set them (zdash.cli)
    # The slow-disk check's arrays (numpy) as a process that has run for a second has them: their
    # import runs in a thread, and until it is in, pools are judged leaf by leaf. (Code from
    # before the arrays, an older checkout run with this bench, has none.)
    with contextlib.suppress(ImportError):
        from zdash.checks.deranged_disk import columns_ready

        columns_ready(60)
    print(
        f"zdash benchmark: python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}"
    )
    if "ticks" in only:
        bench_ticks(leaves, render=not args.no_render)
    if "history" in only:
        bench_history([n for n in leaves if n in (100, 1000)] or leaves[:1])
    if "events" in only:
        bench_real_world([n for n in leaves if n in (100, 1000)] or leaves[:1])
    if "recordings" in only:
        bench_recordings(args.cache, [1.0] + ([24.0] if args.day else []))
    if "yaml" in only:
        bench_yaml(args.cache)
    if "replay" in only:
        bench_replay(args.cache, args.replay_seconds, args.screen_base)
    if "screen" in only:
        bench_screen(args.screen_seconds, args.screen_rounds, args.screen_base)
    if "lab" in only and args.lab:
        bench_lab(args.lab, args.lab_seconds)
    return 0


# --- the generated block of docs/performance.md --------------------------------------------------

BEGIN = (
    "<!-- begin: generated by `python -m tests.bench.bench --markdown docs/performance.md`; do not edit -->"
)
END = "<!-- end: generated -->"


class _Tee(io.TextIOBase):
    """stdout as it was, and a copy kept: the run prints as it goes (minutes of it)."""

    def __init__(self, out: Any) -> None:
        self.out, self.kept = out, io.StringIO()

    def write(self, text: str) -> int:
        self.out.write(text)
        self.out.flush()
        return self.kept.write(text)


def _sections(text: str, level: str) -> list[tuple[str, str]]:
    """(key, text) of each section of `text` opened by a `level` heading ("## "), the key being
    the heading up to its parenthesis (what a run's options do not change: "Per tick")."""
    out: list[tuple[str, str]] = []
    for part in ("\n" + text).split("\n" + level)[1:]:
        heading = part.split("\n", 1)[0]
        out.append((heading.split(" (", 1)[0].strip(), (level + part).strip()))
    return out


def _shown(argv: list[str]) -> list[str]:
    """The bench's arguments as the docs show them: a --screen-base checkout by its commit, not
    by a path on the machine that ran it (a published page names nothing outside the repository)."""
    shown = list(argv)
    for i, arg in enumerate(shown):
        base = arg.split("=", 1)[1] if arg.startswith("--screen-base=") else None
        if base is None and i > 0 and shown[i - 1] == "--screen-base":
            base = arg
        if base is not None:
            described = subprocess.run(
                ["git", "-C", base, "describe", "--always"], capture_output=True, text=True, check=False
            ).stdout.strip()
            named = f"BASE (a checkout of {described or 'another commit'})"
            shown[i] = f"--screen-base={named}" if arg.startswith("--screen-base=") else named
    return shown


def _into_markdown(path: str, bench: Callable[[], int], argv: list[str]) -> int:
    """Runs the bench, then writes each section it printed into the generated block of `path`
    (between BEGIN and END; added at the end when there is none), under a line saying when, on
    which commit and how loaded: the tables in the docs are the bench's own output, never typed.
    A section this run did not print (`--only`) keeps its earlier run, and its line says which."""
    load_before, started = os.getloadavg()[0], time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    tee = _Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        rc = bench()
    commit = subprocess.run(
        ["git", "describe", "--always"], capture_output=True, text=True, check=False
    ).stdout.strip()
    # changed code measured is not that commit's (a changed page, this one, is no matter)
    if subprocess.run(["git", "diff", "--quiet", "HEAD", "--", "zdash", "tests"], check=False).returncode:
        commit += " + uncommitted changes"
    stamp = (
        f"*Run {started} on commit `{commit or 'unknown'}`: `python -m tests.bench.bench {' '.join(_shown(argv))}`, "
        f"1-minute load {load_before:.2f} at the start and {os.getloadavg()[0]:.2f} at the end.*"
    )
    fresh = {
        key: f"### {body[3:].split(chr(10), 1)[0]}\n\n{stamp}\n\n{body.split(chr(10), 1)[1].strip()}"
        for key, body in _sections(tee.kept.getvalue(), "## ")
    }
    with open(path, encoding="utf-8") as f:
        doc = f.read()
    if BEGIN in doc and END in doc:
        head, rest = doc.split(BEGIN, 1)
        kept, tail = rest.split(END, 1)
    else:
        head, kept, tail = doc.rstrip("\n") + "\n\n## The latest bench run\n\n", "", "\n"
    sections = dict(_sections(kept, "### "))
    sections.update(fresh)  # in place where the section was; a new one at the end
    block = "\n\n".join([BEGIN, *sections.values(), END])
    with open(path, "w", encoding="utf-8") as f:
        f.write(head + block + tail)
    return rc


if __name__ == "__main__":
    random.seed(1)
    sys.exit(main())
