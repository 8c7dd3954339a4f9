"""Throughput and disk latency over the recent history, for the pool or the selected vdev.
Two small plots side by side; redrawn only when visible and when the data changed."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.color import Color
from textual.containers import Horizontal
from textual_plotext import PlotextPlot

from zdash.model import Snapshot
from zdash.ui.series import downsample, extract


def _rgb(app, *names: str) -> tuple[int, int, int]:
    """A theme colour for plotext (it takes RGB tuples, not Textual variables)."""
    variables = app.theme_variables
    for name in names:
        try:
            return Color.parse(variables[name]).rgb
        except Exception:  # noqa: BLE001 - missing or not a plain colour: try the next one
            continue
    return Color.parse(variables.get("foreground", "#ffffff")).rgb


class HistoryChart(Horizontal):
    def compose(self) -> ComposeResult:
        yield PlotextPlot(id="chart-mbs")
        yield PlotextPlot(id="chart-lat")

    def on_mount(self) -> None:
        self._args: tuple | None = None
        self._drawn: tuple | None = None
        self.app.theme_changed_signal.subscribe(self, lambda _t: self._draw(force=True))

    def show(self, history: Sequence[Snapshot], pool: str, key: str, label: str) -> None:
        self._args = (history, pool, key, label)
        self.border_title = f"History · {label}"
        self._draw()

    def on_show(self) -> None:
        self._draw()

    def on_resize(self) -> None:
        self._draw(force=True)

    def _draw(self, force: bool = False) -> None:
        if self._args is None or not self.display or not self.screen.is_current:
            return  # hidden: drawn when shown again (on_show / screen resume)
        history, pool, key, _label = self._args
        stamp = (history[-1] if history else None, pool, key, self.size)
        if stamp == self._drawn and not force:
            return
        self._drawn = stamp
        mbs, lat = self.query_one("#chart-mbs", PlotextPlot), self.query_one("#chart-lat", PlotextPlot)
        data = downsample(extract(history, pool, key), max(mbs.size.width - 8, 10))
        span = -data["x"][0] if data["x"] else 0
        read, write = _rgb(self.app, "text-primary", "primary"), _rgb(self.app, "text-accent", "accent")
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
