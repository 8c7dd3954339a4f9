"""The token and origin guard in front of textual-serve, on the real served app (its page,
static files and websocket route) through aiohttp's test client: without the token, with a
wrong one and with the right one (then as the cookie the page's own requests carry, scoped to
the page's own path so no other service of the host receives it)."""

from __future__ import annotations

import pytest

pytest.importorskip("textual_serve", reason="the serve extra is not installed: pip install 'zdash[serve]'")
from aiohttp.test_utils import TestClient, TestServer

from zdash.serve.guard import COOKIE, is_loopback, new_token, private_path, token_problem
from zdash.serve.server import ZdashServer

TOKEN = "the-office-tv-token-0123456789"
OWN = f"/{private_path(TOKEN)}"  # where the page's scripts, styles and websocket live


@pytest.fixture
async def client(request):
    token = getattr(request, "param", TOKEN)
    server = ZdashServer("true", "127.0.0.1", 0, token)
    c = TestClient(TestServer(await server._make_app()))
    await c.start_server()
    yield c
    await c.close()


async def status(client: TestClient, path: str, **headers: str) -> int:
    async with client.get(path, headers=headers, allow_redirects=False) as r:
        await r.read()
        return r.status


async def test_no_token_wrong_token_right_token(client):
    assert await status(client, "/") == 403
    assert await status(client, "/?token=not-the-office-tv-token-xx") == 403
    async with client.get(f"/?token={TOKEN}") as r:
        page = await r.text()
        assert r.status == 200 and "textual-terminal" in page
        cookie = r.cookies[COOKIE]
        assert cookie.value == TOKEN and cookie["httponly"] and cookie["samesite"] == "Strict"
        assert cookie["path"] == f"{OWN}/"  # never "/": every port of the host would receive it
    # The page's websocket URL is where the browser reached us, not the bound 127.0.0.1:0.
    assert f'data-session-websocket-url="ws://{client.host}:{client.port}{OWN}/ws"' in page
    assert TOKEN not in OWN and len(OWN) > 16


async def test_the_cookie_carries_the_token_for_the_pages_own_requests_only(client):
    assert await status(client, f"{OWN}/static/js/textual.js") == 403
    assert await status(client, f"/?token={TOKEN}") == 200  # sets the cookie
    assert await status(client, f"{OWN}/static/js/textual.js") == 200
    assert await status(client, "/") == 403  # the cookie is not sent outside the page's path
    assert [c.key for c in client.session.cookie_jar.filter_cookies(client.make_url("/"))] == []


async def test_the_websocket_and_every_route_need_the_token(client):
    for path in (f"{OWN}/ws", f"{OWN}/static/css/xterm.css", "/ws", "/nothing-here"):
        assert await status(client, path) == 403, path
        assert await status(client, path, Cookie=f"{COOKIE}=not-the-office-tv-token-xx") == 403, path
    # A download is asked for at the root, cookie-less: its random key admits it, none else.
    assert await status(client, "/download/not-a-delivery-key") == 404


async def test_another_sites_page_is_refused_even_with_the_token(client):
    """Websockets skip CORS: without this, any page the TV or a desk opens could drive it."""
    evil = {"Origin": "http://evil.example"}
    assert await status(client, f"{OWN}/ws?token={TOKEN}", **evil) == 403
    own = {"Origin": f"http://{client.host}:{client.port}"}
    assert await status(client, f"/?token={TOKEN}", **own) == 200


@pytest.mark.parametrize("client", [None], indirect=True)
async def test_without_a_token_only_a_loopback_host_is_served(client):
    """DNS rebinding: a page on evil.example that resolves to 127.0.0.1 sends Host: evil.example."""
    assert await status(client, "/") == 200
    assert await status(client, "/", Host="localhost:10135") == 200
    assert await status(client, "/", Host="evil.example:10135") == 403
    assert await status(client, "/static/js/textual.js", Host="evil.example") == 403


def test_tokens_and_loopback():
    assert token_problem(new_token()) is None and new_token() != new_token()
    assert token_problem("x" * 15) and token_problem("y" * 16 + "/") and token_problem("é" * 16)
    assert all(is_loopback(h) for h in ("127.0.0.1", "localhost", "::1", "[::1]", "127.1.2.3"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "", "::", "10.0.0.5", "nas1", "localhost.evil"))


async def test_more_browsers_than_the_cap_are_told_so(client, monkeypatch):
    monkeypatch.setattr("zdash.serve.server.MAX_SESSIONS", 0)
    async with client.get(f"{OWN}/ws?token={TOKEN}") as r:
        assert r.status == 503 and "browsers are connected already" in await r.text()
