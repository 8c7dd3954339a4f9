"""textual-serve's Server with zdash's guard in front, the page's URLs taken from the request
(the server may be bound to 0.0.0.0 or port 0, which no browser can open), a cap on sessions,
and a run loop that says the bound port and stops the browsers' zdash processes on the way out.

Bounded (issue #25): connections capped below the file limit, idle ones given up first, 503
beyond (zdash.serve.limits); each session's size clamped, bad messages dropped, its zdash ended
when its browser goes (zdash.serve.session); libraries' errors logged in one line, no traceback.
With a token, everything but the entry page lives under a path of its own (zdash.serve.guard:
the cookie is scoped to it, so other web services of the host never receive the token).

Each browser that opens the page gets its own process of `command` (textual-serve starts it
under Textual's web driver and relays its screen to xterm.js in the page)."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable

from aiohttp import web
from textual_serve.server import Server

from zdash.serve.guard import guard, private_path
from zdash.serve.limits import BACKLOG, CappedRunner, Connections, connection_cap, quiet_logs
from zdash.serve.session import session

# Each session is a zdash process of its own (~100 MB): a few TVs and desks, not a crowd.
MAX_SESSIONS = 10
# A Host header the page may repeat in its websocket URL: a name or address and a port.
_HOST = re.compile(r"[A-Za-z0-9.\-]+(:\d{1,5})?|\[[0-9A-Fa-f:.]+\](:\d{1,5})?")
STOP_S = 5.0  # the most a stop waits for the browsers' sessions to end
# The wall's page sizes its letters to the screen, so a TV needs no ?fontsize=: about 80 columns
# by 22 rows on any 16:9 screen, 1080p or 4K alike (xterm's cell is ~0.6 x 1.17 of the font
# size): a line of text then stands over 1/40 of the screen high, capitals included, and the
# wall lays itself out as on an 80x24 terminal. An explicit ?fontsize= wins; a window resized by
# more than a tenth reloads to refit (xterm.js takes its font size once, when the page loads).
FIT_FONT = """<script>
(function () {
  if (new URLSearchParams(location.search).has("fontsize")) return;
  var fit = function () { return Math.max(12, Math.floor(Math.min(innerHeight / 27, innerWidth / 48))); };
  var size = fit();
  document.getElementById("terminal").dataset.fontSize = String(size);
  var timer;
  addEventListener("resize", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { if (Math.abs(fit() - size) > size / 10) location.reload(); }, 1000);
  });
})();
</script>
"""


class ZdashServer(Server):
    def __init__(self, command: str, host: str, port: int, token: str | None, fit_font: bool = False) -> None:
        super().__init__(command, host=host, port=port, title="zdash")
        self.token = token
        self.fit_font = fit_font  # the wall: letters sized to the screen (FIT_FONT)
        self.sessions: set[asyncio.Task[object]] = set()
        self.connections = Connections(connection_cap(MAX_SESSIONS))

    async def _make_app(self) -> web.Application:
        """textual-serve's routes, under the token's own path when there is a token (the entry
        page stays at /: the URL zdash serve prints)."""
        app = web.Application(middlewares=[self.connections.middleware(), guard(self.token)])
        import aiohttp_jinja2
        import jinja2

        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        prefix = f"/{private_path(self.token)}" if self.token else ""
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get(f"{prefix}/ws", self.handle_websocket, name="websocket"),
                # the page asks for downloads at /download/ whatever the prefix: the key (random,
                # 128 bits) names one delivery of this server's sessions
                web.get("/download/{key}", self.handle_download, name="download"),
                web.static(f"{prefix}/static", self.statics_path, name="static"),
            ]
        )
        app.on_startup.append(self.on_startup)
        app.on_shutdown.append(self.on_shutdown)
        return app

    async def on_startup(self, app: web.Application) -> None:
        """Not textual-serve's banner: zdash serve prints the one line that matters, the URL."""

    async def on_shutdown(self, app: web.Application) -> None:
        """End every session: its websocket closes and its zdash is told to quit."""
        for task in list(self.sessions):
            task.cancel()
        if self.sessions:
            await asyncio.wait(self.sessions, timeout=STOP_S)

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        # The websocket URL in the page: where this browser reached us, not where we are bound.
        # Behind a reverse proxy that adds TLS (and passes Host on), the page must ask for wss:.
        host = request.host if _HOST.fullmatch(request.host) else f"{self.host}:{self.port}"
        https = request.headers.get("X-Forwarded-Proto", request.scheme) == "https"
        self.public_url = f"{'https' if https else 'http'}://{host}"
        page = await super().handle_index(request)
        if self.fit_font and isinstance(page, web.Response) and page.text is not None:
            page.text = page.text.replace("</body>", FIT_FONT + "</body>", 1)
        return page

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        if len(self.sessions) >= MAX_SESSIONS:
            raise web.HTTPServiceUnavailable(
                text=f"zdash serve: {MAX_SESSIONS} browsers are connected already; close one\n"
            )
        task = asyncio.current_task()
        assert task is not None
        self.sessions.add(task)
        try:
            return await session(request, self.command, self)
        finally:
            self.sessions.discard(task)

    async def run(self, bound: Callable[[int], None]) -> None:
        """Serve until cancelled; `bound` gets the port once listening (an OSError when the
        address cannot be bound). No access log: a URL can hold the token."""
        quiet_logs()
        runner = CappedRunner(await self._make_app(), self.connections, access_log=None, handle_signals=False)
        await runner.setup()
        try:
            site = web.TCPSite(runner, self.host, self.port, shutdown_timeout=STOP_S, backlog=BACKLOG)
            await site.start()
            bound(runner.addresses[0][1])
            await asyncio.Event().wait()
        finally:
            with contextlib.suppress(asyncio.CancelledError):
                await runner.cleanup()
