"""The history chart draws what was measured and nothing else, asserted on the plot as rendered
(the characters and colours a user sees): a gap in the samples is a gap in the line, a few
seconds of data sit at the right end of a minute-wide time axis instead of being stretched
across the panel, and a disk's vdev peers stay visible where they equal the disk's line."""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass, replace

from tests.checks.builders import T0, MiB, leaf, mirror, pool, snap
from tests.ui.conftest import until, wait_frame
from zdash.checks.registry import CheckEngine
from zdash.feed.frame import Feed, Frame
from zdash.fold.series import Series
from zdash.model import IoStats
from zdash.ui.app import ZdashApp
from zdash.ui.series import binned, chart_lines, runs, sample_step, window_s


class HistoryFeed(Feed):
    """One frame whose history holds every snapshot given: the chart as it stands after them."""

    def __init__(self, snaps) -> None:
        self.snaps = snaps

    async def frames(self):
        series = Series()
        for s in self.snaps:
            series.add(s)
        findings = CheckEngine().update(self.snaps[-1])
        yield Frame(self.snaps[-1], findings, series, mode="live", source="testhost")
        await asyncio.Event().wait()  # no more frames: the host went quiet


def tank(write_mib: float, *, write_ms: float | None = 5.0):
    """A 2-way mirror writing `write_mib` MiB/s on each disk, the pool twice that."""
    disks = [leaf(name, util=30.0, write_ms=write_ms, write_bps=write_mib * MiB) for name in ("sda", "sdb")]
    made = pool("tank", mirror(0, *disks))
    pool_io = IoStats(
        write_ops=2 * write_mib * 16,
        write_bytes=2 * write_mib * MiB,
        disk_wait_write=None if write_ms is None else write_ms * 1e6,
    )
    return replace(made, root=replace(made.root, io=pool_io))


@dataclass
class Mark:
    row: int
    col: int
    char: str
    rgb: tuple[int, int, int] | None


@dataclass
class Plot:
    """A rendered plot: the glyphs drawn inside its frame, and where its time axis puts x."""

    marks: list[Mark]
    ticks: list[int]  # columns of the time axis' tick marks, oldest first
    title: str

    def col(self, x: float, window: float) -> float:
        first, last = self.ticks[0], self.ticks[-1]
        return first + (x + window) / window * (last - first)

    def cols(self, rgb=None) -> set[int]:
        return {m.col for m in self.marks if rgb is None or m.rgb == rgb}


def _drawn(ch: str) -> bool:
    return "\u2801" <= ch <= "\u28ff" or ch == "•"


def read_plot(widget, labels: tuple[str, ...]) -> Plot:
    rendered = widget.render().content
    lines = rendered.split("\n", allow_blank=True)
    top = next(i for i, line in enumerate(lines) if "┌" in line.plain)
    bottom = next(i for i, line in enumerate(lines) if "└" in line.plain)
    axis = lines[bottom].plain
    left, right = axis.index("└"), axis.index("┘")
    ticks = [i for i, ch in enumerate(axis) if ch == "┬"]
    marks: list[Mark] = []
    for row in range(top + 1, bottom):
        line = lines[row]
        plain = line.plain
        legend_end = max((plain.find(label) + len(label) for label in labels if label in plain), default=-1)
        for col in range(left + 1, right):
            if col <= legend_end or not _drawn(plain[col]):
                continue
            colour = None
            for span in line.spans:
                if span.start <= col < span.end:
                    style = span.style
                    if not isinstance(style, str) and style.foreground is not None:
                        colour = style.foreground.rgb
            marks.append(Mark(row, col, plain[col], colour))
    return Plot(marks, ticks, "\n".join(line.plain for line in lines[:top]))


# --- what is drawn --------------------------------------------------------------------------


async def test_a_gap_in_the_samples_is_a_gap_in_the_line():
    """Writes for 20 s, then 20 s in which no report came (zpool hung, the host away), then 20 s
    more: no line joins the two stretches across the silence."""
    snaps = [snap(T0 + t, tank(10.0 + (t % 3))) for t in [*range(20), *range(40, 60)]]
    app = ZdashApp(HistoryFeed(snaps))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot)
        plot = await _plot(pilot, "#chart-mbs", "write")
        window = 60.0
        assert "last 60 s" in plot.title
        drawn = plot.cols()
        before = {c for c in drawn if c < plot.col(-40.5, window)}
        after = {c for c in drawn if c > plot.col(-19.5, window)}
        silent = {c for c in drawn if plot.col(-38, window) < c < plot.col(-21, window)}
        assert before and after  # both stretches are drawn...
        assert not silent, f"drawn across the silence at columns {sorted(silent)}"  # ...apart


async def test_no_io_is_a_gap_in_the_wait_not_a_zero_or_a_ramp():
    """Disk wait is unknown while nothing is written: its line stops and starts again."""

    def at(t: int):
        idle = 20 <= t < 40
        return snap(T0 + t, tank(0.0 if idle else 8.0, write_ms=None if idle else 4.0 + t % 2))

    app = ZdashApp(HistoryFeed([at(t) for t in range(60)]))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot)
        plot = await _plot(pilot, "#chart-lat", "write")
        drawn = plot.cols()
        idle = {c for c in drawn if plot.col(-38, 60) < c < plot.col(-21, 60)}
        assert {c for c in drawn if c < plot.col(-41, 60)} and {c for c in drawn if c > plot.col(-19, 60)}
        assert not idle


async def test_a_second_of_data_is_not_stretched_across_the_chart():
    """Two samples a second apart: drawn at the right end of a minute-wide axis, not as a
    diagonal from one side of the panel to the other."""
    app = ZdashApp(HistoryFeed([snap(T0, tank(2.0)), snap(T0 + 1, tank(20.0))]))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot)
        plot = await _plot(pilot, "#chart-mbs", "write")
        assert "last 60 s" in plot.title
        drawn = plot.cols()
        assert drawn and min(drawn) >= plot.col(-3, 60), sorted(drawn)
        axis = str(app.screen.query_one("#chart-mbs").render())
        assert "-60s" in axis and "now" in axis  # the axis says what span it covers


async def test_ten_minutes_of_data_fill_a_ten_minute_axis():
    snaps = [snap(T0 + t, tank(5.0 + t % 7)) for t in range(0, 600, 2)]
    app = ZdashApp(HistoryFeed(snaps))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot)
        plot = await _plot(pilot, "#chart-mbs", "write")
        assert "last 10 min" in plot.title
        drawn = plot.cols()
        assert min(drawn) <= plot.col(-590, 600) + 1 and max(drawn) >= plot.col(-2, 600) - 1
        # a sample every 2 s is one run: no gap anywhere along it
        assert set(range(min(drawn), max(drawn) + 1)) <= drawn


async def test_the_peers_stay_visible_where_they_equal_the_disk():
    """sda and its mirror partner move the same MiB/s (what a sick disk also does): the chart
    of sda against its peer shows both colours along the shared line, not only the disk's."""
    snaps = [snap(T0 + t, tank(6.0 + (t % 5))) for t in range(60)]
    app = ZdashApp(HistoryFeed(snaps))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot)
        chart = app.screen.query_one("#history")
        await pilot.press("v")
        for _ in range(3):  # pool, mirror-0, sda
            if str(chart.border_title).startswith("History · sda against"):
                break
            await pilot.press("down")
        await until(pilot, lambda: str(chart.border_title) == "History · sda against sdb in mirror-0")
        plot = await _plot(pilot, "#chart-mbs", "sdb")
        disk, peers = chart._rgb("history--disk"), chart._rgb("history--peers")
        disk_cols, peer_cols = plot.cols(disk), plot.cols(peers)
        span = plot.col(-55, 60), plot.col(-5, 60)
        inside = list(range(math.ceil(span[0]), math.floor(span[1])))
        # the peers every other column or so, the disk in the columns between: both seen
        assert len(peer_cols & set(inside)) >= len(inside) // 3
        assert len(disk_cols & set(inside)) >= len(inside) // 3


async def _plot(pilot, selector: str, label: str) -> Plot:
    widget = pilot.app.screen.query_one(selector)
    await until(pilot, lambda: label in str(widget.render()), what=f"{selector} drawn")
    return read_plot(widget, ("read", "write", "sda", "sdb"))


# --- the pure shaping ---------------------------------------------------------------------


def test_runs_split_at_nan_and_at_silences_longer_than_the_step():
    xs = [-9.0, -8.0, -7.0, -4.0, -3.0, -2.0, -1.0, 0.0]
    ys = [1.0, 2.0, 3.0, 4.0, math.nan, 6.0, 7.0, 8.0]
    assert sample_step(xs) == 1.0
    assert runs(xs, ys, 1.0) == [
        ([-9.0, -8.0, -7.0], [1.0, 2.0, 3.0]),
        ([-4.0], [4.0]),
        ([-2.0, -1.0, 0.0], [6.0, 7.0, 8.0]),
    ]
    # one lost report (2 s apart) is bridged: the line goes on
    assert runs([-2.0, 0.0], [1.0, 2.0], 1.0) == [([-2.0, 0.0], [1.0, 2.0])]


def test_bins_average_within_a_column_and_never_invent_a_point():
    xs, ys = binned(([-5.0, -4.5, -4.0, -1.0], [2.0, 4.0, 6.0, 8.0]), 2.0)
    assert xs == [-4.75, -4.0, -1.0] and ys == [3.0, 6.0, 8.0]
    lines = chart_lines([-5.0, -4.0, 0.0], [1.0, 1.0, 1.0], 1.0, 1.0)
    assert [len(x) for x, _ in lines] == [2, 1]


def test_the_window_grows_with_the_data_in_steps():
    assert window_s([]) == 60.0 and window_s([-1.0, 0.0]) == 60.0
    assert window_s([-61.0, 0.0]) == 120.0 and window_s([-599.0, 0.0]) == 600.0
