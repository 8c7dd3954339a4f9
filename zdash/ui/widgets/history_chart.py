"""Throughput and disk latency over the recent history, for the pool or the selected vdev.
Two small plots side by side; redrawn only when visible and when the data changed."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.reactive import var
from textual_plotext import PlotextPlot

from zdash.feed.frame import Frame
from zdash.ui.series import downsample
from zdash.ui.vdev_rows import pool_key, row_label, shown_pool

Stamp = tuple[float, int, str, str, object]  # frame time, samples, pool, row, size


class HistoryChart(Horizontal):
    """Bound to its screen's frame, pool and selected row (data_bind); no row selected (or one
    of another pool): the pool itself. Line colours: the history--read/--write component
    classes (themes/zdash.tcss)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"history--read", "history--write"}
    frame: var[Frame | None] = var(None)
    pool_name: var[str | None] = var(None)
    selected: var[str | None] = var(None)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._drawn: Stamp | None = None

    def compose(self) -> ComposeResult:
        yield PlotextPlot(id="chart-mbs")
        yield PlotextPlot(id="chart-lat")

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _t: self._draw(force=True))

    def watch_frame(self) -> None:
        self._draw()

    def watch_pool_name(self) -> None:
        self._draw()

    def watch_selected(self) -> None:
        self._draw()

    def on_show(self) -> None:
        self._draw()

    def on_resize(self) -> None:
        self._draw(force=True)

    def _rgb(self, component: str) -> tuple[int, int, int]:
        """A theme colour for plotext (it takes RGB tuples, not Textual variables)."""
        return self.get_component_styles(component).color.rgb

    def _draw(self, force: bool = False) -> None:
        frame = self.frame
        pool = shown_pool(frame.snapshot, self.pool_name) if frame is not None else None
        if frame is None or pool is None or not self.is_mounted:
            return
        key = self.selected
        label = row_label(pool, key) if key is not None else None
        if key is None or label is None:  # nothing selected, or a row of another pool
            key, label = pool_key(pool), f"pool {pool.name}"
        self.border_title = f"History · {label}"
        if not self.display or not self.screen.is_current:
            return  # hidden: drawn when shown again (on_show / screen resume)
        series = frame.series
        stamp = (frame.time, len(series), pool.name, key, self.size)
        if stamp == self._drawn and not force:
            return
        self._drawn = stamp
        mbs, lat = self.query_one("#chart-mbs", PlotextPlot), self.query_one("#chart-lat", PlotextPlot)
        data = downsample(series.points(pool.name, key), max(mbs.size.width - 8, 10))
        span = -data["x"][0] if data["x"] else 0
        read, write = self._rgb("history--read"), self._rgb("history--write")
        for widget, (rk, wk), title in ((mbs, ("rmb", "wmb"), "MB/s"), (lat, ("rms", "wms"), "disk wait ms")):
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
