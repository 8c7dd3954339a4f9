"""Under the history chart: the selected disk's latency histogram against its vdev peers', as a
heat strip (zdash.ui.latency_strip), when zdash has read one (while a finding names the disk).
Hidden otherwise: it takes no rows from the chart when there is nothing to draw."""

from __future__ import annotations

from textual.reactive import var
from textual.widgets import Static

from zdash.feed.frame import Frame
from zdash.model import LatencyHistogram, Pool, Snapshot, histogram_names, pooled
from zdash.ui.latency_strip import since_words, strip_content
from zdash.ui.roles import Role
from zdash.ui.vdev_rows import peers_of, shown_pool


def histogram_rows(
    snap: Snapshot, pool: Pool, key: str
) -> tuple[list[tuple[str, LatencyHistogram, Role]], str] | None:
    """(rows, title) for the disk a row key names against its peers, or None when zdash has no
    histogram of it and of at least one peer."""
    group = peers_of(pool, key)
    if group is None:
        return None
    disk, top, peers = group
    ev = snap.evidence
    mine = ev.histogram(pool.name, *histogram_names(disk))
    theirs = [h for v in peers if (h := ev.histogram(pool.name, *histogram_names(v))) is not None]
    if mine is None or not theirs:
        return None
    names = ", ".join(v.name for v in peers[:3]) + (f" +{len(peers) - 3}" if len(peers) > 3 else "")
    rows = [
        (disk.name, mine, "warn"),
        (f"peers ({len(theirs)})" if len(theirs) > 1 else peers[0].name, pooled(theirs), "ok"),
    ]
    title = f"Disk wait histogram · {disk.name} vs {names} in {top.name} · {since_words(mine)}"
    return rows, title  # type: ignore[return-value]


class LatencyPanel(Static):
    frame: var[Frame | None] = var(None)
    pool_name: var[str | None] = var(None)
    selected: var[str | None] = var(None)

    def watch_frame(self) -> None:
        self._draw()

    def watch_pool_name(self) -> None:
        self._draw()

    def watch_selected(self) -> None:
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        frame = self.frame
        pool = shown_pool(frame.snapshot, self.pool_name) if frame is not None else None
        got = (
            histogram_rows(frame.snapshot, pool, self.selected) if frame and pool and self.selected else None
        )
        self.set_class(got is None, "-empty")  # hidden by the stylesheet, as the chart is
        if got is not None:
            rows, title = got
            self.update(strip_content(rows, max(self.size.width, 40), title))
