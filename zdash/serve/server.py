"""textual-serve's Server with zdash's guard in front, the page's URLs taken from the request
(the server may be bound to 0.0.0.0 or port 0, which no browser can open), a cap on sessions,
and a run loop that says the bound port and stops the browsers' zdash processes on the way out.

Each browser that opens the page gets its own process of `command` (textual-serve starts it
under Textual's web driver and relays its screen to xterm.js in the page)."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable

from aiohttp import web
from textual_serve.server import Server

from zdash.serve.guard import guard

# Each session is a zdash process of its own (~100 MB): a few TVs and desks, not a crowd.
MAX_SESSIONS = 10
# A Host header the page may repeat in its websocket URL: a name or address and a port.
_HOST = re.compile(r"[A-Za-z0-9.\-]+(:\d{1,5})?|\[[0-9A-Fa-f:.]+\](:\d{1,5})?")
STOP_S = 5.0  # the most a stop waits for the browsers' sessions to end


class ZdashServer(Server):
    def __init__(self, command: str, host: str, port: int, token: str | None) -> None:
        super().__init__(command, host=host, port=port, title="zdash")
        self.token = token
        self.sessions: set[asyncio.Task[object]] = set()

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.middlewares.append(guard(self.token))
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
        return await super().handle_index(request)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        if len(self.sessions) >= MAX_SESSIONS:
            raise web.HTTPServiceUnavailable(
                text=f"zdash serve: {MAX_SESSIONS} browsers are connected already; close one\n"
            )
        task = asyncio.current_task()
        assert task is not None
        self.sessions.add(task)
        try:
            return await super().handle_websocket(request)
        finally:
            self.sessions.discard(task)

    async def run(self, bound: Callable[[int], None]) -> None:
        """Serve until cancelled; `bound` gets the port once listening (an OSError when the
        address cannot be bound). No access log: a URL can hold the token."""
        runner = web.AppRunner(await self._make_app(), access_log=None, handle_signals=False)
        await runner.setup()
        try:
            site = web.TCPSite(runner, self.host, self.port, shutdown_timeout=STOP_S)
            await site.start()
            bound(runner.addresses[0][1])
            await asyncio.Event().wait()
        finally:
            with contextlib.suppress(asyncio.CancelledError):
                await runner.cleanup()
