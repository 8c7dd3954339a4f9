"""What keeps `zdash serve` answering under a viewer or a crowd (issue #25): a cap on open
connections below the process's file limit, idle connections given up first, 503 beyond, and a
log that says a client's error in one line, never a traceback, never a flood.

Measured before: ~1,100 idle TCP connections under systemd's default `ulimit -n 1024` took every
file descriptor; asyncio then failed each accept() with EMFILE and logged it with a traceback
(144,255 tracebacks, 58 MB in 16 s) and no page loaded.

- The cap: at most MAX_CONNECTIONS, and never closer to the file limit than the listen backlog
  (asyncio accepts up to a backlog of connections before any of them is seen), the sessions'
  pipes and a margin allow.
- Past the cap a new connection takes the place of the oldest idle one: one that has not sent a
  whole request yet or sits between requests (a browser's keep-alive, a crowd that connects and
  says nothing). Only when every connection is busy (a request being answered, a websocket's
  session) is the newcomer answered 503 and closed.
- Idle connections end on their own after IDLE_S (aiohttp's keep-alive timeout, which also
  covers a connection that never sends a request).
"""

from __future__ import annotations

import asyncio
import logging
import resource
import sys
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from aiohttp import web

if TYPE_CHECKING:
    from aiohttp.typedefs import Handler, Middleware

MAX_CONNECTIONS = 256  # a few TVs and desks: each browser holds a websocket and a few fetches
BACKLOG = 128  # the listen backlog: connections the kernel holds before zdash sees them
RESERVE = 64  # files zdash itself needs (its Python, its logs, a session's start)
PIPES_PER_SESSION = 4  # a session's stdin, stdout, stderr and its process
IDLE_S = 15.0  # an idle connection's life: a browser reuses one within a second or two
BUSY = b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nConnection: close\r\n"
BUSY_TEXT = b"zdash serve: too many connections; try again shortly\n"
LOG_EVERY_S = 60.0  # the same problem is logged at most once a minute


def connection_cap(sessions: int, limit: int | None = None) -> int:
    """How many connections to keep open at most, below the soft file limit."""
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0] if limit is None else limit
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    room = soft - BACKLOG - RESERVE - PIPES_PER_SESSION * sessions
    return max(8, min(MAX_CONNECTIONS, room))


class Connections:
    """The open connections, oldest first, and which are busy (a request or a session in
    progress, marked by the middleware). Hooked into aiohttp's low-level server (`attach`)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.open: OrderedDict[asyncio.BaseTransport, None] = OrderedDict()
        self.busy: dict[asyncio.BaseTransport, int] = {}
        self.refused = 0
        self.evicted = 0

    def attach(self, server: web.Server) -> None:
        """Follow `server`'s connections: its connection_made/lost hooks, wrapped."""
        made, lost = server.connection_made, server.connection_lost

        def connection_made(handler: Any, transport: asyncio.Transport) -> None:
            made(handler, transport)
            self.arrived(transport)

        def connection_lost(handler: Any, exc: BaseException | None = None) -> None:
            transport = getattr(handler, "transport", None)
            if transport is not None:
                self.left(transport)
            lost(handler, exc)

        server.connection_made = connection_made  # type: ignore[method-assign]
        server.connection_lost = connection_lost  # type: ignore[method-assign]

    def arrived(self, transport: asyncio.BaseTransport) -> None:
        self.open[transport] = None
        if len(self.open) <= self.cap:
            return
        idle = next((t for t in self.open if t not in self.busy and t is not transport), None)
        if idle is not None:
            self.evicted += 1
            self.left(idle)
            if isinstance(idle, asyncio.Transport):
                idle.abort()  # the oldest idle one makes room
            else:
                idle.close()
            return
        self.refused += 1
        self.left(transport)
        if isinstance(transport, asyncio.WriteTransport):
            transport.write(BUSY + b"Content-Length: %d\r\n\r\n" % len(BUSY_TEXT) + BUSY_TEXT)
        transport.close()
        once("zdash serve: every connection is busy; new ones are answered 503 until one ends")

    def left(self, transport: asyncio.BaseTransport) -> None:
        self.open.pop(transport, None)
        self.busy.pop(transport, None)

    def middleware(self) -> Middleware:
        """Marks a connection busy while a request (or a websocket's whole session) runs."""

        @web.middleware
        async def mark(request: web.Request, handler: Handler) -> web.StreamResponse:
            transport = request.transport
            if transport is None:
                return await handler(request)
            self.busy[transport] = self.busy.get(transport, 0) + 1
            try:
                return await handler(request)
            finally:
                n = self.busy.get(transport, 0) - 1
                if n > 0:
                    self.busy[transport] = n
                else:
                    self.busy.pop(transport, None)

        return mark


class CappedRunner(web.AppRunner):
    """aiohttp's AppRunner whose server's connections `connections` follows."""

    def __init__(self, app: web.Application, connections: Connections, **kwargs: Any) -> None:
        super().__init__(app, keepalive_timeout=IDLE_S, **kwargs)
        self.connections = connections

    async def _make_server(self) -> web.Server:
        server = await super()._make_server()
        self.connections.attach(server)
        return server


# -- the log: one line per problem, at most once a minute ---------------------------------------------

_said: dict[str, float] = {}


def once(line: str) -> None:
    """Print `line` on stderr unless it was printed in the last LOG_EVERY_S."""
    now = time.monotonic()
    if now - _said.get(line, -LOG_EVERY_S) >= LOG_EVERY_S:
        _said[line] = now
        print(line, file=sys.stderr, flush=True)


class _OneLine(logging.Handler):
    """What a library logs (aiohttp, asyncio, textual-serve): its message on one line, its
    exception's type and text, never the traceback; each at most once a minute."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = " ".join(record.getMessage().split())[:300]
            if record.exc_info and record.exc_info[1] is not None:
                error = record.exc_info[1]
                message += f" ({type(error).__name__}: {' '.join(str(error).split())[:200]})"
            once(f"zdash serve: {message}")
        except Exception:  # noqa: BLE001 - logging must never raise
            pass


def quiet_logs() -> None:
    """Route the libraries' loggers through _OneLine: under a flood of bad clients a traceback
    per connection was megabytes a second."""
    handler = _OneLine(logging.WARNING)
    for name in ("aiohttp", "asyncio", "textual-serve"):
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.propagate = False
        logger.setLevel(logging.WARNING)
