"""How tall things are in a screenshot of the browser wall, in pixels. xterm.js draws on a
canvas (no text in the DOM), so the verdict is found by its colour: the big letters are blocks
of one theme colour (zd-ok / zd-warn / zd-crit of the zdash-wall theme), connected shapes far
wider than the tile's one-line border of the same colour. The subject line is the first line of
bright text under them, inside the same tile.

Pillow decodes (a 3840x2160 page in pure Python took most of a minute)."""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image, ImageChops

# The big letters' colours in the zdash-wall theme (themes/zdash-wall.yaml: zd-ok, zd-warn,
# zd-crit), by the tile's level.
VERDICT_RGB = {"ok": (0x2E, 0xE8, 0x6A), "warn": (0xFF, 0xD0, 0x00), "crit": (0xFF, 0x4D, 0x4D)}


@dataclass(frozen=True)
class Box:
    left: int
    top: int
    right: int  # exclusive
    bottom: int  # exclusive
    ink: int = 0  # pixels of the colour inside

    @property
    def width(self) -> int:
        return self.right - self.left

    @property
    def height(self) -> int:
        return self.bottom - self.top


def load(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


def _mask(img: Image.Image, rgb: tuple[int, int, int], tolerance: int) -> bytes:
    """One byte per pixel: 1 where the pixel is within `tolerance` (luma of the difference)."""
    diff = ImageChops.difference(img, Image.new("RGB", img.size, rgb)).convert("L")
    return diff.point(lambda v: 1 if v <= tolerance else 0).tobytes()


def shapes(img: Image.Image, rgb: tuple[int, int, int], tolerance: int = 24) -> list[Box]:
    """The bounding boxes of the connected shapes of one colour (4-connected)."""
    w, h = img.size
    mask = bytearray(_mask(img, rgb, tolerance))
    out: list[Box] = []
    for start in range(len(mask)):
        if not mask[start]:
            continue
        mask[start] = 0
        stack = [start]
        left, top, right, bottom, ink = w, h, -1, -1, 0
        while stack:
            p = stack.pop()
            ink += 1
            y, x = divmod(p, w)
            left, right, top, bottom = min(left, x), max(right, x), min(top, y), max(bottom, y)
            for q in (p - 1 if x else -1, p + 1 if x + 1 < w else -1, p - w, p + w):
                if 0 <= q < len(mask) and mask[q]:
                    mask[q] = 0
                    stack.append(q)
        out.append(Box(left, top, right + 1, bottom + 1, ink))
    return out


def verdict_letters(img: Image.Image, level: str) -> list[Box]:
    """The big letters of a verdict of `level`: shapes of its colour at least 1/100 of the page
    wide and tall, and solid (a fifth of their box inked at least: the tile's border, a thin
    rectangle of a near colour, has almost none; text is far smaller)."""
    w, h = img.size
    return [
        b
        for b in shapes(img, VERDICT_RGB[level])
        if b.width >= w / 100 and b.height >= h / 100 and b.ink >= 0.2 * b.width * b.height
    ]


def verdict_box(img: Image.Image, level: str) -> Box | None:
    """The verdict word of `level`: the letters on the line of the tallest one."""
    letters = verdict_letters(img, level)
    if not letters:
        return None
    tallest = max(letters, key=lambda b: b.height)
    line = [b for b in letters if b.top < tallest.bottom and tallest.top < b.bottom]
    return Box(
        min(b.left for b in line),
        min(b.top for b in line),
        max(b.right for b in line),
        max(b.bottom for b in line),
    )


def text_line_below(img: Image.Image, box: Box, limit: int) -> Box | None:
    """The first line of bright text (the subject, bold white) under `box`, across its width
    and at most `limit` pixels down: the rows with ink, from its tallest letter to its lowest
    descender (a one-pixel gap inside a line is allowed)."""
    w, _h = img.size
    bright = _mask(img, (255, 255, 255), 60)
    rows = []
    for y in range(box.bottom, min(box.bottom + limit, img.size[1])):
        line = bright[y * w + box.left : y * w + box.right]
        rows.append(any(line))
    top = next((i for i, ink in enumerate(rows) if ink), None)
    if top is None:
        return None
    end = top
    while end + 1 < len(rows) and (rows[end + 1] or (end + 2 < len(rows) and rows[end + 2])):
        end += 1
    return Box(box.left, box.bottom + top, box.right, box.bottom + end + 1)
