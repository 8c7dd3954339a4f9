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

from tests.serve.browser import chromium_page, find_chromium, shoot_until
from tests.serve.pixels import load, text_line_below, verdict_box
from tests.serve.test_serve_live import serve  # noqa: F401 - the fixture

# scenario -> the verdicts its tiles show once its fault is on screen
SCENARIOS = {"two-pools": ("crit", "ok"), "deranged-mirror": ("warn",)}
SIZES = ((1920, 1080), (3840, 2160))


def save(png: bytes, path: Path) -> None:
    """Kept small for the repository: 64 colours are all the wall has (blocks and text)."""
    load(png).quantize(colors=64).save(path, optimize=True)


def measure(png: bytes, levels: tuple[str, ...]) -> dict[str, tuple[float, float]] | None:
    """Per verdict level: (word height, subject line height) as fractions of the page height;
    None until every level's word and subject line are on the page."""
    img = load(png)
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
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
async def test_the_browser_wall_reads_across_a_room(serve, tmp_path, scenario, size):  # noqa: F811
    _proc, url = serve("--wall", "--replay", scenario, "--listen", "127.0.0.1:0")
    width, height = size
    levels = SCENARIOS[scenario]
    shot = (
        Path(os.environ.get("ZDASH_SCREENSHOT_DIR", tmp_path))
        / f"wall-browser-{scenario}-{width}x{height}.png"
    )
    async with chromium_page(find_chromium(), width, height) as page:
        # The wall replays from the start: wait for the fault's verdict (two-pools: 7 s in,
        # deranged-mirror: 15 s), bounded by a loop and a half of the recording.
        png, held = await shoot_until(page, url, lambda png: measure(png, levels) is not None, timeout=90)
        save(png, shot)  # to look at, whatever the outcome
    assert held, f"no {'/'.join(levels)} verdict on the page within 90 s: {shot}"
    for level, (word, subject) in (measure(png, levels) or {}).items():
        assert word >= 1 / 10, f"{level}: the verdict word is {word:.1%} of the screen height ({shot})"
        assert subject >= 1 / 40, f"{level}: the subject line is {subject:.1%} of the screen height ({shot})"
