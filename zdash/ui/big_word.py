"""The wall's verdict in big letters, readable across a room: OK, WARN, CRIT, STALE and their
glyphs, drawn from a 5x7 pixel font with half-block characters (one cell is one pixel wide and
two pixels tall, and a terminal cell is about twice as tall as it is wide, so the pixels are
square). Solid strokes, not the thin box-drawing lines Textual's Digits use: a thin stroke
vanishes at a distance and on a TV's scaler.

A word is drawn at a scale (1, 2, 3: each pixel repeated that many times both ways); the wall
picks the largest scale its tiles have room for (zdash.ui.wall_layout). Only the letters and
glyphs the verdicts need are drawn; any other text returns None and is shown as plain text."""

from __future__ import annotations

from functools import cache

# 5 pixels wide (3 for I), 7 tall; "#" is ink.
_FONT: dict[str, tuple[str, ...]] = {
    "A": (".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"),
    "C": (".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."),
    "E": ("#####", "#....", "#....", "####.", "#....", "#....", "#####"),
    "I": ("###", ".#.", ".#.", ".#.", ".#.", ".#.", "###"),
    "K": ("#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"),
    "L": ("#....", "#....", "#....", "#....", "#....", "#....", "#####"),
    "N": ("#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#", "#...#"),
    "O": (".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."),
    "R": ("####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"),
    "S": (".####", "#....", "#....", ".###.", "....#", "....#", "####."),
    "T": ("#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."),
    "W": ("#...#", "#...#", "#...#", "#.#.#", "#.#.#", "##.##", "#...#"),
    # the severity glyphs of zdash.ui.roles.SEVERITY_ICON
    "✖": ("#...#", "##.##", ".###.", "..#..", ".###.", "##.##", "#...#"),
    "▲": (".....", "..#..", "..#..", ".###.", ".###.", "#####", "#####"),
    "●": (".....", ".###.", "#####", "#####", "#####", ".###.", "....."),
    "?": (".###.", "#...#", "....#", "..##.", "..#..", ".....", "..#.."),
}
PIXEL_ROWS = 7
_HALVES = {(False, False): " ", (True, False): "▀", (False, True): "▄", (True, True): "█"}


def can_draw(text: str) -> bool:
    return bool(text) and all(ch == " " or ch in _FONT for ch in text)


def rows(scale: int) -> int:
    """Terminal rows a line of big text takes at `scale`."""
    return (PIXEL_ROWS * scale + 1) // 2


def width(text: str, scale: int) -> int:
    """Columns `text` takes at `scale`: letters one pixel apart, a space three pixels wide."""
    if scale < 1 or not can_draw(text):
        return len(text)
    pixels = sum(3 if ch == " " else len(_FONT[ch][0]) for ch in text) + len(text) - 1
    return pixels * scale


@cache
def big_lines(text: str, scale: int) -> tuple[str, ...] | None:
    """`text` as rows(scale) lines of half-block characters, each width(text, scale) wide;
    None when a character has no big form (or scale < 1)."""
    if scale < 1 or not can_draw(text):
        return None
    bitmap = [""] * PIXEL_ROWS
    for n, ch in enumerate(text):
        glyph = ("...",) * PIXEL_ROWS if ch == " " else _FONT[ch]
        for y in range(PIXEL_ROWS):
            bitmap[y] += ("." if n else "") + glyph[y]
    scaled = [
        "".join(px * scale for px in line) for line in bitmap for _ in range(scale)
    ]  # each pixel `scale` wide and `scale` tall
    if len(scaled) % 2:
        scaled.append("." * len(scaled[0]))
    return tuple(
        "".join(_HALVES[(top == "#", bottom == "#")] for top, bottom in zip(scaled[y], scaled[y + 1]))
        for y in range(0, len(scaled), 2)
    )
