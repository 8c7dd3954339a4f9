"""A viewer or a crowd against `zdash serve` and `zdash exporter` (class `exhaustion`), all on
loopback and bounded: a 6000x6000 resize, messages that are not JSON, tabs that vanish without a
goodbye, thousands of idle connections under systemd's default `ulimit -n 1024`, slow requests.
Both must keep answering, keep their memory, end a gone viewer's session, and log a bad client
in a line, never a traceback."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import resource
import select
import selectors
import socket
import struct
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator

import psutil

from tests.faults.harness import Failed, Sandbox, kill_group, zdash_executable
from tests.hostile.harness import Skipped, add, expect, probe

IDLE_CONNECTIONS = 2000
FD_LIMIT = 1024  # systemd's default soft limit for a service
RSS_LIMIT = 200 << 20


class Server:
    """`zdash serve` or `zdash exporter` on a free loopback port, with its own fd limit."""

    def __init__(self, sb: Sandbox, kind: str, *argv: str, nofile: int | None = None) -> None:
        self.kind = kind

        def limits() -> None:
            if nofile:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        args = (
            ["serve", "--listen", "127.0.0.1:0", *argv]
            if kind == "serve"
            else ["exporter", "--listen", "127.0.0.1:0", "--interval", "1", *argv]
        )
        self.proc = subprocess.Popen(
            [zdash_executable(), *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=sb.dir,
            env=sb.env(),
            start_new_session=True,
            preexec_fn=limits,
        )
        self.err = b""
        self.out = b""
        self.url = self._wait_url()

    def _wait_url(self) -> str:
        deadline = time.monotonic() + 30
        pattern = rb"(http://127\.0\.0\.1:\d+/\S*)"
        while time.monotonic() < deadline:
            self.pump(0.2)
            found = re.search(pattern, self.out + self.err)
            if found:
                return found.group(1).decode()
            if self.proc.poll() is not None:
                break
        raise Failed("fail", f"zdash {self.kind} printed no URL: {(self.out + self.err)[-300:]!r}")

    @property
    def base(self) -> str:
        return re.match(r"http://[^/]+", self.url).group(0)  # type: ignore[union-attr]

    def pump(self, wait: float = 0.0) -> None:
        """Read what the server printed so far (its log)."""
        streams = [s for s in (self.proc.stdout, self.proc.stderr) if s is not None]
        ready, _, _ = select.select(streams, [], [], wait)
        for s in ready:
            chunk = os.read(s.fileno(), 1 << 16)
            if s is self.proc.stdout:
                self.out += chunk
            else:
                self.err += chunk

    def log(self) -> str:
        """What it printed, once every browser session it ended has ended (bounded: 10 s) and it
        has been quiet for half a second: a session's error is logged after its zdash stops."""
        deadline = time.monotonic() + 10
        while self.sessions() and time.monotonic() < deadline:
            self.pump(0.2)
        quiet_since = time.monotonic()
        while time.monotonic() - quiet_since < 0.5 and time.monotonic() < deadline + 5:
            before = len(self.out) + len(self.err)
            self.pump(0.1)
            if len(self.out) + len(self.err) != before:
                quiet_since = time.monotonic()
        return (self.out + self.err).decode("utf-8", "replace")

    def no_traceback(self, limit_lines: int = 40) -> None:
        log = self.log()
        expect(
            "Traceback" not in log,
            f"zdash {self.kind} logged a traceback: {log[log.find('Traceback') :][:300]!r}",
            "traceback",
        )
        lines = log.count("\n")
        expect(lines <= limit_lines, f"zdash {self.kind} logged {lines} lines: {log[-300:]!r}")

    def sessions(self) -> list[psutil.Process]:
        """The zdash processes serve started for browsers."""
        try:
            kids = psutil.Process(self.proc.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []
        out = []
        for k in kids:
            with contextlib.suppress(psutil.Error):
                if "zdash" in " ".join(k.cmdline()) and k.status() != psutil.STATUS_ZOMBIE:
                    out.append(k)
        return out

    def close(self) -> None:
        if self.proc.poll() is None:
            kill_group(self.proc)
        for s in (self.proc.stdout, self.proc.stderr):
            if s is not None:
                s.close()


@contextlib.contextmanager
def server(sb: Sandbox, kind: str, *argv: str, nofile: int | None = None) -> Iterator[Server]:
    srv = Server(sb, kind, *argv, nofile=nofile)
    try:
        yield srv
    finally:
        srv.close()


def get(url: str, timeout: float = 15.0) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")


async def _session(base: str, width: int = 80, height: int = 24):
    import aiohttp

    session = aiohttp.ClientSession()
    ws = await session.ws_connect(f"{base.replace('http://', 'ws://')}/ws?width={width}&height={height}")
    return session, ws


async def _first_screen(ws, timeout: float = 30.0) -> None:
    import aiohttp

    deadline = time.monotonic() + timeout
    got = 0
    while got < 2000 and time.monotonic() < deadline:
        try:
            msg = await ws.receive(timeout=max(0.1, deadline - time.monotonic()))
        except asyncio.TimeoutError:
            break
        if msg.type == aiohttp.WSMsgType.BINARY:
            got += len(msg.data)
        elif msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
            break
    expect(got > 0, "the served dashboard drew nothing")


def _needs_serve() -> None:
    try:
        import textual_serve  # noqa: F401
    except ImportError:
        raise Skipped("the serve extra is not installed") from None


def _rss_of(srv: Server) -> int:
    total = 0
    for p in srv.sessions():
        with contextlib.suppress(psutil.Error):
            total = max(total, p.memory_info().rss)
    return total


def _resize(width: int, height: int, initial: bool) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        _needs_serve()

        async def go(srv: Server) -> int:
            session, ws = await _session(srv.base, *((width, height) if initial else (80, 24)))
            try:
                await _first_screen(ws)
                if not initial:
                    await ws.send_str(json.dumps(["resize", {"width": width, "height": height}]))
                worst = 0
                deadline = time.monotonic() + 12
                while time.monotonic() < deadline:
                    with contextlib.suppress(asyncio.TimeoutError):
                        await ws.receive(timeout=0.5)  # keep reading: a browser would
                    worst = max(worst, _rss_of(srv))
                    if worst > RSS_LIMIT:
                        break
                return worst
            finally:
                await ws.close()
                await session.close()

        with server(sb, "serve", "--demo") as srv:
            worst = asyncio.run(go(srv))
            expect(worst <= RSS_LIMIT, f"a {width}x{height} terminal took the session to {worst >> 20} MB")
            srv.no_traceback()

    return fn


add("exhaustion", "serve-resize-6000x6000", _resize(6000, 6000, False), 60)
add("exhaustion", "serve-initial-size-6000x6000", _resize(6000, 6000, True), 60)


def _bad_messages(messages: list[str | bytes]) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        _needs_serve()

        async def go(srv: Server) -> None:
            session, ws = await _session(srv.base)
            try:
                await _first_screen(ws)
                for m in messages:
                    if isinstance(m, bytes):
                        await ws.send_bytes(m)
                    else:
                        await ws.send_str(m)
                with contextlib.suppress(asyncio.TimeoutError):
                    await ws.receive(timeout=1.0)
            finally:
                await ws.close()
                await session.close()

        with server(sb, "serve", "--demo") as srv:
            asyncio.run(go(srv))
            status, _ = get(srv.base + "/")
            expect(status == 200, f"the page no longer loads ({status})")
            srv.no_traceback()

    return fn


add("exhaustion", "serve-message-not-json", _bad_messages(["not json {", "[1,2", "\x00\xff"]), 40)
add(
    "exhaustion",
    "serve-message-wrong-shape",
    _bad_messages(['{"a":1}', "[]", '["resize"]', '["resize",{"width":"x"}]', '["stdin",5]', "42"]),
    40,
)
add(
    "exhaustion",
    "serve-resize-garbage-sizes",
    _bad_messages(['["resize",{"width":-5,"height":1e308}]', '["resize",{"width":null,"height":[1]}]']),
    40,
)


def _gone(how: str) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        _needs_serve()

        async def go(srv: Server) -> None:
            session, ws = await _session(srv.base)
            await _first_screen(ws)
            if how == "reset":  # the browser killed: the connection reset, no close frame
                sock = ws._response.connection.transport.get_extra_info("socket")
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                ws._response.connection.transport.abort()
            else:  # an ordinary tab close
                await ws.close()
            await session.close()

        with server(sb, "serve", "--demo") as srv:
            asyncio.run(go(srv))
            deadline = time.monotonic() + 10
            while srv.sessions() and time.monotonic() < deadline:
                time.sleep(0.2)
            left = srv.sessions()
            expect(not left, f"{len(left)} session(s) still running 10 s after the browser went ({how})")
            srv.no_traceback()

    return fn


add("exhaustion", "serve-tab-closed-ends-session", _gone("close"), 40)
add("exhaustion", "serve-browser-killed-ends-session", _gone("reset"), 40)


def _raise_own_limit(n: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < n:
        if hard != resource.RLIM_INFINITY and hard < n:
            raise Skipped(f"this test process may open only {hard} files; {n} are needed")
        resource.setrlimit(resource.RLIMIT_NOFILE, (n, hard))


def _until_connected(socks: list[socket.socket], bound: float) -> None:
    """Until every connection's handshake is done (writable: connected, or refused), at most
    `bound` seconds: the crowd is at the server before the scrape, however loaded the machine."""
    with selectors.DefaultSelector() as sel:
        for s in socks:
            sel.register(s, selectors.EVENT_WRITE)
        pending, deadline = len(socks), time.monotonic() + bound
        while pending and time.monotonic() < deadline:
            for key, _ in sel.select(timeout=0.2):
                sel.unregister(key.fileobj)
                pending -= 1


def _idle_flood(kind: str, count: int, partial: bool) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        if kind == "serve":
            _needs_serve()
        _raise_own_limit(count + 256)
        with server(sb, kind, *(["--demo"] if kind == "serve" else []), nofile=FD_LIMIT) as srv:
            host, port = srv.base.removeprefix("http://").rsplit(":", 1)
            socks = []
            try:
                for n in range(count):
                    s = socket.socket()
                    s.setblocking(False)
                    with contextlib.suppress(BlockingIOError, OSError):
                        s.connect((host, int(port)))
                    socks.append(s)
                    if partial:
                        with contextlib.suppress(OSError):
                            s.send(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")  # and never the end
                    if n % 10 == 9:  # paced as a crowd arrives: each is accepted, none dropped
                        time.sleep(0.02)
                _until_connected(socks, 10)
                path = "/metrics" if kind == "exporter" else "/"
                started = time.monotonic()
                status, body = get(srv.base + path, timeout=20)
                expect(status == 200, f"with {count} idle connections the {path} answer was {status}")
                expect(time.monotonic() - started < 20, "the answer took over 20 s")
                if kind == "exporter":
                    expect("zdash_" in body, "the scrape holds no zdash metric")
            except (OSError, urllib.error.URLError) as e:
                raise Failed("fail", f"with {count} idle connections, {kind} did not answer: {e}") from None
            finally:
                for s in socks:
                    s.close()
            srv.pump(0.5)
            srv.no_traceback()

    return fn


add(
    "exhaustion",
    "serve-2000-idle-connections-fd-limit-1024",
    _idle_flood("serve", IDLE_CONNECTIONS, False),
    90,
)
add(
    "exhaustion",
    "exporter-2000-idle-connections-fd-limit-1024",
    _idle_flood("exporter", IDLE_CONNECTIONS, False),
    90,
)
add("exhaustion", "exporter-slow-requests-fd-limit-1024", _idle_flood("exporter", 1200, True), 90)


@probe("exhaustion", timeout=40)
def p_serve_cookie_is_scoped_to_serve(sb: Sandbox) -> None:
    """The token's cookie is not sent to every web service of the host: it has a Path of
    serve's own (browsers ignore the port), and a name of its port."""
    _needs_serve()
    with server(sb, "serve", "--demo", "--token", "Secret-token-for-the-probe-0123") as srv:
        req = urllib.request.Request(srv.url)
        with urllib.request.urlopen(req, timeout=15) as r:
            cookies = r.headers.get_all("Set-Cookie") or []
        expect(bool(cookies), "no cookie set")
        for c in cookies:
            path = re.search(r"(?i);\s*path=([^;]*)", c)
            expect(
                path is not None and path.group(1).strip() not in ("/", ""), f"cookie for the whole host: {c}"
            )
