"""`zdash serve --wall --demo` for real, as a subprocess on a free port: the page is
textual-serve's; a websocket (what the page opens) gets the wall drawn by a zdash of its own;
SIGTERM stops the server and that zdash. Then the done-when test: the distribution's chromium
loads the page and its screenshot shows the pool tile."""

from __future__ import annotations

import asyncio
import os
import re
import select
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

pytest.importorskip("textual_serve", reason="the serve extra is not installed: pip install 'zdash[serve]'")
import aiohttp

from tests.serve.browser import (
    PAGE_S,
    PAGE_TEST_S,
    STARTUP_S,
    chromium_page,
    decode_png,
    find_chromium,
    shoot_until,
)

# The pool tile's heavy border: $success, $warning or $error of the zdash-wall theme
# (themes/zdash-wall.yaml; PoolTile in themes/zdash.tcss), by the pool's worst finding.
TILE_BORDERS = {"ok": (0x2E, 0xE8, 0x6A), "warn": (0xFF, 0xD0, 0x00), "crit": (0xFF, 0x3B, 0x3B)}


@pytest.fixture
def serve():
    """Starts `zdash serve ARGS`; yields (process, the URL it printed)."""
    procs: list[subprocess.Popen] = []

    def start(*argv: str) -> tuple[subprocess.Popen, str]:
        proc = subprocess.Popen(
            [sys.executable, "-m", "zdash", "serve", *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "XDG_CONFIG_HOME": "/nonexistent"},
        )
        procs.append(proc)
        ready, _, _ = select.select([proc.stdout], [], [], STARTUP_S)
        assert ready, f"zdash serve printed no URL within {STARTUP_S:g} s"
        url = proc.stdout.readline().strip()
        assert url.startswith("http://"), (url, proc.stderr.read() if proc.poll() is not None else "")
        return proc, url

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def fetch(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, r.read().decode()


async def screen_text(url: str, want: str, timeout: float = 30.0) -> str:
    """What a browser's websocket receives, as text, until `want` is in it (bounded)."""
    ws_url = url.replace("http://", "ws://").rstrip("/") + "/ws?width=120&height=40"
    got = ""
    async with aiohttp.ClientSession() as session, session.ws_connect(ws_url) as ws:
        await ws.send_json(["resize", {"width": 120, "height": 40}])
        end = time.monotonic() + timeout
        while want not in got and time.monotonic() < end:
            try:
                msg = await ws.receive(timeout=max(0.1, end - time.monotonic()))
            except asyncio.TimeoutError:
                break
            if msg.type == aiohttp.WSMsgType.BINARY:
                got += msg.data.decode("utf-8", "replace")
            elif msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                break
    return got


@pytest.mark.slow
async def test_served_wall_page_websocket_and_stop(serve):
    proc, url = serve("--wall", "--demo", "--listen", "127.0.0.1:0")
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", url) and not url.endswith(":0/")
    code, page = await asyncio.to_thread(fetch, url)
    assert code == 200 and 'class="textual-terminal"' in page and "static/js/textual.js" in page
    assert f'data-session-websocket-url="{url.replace("http", "ws")}ws"' in page
    # A browser's session: its own zdash draws the wall (the demo's pool, its state).
    text = await screen_text(url, "tank")
    assert "tank" in text, text[-2000:]
    # The websocket closed above: its zdash is told to quit, and does (bounded).
    _, alive = psutil.wait_procs(psutil.Process(proc.pid).children(recursive=True), timeout=60)
    assert alive == [], "a session's zdash outlived its websocket"
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 0
    assert "stopped (SIGTERM)" in proc.stderr.read()


@pytest.mark.e2e
async def test_a_session_ends_with_the_server(serve):
    proc, url = serve("--wall", "--demo", "--listen", "127.0.0.1:0")
    ws_url = url.replace("http://", "ws://") + "ws?width=100&height=30"
    async with aiohttp.ClientSession() as session, session.ws_connect(ws_url) as ws:
        msg = await ws.receive(timeout=STARTUP_S)  # its zdash is running and drawing
        assert msg.type == aiohttp.WSMsgType.BINARY
        children = psutil.Process(proc.pid).children(recursive=True)
        assert any("zdash" in " ".join(c.cmdline()) for c in children)
        proc.send_signal(signal.SIGTERM)
        # Bounded waits on the exits themselves, wide enough for a machine at load 20 (15 s was
        # not): a pass takes as long as the exit does.
        assert await asyncio.to_thread(proc.wait, 60) == 0
        _, alive = await asyncio.to_thread(psutil.wait_procs, children, 30)
        assert alive == [], "the browser's zdash outlived the server"


def tile_box(png: bytes) -> tuple[str, int, int, int] | None:
    """The pool tile in a screenshot: a rectangle of one tile border colour, as (state, top row,
    bottom row, width in px) — a horizontal run over half the width at its top and bottom and
    the same colour down its left side between them. None when there is none."""
    width, height, bpp, px = decode_png(png)

    def near(x: int, y: int, rgb: tuple[int, int, int]) -> bool:
        i = (y * width + x) * bpp
        return all(abs(px[i + k] - rgb[k]) <= 24 for k in range(3))

    for state, rgb in TILE_BORDERS.items():
        rows = []
        for y in range(height):
            run = best = 0
            for x in range(0, width, 2):
                run = run + 2 if near(x, y, rgb) else 0
                best = max(best, run)
            if best >= width // 2:
                rows.append((y, best))
        if len(rows) < 2:
            continue
        top, bottom = rows[0][0], rows[-1][0]
        left = next((x for x in range(width) if near(x, top, rgb)), None)
        if left is None or bottom - top < 40:
            continue
        side = sum(near(left + dx, y, rgb) for y in range(top, bottom) for dx in range(8)) > (bottom - top)
        if side:
            return state, top, bottom, rows[0][1]
    return None


@pytest.mark.e2e
@pytest.mark.skipif(
    find_chromium() is None, reason="no chromium on this host (apt-get install chromium): no real browser"
)
@pytest.mark.parametrize("listen", ["127.0.0.1:0", "0.0.0.0:0"], ids=["localhost", "token"])
@pytest.mark.timeout(PAGE_TEST_S)
async def test_a_real_browser_shows_the_pool_tile(serve, tmp_path, listen):
    """Done when (issue 16): the distribution's chromium loads `zdash serve --wall --demo` and
    its screenshot shows the pool tile. xterm.js draws on a canvas (here its 2D canvas layers:
    no .xterm-rows in the DOM), so there is no text to find: the tile is found by its border
    colour, as a rectangle. On every interface the printed URL carries the token: the browser
    opens it once, and the page's scripts and websocket get through on the cookie alone."""
    _proc, url = serve("--wall", "--demo", "--listen", listen)
    if listen.startswith("0.0.0.0"):
        assert "?token=" in url
        url = re.sub(r"^http://[^/]+:", "http://127.0.0.1:", url)  # printed with this host's name
    shot = Path(os.environ.get("ZDASH_SCREENSHOT_DIR", tmp_path)) / f"serve-wall-chromium-{listen[:-2]}.png"
    async with chromium_page(find_chromium()) as page:
        png, held = await shoot_until(page, url, lambda png: tile_box(png) is not None, timeout=PAGE_S)
        shot.write_bytes(png)  # to look at, whatever the outcome
    assert held, f"no pool tile in the browser's screenshot after {PAGE_S:g} s: {shot}"
    _state, top, bottom, run = tile_box(png)
    width, height, _bpp, _px = decode_png(png)
    # The tiles lead the wall: near the top, several rows tall, across most of the page.
    assert top < height // 3 and bottom - top >= 60 and run >= 0.8 * width


def png_of(width: int, height: int, paint) -> bytes:
    """An RGB PNG (filter 0) whose pixel (x, y) is paint(x, y)."""
    import struct
    import zlib

    rows = b"".join(b"\0" + b"".join(bytes(paint(x, y)) for x in range(width)) for y in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def test_the_tile_finder_wants_a_border_rectangle():
    """What the browser test accepts: a box in a tile colour; not a splash, not a lone line."""
    splash = png_of(320, 200, lambda x, y: (0x0C, 0x18, 0x1F))
    line = png_of(320, 200, lambda x, y: TILE_BORDERS["warn"] if y == 20 else (0, 0, 0))

    def tile(x: int, y: int) -> tuple[int, int, int]:
        edge = (y in (10, 11, 90, 91) and 4 <= x < 300) or (x in (4, 5, 6, 298, 299) and 10 <= y <= 91)
        return TILE_BORDERS["crit"] if edge else (0, 0, 0)

    assert tile_box(splash) is None and tile_box(line) is None
    assert tile_box(png_of(320, 200, tile)) == ("crit", 10, 91, 296)


@pytest.mark.e2e
@pytest.mark.skipif(
    find_chromium() is None, reason="no chromium on this host (apt-get install chromium): no real browser"
)
async def test_the_token_cookie_reaches_no_other_web_service_of_the_host(serve):
    """Issue #25: a cookie set by 127.0.0.1:PORT is sent by the browser to every port of the
    host. Another web service of this host (here a second server on another port, recording the
    Cookie header of every request) must not receive the token, for any path a browser would ask
    it for; only a request to serve's own path (which that service cannot know) would carry it:
    the control that the browser really holds the cookie."""
    from aiohttp import web

    from zdash.serve.guard import COOKIE, private_path

    token = "Cookie-scope-test-token-0123456789"
    _proc, url = serve("--wall", "--demo", "--listen", "127.0.0.1:0", "--token", token)
    seen: list[tuple[str, str]] = []

    async def record(request: web.Request) -> web.Response:
        seen.append((request.path, request.headers.get("Cookie", "")))
        return web.Response(text="another service of this host\n")

    other = web.Application()
    other.router.add_route("GET", "/{tail:.*}", record)
    runner = web.AppRunner(other, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    own = f"/{private_path(token)}"
    try:
        async with chromium_page(find_chromium()) as page:
            await page.call("Page.navigate", url=url)
            cookies: list[dict] = []
            end = time.monotonic() + 30
            while not cookies and time.monotonic() < end:  # the page loaded and set it
                await asyncio.sleep(0.3)
                cookies = [
                    c for c in (await page.call("Network.getAllCookies"))["cookies"] if c["name"] == COOKIE
                ]
            assert cookies and cookies[0]["path"] == f"{own}/" and cookies[0]["httpOnly"], cookies
            for path in ("/", "/ws", "/static/js/textual.js", "/download/x", f"{own}/ws"):
                await page.call("Page.navigate", url=f"http://127.0.0.1:{port}{path}")
                end = time.monotonic() + 15
                while not any(p == path for p, _ in seen) and time.monotonic() < end:
                    await asyncio.sleep(0.1)
    finally:
        await runner.cleanup()
    got = dict(seen)
    assert set(got) >= {"/", "/ws", "/static/js/textual.js", "/download/x", f"{own}/ws"}, got
    leaked = [p for p, cookie in got.items() if token in cookie and p != f"{own}/ws"]
    assert not leaked, f"the token reached another service at {leaked}"
    assert token in got[f"{own}/ws"]  # the control: the browser does hold it, for serve's path only
