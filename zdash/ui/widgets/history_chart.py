"""Throughput and disk latency over the recent history, for the pool or the selected vdev.
Two small plots side by side (read and write); on a disk with vdev peers, three (MiB/s, %UTIL,
disk wait), each the disk against its peers: a sick disk moves the same MiB/s as its peers at a
far higher %UTIL and wait, and that is drawn (`p` switches back to read and write); redrawn only when visible and when the data changed, and for new
data at most every CHART_PERIOD_S: a plot of ten minutes gains nothing visible from a redraw
every second, and plotext's two redraws were most of a frame's CPU. A change of pool, row,
size or theme redraws at once."""

from __future__ import annotations

from typing import ClassVar

from textual import getters
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.reactive import var
from textual_plotext import PlotextPlot

from zdash.feed.frame import Frame
from zdash.model import Pool, Vdev
from zdash.ui.app import ZdashApp
from zdash.ui.series import PEER_METRICS, downsample, peer_overlay
from zdash.ui.vdev_rows import peers_of, pool_key, row_label, shown_pool

Stamp = tuple[float, int, str, str, object, bool]  # frame time, samples, pool, row, size, peers
CHART_PERIOD_S = 5.0  # a 10-minute plot's column is ~12 s wide: new data every 5 s shows all


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
        self._deferred = False
        self._title = ""

    def compose(self) -> ComposeResult:
        yield PlotextPlot(id="chart-mbs")
        yield PlotextPlot(id="chart-util")
        yield PlotextPlot(id="chart-lat")

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
        self._draw(force=True)

    def _rgb(self, component: str) -> tuple[int, int, int]:
        """A theme colour for plotext (it takes RGB tuples, not Textual variables)."""
        return self.get_component_styles(component).color.rgb

    def _draw(self, force: bool = False, throttle: bool = False) -> None:
        frame = self.frame
        pool = shown_pool(frame.snapshot, self.pool_name) if frame is not None else None
        if frame is None or pool is None or not self.is_mounted:
            return
        key = self.selected
        label = row_label(pool, key) if key is not None else None
        if key is None or label is None:  # nothing selected, or a row of another pool
            key, label = pool_key(pool), f"pool {pool.name}"
        group = peers_of(pool, key) if self.peers else None
        if group is not None:
            disk, top, peers = group
            label = f"{disk.name} against {_peers_name(peers)} in {top.name}"
        if f"History · {label}" != self._title:  # a border title repaints, changed or not
            self.border_title = self._title = f"History · {label}"
        if not self.display or not self.screen.is_current:
            return  # hidden: drawn when shown again (on_show / screen resume)
        series = frame.series
        stamp = (frame.time, len(series), pool.name, key, self.size, group is not None)
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
        util = self.query_one("#chart-util", PlotextPlot)
        util.display = group is not None
        if group is not None:
            self._draw_peers(frame, pool, key, group[2])
        else:
            self._draw_read_write(frame, pool, key)

    def _plot(
        self,
        widget: PlotextPlot,
        title: str,
        span: float,
        lines: list[tuple[str, list[float], list[float], str, str]],
    ) -> None:
        """One plot: `lines` of (label, x, y, component class, plotext marker); NaN points left
        out (a gap)."""
        plt = widget.plt
        plt.clear_data()
        plt.clear_figure()
        plotted = False
        for name, xs, ys, component, marker in lines:
            pts = [(x, y) for x, y in zip(xs, ys) if y == y]
            if pts:
                plotted = True
                colour = self._rgb(component)
                plt.plot([p[0] for p in pts], [p[1] for p in pts], label=name, color=colour, marker=marker)
        if not plotted:  # latency is unknown, not zero, when nothing was read or written
            title += " · no I/O"
        plt.title(f"{title} · last {span:.0f} s" if span else title)
        plt.ylim(lower=0)
        widget.refresh()

    def _draw_read_write(self, frame: Frame, pool: Pool, key: str) -> None:
        mbs, lat = self.query_one("#chart-mbs", PlotextPlot), self.query_one("#chart-lat", PlotextPlot)
        data = downsample(frame.series.points(pool.name, key), max(mbs.size.width - 8, 10))
        span = -data["x"][0] if data["x"] else 0
        for widget, (rk, wk), title in (
            (mbs, ("rmb", "wmb"), "MiB/s"),
            (lat, ("rms", "wms"), "disk wait ms"),
        ):
            x = data["x"]
            lines = [
                ("read", x, data[rk], "history--read", "braille"),
                ("write", x, data[wk], "history--write", "braille"),
            ]
            self._plot(widget, title, span, lines)

    def _draw_peers(self, frame: Frame, pool: Pool, key: str, peers: list[Vdev]) -> None:
        series = frame.series
        data = peer_overlay(series.points(pool.name, key), [series.points(pool.name, p.key) for p in peers])
        mbs = self.query_one("#chart-mbs", PlotextPlot)
        data = downsample(data, max(mbs.size.width - 8, 10))
        span = -data["x"][0] if data["x"] else 0
        disk_label = row_label(pool, key) or "this disk"
        for (name, title, _value), widget_id in zip(
            PEER_METRICS, ("#chart-mbs", "#chart-util", "#chart-lat")
        ):
            x = data["x"]
            self._plot(
                self.query_one(widget_id, PlotextPlot),
                title,
                span,
                [  # the disk drawn last, over its peers; the peers in dots: apart without colour too
                    (_peers_name(peers), x, data[f"{name}-peers"], "history--peers", "dot"),
                    (disk_label, x, data[name], "history--disk", "braille"),
                ],
            )


def _peers_name(peers: list[Vdev]) -> str:
    """One peer by its name; several as their median."""
    return peers[0].name if len(peers) == 1 else f"median of {len(peers)} peers"
