"""Issue 27: the wall for distance. The tile grid for 1-12 pools on the terminal sizes a wall
runs at (and the browser wall's ~80x22), the big letters, and the wall theme's contrast
(WCAG 2.1 AA: 4.5:1 for text, 3:1 for large text and for borders and bars)."""

from __future__ import annotations

import pytest
from textual.color import Color

from zdash.ui.big_word import big_lines, can_draw, rows, width
from zdash.ui.themes import load_themes
from zdash.ui.wall_layout import MIN_INNER, TILE_CHROME, plan_wall
from zdash.ui.widgets.pool_tile import OK_WORD, STALE_WORD, WIDEST_USUAL, split_title

WORDS = ("▲ WARN", "✖ CRIT", OK_WORD, STALE_WORD)
SIZES = ((80, 24), (96, 22), (120, 40), (200, 60))


def _widest(scale: int) -> int:
    return width(WIDEST_USUAL, scale)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_one_to_twelve_pools_all_fit_the_screen_and_fewer_pools_get_bigger_letters(size):
    w, h = size
    scales = []
    for n in range(1, 13):
        layout = plan_wall(n, w, h - 1, _widest)
        assert layout.per_page >= n, f"{n} pools do not all show at {w}x{h}"
        assert layout.columns * layout.rows >= n and layout.columns * layout.tile_width <= w
        assert layout.height <= h - 1
        assert layout.tile_width - TILE_CHROME >= max(MIN_INNER, _widest(layout.scale))
        scales.append(layout.scale)
    assert scales == sorted(scales, reverse=True)  # more pools, never bigger letters
    assert scales[0] >= 2 and scales[1] >= 1  # one pool: 7 rows; two: at least 4


def test_more_pools_than_fit_page_through_them():
    layout = plan_wall(40, 80, 23, _widest)
    assert 0 < layout.per_page < 40 and layout.height <= 23


def test_one_pool_leaves_room_for_the_detail_under_its_tile():
    layout = plan_wall(1, 120, 39, _widest)
    assert layout.height <= 0.7 * 39 and layout.scale >= 3


def test_big_letters_are_solid_blocks_of_the_verdict_words():
    for word in WORDS:
        assert can_draw(word)
        for scale in (1, 2, 3):
            lines = big_lines(word, scale)
            assert lines is not None and len(lines) == rows(scale)
            assert {len(line) for line in lines} == {width(word, scale)}
            assert set("".join(lines)) <= set(" ▀▄█")
    assert big_lines("ONLINE?", 0) is None and big_lines("héllo", 1) is None


def test_a_title_splits_into_its_subject_and_why_with_devices_by_their_last_part():
    title = "/dev/mapper/sick is dragging mirror-1: %util 82.3 % vs 2.0 % on its peers"
    assert split_title(title) == ("sick is dragging mirror-1", "%util 82.3 % vs 2.0 % on its peers")
    assert split_title(
        "raidz1-0 has no redundancy left: runs on /dev/loop5, /dev/loop6 (/dev/loop4 OFFLINE)"
    ) == (
        "raidz1-0 has no redundancy left",
        "runs on loop5, loop6 (loop4 OFFLINE)",
    )
    assert split_title("tank is 93% full") == ("tank is 93% full", "")


def _luminance(c: Color) -> float:
    def channel(v: int) -> float:
        s = v / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b)


def contrast(fg: Color, bg: Color) -> float:
    hi, lo = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_wall_theme_passes_wcag_aa_contrast():
    theme = load_themes()["zdash-wall"]
    v = {**theme.to_color_system().generate(), **theme.variables}
    c = {k: Color.parse(v[k]) for k in v if isinstance(v[k], str) and v[k].startswith("#")}
    black = c["background"]
    # The backgrounds the wall draws on: the screen, a WARN and a CRIT tile (their tint, as
    # themes/zdash.tcss blends it), the top line.
    grounds = {
        "background": black,
        "warn tile": black + c["warning"].with_alpha(0.15),
        "crit tile": black + c["error"].with_alpha(0.20),
        "panel": c["panel"],
    }
    text = {  # ink -> (ratio needed): body text 4.5, the big verdict letters are large text
        "foreground": 4.5,
        "foreground-muted": 4.5,
        "text-primary": 4.5,
        "zd-ok": 4.5,
        "zd-warn": 4.5,
        "zd-crit": 4.5,
    }
    failures = []
    for ground, bg in grounds.items():
        for ink, need in text.items():
            fg = bg + c[ink]  # a translucent ink (foreground-muted) blended as CSS draws it
            if (ratio := contrast(fg, bg)) < need:
                failures.append(f"{ink} on {ground}: {ratio:.2f} < {need}")
    # Badges and banners: the theme's background ink on a severity field.
    for field in ("success", "warning", "error"):
        if (ratio := contrast(black, c[field])) < 4.5:
            failures.append(f"background on {field}: {ratio:.2f}")
    # Non-text: tile borders and the capacity bar against the screen.
    for part in ("success", "warning", "error", "primary"):
        if (ratio := contrast(c[part], black)) < 3.0:
            failures.append(f"{part} against the background: {ratio:.2f}")
    assert not failures, failures
