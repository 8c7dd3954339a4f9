"""Issue 27, done when: the browser wall read across a room. The distribution's chromium opens
`zdash serve --wall` on two bundled scenarios at 1920x1080 and 3840x2160, with no ?fontsize=
(the page sizes its letters to the screen), and the screenshot is measured in pixels: every
tile's verdict word at least 1/10 of the screen's height, its subject line at least 1/40.

ZDASH_SCREENSHOT_DIR=docs/screenshots keeps the pictures (the README shows them)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("textual_serve", reason="the serve extra is not installed: pip install 'zdash[serve]'")

from tests.serve.browser import PAGE_S, PAGE_TEST_S, chromium_page, find_chromium, shoot_until
from tests.serve.pixels import load, text_line_below, verdict_box
from tests.serve.test_serve_live import serve  # noqa: F401 - the fixture

# scenario -> the verdicts its tiles show once its fault is on screen
SCENARIOS = {"two-pools": ("crit", "ok"), "deranged-mirror": ("warn",)}
SIZES = ((1920, 1080), (3840, 2160))


def save(png: bytes, path: Path) -> None:
    """Kept small for the repository: 64 colours are all the wall has (blocks and text)."""
    load(png).quantize(colors=64).save(path, optimize=True)


def measure(png: bytes, levels: tuple[str, ...], reduce: int = 1) -> dict[str, tuple[float, float]] | None:
    """Per verdict level: (word height, subject line height) as fractions of the page height;
    None until every level's word and subject line are on the page. `reduce`: measure on the
    page shrunk by that factor (cheap, to wait for the page; the heights are then coarser)."""
    img = load(png)
    if reduce > 1:
        img = img.reduce(reduce)
    height = img.size[1]
    out = {}
    for level in levels:
        word = verdict_box(img, level)
        if word is None:
            return None
        subject = text_line_below(img, word, height // 8)
        if subject is None:
            return None
        out[level] = (word.height / height, subject.height / height)
    return out


@pytest.mark.e2e
@pytest.mark.skipif(
    find_chromium() is None, reason="no chromium on this host (apt-get install chromium): no real browser"
)
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
@pytest.mark.timeout(PAGE_TEST_S + PAGE_S * (len(SIZES) - 1))  # a page load per size
async def test_the_browser_wall_reads_across_a_room(serve, tmp_path, scenario):  # noqa: F811
    """One server, one browser: 1920x1080, then the same page at 3840x2160."""
    _proc, url = serve("--wall", "--replay", scenario, "--listen", "127.0.0.1:0")
    levels = SCENARIOS[scenario]
    folder = Path(os.environ.get("ZDASH_SCREENSHOT_DIR", tmp_path))
    async with chromium_page(find_chromium(), *SIZES[0]) as page:
        for width, height in SIZES:
            await page.set_size(width, height)
            shot = folder / f"wall-browser-{scenario}-{width}x{height}.png"
            # The wall replays from the start: wait for the fault's verdict (two-pools: 7 s in,
            # deranged-mirror: 15 s), bounded by PAGE_S. The page is loaded again at each
            # size: its letters are sized when it loads.
            png, held = await shoot_until(
                page, url, lambda png, w=width: measure(png, levels, w // 960) is not None, timeout=PAGE_S
            )
            save(png, shot)  # to look at, whatever the outcome
            assert held, f"no {'/'.join(levels)} verdict on the page within {PAGE_S:g} s: {shot}"
            for level, (word, subject) in (measure(png, levels) or {}).items():  # at full resolution
                assert word >= 1 / 10, (
                    f"{level}: the verdict word is {word:.1%} of the screen height ({shot})"
                )
                assert subject >= 1 / 40, (
                    f"{level}: the subject line is {subject:.1%} of the screen height ({shot})"
                )
