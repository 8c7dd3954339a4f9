"""zdash.ui.compositor: the dashboard's partial updates, drawn band by band, write out exactly
what Textual's own compositor writes for the same changes."""

from __future__ import annotations

from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region

from tests.ui.conftest import replay_app, wait_frame
from zdash.scenarios import demo_recording
from zdash.ui.compositor import BandedCompositor, row_bands


def test_rows_that_overlap_or_touch_share_a_band():
    regions = [
        Region(5, 0, 10, 1),
        Region(0, 40, 3, 2),
        Region(2, 1, 4, 2),
        Region(9, 41, 1, 5),
        Region(1, 9, 0, 4),
    ]
    assert row_bands(regions, 80) == [Region(0, 0, 80, 3), Region(0, 40, 80, 6)]
    assert row_bands([], 80) == []


async def test_the_dashboard_writes_out_what_textual_would(monkeypatch):
    """The demo playing (status and replay bars, header, table rows, findings and plots all
    changing), a toast over it and the findings table focused: every partial update the
    dashboard draws is compared with Textual's drawing of the same changed regions."""
    compared: list[tuple[str, str]] = []
    banded = BandedCompositor.render_partial_update

    def both(self: BandedCompositor) -> ChopsUpdate | None:
        regions = set(self._dirty_regions)
        ours = banded(self)
        self._dirty_regions.update(regions)
        theirs = Compositor.render_partial_update(self)
        assert (ours is None) == (theirs is None)
        if ours is not None and theirs is not None:
            compared.append((ours.render_segments(app.console), theirs.render_segments(app.console)))
        return ours

    monkeypatch.setattr(BandedCompositor, "render_partial_update", both)
    app = replay_app(str(demo_recording()), start=0, playing=True, loop=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_frame(pilot)
        assert isinstance(app.screen._compositor, BandedCompositor)
        for step in range(30):
            if step == 10:
                app.notify("a toast over the dashboard", timeout=60)
            if step == 20:
                await pilot.press("f")
            last = app.frame
            await app.clock.step(1.0)
            await wait_frame(pilot, lambda f, last=last: f is not last)
            await pilot.pause()
    assert len(compared) >= 25
    assert all(ours == theirs for ours, theirs in compared)
