"""Throughput and disk latency over the recent history, for the pool or the selected vdev.
Two small plots side by side; redrawn only when visible and when the data changed, and for new
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
from zdash.ui.app import ZdashApp
from zdash.ui.series import downsample
from zdash.ui.vdev_rows import pool_key, row_label, shown_pool

Stamp = tuple[float, int, str, str, object]  # frame time, samples, pool, row, size
CHART_PERIOD_S = 5.0  # a 10-minute plot's column is ~12 s wide: new data every 5 s shows all


class HistoryChart(Horizontal):
    """Bound to its screen's frame, pool and selected row (data_bind); no row selected (or one
    of another pool): the pool itself. Line colours: the history--read/--write component
    classes (themes/zdash.tcss)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"history--read", "history--write"}
    app = getters.app(ZdashApp)
    frame: var[Frame | None] = var(None)
    pool_name: var[str | None] = var(None)
    selected: var[str | None] = var(None)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._drawn: Stamp | None = None
        self._drawn_at = float("-inf")  # app clock
        self._deferred = False
        self._title = ""

    def compose(self) -> ComposeResult:
        yield PlotextPlot(id="chart-mbs")
        yield PlotextPlot(id="chart-lat")

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _t: self._draw(force=True))

    def watch_frame(self) -> None:
        self._draw(throttle=True)

    def watch_pool_name(self) -> None:
        self._draw()

    def watch_selected(self) -> None:
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
        if f"History · {label}" != self._title:  # a border title repaints, changed or not
            self.border_title = self._title = f"History · {label}"
        if not self.display or not self.screen.is_current:
            return  # hidden: drawn when shown again (on_show / screen resume)
        series = frame.series
        stamp = (frame.time, len(series), pool.name, key, self.size)
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
        mbs, lat = self.query_one("#chart-mbs", PlotextPlot), self.query_one("#chart-lat", PlotextPlot)
        data = downsample(series.points(pool.name, key), max(mbs.size.width - 8, 10))
        span = -data["x"][0] if data["x"] else 0
        read, write = self._rgb("history--read"), self._rgb("history--write")
        for widget, (rk, wk), title in (
            (mbs, ("rmb", "wmb"), "MiB/s"),
            (lat, ("rms", "wms"), "disk wait ms"),
        ):
            plt = widget.plt
            plt.clear_data()
            plt.clear_figure()
            plotted = False
            for k, name, colour in ((rk, "read", read), (wk, "write", write)):
                pts = [(x, y) for x, y in zip(data["x"], data[k]) if y == y]
                if pts:
                    plotted = True
                    plt.plot(
                        [p[0] for p in pts], [p[1] for p in pts], label=name, color=colour, marker="braille"
                    )
            if not plotted:  # latency is unknown, not zero, when nothing was read or written
                title += " · no I/O"
            plt.title(f"{title} · last {span:.0f} s" if span else title)
            plt.ylim(lower=0)
            widget.refresh()
