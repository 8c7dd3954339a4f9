"""A screen's partial update drawn band by band, not over the box around every change.

Textual draws an update of a few regions by taking the box that holds them all and asking
every widget that box overlaps for all of its lines (its cached strips, cropped and cut at
every other widget's edges), then writing out only the changed lines. On the dashboard the
status bar (the first row) and the replay bar (the last) change every frame, so that box is
the whole screen: each frame every widget's every line was taken again (the two plots, the
chart, the body and the screen itself, ~250 lines at 200x60) to write out a dozen.

`BandedCompositor` splits the changed regions into bands of rows (regions whose rows overlap
or touch share a band) and asks each widget for the lines of each band it overlaps only.
Each band spans the screen's width, so the strips are cut at the same edges as before, and
the widgets are painted in the same order: the lines written out are the same (tests/ui/
test_compositor.py compares both ways). A widget whose lines in a band would all be thrown away
(every cut of them filled by widgets in front: the body behind the table, the screen behind
everything) is not asked for them. A full update (a layout, a resize) is Textual's own."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region
from textual.strip import Strip


def row_bands(regions: Iterable[Region], width: int) -> list[Region]:
    """The rows `regions` cover as screen-wide bands, top first; regions whose rows overlap or
    touch share one."""
    spans = sorted((r.y, r.y + r.height) for r in regions if r.height > 0 and r.width > 0)
    bands: list[list[int]] = []
    for top, bottom in spans:
        if bands and top <= bands[-1][1]:
            bands[-1][1] = max(bands[-1][1], bottom)
        else:
            bands.append([top, bottom])
    return [Region(0, top, width, bottom - top) for top, bottom in bands]


class BandedCompositor(Compositor):
    """Textual's Compositor whose partial updates take each widget's lines of the changed
    bands only (see the module)."""

    def render_partial_update(self) -> ChopsUpdate | None:
        screen_region = self.size.region
        update_regions = self._dirty_regions.copy()
        self._dirty_regions.clear()
        clipped = (
            band.intersection(screen_region) for band in row_bands(update_regions, screen_region.width)
        )
        bands = [band for band in clipped if band]
        if not bands:
            return None
        spans = list(self._regions_to_spans(update_regions))
        return ChopsUpdate(self._band_chops(bands), spans, [cut_set[1:] for cut_set in self.cuts])

    def _band_chops(self, bands: Sequence[Region]) -> Sequence[Mapping[int, Strip | None]]:
        """Textual's _render_chops, each widget asked for the lines of each band it overlaps
        (Textual asks for all its lines once the box of the update overlaps it)."""
        cuts = self.cuts
        chops: list[dict[int, Strip | None]] = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
        intersection = Region.intersection
        widgets = list(self.visible_widgets.items())  # front first: the first strip of a cut wins
        for band in bands:
            for widget, (region, clip) in widgets:
                drawn = intersection(intersection(region, clip), band)
                if not drawn:
                    continue
                first_cut, last_cut = drawn.column_span
                # Each line's cuts in the widget's span: its strip's pieces go to all but the
                # last (the widget's right edge). Where a widget in front has filled every one
                # of them (a container behind its children, the screen behind the body), the
                # widget's lines would all be thrown away: they are not asked for.
                line_cuts = [
                    (y, [cut for cut in cuts[y] if last_cut >= cut >= first_cut]) for y in drawn.line_range
                ]
                if all(
                    chops[y].get(cut) is not None for y, final_cuts in line_cuts for cut in final_cuts[:-1]
                ):
                    continue
                strips = widget.render_lines(
                    Region(drawn.x - region.x, drawn.y - region.y, drawn.width, drawn.height)
                )
                render_x = drawn.x
                for (y, final_cuts), strip in zip(line_cuts, strips):
                    chops_line = chops[y]
                    cut_strips = strip.divide([cut - render_x for cut in final_cuts[1:]])
                    for cut, piece in zip(final_cuts, cut_strips):
                        if chops_line.get(cut) is None:
                            chops_line[cut] = piece
        return chops
