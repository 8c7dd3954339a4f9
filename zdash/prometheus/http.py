"""The exporter's HTTP side: prometheus_client's own WSGI app and threading server, bounded.

prometheus_client's start_http_server gives each connection a thread that waits for a request
as long as the peer likes. Measured before (issue #25): ~1,100 idle TCP connections under
systemd's default `ulimit -n 1024` took every file descriptor, accept() failed with EMFILE from
then on (socketserver swallows it and spins), and no scrape was answered again. Here:

- A connection that has not sent its whole request within REQUEST_S is closed (the socket's
  timeout: a slow sender cannot hold a thread for long).
- At most `cap` connections are open (below the file limit; MAX_CONNECTIONS at most). Past the
  cap a new connection takes the place of the oldest one still waiting for its request; only
  when every one is being answered is the newcomer answered 503 and closed.
- Nothing is logged per request (no request ever held a secret here, but a flood of lines is
  a flood).
"""

from __future__ import annotations

import contextlib
import resource
import socket
import threading
from collections import OrderedDict
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import CollectorRegistry, make_wsgi_app

MAX_CONNECTIONS = 64  # Prometheus scrapes once every few seconds; a few humans curl it
REQUEST_S = 10.0  # the most a connection may take to send its request
RESERVE = 64  # files the exporter itself needs (zpool children, /proc, its Python)
BACKLOG = 64
BUSY = (
    b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"
    b"zdash exporter: too many connections; try again shortly\n"
)


def connection_cap(limit: int | None = None) -> int:
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0] if limit is None else limit
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(4, min(MAX_CONNECTIONS, soft - BACKLOG - RESERVE))


class _Handler(WSGIRequestHandler):
    """No log line per request; the socket times out while the request is read; the server is
    told once the request is in (it is then being answered, no longer idle)."""

    timeout = REQUEST_S
    server: BoundedServer

    def parse_request(self) -> bool:
        ok = super().parse_request()  # the request line and every header are in
        if ok:
            self.server.answering(self.connection)
        return ok

    def log_message(self, format: str, *args: Any) -> None:
        """Log nothing."""


class BoundedServer(ThreadingMixIn, WSGIServer):
    """A thread per connection, at most `cap` of them; idle ones give way to new ones."""

    daemon_threads = True
    request_queue_size = BACKLOG
    cap = MAX_CONNECTIONS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.lock = threading.Lock()
        self.open: OrderedDict[socket.socket, bool] = OrderedDict()  # socket -> answering
        super().__init__(*args, **kwargs)

    def answering(self, conn: socket.socket) -> None:
        with self.lock:
            if conn in self.open:
                self.open[conn] = True

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.lock:
            victim = None
            if len(self.open) >= self.cap:
                victim = next((s for s, busy in self.open.items() if not busy), None)
                if victim is None:
                    refuse = True
                else:
                    del self.open[victim]
                    refuse = False
            else:
                refuse = False
            if not refuse:
                self.open[request] = False
        if victim is not None:
            with contextlib.suppress(OSError):
                victim.shutdown(socket.SHUT_RDWR)  # its thread's read ends: the thread closes it
        if refuse:
            with contextlib.suppress(OSError):
                request.settimeout(1.0)
                request.sendall(BUSY)
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.lock:
            self.open.pop(request, None)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that vanished mid-answer is no error worth a traceback."""


def serve_metrics(host: str, port: int, registry: CollectorRegistry) -> BoundedServer:
    """/metrics (any path, as prometheus_client answers) on host:port from a daemon thread.
    Raises OSError when the address cannot be bound."""
    infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family = infos[0][0] if infos else socket.AF_INET

    class Server(BoundedServer):
        address_family = family
        cap = connection_cap()

    httpd = make_server(host, port, make_wsgi_app(registry), Server, handler_class=_Handler)
    thread = threading.Thread(target=httpd.serve_forever, name="zdash-exporter-http", daemon=True)
    thread.start()
    return httpd
