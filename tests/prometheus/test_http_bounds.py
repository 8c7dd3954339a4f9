"""The exporter's HTTP side bounded (issue #25): past its connection cap, connections that have
not sent their request give way to a new one, so a scrape is answered while a crowd holds idle
connections; a request that never ends is closed after its timeout. (2,000 real connections
under `ulimit -n 1024`: tests/hostile/floods.py.)"""

from __future__ import annotations

import socket
import time
import urllib.request

from prometheus_client import CollectorRegistry

from zdash.prometheus import http
from zdash.prometheus.http import BoundedServer, serve_metrics


def test_idle_connections_give_way_to_a_scrape(monkeypatch):
    monkeypatch.setattr(http, "connection_cap", lambda: 4)
    server = serve_metrics("127.0.0.1", 0, CollectorRegistry())
    idle = []
    try:
        port = server.server_address[1]
        for _ in range(10):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")  # and never the end of it
            idle.append(s)
        deadline = time.monotonic() + 10
        while len(server.open) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert isinstance(server, BoundedServer) and len(server.open) <= 4
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
            assert r.status == 200
        assert len(server.open) <= 4
    finally:
        for s in idle:
            s.close()
        server.shutdown()
        server.server_close()


def test_a_request_that_never_ends_is_closed(monkeypatch):
    monkeypatch.setattr(http._Handler, "timeout", 0.5)
    server = serve_metrics("127.0.0.1", 0, CollectorRegistry())
    try:
        s = socket.create_connection(("127.0.0.1", server.server_address[1]))
        s.sendall(b"GET /metrics HTTP/1.1\r\n")
        s.settimeout(10)
        started = time.monotonic()
        assert s.recv(100) == b"" and time.monotonic() - started < 5  # closed by the server
        s.close()
    finally:
        server.shutdown()
        server.server_close()
