"""Where the wall's tiles go: a grid for 1 to 12 pools (or more) that gives the verdict the
largest letters the screen has room for, leaves the rest to the detail below, and pages
through the pools only when they cannot all be shown at once.

Pure arithmetic on the screen's size (no Textual): the wall screen asks for a layout on every
resize and whenever the set of pools or the verdict words change."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from zdash.ui.big_word import rows as big_rows

MAX_SCALE = 4
# Inside a tile's border and padding: room for "▲ WARN" in plain letters and a few words of
# its subject. Narrower tiles would say nothing.
MIN_INNER = 22
TILE_CHROME = 4  # columns: the heavy border and one column of padding each side
# Rows: the border, then the subject, the why and the capacity under the verdict.
TEXT_LINES = 3
# The tiles come first but should leave the detail (the sickest pool's vdev rows) this share
# of the screen when a smaller verdict makes that possible.
TILE_SHARE = 0.7


def tile_height(scale: int, lines: int = TEXT_LINES) -> int:
    return 2 + (big_rows(scale) if scale >= 1 else 1) + lines


@dataclass(frozen=True, slots=True)
class WallLayout:
    columns: int
    rows: int
    scale: int  # of the verdict: 0 is plain bold text
    tile_width: int
    tile_height: int
    lines: int  # text lines under the verdict: 3, or 2 (no "why") when tight
    per_page: int  # tiles shown at once; fewer than the pools: the rest cycle

    @property
    def height(self) -> int:
        return self.rows * self.tile_height


def plan_wall(pools: int, width: int, height: int, word_width: Callable[[int], int]) -> WallLayout:
    """The grid for `pools` tiles in a width x height area. `word_width(scale)`: the columns the
    widest verdict word shown needs at that scale. Biggest verdict first; among grids with the
    same letters, the one that takes the fewest rows (the most room left for the detail)."""
    pools = max(pools, 1)
    for budget in (int(height * TILE_SHARE), height):
        for lines in (TEXT_LINES, TEXT_LINES - 1):
            for scale in range(MAX_SCALE, -1, -1):
                best: WallLayout | None = None
                for columns in range(1, pools + 1):
                    rows = math.ceil(pools / columns)
                    tile_w = width // columns
                    inner = tile_w - TILE_CHROME
                    if inner < max(MIN_INNER, word_width(scale)):
                        continue
                    tile_h = tile_height(scale, lines)
                    if rows * tile_h > budget:
                        continue
                    layout = WallLayout(columns, rows, scale, tile_w, tile_h, lines, pools)
                    if best is None or layout.height < best.height:
                        best = layout
                if best is not None:
                    return best
            if lines == TEXT_LINES and budget < height:
                break  # within the share, never drop the why: take the whole height first
    # They do not all fit: as many plain tiles as the screen holds, and the rest cycle.
    columns = max(1, width // (MIN_INNER + TILE_CHROME))
    tile_h = tile_height(0, TEXT_LINES - 1)
    rows = max(1, height // tile_h)
    return WallLayout(columns, rows, 0, width // columns, tile_h, TEXT_LINES - 1, columns * rows)
