"""Throughput and disk latency over the recent history, for the pool or the selected vdev.
Two small plots side by side (read and write); on a disk with vdev peers, three (MiB/s, %UTIL,
disk wait), each the disk against its peers: a sick disk moves the same MiB/s as its peers at a
far higher %UTIL and wait, and that is drawn (`p` switches back to read and write).

Drawn as measured (zdash.ui.series): a gap in the samples is a gap in the line, a minute of data
is drawn over a minute of the time axis (not stretched to the panel), and the peers are dots
drawn over the disk's line so both show where they are equal. Redrawn only when visible and
when the data changed, and for new data at most every CHART_PERIOD_S: a plot of ten minutes gains nothing visible from a redraw
every second, and plotext's two redraws were most of a frame's CPU. A change of pool, row,
theme redraws at once, and so does a new width (the samples binned to other columns); a new
height alone is each plot's own redraw of the data it has."""

from __future__ import annotations

from typing import ClassVar

from textual import getters
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.geometry import Size
from textual.reactive import var

from zdash.feed.frame import Frame
from zdash.model import Pool, Vdev
from zdash.ui.app import ZdashApp
from zdash.ui.series import PEER_METRICS, Line, chart_lines, peer_overlay, sample_step, window_s
from zdash.ui.vdev_rows import peers_of, pool_key, row_label, shown_pool
from zdash.ui.widgets.plot import Plot

Group = tuple[Vdev, Vdev, list[Vdev]] | None  # a disk, its top-level vdev, its peers (peers_of)

Stamp = tuple[float, int, str, str, int, bool]  # frame time, samples, pool, row, plot width, peers
Drawn = tuple[str, list[Line], str, str, bool]  # label, runs, component class, marker, joined
CHART_PERIOD_S = 5.0  # a 10-minute plot's column is ~12 s wide: new data every 5 s shows all
TICK_S = {60.0: 15.0, 120.0: 30.0, 300.0: 60.0, 600.0: 120.0}  # time-axis ticks per window (WINDOWS_S)


class HistoryChart(Horizontal):
    """Bound to its screen's frame, pool and selected row (data_bind); no row selected (or one
    of another pool): the pool itself. Line colours: the history--read/--write component
    classes (themes/zdash.tcss)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "history--read",
        "history--write",
        "history--disk",
        "history--peers",
    }
    app = getters.app(ZdashApp)
    frame: var[Frame | None] = var(None)
    pool_name: var[str | None] = var(None)
    selected: var[str | None] = var(None)
    peers: var[bool] = var(True)  # a disk with vdev peers: drawn against them

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._drawn: Stamp | None = None
        self._drawn_at = float("-inf")  # app clock
        # (the pool's tree, (pool, selected row, peers) asked, the subject: see _subject)
        self._subjects: tuple[Vdev, tuple[str, str | None, bool], tuple[str, str, Group]] | None = None
        self._deferred = False
        self._title = ""

    def compose(self) -> ComposeResult:
        yield Plot(id="chart-mbs")
        yield Plot(id="chart-util")
        yield Plot(id="chart-lat")

    def on_mount(self) -> None:
        self.query_one("#chart-util").display = False  # the peer overlay's third plot
        self.app.theme_changed_signal.subscribe(self, lambda _t: self._draw(force=True))

    def watch_frame(self) -> None:
        self._draw(throttle=True)

    def watch_pool_name(self) -> None:
        self._draw()

    def watch_selected(self) -> None:
        self._draw()

    def watch_peers(self) -> None:
        self._draw()

    def _catch_up(self) -> None:
        self._deferred = False
        self._draw()

    def on_show(self) -> None:
        self._draw()

    def on_resize(self) -> None:
        # A new width bins the samples to other columns: drawn at once. A new height alone (the
        # findings table above grew) needs nothing here: each plot draws its figure again at
        # its new size by itself.
        self._draw()

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        # Textual's layout pass hands the size it gave through the reactive virtual_size, which
        # asks for another layout of the whole screen (~9 ms at 200x60) that moves nothing:
        # this box's size is the layout's result, not an input to it.
        return super()._size_updated(size, virtual_size, container_size, layout=False)

    def _rgb(self, component: str) -> tuple[int, int, int]:
        """A theme colour for plotext (it takes RGB tuples, not Textual variables)."""
        return self.get_component_styles(component).color.rgb

    def _draw(self, force: bool = False, throttle: bool = False) -> None:
        frame = self.frame
        pool = shown_pool(frame.snapshot, self.pool_name) if frame is not None else None
        if frame is None or pool is None or not self.is_mounted:
            return
        key, label, group = self._subject(pool)
        if f"History · {label}" != self._title:  # a border title repaints, changed or not
            self._title = f"History · {label}"
            self.border_title = Content(self._title)  # names are text, never markup
        if not self.display or not self.screen.is_current:
            return  # hidden: drawn when shown again (on_show / screen resume)
        series = frame.series
        width = self.query_one("#chart-mbs", Plot).size.width  # what the samples are binned to
        stamp = (frame.time, len(series), pool.name, key, width, group is not None)
        if stamp == self._drawn and not force:
            return
        now = self.app.clock.now()
        if throttle and self._drawn is not None and stamp[2:] == self._drawn[2:]:
            wait = self._drawn_at + CHART_PERIOD_S - now
            if wait > 0:  # only new samples: drawn when the period is up
                if not self._deferred:
                    self._deferred = True
                    self.set_timer(wait, self._catch_up)
                return
        self._drawn, self._drawn_at = stamp, now
        util = self.query_one("#chart-util", Plot)
        util.display = group is not None
        if group is not None:
            self._draw_peers(frame, pool, key, group[2])
        else:
            self._draw_read_write(frame, pool, key)

    def _subject(self, pool: Pool) -> tuple[str, str, Group]:
        """The row the chart follows (the selected one, else the pool), its label and, for a
        disk with the peer overlay on, its vdev and peers. Each is a walk of the pool's tree:
        made again only when the tree (the fold keeps it while it reads the same), the pool,
        the selection or the overlay changed, not every frame."""
        asked = (pool.name, self.selected, self.peers)
        kept = self._subjects
        if kept is not None and kept[0] is pool.root and kept[1] == asked:
            return kept[2]
        key = self.selected
        label = row_label(pool, key) if key is not None else None
        if key is None or label is None:  # nothing selected, or a row of another pool
            key, label = pool_key(pool), f"pool {pool.name}"
        group = peers_of(pool, key) if self.peers else None
        if group is not None:
            disk, top, peers = group
            label = f"{disk.name} against {_peers_name(peers)} in {top.name}"
        self._subjects = (pool.root, asked, (key, label, group))
        return key, label, group

    def _plot(self, widget: Plot, title: str, window: float, series: list[Drawn]) -> None:
        """One plot of `series`, each (label, its runs, component class, plotext marker, joined):
        every run drawn on its own, so nothing joins the two sides of a gap; on a time axis
        `window` seconds wide ending now, whatever the data covers."""
        plt = widget.plt
        plt.clear_data()
        plt.clear_figure()
        plotted = False
        for name, lines, component, marker, joined in series:
            colour = self._rgb(component)
            draw = plt.plot if joined else plt.scatter
            for i, (xs, ys) in enumerate(lines):
                plotted = True
                draw(xs, ys, label=name if i == 0 else None, color=colour, marker=marker)
        if not plotted:  # latency is unknown, not zero, when nothing was read or written
            title += " · no I/O"
        plt.title(f"{title} · last {_span(window)}")
        plt.xlim(-window, 0)
        tick = TICK_S.get(window, window / 4)
        ticks = [-k * tick for k in range(round(window / tick), -1, -1)]
        plt.xticks(ticks, [_ago(t, window) for t in ticks])
        plt.ylim(lower=0)
        widget.refresh()

    def _axis(self, frame: Frame, xs: list[float]) -> tuple[float, float, float]:
        """(window, sampling step, seconds per plot column) for samples at `xs`."""
        window = window_s(xs)
        step = max(frame.snapshot.interval or 0.0, sample_step(xs))
        columns = max(self.query_one("#chart-mbs", Plot).size.width - 8, 10)
        return window, step, window / columns

    def _draw_read_write(self, frame: Frame, pool: Pool, key: str) -> None:
        data = frame.series.points(pool.name, key)
        x = data["x"]
        window, step, column_s = self._axis(frame, x)
        for widget_id, (rk, wk), title in (
            ("#chart-mbs", ("rmb", "wmb"), "MiB/s"),
            ("#chart-lat", ("rms", "wms"), "disk wait ms"),
        ):
            series: list[Drawn] = [
                ("read", chart_lines(x, data[rk], step, column_s), "history--read", "braille", True),
                ("write", chart_lines(x, data[wk], step, column_s), "history--write", "braille", True),
            ]
            self._plot(self.query_one(widget_id, Plot), title, window, series)

    def _draw_peers(self, frame: Frame, pool: Pool, key: str, peers: list[Vdev]) -> None:
        points = frame.series.points
        data = peer_overlay(points(pool.name, key), [points(pool.name, p.key) for p in peers])
        x = data["x"]
        window, step, column_s = self._axis(frame, x)
        disk_label = row_label(pool, key) or "this disk"
        for (name, title, _value), widget_id in zip(
            PEER_METRICS, ("#chart-mbs", "#chart-util", "#chart-lat")
        ):
            # The disk a line; its peers drawn over it as dots in every other column, so where
            # the two are equal (the same MiB/s: the point of the chart) both still show.
            disk = chart_lines(x, data[name], step, column_s)
            peer_dots = chart_lines(x, data[f"{name}-peers"], step, 2 * column_s)
            series: list[Drawn] = [
                (disk_label, disk, "history--disk", "braille", True),
                (_peers_name(peers), peer_dots, "history--peers", "dot", False),
            ]
            self._plot(self.query_one(widget_id, Plot), title, window, series)


def _span(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds <= 120 else f"{seconds / 60:.0f} min"


def _ago(x: float, window: float) -> str:
    """A time-axis label: how long before the newest sample, in the window's unit."""
    if x >= 0:
        return "now"
    return f"{x:.0f}s" if window <= 120 else f"{x / 60:.0f}m"


def _peers_name(peers: list[Vdev]) -> str:
    """One peer by its name; several as their median."""
    return peers[0].name if len(peers) == 1 else f"median of {len(peers)} peers"
