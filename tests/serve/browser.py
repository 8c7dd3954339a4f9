"""A real browser for the served page: the distribution's chromium, headless, driven over the
DevTools protocol (aiohttp's websocket client; no browser download, no new dependency).

Chromium's --screenshot mode cannot be used: its virtual time runs ahead of the page's websocket
and the zdash process behind it, so it shoots textual-serve's splash before the first byte of
the terminal. Here the page loads in real time and screenshots are taken until the caller's
test holds or a deadline passes."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import shutil
import struct
import subprocess
import tempfile
import time
import zlib
from collections.abc import AsyncIterator, Callable
from itertools import count
from pathlib import Path

import aiohttp

# How long a process may take to start and draw (zdash serve printing its URL, chromium opening
# its DevTools port, the first frame in the page): a bound, not a wait. At load 25-60 on the
# 2-core build machine a start-up took over 30 s and 45 s was not enough for the first frame.
STARTUP_S = 120.0
# How long a page in chromium may take, from its load, to show what a test waits for (the pool
# tile, the wall's verdict): textual-serve's splash while the session's zdash starts, then the
# replay to its fault, screenshots between. At load 35-40 the splash stayed ~40 s and a 4K
# screenshot with its measure took 10-20 s: the wall's verdict held 100-116 s in (3 runs), and
# at load 38-57 all three browser tests failed a 120 s bound in the e2e suite. A bound, not a wait.
PAGE_S = 240.0
# The pytest-timeout of a test that opens a page: its own bounds plus a minute, so a slow page
# fails on the bound that names what was missing (with its screenshot), not on the suite's 240 s
# (at load 20 the pool tile test hit that mid-wait: serve and chromium starting took part of it).
PAGE_TEST_S = 2 * STARTUP_S + PAGE_S + 60.0


BROWSERS = ("chromium", "chromium-browser")


def find_chromium() -> str | None:
    return next((p for name in BROWSERS if (p := shutil.which(name))), None)


class Page:
    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws, self._ids = ws, count(1)

    async def call(self, method: str, **params: object) -> dict:
        n = next(self._ids)
        await self.ws.send_json({"id": n, "method": method, "params": params})
        async for msg in self.ws:
            reply = json.loads(msg.data)
            if reply.get("id") == n:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
        raise RuntimeError("the browser closed the DevTools connection")

    async def set_size(self, width: int, height: int) -> None:
        """The page exactly width x height CSS pixels, one device pixel each (--window-size
        counts the window's own frame: a 1080-high window left a 937-high page)."""
        await self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    async def screenshot(self) -> bytes:
        return base64.b64decode((await self.call("Page.captureScreenshot", format="png"))["data"])


@contextlib.asynccontextmanager
async def chromium_page(browser: str, width: int = 1280, height: int = 800) -> AsyncIterator[Page]:
    # Chromium's helpers (crashpad, the zygote) may still write into the profile as it goes.
    with tempfile.TemporaryDirectory(prefix="zdash-chromium-", ignore_cleanup_errors=True) as profile:
        proc = subprocess.Popen(
            [
                browser,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--remote-debugging-port=0",
                f"--user-data-dir={profile}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            port_file = Path(profile) / "DevToolsActivePort"
            deadline = time.monotonic() + STARTUP_S
            while not port_file.exists() or not port_file.read_text().strip():
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{browser} did not open its DevTools port")
                await asyncio.sleep(0.1)
            port = int(port_file.read_text().split()[0])
            async with aiohttp.ClientSession() as session:
                async with session.get(f"http://127.0.0.1:{port}/json/list") as r:
                    targets = await r.json()
                url = next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")
                async with session.ws_connect(url, max_msg_size=0) as ws:
                    page = Page(ws)
                    await page.set_size(width, height)
                    yield page
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


async def shoot_until(
    page: Page, url: str, holds: Callable[[bytes], bool], timeout: float = 40.0
) -> tuple[bytes, bool]:
    """Open url, then screenshot it until holds(png) or the deadline: (the last png, held)."""
    await page.call("Page.navigate", url=url)
    deadline = time.monotonic() + timeout
    png = b""
    while True:
        try:
            png = await page.screenshot()
        except RuntimeError:  # between documents: "Not attached to an active page"
            if time.monotonic() > deadline:
                raise
        else:
            if holds(png):
                return png, True
        if time.monotonic() > deadline:
            return png, False
        await asyncio.sleep(0.5)


def decode_png(data: bytes) -> tuple[int, int, int, bytes]:
    """(width, height, bytes per pixel, the raw rows unfiltered): 8-bit RGB or RGBA, not
    interlaced, which is what chromium writes."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _c, _f, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and color in (2, 6) and not interlace, (depth, color, interlace)
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    out = bytearray(stride * height)
    prev = bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif f == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        out[y * stride : (y + 1) * stride] = line
        prev = line
    return width, height, bpp, bytes(out)
